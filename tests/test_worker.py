"""The worker registers its workflows and runs them on a real Temporal server."""

from __future__ import annotations

import uuid

from temporalio.testing import WorkflowEnvironment

from activities.deps import worker_deps
from core.config import Settings
from worker import build_worker
from workflows.reference import PingInput, PingWorkflow


async def test_ping_workflow_runs_through_the_worker(
    temporal_env: WorkflowEnvironment, worker_settings: Settings
) -> None:
    queue = f"test-{uuid.uuid4().hex[:8]}"
    async with (
        worker_deps(worker_settings) as deps,
        build_worker(temporal_env.client, deps, task_queue=queue),
    ):
        result = await temporal_env.client.execute_workflow(
            PingWorkflow.run,
            PingInput(message="hello"),
            id=f"ping-{uuid.uuid4().hex}",
            task_queue=queue,
        )
    assert result.echoed == "hello"
