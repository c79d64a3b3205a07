"""Start the webhook pump workflow of a task queue, once (idempotent, cached per process)."""

from __future__ import annotations

import time

from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy

from core.workflow_ids import pump_workflow_id
from workflows.webhooks import PumpWorkflowInput, WebhookPumpWorkflow

_ENSURED: dict[str, float] = {}
_RECHECK_SECONDS = 60.0


async def ensure_pump(client: Client, task_queue: str, *, force: bool = False) -> None:
    """Make sure the pump of ``task_queue`` runs (a running one is kept as it is)."""
    if not force and _ENSURED.get(task_queue, 0.0) > time.monotonic():
        return
    await client.start_workflow(
        WebhookPumpWorkflow.run,
        PumpWorkflowInput(),
        id=pump_workflow_id(task_queue),
        task_queue=task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
    _ENSURED[task_queue] = time.monotonic() + _RECHECK_SECONDS
