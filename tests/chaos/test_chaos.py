"""The short form of the chaos suite (tests/chaos/harness.py): a minute of mixed load on the
production topology while each fault is injected once, then every invariant (about a minute of
the suite's time, plus the topology the deploy tests start anyway). The load is paced to what
the machine settles (harness.Plan), so the drain is short. The long form is
``make chaos`` (``python -m tests.chaos``: ten minutes or more, every fault at least five times;
its figures are in docs/reliability.md)."""

from __future__ import annotations

import pytest

from deploy.topology import Topology
from tests.chaos.harness import FAULTS, Plan, chaos, set_weather

pytestmark = pytest.mark.slow


async def test_every_fault_once_under_load_loses_nothing(topology: Topology) -> None:
    plan = Plan(
        seconds=25, fault_every=4, rate=3.0, min_each=1, drain_seconds=240, stall_seconds=90,
        lock_seconds=(5.0, 15.0),
    )  # fmt: skip
    figures = await chaos(topology, plan)
    print(figures.report())
    assert set(figures.faults) == set(FAULTS), figures.report()
    assert sum(len(ids) for ids in figures.accepted.values()) > 50, figures.report()
    assert not figures.server_errors, figures.report()
    assert not figures.violations, figures.report()


async def test_a_storm_phase_loses_nothing(topology: Topology) -> None:
    """Issue 39: the chain node in the storm (dropped sends, 429s above its rate, a lagging
    node, congestion: devchain/node/weather.py) under a short load without faults; every
    operation reaches one terminal state with the ledger equal to the chain, every deposit sent
    is credited, no 500, and the request rate stays within the budget."""
    plan = Plan(
        seconds=25, fault_every=60, rate=2.0, min_each=0, faults=(), drain_seconds=150,
        stall_seconds=90, lock_seconds=(5.0, 10.0), weather="storm",
    )  # fmt: skip
    try:
        figures = await chaos(topology, plan)
    finally:
        await set_weather(topology, "calm")
    print(figures.report())
    assert figures.weather is not None, figures.report()
    assert figures.weather.completed == figures.weather.accepted, figures.report()
    assert not figures.server_errors, figures.report()
    assert not figures.violations, figures.report()
    assert figures.weather.peak_rate <= figures.weather.budget * 1.05, figures.report()
