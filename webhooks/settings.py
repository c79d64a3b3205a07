"""Webhook delivery settings, read from the environment each time they are asked for (so a
test or the dev stack can change them without touching core.config).

- WEBHOOK_RETRY_SCHEDULE (default 0,5,300,1800,7200,18000,36000,36000): seconds to wait
  before each attempt; after the last one fails the delivery is ``failed``.
- WEBHOOK_DISABLE_AFTER_SECONDS (432000 = 5 days): an endpoint failing this long is disabled.
- WEBHOOK_TIMEOUT_SECONDS (15): a 2xx must arrive within this.
- WEBHOOK_POLL_SECONDS (0.2): how often an idle pump looks for work.
- WEBHOOK_BATCH (200), WEBHOOK_CONCURRENCY (100): claims per round, requests in flight.
- WEBHOOK_HTTP_CLIENT (aiohttp): aiohttp or httpx (measured in bench/webhooks_mining.py).
- WEBHOOK_ALLOWED_HOSTS (empty): comma-separated hosts, IPs or CIDRs allowed despite the SSRF
  rule (plain http too).
- WEBHOOK_ALLOW_LOOPBACK (false): allow loopback addresses and plain http to them (dev, tests).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

DEFAULT_SCHEDULE = (0.0, 5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 36000.0)


def _floats(text: str) -> tuple[float, ...]:
    values = tuple(float(v) for v in text.split(",") if v.strip())
    if not values or any(v < 0 for v in values):
        raise ValueError("WEBHOOK_RETRY_SCHEDULE must be comma-separated non-negative seconds")
    return values


def _bool(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class WebhookSettings:
    retry_schedule: tuple[float, ...] = DEFAULT_SCHEDULE
    disable_after_seconds: float = 5 * 24 * 3600.0
    timeout_seconds: float = 15.0
    poll_seconds: float = 0.2
    batch: int = 200
    concurrency: int = 100
    http_client: str = "aiohttp"
    allowed_hosts: tuple[str, ...] = field(default=())
    allow_loopback: bool = False
    # A claimed delivery is invisible to other pumps this long (a crashed pump's claim expires).
    lease_seconds: float = 60.0

    @classmethod
    def from_env(cls) -> WebhookSettings:
        env = os.environ
        hosts = tuple(
            h.strip().lower() for h in env.get("WEBHOOK_ALLOWED_HOSTS", "").split(",") if h.strip()
        )
        return cls(
            retry_schedule=_floats(env.get("WEBHOOK_RETRY_SCHEDULE", ""))
            if env.get("WEBHOOK_RETRY_SCHEDULE")
            else DEFAULT_SCHEDULE,
            disable_after_seconds=float(env.get("WEBHOOK_DISABLE_AFTER_SECONDS", 432000)),
            timeout_seconds=float(env.get("WEBHOOK_TIMEOUT_SECONDS", 15)),
            poll_seconds=float(env.get("WEBHOOK_POLL_SECONDS", 0.2)),
            batch=int(env.get("WEBHOOK_BATCH", 200)),
            concurrency=int(env.get("WEBHOOK_CONCURRENCY", 100)),
            http_client=env.get("WEBHOOK_HTTP_CLIENT", "aiohttp").strip().lower(),
            allowed_hosts=hosts,
            allow_loopback=_bool(env.get("WEBHOOK_ALLOW_LOOPBACK", "false")),
        )
