"""Session-wide real services, and the fixtures every app test shares (an API client, the
test-data World, empty rate windows). Nothing here is a fake: see tests/services.py. Each
package's app and worker come from its ``Stack`` (tests/stack.py), bound in its conftest."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from core.config import Settings
from core.embedded import free_port, temporal_cli
from db.session import create_db_engine, create_session_maker
from tests.factories import World
from tests.services import fresh_database, redis_server
from tests.shared_stacks import (
    FIRST_MARK,
    LAST_MARK,
    DevStack,
    dev_stack,
    order_users,
    release_after,
)
from tests.stack import asgi_client

# The deploy and chaos tests' session fixtures, registered here once for both directories.
from tests.topology_fixtures import installed_image, topology  # noqa: F401

# The suite runs on the development keys: say so explicitly (core.config refuses them otherwise).
os.environ.setdefault("ENVIRONMENT", "test")
# The suite runs many engines at once against one PostgreSQL (the app, the worker, the tests' own
# sessions, the two-mint worlds, CLI subprocesses): production's 32 + 8 per engine ran its
# default 100 connections out ("too many clients already"). The tests need far fewer.
os.environ.setdefault("DB_POOL_SIZE", "8")
os.environ.setdefault("DB_POOL_OVERFLOW", "8")

SEARCH_ATTRIBUTES = ["ProjectId", "UserUid", "Operation", "Status", "Currency"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "webhooks(**settings): a test's own settings for its worker (a Stack's worker per test)",
    )
    config.addinivalue_line(
        "markers", f"{FIRST_MARK}: meets the shared `mccgw dev` stack before its other users"
    )
    config.addinivalue_line(
        "markers", f"{LAST_MARK}: meets the shared `mccgw dev` stack after its other users"
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each shared stack's users run one after another (tests/shared_stacks.py)."""
    order_users(items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """A shared stack is stopped right after its last user, not at the session's end: idle, it
    would take CPU from every test after it (tests/shared_stacks.py)."""
    try:
        yield
    finally:
        release_after(item, nextitem)


@pytest.fixture(scope="session")
def shared_dev_stack() -> Iterator[DevStack]:
    """The `mccgw dev` stack the quickstart and the console's browser test share."""
    yield from dev_stack()


def traversable_tmp(prefix: str) -> Path:
    """A temp dir every user can reach: as root, pgserver runs postgres as user "pgserver",
    which cannot enter pytest's private (0700) temp tree."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path


@pytest.fixture(scope="session")
def session_tmp() -> Iterator[Path]:
    path = traversable_tmp("mccgw-test-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def database_url(session_tmp: Path) -> Iterator[str]:
    with fresh_database(session_tmp) as url:
        yield url


@pytest.fixture(scope="session")
def redis_url(session_tmp: Path) -> Iterator[str]:
    with redis_server(session_tmp) as url:
        yield url


@pytest.fixture(scope="session")
def chain_node(session_tmp: Path) -> Iterator[tuple[str, Path]]:
    """(rpc_url, keys_dir) of the local chain node, with fast slots for tests."""
    keys_dir = Path(os.environ.get("CHAIN_KEYS_DIR", session_tmp / "keys"))
    if url := os.environ.get("SOLANA_RPC_URL"):
        yield url, keys_dir
        return
    from devchain.node.process import start_node

    node = start_node(
        data_dir=session_tmp / "chain",
        keys_dir=keys_dir,
        port=free_port(),
        slot_ms=20,
        ws_port=free_port(),  # not port + 1: that one may be taken
    )
    try:
        yield node.url, keys_dir
    finally:
        node.stop()


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    if address := os.environ.get("TEMPORAL_ADDRESS"):
        client = await Client.connect(address)
        yield WorkflowEnvironment.from_client(client)
        return
    from temporalio.common import SearchAttributeKey

    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli(),
        port=free_port(),
        search_attributes=[SearchAttributeKey.for_keyword(n) for n in SEARCH_ATTRIBUTES],
    )
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture(scope="session")
def settings(database_url: str, redis_url: str, session_tmp: Path) -> Settings:
    return Settings(
        environment="test",
        database_url=database_url,
        redis_url=redis_url,
        chain_keys_dir=session_tmp / "keys",
        avatar_dir=session_tmp / "avatars",  # not the checkout's .dev/avatars
        log_json=False,
    )


@pytest.fixture(scope="session")
def worker_settings(settings: Settings, chain_node: tuple[str, Path]) -> Settings:
    """Settings for a worker or API wired to the session's chain node as well."""
    rpc_url, keys_dir = chain_node
    return settings.model_copy(update={"solana_rpc_url": rpc_url, "chain_keys_dir": keys_dir})


@pytest.fixture(scope="session")
async def db_engine(settings: Settings) -> AsyncIterator[AsyncEngine]:
    eng = create_db_engine(settings)
    yield eng
    await eng.dispose()


@pytest.fixture(scope="session")
def session_maker(db_engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return create_session_maker(db_engine)


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


@pytest.fixture(scope="session")
def stack_settings(worker_settings: Settings, temporal_env: WorkflowEnvironment) -> Settings:
    """Settings for an app or worker wired to every service of the session, Temporal too."""
    address = temporal_env.client.service_client.config.target_host
    return worker_settings.model_copy(update={"temporal_address": address})


@pytest.fixture(autouse=True)
def _fresh_rate_windows(request: pytest.FixtureRequest) -> None:
    """Every test call comes from 127.0.0.1: a test on the session's Redis starts with empty
    rate windows instead of spending the budget of the tests before it."""
    if "redis_url" not in request.fixturenames:
        return
    with SyncRedis.from_url(request.getfixturevalue("redis_url")) as r:
        keys = list(r.scan_iter("rl:*"))
        if keys:
            r.delete(*keys)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of the package's ``app``."""
    async with asgi_client(app) as c:
        yield c


@pytest.fixture
def world(
    session_maker: async_sessionmaker[AsyncSession], settings: Settings, app: FastAPI
) -> World:
    return World(session_maker, settings, app)
