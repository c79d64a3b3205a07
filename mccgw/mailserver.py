"""The dev stack's SMTP server (aiosmtpd): it accepts every message and stores it in a Maildir
(``MAIL_CATCHER_DIR``) for the console's Mail page and the tests to read; nothing leaves the
machine. ``mccgw dev`` runs it in its own process's thread; the production topology on one
machine (``make prod-local``) runs it as a process of its own, standing in for a real SMTP
server the way the local chain node stands in for a validator:

    python -m mccgw.mailserver --dir DIR --port PORT
"""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox

from core.embedded import free_port


class MailCatcher:
    def __init__(self, directory: Path, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.directory = directory
        self.host = host
        self.port = port or free_port()
        self._controller: Controller | None = None

    @property
    def url(self) -> str:
        return f"smtp://{self.host}:{self.port}"

    def start(self) -> None:
        for sub in ("tmp", "new", "cur"):  # a Maildir, even in a directory that exists
            (self.directory / sub).mkdir(parents=True, exist_ok=True)
        self._controller = Controller(Mailbox(self.directory), hostname=self.host, port=self.port)
        self._controller.start()  # returns once the server answers

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mccgw.mailserver", description=__doc__)
    parser.add_argument("--dir", type=Path, required=True, help="the Maildir to store into")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    catcher = MailCatcher(args.dir, args.host, args.port)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    catcher.start()
    print(f"mail server {catcher.url} storing into {args.dir}", flush=True)
    done.wait()
    catcher.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
