"""The long form of the chaos suite (``make chaos``): the production topology of
docker-compose.yml as processes, ``--minutes`` of mixed load (ten by default) while the faults of
tests/chaos/harness.py are injected in turn every ``--every`` seconds (each at least five times
in ten minutes), then the invariants; prints the figures docs/reliability.md records and exits
non-zero on any violation.

    python -m tests.chaos [--minutes 10] [--every 12] [--rate 4] [--weather all]
                          [--transfers 100] [--deposits 1] [--dir /tmp/mccgw-chaos]

``--second-provider SECONDS`` gives the apps two RPC providers (``SOLANA_RPC_URLS``: a proxy
process in front of the node, tests/chaos/provider.py, then the node itself) and kills the proxy
that many seconds into the run: the run must complete on the node alone.

``--weather`` runs one phase per profile of the node's weather (devchain/node/weather.py), each
with the same load and faults and its own invariants and figures (docs/reliability.md).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from deploy.image import build_image
from deploy.topology import Topology
from devchain.node.weather import PROFILES
from tests.chaos.harness import FAULTS, Plan, chaos
from tests.chaos.provider import SecondProvider
from tests.topology_fixtures import TOPOLOGY_ENV


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.chaos", description=__doc__)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--every", type=float, default=12.0, help="seconds between faults")
    parser.add_argument("--rate", type=float, default=4.0, help="requests per second at most")
    parser.add_argument(
        "--max-open", type=int, default=40, help="operations not yet done above which load waits"
    )
    parser.add_argument(
        "--dir", type=Path, default=Path("/tmp/mccgw-chaos"),
        help="the topology's state; its logs/ (API, workers, node) are kept after the run",
    )  # fmt: skip
    parser.add_argument(
        "--weather",
        default="calm",
        help="the chain node's weather, phase after phase: a comma list of calm, dropped, "
        "rate-limited, lagging, congested, storm, or 'all' (each phase --minutes long)",
    )
    parser.add_argument(
        "--transfers", type=int, default=0,
        help="each phase's load goes on until this many transfers were accepted",
    )  # fmt: skip
    parser.add_argument(
        "--deposits", type=int, default=0,
        help="each phase sends this many deposits (0: one every 5 s of load)",
    )  # fmt: skip
    parser.add_argument(
        "--second-provider", type=float, default=None, metavar="SECONDS",
        help="two RPC providers (a proxy first, then the node); the proxy killed this many "
        "seconds into the run",
    )  # fmt: skip
    parser.add_argument(
        "--no-faults", action="store_true", help="the weather alone: load, drain, invariants"
    )
    args = parser.parse_args()
    profiles = list(PROFILES) if args.weather == "all" else args.weather.split(",")
    unknown = [p for p in profiles if p not in PROFILES]
    if unknown:
        parser.error(f"unknown weather {unknown}: one of {', '.join(PROFILES)}")
    os.environ.setdefault("ENVIRONMENT", "test")
    state: Path = args.dir.resolve()
    shutil.rmtree(state, ignore_errors=True)
    (state / "image").mkdir(parents=True)
    state.chmod(0o755)
    print(f"chaos: building the image into {state / 'image'}", flush=True)
    topo = Topology(
        build_image(state / "image"),
        state,
        extra_env=dict(TOPOLOGY_ENV),
    )
    provider = None
    if args.second_provider is not None:
        node = f"http://127.0.0.1:{topo.ports.rpc}"
        provider = SecondProvider(node, state / "logs" / "provider-2.log")
        topo.extra_env["SOLANA_RPC_URLS"] = f"{provider.url},{node}"
        provider.start()
    plan = Plan(
        seconds=args.minutes * 60, fault_every=args.every, rate=args.rate, min_each=5,
        max_open=args.max_open, transfers=args.transfers, deposits=args.deposits,
    )  # fmt: skip
    if args.no_faults:
        plan = replace(plan, faults=(), min_each=0)
    rounds = plan.seconds / plan.fault_every / len(FAULTS)
    print(f"chaos: {args.minutes:.0f} min, a fault every {args.every:.0f} s "
          f"(each of {len(FAULTS)} about {rounds:.1f} times); logs in {state / 'logs'}",
          flush=True)  # fmt: skip
    failed = False
    try:
        topo.start()
        if provider is not None:
            provider.kill_after(args.second_provider)
        for profile in profiles:  # each phase its own load, faults, drain and invariants
            print(f"chaos: phase in the weather {profile!r}", flush=True)
            figures = asyncio.run(chaos(topo, replace(plan, weather=profile)))
            print(figures.report(), flush=True)
            failed = failed or bool(figures.violations or figures.server_errors)
        if provider is not None and not provider.killed.is_set():
            print("chaos: the run ended before the second provider was killed", flush=True)
            failed = True
    finally:
        if provider is not None:
            provider.kill()
        topo.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
