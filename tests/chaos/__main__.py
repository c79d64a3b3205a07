"""The long form of the chaos suite (``make chaos``): the production topology of
docker-compose.yml as processes, ``--minutes`` of mixed load (ten by default) while the faults of
tests/chaos/harness.py are injected in turn every ``--every`` seconds (each at least five times
in ten minutes), then the invariants; prints the figures docs/reliability.md records and exits
non-zero on any violation.

    python -m tests.chaos [--minutes 10] [--every 12] [--rate 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
from pathlib import Path

from deploy.image import build_image
from deploy.topology import Topology
from tests.chaos.harness import FAULTS, Plan, chaos
from tests.topology_fixtures import TOPOLOGY_ENV


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.chaos", description=__doc__)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--every", type=float, default=12.0, help="seconds between faults")
    parser.add_argument("--rate", type=float, default=4.0, help="requests per second at most")
    parser.add_argument(
        "--max-open", type=int, default=40, help="operations not yet done above which load waits"
    )
    parser.add_argument("--dir", type=Path, default=Path("/tmp/mccgw-chaos"))
    args = parser.parse_args()
    os.environ.setdefault("ENVIRONMENT", "test")
    state: Path = args.dir.resolve()
    shutil.rmtree(state, ignore_errors=True)
    (state / "image").mkdir(parents=True)
    state.chmod(0o755)
    print(f"chaos: building the image into {state / 'image'}", flush=True)
    topo = Topology(
        build_image(state / "image"),
        state,
        extra_env=TOPOLOGY_ENV,
    )
    plan = Plan(
        seconds=args.minutes * 60, fault_every=args.every, rate=args.rate, min_each=5,
        max_open=args.max_open,
    )  # fmt: skip
    rounds = plan.seconds / plan.fault_every / len(FAULTS)
    print(f"chaos: {args.minutes:.0f} min, a fault every {args.every:.0f} s "
          f"(each of {len(FAULTS)} about {rounds:.1f} times); logs in {state / 'logs'}",
          flush=True)  # fmt: skip
    try:
        topo.start()
        figures = asyncio.run(chaos(topo, plan))
    finally:
        topo.stop()
    print(figures.report(), flush=True)
    return 1 if figures.violations or figures.server_errors else 0


if __name__ == "__main__":
    sys.exit(main())
