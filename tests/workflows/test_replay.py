"""Replay the recorded histories (tests/workflows/histories/*.json) with today's workflow code:
a change that would break the workflows running in production (a command added, removed or
reordered without ``workflow.patched``) fails here. ``<Type>.json`` is one run of each type
(often a rejection path); ``<Type>.<scenario>.json`` a main path built on a real world
(tests/workflows/scenarios.py). Re-record after a deliberate change with
``python -m tests.workflows.record`` (see that module)."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from tests.workflows.record import HISTORIES, type_name
from tests.workflows.scenarios import SCENARIOS, scenario_type
from worker import WORKFLOW_RUNNER, WORKFLOWS

RECORDED = {p.stem: p.read_text() for p in sorted(HISTORIES.glob("*.json"))}
REGISTERED = {type_name(c) for c in WORKFLOWS}


@pytest.mark.parametrize("name", list(RECORDED))
async def test_recorded_history_replays(name: str) -> None:
    history = WorkflowHistory.from_json(f"recorded-{name}", RECORDED[name])
    replayer = Replayer(workflows=list(WORKFLOWS), workflow_runner=WORKFLOW_RUNNER)
    await replayer.replay_workflow(history)  # raises on non-determinism


def test_every_workflow_type_has_a_recorded_history() -> None:
    missing = sorted(REGISTERED - set(RECORDED))
    assert not missing, f"record them: python -m tests.workflows.record {' '.join(missing)}"


def test_every_scenario_has_a_recorded_history() -> None:
    """A main path recorded once stays recorded (a re-record that lost it fails here)."""
    assert {scenario_type(n) for n in SCENARIOS} <= REGISTERED, list(SCENARIOS)
    missing = sorted(set(SCENARIOS) - set(RECORDED))
    assert not missing, f"record them: python -m tests.workflows.record {' '.join(missing)}"


def test_every_recorded_history_is_of_a_workflow_type_still_registered() -> None:
    """``<Type>.json`` of a registered type, or ``<Type>.<scenario>.json`` of a scenario of
    tests/workflows/scenarios.py (what a full recording keeps; it deletes the rest)."""
    stale = sorted(
        n
        for n in RECORDED
        if scenario_type(n) not in REGISTERED or ("." in n and n not in SCENARIOS)
    )
    assert not stale, (
        f"gone from worker.WORKFLOWS or SCENARIOS (re-record all to drop them): {stale}"
    )
