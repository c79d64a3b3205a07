"""The ``mccgw`` command."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path


def _dev(args: argparse.Namespace) -> int:
    from mccgw.dev import DevOptions, DevStack

    options = DevOptions(
        dir=Path(args.dir),
        host=args.host,
        api_port=args.api_port,
        temporal_port=args.temporal_port,
        ui_port=args.ui_port,
        rpc_port=args.rpc_port,
        slot_ms=args.slot_ms,
    )
    return DevStack(options).run()


def _migrate(args: argparse.Namespace) -> int:
    from core.config import get_settings
    from core.migrate import upgrade_to_head

    upgrade_to_head(get_settings().database_url)
    print("database at head")
    return 0


def _worker(args: argparse.Namespace) -> int:
    import worker

    worker.main()
    return 0


def _api(args: argparse.Namespace) -> int:
    # exec, so signals reach uvicorn directly (graceful shutdown in containers).
    cmd = [sys.executable, "-m", "uvicorn", "api.main:app", "--host", args.host]
    cmd += ["--port", str(args.port), "--workers", str(args.workers), "--no-access-log"]
    os.execv(sys.executable, cmd)


def main(argv: list[str] | None = None) -> int:
    # pgserver's platformdirs warns about XDG_RUNTIME_DIR on servers; it is noise here.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
    parser = argparse.ArgumentParser(prog="mccgw", description="MCC/MCD open API gateway")
    sub = parser.add_subparsers(dest="command", required=True)

    dev = sub.add_parser("dev", help="run the whole stack on embedded services")
    dev.add_argument("--dir", default=".dev", help="state directory (default: .dev)")
    dev.add_argument("--host", default="127.0.0.1")
    dev.add_argument("--api-port", type=int, default=8000)
    dev.add_argument("--temporal-port", type=int, default=7233)
    dev.add_argument("--ui-port", type=int, default=8233)
    dev.add_argument("--rpc-port", type=int, default=8899)
    dev.add_argument("--slot-ms", type=int, default=400, help="local chain slot time")
    dev.set_defaults(func=_dev)

    sub.add_parser("migrate", help="migrate DATABASE_URL to head").set_defaults(func=_migrate)
    sub.add_parser("worker", help="run the Temporal worker").set_defaults(func=_worker)

    api = sub.add_parser("api", help="serve the HTTP API")
    api.add_argument("--host", default="0.0.0.0")
    api.add_argument("--port", type=int, default=8000)
    api.add_argument("--workers", type=int, default=1)
    api.set_defaults(func=_api)

    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
