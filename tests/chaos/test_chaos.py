"""The short form of the chaos suite (tests/chaos/harness.py): half a minute of mixed load on the
production topology, its chain node in the storm, while each fault is injected once, then every
invariant (about a minute of
the suite's time, plus the topology the deploy tests start anyway). The load is paced to what
the machine settles (harness.Plan), so the drain is short. The long form is
``make chaos`` (``python -m tests.chaos``: ten minutes or more, every fault at least five times;
its figures are in docs/reliability.md)."""

from __future__ import annotations

import pytest

from deploy.topology import Topology
from tests.chaos.harness import FAULTS, Plan, chaos, set_weather

pytestmark = pytest.mark.slow


async def test_every_fault_once_in_a_storm_loses_nothing(topology: Topology) -> None:
    """Each fault injected once under mixed load while the chain node is in the storm (issue
    39: dropped sends, 429s above its rate, a lagging node, congestion;
    devchain/node/weather.py); then every operation reaches one terminal state with the ledger
    equal to the chain, every deposit sent is credited, no 500, and the request rate stays
    within the budget. (One phase for both: the faults' and the weather's phases took 86 s and
    66 s of the suite apart; ``make chaos`` runs every weather with and without faults.)"""
    plan = Plan(
        seconds=25, fault_every=4, rate=2.5, min_each=1, drain_seconds=240, stall_seconds=90,
        lock_seconds=(5.0, 15.0), weather="storm",
    )  # fmt: skip
    try:
        figures = await chaos(topology, plan)
    finally:
        await set_weather(topology, "calm")
    print(figures.report())
    assert set(figures.faults) == set(FAULTS), figures.report()
    assert sum(len(ids) for ids in figures.accepted.values()) > 40, figures.report()
    assert figures.weather is not None, figures.report()
    assert figures.weather.completed == figures.weather.accepted, figures.report()
    assert not figures.server_errors, figures.report()
    assert not figures.violations, figures.report()
    assert figures.weather.peak_rate <= figures.weather.budget * 1.05, figures.report()
