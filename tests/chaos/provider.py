"""A second RPC provider for the chaos suite (``python -m tests.chaos --second-provider``):
the chain node behind a proxy process of its own (tests/chain/test_providers.py's ``Proxy``),
listed first in ``SOLANA_RPC_URLS`` beside the node itself, and killed (SIGKILL) mid-run; the
run must complete on the node alone with its invariants unchanged (issue 39, step 5).

    python -m tests.chaos.provider --port PORT --upstream URL

prints the requests it forwarded, by method, every second (its log says it was used).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import subprocess
import sys
import threading
from pathlib import Path

from core.embedded import free_port


class SecondProvider:
    """The proxy process: started before the topology (its URL goes into the apps'
    environment), killed after ``kill_after`` seconds of the run."""

    def __init__(self, upstream: str, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.upstream, self.log = upstream, log
        self.popen: subprocess.Popen[bytes] | None = None
        self.killed = threading.Event()

    def start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        args = [sys.executable, "-m", "tests.chaos.provider", "--port", str(self.port)]
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                [*args, "--upstream", self.upstream], stdout=out, stderr=subprocess.STDOUT
            )

    def kill(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait()
            print(f"chaos: the second provider {self.url} killed", flush=True)
        self.killed.set()

    def kill_after(self, seconds: float) -> threading.Timer:
        timer = threading.Timer(seconds, self.kill)
        timer.daemon = True
        timer.start()
        return timer


async def _serve(port: int, upstream: str) -> None:
    from tests.chain.test_providers import Proxy

    proxy = Proxy(upstream)
    proxy.port = port
    async with proxy:
        seen = 0
        while True:
            await asyncio.sleep(1)
            total = sum(proxy.methods.values())
            if total != seen:
                seen = total
                print(f"forwarded {total}: {dict(proxy.methods)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.chaos.provider")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True)
    args = parser.parse_args()
    asyncio.run(_serve(args.port, args.upstream))


if __name__ == "__main__":
    main()
