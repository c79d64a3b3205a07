"""Start the node as a child process and wait until it serves (used by tests and `mccgw dev`)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from core.embedded import die_with_parent, free_port


@dataclass
class NodeHandle:
    url: str  # e.g. http://127.0.0.1:PORT
    process: subprocess.Popen[bytes]
    ws_url: str = ""  # the PubSub websocket, e.g. ws://127.0.0.1:PORT+1

    def stop(self, timeout: float = 10) -> None:
        """SIGTERM (the node flushes its state), then SIGKILL if it does not go in time."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def wait_ready(self, timeout: float = 30) -> None:
        """Until the node answers getHealth; stopped and raised if it exits or times out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"chain node exited with {self.process.returncode} before it was ready"
                )
            if _healthy(self.url):
                return
            time.sleep(0.05)
        self.stop()
        raise TimeoutError(f"chain node at {self.url} not ready after {timeout}s")


def _bindable(host: str, port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _healthy(url: str) -> bool:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "getHealth"}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=2) as resp:
            return bool(json.loads(resp.read()).get("result") == "ok")
    except (OSError, ValueError):
        return False


def start_node(
    data_dir: Path,
    keys_dir: Path,
    port: int,
    slot_ms: int = 400,
    host: str = "127.0.0.1",
    accounts_dir: Path | None = None,
    fixtures: bool = True,
    log_file: Path | None = None,
    ready_timeout: float = 30,
    mcd_decimals: int = 9,
    mcd_token_2022: bool = False,
    ws_port: int | None = None,
    weather: str = "calm",
) -> NodeHandle:
    """Start the node and wait until it serves."""
    handle = spawn_node(
        data_dir, keys_dir, port, slot_ms, host, accounts_dir, fixtures, log_file,
        mcd_decimals, mcd_token_2022, ws_port, weather,
    )  # fmt: skip
    handle.wait_ready(ready_timeout)
    return handle


def spawn_node(
    data_dir: Path,
    keys_dir: Path,
    port: int,
    slot_ms: int = 400,
    host: str = "127.0.0.1",
    accounts_dir: Path | None = None,
    fixtures: bool = True,
    log_file: Path | None = None,
    mcd_decimals: int = 9,
    mcd_token_2022: bool = False,
    ws_port: int | None = None,
    weather: str = "calm",
) -> NodeHandle:
    """Start the node without waiting (``wait_ready`` later): a caller starts other services
    while it builds its genesis. The PubSub websocket listens on ``ws_port``: by default the
    RPC port + 1, as on a validator, or any free port when that one is taken (``ws_url``)."""
    if ws_port is None:
        ws_port = port + 1 if _bindable(host, port + 1) else free_port(host)
    cmd = [
        sys.executable, "-m", "devchain.node",
        "--host", host, "--port", str(port),
        "--data-dir", str(data_dir), "--keys-dir", str(keys_dir),
        "--slot-ms", str(slot_ms), "--ws-port", str(ws_port),
    ]  # fmt: skip
    if accounts_dir is not None:
        cmd += ["--accounts-dir", str(accounts_dir)]
    if not fixtures:
        cmd.append("--no-fixtures")
    cmd += ["--mcd-decimals", str(mcd_decimals)]
    if mcd_token_2022:
        cmd.append("--mcd-token-2022")
    if weather != "calm":
        cmd += ["--weather", weather]
    out: IO[Any] | int | None = None
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        out = log_file.open("ab")
    # own session (a terminal's Ctrl-C goes to the supervisor, which stops us cleanly), and
    # SIGTERM if the supervisor dies without stopping us
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT if out else None,
                            start_new_session=True, preexec_fn=die_with_parent)  # fmt: skip
    if out is not None and not isinstance(out, int):
        out.close()  # the child holds its own descriptor
    return NodeHandle(f"http://{host}:{port}", proc, f"ws://{host}:{ws_port}")
