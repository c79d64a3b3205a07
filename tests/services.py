"""Real services for the test session: PostgreSQL, Redis, Temporal and the local chain node.

Each comes from the environment when its variable is set (DATABASE_URL, REDIS_URL,
TEMPORAL_ADDRESS, SOLANA_RPC_URL), otherwise from the embedded packages. Every run gets a fresh,
migrated database of its own, dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from core.embedded import EmbeddedPostgres, EmbeddedRedis
from core.migrate import upgrade_to_head


def _plain(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@contextmanager
def fresh_database(tmp: Path) -> Iterator[str]:
    """Yield the SQLAlchemy URL of a new, migrated database; drop it afterwards."""
    embedded = None
    server_url = os.environ.get("DATABASE_URL")
    if not server_url:
        embedded = EmbeddedPostgres(tmp / "pg")
        server_url = embedded.url()
    server_url = server_url.replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        with migrated_database(server_url, "mccgw_test") as url:
            yield url
    finally:
        if embedded is not None:
            embedded.stop()


@contextmanager
def migrated_database(server_url: str, prefix: str) -> Iterator[str]:
    """A new database ``<prefix>_<hex>`` on the server of ``server_url`` (any database's URL
    there), migrated to head; dropped afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(_plain(server_url), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, query = server_url.partition("?")
    url = base.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")
    try:
        upgrade_to_head(url)
        yield url
    finally:
        with psycopg.connect(_plain(server_url), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def redis_server(tmp: Path) -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = EmbeddedRedis(tmp / "redis" / "redis.db")
    try:
        yield server.url
    finally:
        server.stop()
