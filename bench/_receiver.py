"""A webhook receiver for the benches, in a process of its own (as a customer's would be):
an aiohttp server on loopback that checks every body's signature and notes when each event
arrived, measured against the ``created_at`` the event carries (same machine, same clock).

    python -m bench._receiver --port P --secret S

``GET /stats`` answers ``{received, unique, bad_signatures, delays_ms, first, last,
created_first}`` (times in Unix seconds); ``POST /reset`` forgets everything.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import time
from datetime import datetime
from typing import Any

from aiohttp import web


class Log:
    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self.reset()

    def reset(self) -> None:
        self.received = 0
        self.bad = 0
        self.delays: dict[str, float] = {}  # event id -> ms from creation to first receipt
        self.first = self.last = 0.0
        self.created_first = float("inf")  # the earliest creation among received events

    async def hook(self, request: web.Request) -> web.Response:
        body = await request.read()
        now = time.time()
        expected = "sha256=" + hmac.new(self.secret, body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, request.headers.get("X-Service-Signature", "")):
            self.bad += 1
            return web.Response(status=401, text="bad signature")
        event = json.loads(body)
        created = datetime.fromisoformat(event["created_at"]).timestamp()
        self.received += 1
        self.delays.setdefault(event["id"], (now - created) * 1000)
        self.first = self.first or now
        self.created_first = min(self.created_first, created)
        self.last = now
        return web.Response(text="ok")

    async def stats(self, _: web.Request) -> web.Response:
        answer: dict[str, Any] = {
            "received": self.received,
            "unique": len(self.delays),
            "bad_signatures": self.bad,
            "delays_ms": list(self.delays.values()),
            "first": self.first,
            "last": self.last,
            "created_first": self.created_first if self.delays else 0.0,
        }
        return web.json_response(answer)

    async def clear(self, _: web.Request) -> web.Response:
        self.reset()
        return web.Response(text="ok")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True)
    args = parser.parse_args()
    log = Log(args.secret.encode())
    app = web.Application()
    app.router.add_post("/hook", log.hook)
    app.router.add_get("/stats", log.stats)
    app.router.add_post("/reset", log.clear)
    web.run_app(app, host="127.0.0.1", port=args.port, access_log=None, print=None)


if __name__ == "__main__":
    main()
