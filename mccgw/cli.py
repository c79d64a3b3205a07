"""The ``mccgw`` command."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

    from chain.gateway import ChainGateway
    from core.config import Settings


@dataclass(frozen=True)
class GatewayRun:
    """What a command that drives the chain gets (``_with_gateway``)."""

    gateway: ChainGateway
    sessions: async_sessionmaker[AsyncSession]
    settings: Settings


# `mccgw dev` flags, each a DevOptions field: (field, type, default, help); argparse applies
# the type to the default too, so --dir arrives as a Path.
_DEV_FLAGS: tuple[tuple[str, type, object, str | None], ...] = (
    ("dir", Path, ".dev", "state directory (default: .dev)"),
    ("host", str, "127.0.0.1", None),
    ("api_port", int, 8000, None),
    ("temporal_port", int, 7233, None),
    ("ui_port", int, 8233, None),
    ("rpc_port", int, 8899, None),
    ("slot_ms", int, 400, "local chain slot time"),
    ("mcd_decimals", int, 9, "decimals of the local chain's MCD mint (a new chain only)"),
    (
        "weather",
        str,
        "calm",
        "the local chain answers as a busy public cluster: calm, dropped, "
        "rate-limited, lagging, congested or storm (docs/chain.md, Weather)",
    ),
)


def _dev(args: argparse.Namespace) -> int:
    from devchain.node.weather import PROFILES
    from mccgw.dev import DevStack
    from mccgw.devservices import DevOptions

    if args.weather not in PROFILES:
        print(f"--weather: one of {', '.join(PROFILES)}", file=sys.stderr)
        return 2
    options = DevOptions(**{name: getattr(args, name) for name, *_ in _DEV_FLAGS})
    return DevStack(options).run()


def _migrate(args: argparse.Namespace) -> int:
    from core.config import get_settings
    from core.migrate import upgrade_to_head

    upgrade_to_head(get_settings().database_url)
    print("database at head")
    return 0


def _with_gateway(job: Callable[[GatewayRun], Awaitable[None]], mint_signers: bool = False) -> int:
    """Run ``await job(...)`` with a chain gateway of this
    process's settings (and, for ``mint_signers``, the mint keypairs that create the mints)."""
    import asyncio

    from chain.gateway import ChainGateway
    from chain.keys import load_or_create_keys
    from chain.rpc import ChainRpc
    from core.config import get_settings
    from db.session import create_db_engine, create_session_maker

    async def run() -> None:
        settings = get_settings()
        keys = load_or_create_keys(settings.chain_keys_dir)
        signers = (keys.mcc_mint, keys.mcd_mint) if mint_signers else ()
        engine = create_db_engine(settings)
        try:
            async with ChainRpc.of(settings) as rpc:
                sessions = create_session_maker(engine)
                gateway = ChainGateway(settings, rpc, keys, sessions, extra_signers=signers)
                await job(GatewayRun(gateway, sessions, settings))
        finally:
            await engine.dispose()

    asyncio.run(run())
    return 0


def _chain_init(args: argparse.Namespace) -> int:
    from devchain.bootstrap import ensure_mints
    from devchain.mints import dev_mints

    mints = dev_mints(args.mcd_decimals, args.mcd_token_2022)  # the local genesis's rule

    async def job(run: GatewayRun) -> None:
        for mint in await ensure_mints(run.gateway, mints):
            verb = "created" if mint.created else "present"
            print(f"{mint.currency} mint {mint.address}: {verb}")

    return _with_gateway(job, mint_signers=True)


def _whitelist_resync(args: argparse.Namespace) -> int:
    from onboarding.whitelist import WhitelistChain, resync

    async def job(run: GatewayRun) -> None:
        chain = WhitelistChain.of(run.gateway, run.settings)
        for item in await resync(run.sessions, chain):
            print(f"project {item.project_id}: {item.action} {item.signature or ''}")

    return _with_gateway(job)


def _deposits_rescan(args: argparse.Namespace) -> int:
    """Walk one custody account's signatures over a slot range and book the deposits missing
    (docs/tokens.md, "Re-scanning an account"); idempotent, the watcher's cursor is untouched."""
    from tokens.deposit_watch import DepositScanner
    from tokens.deposits import deposit_address

    async def job(run: GatewayRun) -> None:
        await run.gateway.load_token_decimals()
        address = args.account
        if address is None:
            address, _ = deposit_address(run.gateway.keys, args.user, args.currency.upper())
        scanner = DepositScanner(run.sessions, run.gateway)
        try:
            to_slot = args.to_slot
            if to_slot is None:
                to_slot = await scanner.blocks.finalized_slot()
            summary = await scanner.rescan(address, args.from_slot, to_slot)
        finally:
            await scanner.aclose()
        print(
            f"{address} slots {args.from_slot}..{to_slot}: {summary.credited} credited, "
            f"{summary.outflows} unexplained outflow(s), {summary.ignored} ignored"
        )
        for deposit in summary.deposits:
            print(f"  credited {deposit['amount']} {deposit['currency']} {deposit['tx_signature']}")

    return _with_gateway(job)


def _worker(args: argparse.Namespace) -> int:
    import worker

    worker.main(["--task-queue", args.task_queue] if args.task_queue else [])
    return 0


def _token(args: argparse.Namespace) -> int:
    import json

    import sqlalchemy

    from authserver.issue import IssueError, issue_token
    from authserver.server import AuthServer
    from core.config import get_settings

    settings = get_settings()
    engine = sqlalchemy.create_engine(settings.database_url)
    try:
        token = issue_token(
            AuthServer(settings, engine), user=args.user, scope=args.scope, client_id=args.client
        )
    except IssueError as exc:
        print(f"mccgw token: {exc}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    print(json.dumps(token, indent=2) if args.json else token["access_token"])
    return 0


def _api(args: argparse.Namespace) -> int:
    # uvicorn's worker processes share their metrics through files (core.metrics): start empty.
    if shared := os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        import shutil

        shutil.rmtree(shared, ignore_errors=True)
        Path(shared).mkdir(parents=True, exist_ok=True)
    # exec, so signals reach uvicorn directly (graceful shutdown in containers).
    cmd = [sys.executable, "-m", "uvicorn", "api.main:app", "--host", args.host]
    cmd += ["--port", str(args.port), "--workers", str(args.workers), "--no-access-log"]
    os.execv(sys.executable, cmd)


# Commands that are for a laptop only: they may use the development keys without saying so.
_DEV_COMMANDS = ("dev", "token")


def use_dev_stack() -> Path | None:
    """Point this command at the running dev stack: the ``env`` file ``mccgw dev`` writes in
    its state directory (``$MCCGW_DEV_DIR``, else ``./.dev``). Variables already set win, so
    an explicit ``DATABASE_URL`` (or any other) still chooses another stack."""
    path = Path(os.environ.get("MCCGW_DEV_DIR") or ".dev") / "env"
    if not path.is_file():
        return None
    for line in path.read_text().splitlines():
        name, sep, value = line.partition("=")
        if sep and name.strip() and not line.lstrip().startswith("#"):
            os.environ.setdefault(name.strip(), value)
    return path


def main(argv: list[str] | None = None) -> int:
    # pgserver's platformdirs warns about XDG_RUNTIME_DIR on servers; it is noise here.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
    parser = argparse.ArgumentParser(prog="mccgw", description="MCC/MCD open API gateway")
    sub = parser.add_subparsers(dest="command", required=True)

    dev = sub.add_parser("dev", help="run the whole stack on embedded services")
    for name, kind, default, help_ in _DEV_FLAGS:
        dev.add_argument(f"--{name.replace('_', '-')}", type=kind, default=default, help=help_)
    dev.set_defaults(func=_dev)

    sub.add_parser("migrate", help="migrate DATABASE_URL to head").set_defaults(func=_migrate)
    worker_cmd = sub.add_parser("worker", help="run the Temporal worker")
    worker_cmd.add_argument("--task-queue", help="default: TASK_QUEUE (Settings.task_queue)")
    worker_cmd.set_defaults(func=_worker)
    chain_init = sub.add_parser(
        "chain-init", help="create the MCC/MCD mints on SOLANA_RPC_URL if missing"
    )
    chain_init.add_argument(
        "--mcd-decimals", type=int, default=9, help="decimals of a new MCD mint (MCC has 9)"
    )
    chain_init.add_argument(
        "--mcd-token-2022", action="store_true", help="make a new MCD mint a Token-2022 mint"
    )
    chain_init.set_defaults(func=_chain_init)
    sub.add_parser(
        "whitelist-resync",
        help="re-create the stored MCD whitelist entries missing on chain (docs/chain.md)",
    ).set_defaults(func=_whitelist_resync)

    rescan = sub.add_parser(
        "deposits-rescan",
        help="re-scan one custody account's history over a slot range (docs/tokens.md)",
    )
    which = rescan.add_mutually_exclusive_group(required=True)
    which.add_argument("--account", help="the custody token account (deposit address)")
    which.add_argument("--user", help="the user's uid (with --currency)")
    rescan.add_argument("--currency", default="MCC", choices=["MCC", "MCD", "mcc", "mcd"])
    rescan.add_argument("--from-slot", type=int, default=0)
    rescan.add_argument("--to-slot", type=int, default=None, help="default: the finalized slot")
    rescan.set_defaults(func=_deposits_rescan)

    token = sub.add_parser("token", help="print an access token for scripts (dev)")
    token.add_argument("--user", required=True, help="uid or username")
    token.add_argument("--scope", default="openid profile user:read", help="space-separated")
    token.add_argument("--client", default=None, help="OAuth client id (default: the first)")
    token.add_argument("--json", action="store_true", help="print the whole token response")
    token.set_defaults(func=_token)

    from mccgw.accounts_cli import add_commands

    add_commands(sub)  # admin create/grant/revoke, users disable/invite

    api = sub.add_parser("api", help="serve the HTTP API")
    api.add_argument("--host", default="0.0.0.0")
    api.add_argument("--port", type=int, default=8000)
    api.add_argument("--workers", type=int, default=1)
    api.set_defaults(func=_api)

    args = parser.parse_args(argv)
    if args.command != "dev":
        use_dev_stack()
    if args.command in _DEV_COMMANDS:
        os.environ.setdefault("ENVIRONMENT", "dev")
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
