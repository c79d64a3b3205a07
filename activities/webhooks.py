"""Webhook activities: the delivery pump runs as one long, heartbeating activity."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from temporalio import activity

from activities.shutdown import at_worker_shutdown
from webhooks.pump import WebhookPump
from webhooks.senders import make_sender

if TYPE_CHECKING:
    from activities.deps import WorkerDeps


@dataclass
class PumpInput:
    # How long this activity run pumps before handing back to the workflow.
    seconds: float = 300.0


@dataclass
class PumpResult:
    sent: int
    succeeded: int
    failed_attempts: int


class WebhookActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        settings = deps.settings
        self._keys = {settings.master_key_id: settings.master_key}
        self._sessions = deps.sessions
        self._webhooks = settings.webhooks
        self._notify = deps.notify  # the pump subscribes for work (migration 0023)

    @activity.defn(name="webhooks.pump")
    async def pump(self, data: PumpInput) -> PumpResult:
        """Deliver until the time is up or the worker shuts down (then a retry resumes)."""
        settings = self._webhooks
        sender = make_sender(
            settings.http_client, settings.timeout_seconds, settings.concurrency, settings
        )
        pump = WebhookPump(self._sessions, self._keys, settings, sender, self._notify)
        deadline = time.monotonic() + data.seconds

        # An idle pump waits up to WEBHOOK_IDLE_POLL_SECONDS: a worker's shutdown wakes it.
        try:
            async with at_worker_shutdown(pump.wake):
                stats = await pump.run(
                    lambda: activity.is_worker_shutdown() or time.monotonic() >= deadline,
                    activity.heartbeat,
                )
        finally:
            await pump.aclose()
        return PumpResult(stats.sent, stats.succeeded, stats.failed_attempts)
