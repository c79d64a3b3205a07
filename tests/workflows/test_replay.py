"""Replay the recorded histories (tests/workflows/histories/*.json) with today's workflow code:
a change that would break the workflows running in production (a command added, removed or
reordered without ``workflow.patched``) fails here. Re-record after a deliberate change with
``python -m tests.workflows.record`` (see that module)."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from tests.workflows.record import HISTORIES, type_name
from worker import WORKFLOW_RUNNER, WORKFLOWS

RECORDED = {p.stem: p.read_text() for p in sorted(HISTORIES.glob("*.json"))}


@pytest.mark.parametrize("name", list(RECORDED))
async def test_recorded_history_replays(name: str) -> None:
    history = WorkflowHistory.from_json(f"recorded-{name}", RECORDED[name])
    replayer = Replayer(workflows=list(WORKFLOWS), workflow_runner=WORKFLOW_RUNNER)
    await replayer.replay_workflow(history)  # raises on non-determinism


def test_every_workflow_type_has_a_recorded_history() -> None:
    missing = sorted(type_name(c) for c in WORKFLOWS if type_name(c) not in RECORDED)
    assert not missing, f"record them: python -m tests.workflows.record {' '.join(missing)}"


def test_every_recorded_history_is_of_a_workflow_type_still_registered() -> None:
    stale = sorted(set(RECORDED) - {type_name(c) for c in WORKFLOWS})
    assert not stale, f"gone from worker.WORKFLOWS (re-record all to drop them): {stale}"
