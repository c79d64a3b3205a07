"""A chain node on the tests' own accounts (tests/views/world.py) and an app reading it
(tests/stack.py)."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from core.config import Settings
from core.embedded import free_port
from devchain.node.process import start_node
from tests.stack import Stack, asgi_client, running_app
from tests.views.world import build


@pytest.fixture(scope="package")
def views_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("views")
    build().write(tmp / "accounts")
    handle = start_node(
        tmp / "data",
        tmp / "keys",
        free_port(),
        slot_ms=20,
        accounts_dir=tmp / "accounts",
        fixtures=False,
    )
    try:
        yield handle.url
    finally:
        handle.stop()


@pytest.fixture
def views_settings(settings: Settings, views_node: str, tmp_path: Path) -> Settings:
    return settings.model_copy(
        update={
            "solana_rpc_url": views_node,
            "chain_keys_dir": tmp_path / "keys",
            "temporal_address": "127.0.0.1:1",  # never used by these routes (lazy client)
        }
    )


# An app per test (tests/stack.py) on this package's node; no Temporal, no worker.
STACK = Stack("views", scope="function", on="views_settings", temporal=False)
app_settings, queue, deps, worker, app = STACK.fixtures()


def from_own_address(app: FastAPI) -> contextlib.AbstractAsyncContextManager[httpx.AsyncClient]:
    """In-process client from an address of its own: anonymous calls are rate-limited per IP
    (100/min), and these tests make many."""
    ip = ".".join(str(b) for b in secrets.token_bytes(3))
    return asgi_client(app, base_url="http://test", client=(f"10.{ip}", 40000))


async def start_app(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app of the test's own (other settings), its lifespan run."""
    async with running_app(app), from_own_address(app) as c:
        yield c


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with from_own_address(app) as c:
        yield c
