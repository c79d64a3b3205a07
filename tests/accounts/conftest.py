"""Accounts tests: the real app (lifespan included) on real PostgreSQL and Redis, and the real
``mccgw`` command run as the operator runs it. ``client`` and ``world`` come from
tests/conftest.py."""

from __future__ import annotations

import asyncio
import getpass
import sys
from dataclasses import dataclass

from core.config import Settings
from tests.stack import BASE, Stack, worker_env

__all__ = ["BASE", "STACK", "Cli", "mccgw"]

# On PostgreSQL and Redis alone: no chain, no Temporal, no worker.
STACK = Stack("accounts", on="settings", temporal=False)
app_settings, queue, deps, worker, app = STACK.fixtures()

OPERATOR = getpass.getuser()


@dataclass(frozen=True)
class Cli:
    code: int
    out: str
    err: str


async def mccgw(settings: Settings, *args: str, stdin: str = "") -> Cli:
    """``mccgw ARGS`` in a process of its own, on ``settings``' database and Redis (and not
    on a dev stack's: MCCGW_DEV_DIR names no directory)."""
    env = worker_env(settings, MCCGW_DEV_DIR="/nonexistent", LOG_JSON="false")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mccgw.cli", *args, env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await proc.communicate(stdin.encode())
    assert proc.returncode is not None
    return Cli(proc.returncode, out.decode(), err.decode())
