"""Webhook delivery settings: the ``WEBHOOK_*`` fields of ``core.config.Settings``, grouped as
``settings.webhooks`` (read once per process with the rest of the settings).

- WEBHOOK_RETRY_SCHEDULE (default 0,5,300,1800,7200,18000,36000,36000): seconds to wait
  before each attempt; after the last one fails the delivery is ``failed``.
- WEBHOOK_DISABLE_AFTER_SECONDS (432000 = 5 days): an endpoint failing this long is disabled.
- WEBHOOK_TIMEOUT_SECONDS (15): a 2xx must arrive within this.
- WEBHOOK_POLL_SECONDS (0.2): how often an idle pump looks for work while it cannot LISTEN
  (and the longest wait while requests are in flight).
- WEBHOOK_IDLE_POLL_SECONDS (5): the safety net of a listening pump: work arrives by NOTIFY
  (migration 0023) and its own retries wake it when due; it still looks this often.
- WEBHOOK_BATCH (200), WEBHOOK_CONCURRENCY (100): claims per round, requests in flight.
- WEBHOOK_HTTP_CLIENT (aiohttp): aiohttp or httpx (measured in bench/webhooks_mining.py).
- WEBHOOK_ALLOWED_HOSTS (empty): comma-separated hosts, IPs or CIDRs allowed despite the SSRF
  rule (plain http too).
- WEBHOOK_ALLOW_LOOPBACK (false): allow loopback addresses and plain http to them (dev, tests).
"""

from __future__ import annotations

from core.config import DEFAULT_WEBHOOK_SCHEDULE as DEFAULT_SCHEDULE
from core.config import WebhookSettings

__all__ = ["DEFAULT_SCHEDULE", "WebhookSettings"]
