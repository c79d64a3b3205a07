"""Accounts tests: the real app (lifespan included) on real PostgreSQL and Redis, and the real
``mccgw`` command run as the operator runs it. ``client`` and ``world`` come from
tests/conftest.py."""

from __future__ import annotations

import asyncio
import getpass
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from accounts.mailbox import StoredMail, stored_mail
from core.config import Settings
from core.embedded import free_port
from mccgw.mailserver import MailCatcher
from tests.stack import BASE, Stack, asgi_client, worker_env

__all__ = ["BASE", "STACK", "Cli", "mail_to", "mccgw"]

# The package's SMTP server (the dev stack's own, mccgw/mailserver.py) and its Maildir: the
# app sends through it and the tests read what it stored, as a newcomer reads the console.
MAIL_DIR = Path(tempfile.mkdtemp(prefix="mccgw-accounts-mail-"))
MAIL_PORT = free_port()
MAIL = {"smtp_url": f"smtp://127.0.0.1:{MAIL_PORT}", "mail_catcher_dir": MAIL_DIR}

# On PostgreSQL and Redis alone: no chain, no Temporal, no worker.
STACK = Stack("accounts", on="settings", temporal=False, changes=MAIL)
app_settings, queue, deps, worker, app = STACK.fixtures()


@pytest.fixture(scope="package", autouse=True)
def mail_server() -> Iterator[MailCatcher]:
    catcher = MailCatcher(MAIL_DIR, port=MAIL_PORT)
    catcher.start()
    yield catcher
    catcher.stop()
    shutil.rmtree(MAIL_DIR, ignore_errors=True)


@pytest.fixture
async def web(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A browser-like client: keeps cookies, follows no redirect by itself."""
    async with asgi_client(app) as c:
        yield c


async def mail_to(address: str, subject: str, wait: float = 10.0) -> StoredMail:
    """The newest message to ``address`` whose subject has ``subject``, waited for (the app
    sends after its answer)."""
    deadline = time.monotonic() + wait
    while True:
        found = [m for m in stored_mail(MAIL_DIR, address) if subject in m.subject]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"no mail {subject!r} to {address}"
        await asyncio.sleep(0.05)


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
