"""The webhook pump: a pipelined loop over the delivery rows (webhooks/delivery.py) that fans
new events out, sends due deliveries with up to ``concurrency`` requests in flight, and records
finished ones in batches.

It wakes for work by NOTIFY on ``WAKE_CHANNEL`` (new events, a redelivery, an endpoint active
again; migration 0023), subscribed on the process's one listener (db/notify.py), and for its
own retries by their due time, looking anyway every ``idle_poll_seconds``; while it is not
listening (no listener, or its connection is down) an idle pump looks every ``poll_seconds``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from core.config import WebhookSettings
from core.metrics import WEBHOOK_BACKLOG
from db.notify import NotifyListener, Subscription
from webhooks.delivery import Claimed, Deliveries, signatures
from webhooks.senders import Sender, SendResult
from webhooks.urls import UnsafeUrl, check_url

log = logging.getLogger("mccgw.webhooks")

USER_AGENT = "mccgw-webhooks/1"

# How often the pump counts the pending deliveries for the backlog gauge.
BACKLOG_EVERY_SECONDS = 5.0

# The channel migration 0023 NOTIFYs at commit when there may be new work for the pump.
WAKE_CHANNEL = "mccgw_webhooks"


@dataclass
class PumpStats:
    sent: int = 0
    succeeded: int = 0
    failed_attempts: int = 0


class WebhookPump:
    """``notify``: the process's listener; the pump subscribes to ``WAKE_CHANNEL`` while it
    runs (None: it never listens, and polls)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        master_keys: dict[str, str],
        settings: WebhookSettings,
        sender: Sender,
        notify: NotifyListener | None = None,
    ) -> None:
        self.deliveries = Deliveries(sessions, master_keys, settings)
        self.settings = settings
        self._sender = sender
        self.stats = PumpStats()
        self._backlog_at = 0.0  # when the backlog gauge is measured next
        self._notify = notify
        self._subscription: Subscription | None = None
        self._wake = asyncio.Event()

    async def run(
        self, should_stop: Callable[[], bool], beat: Callable[[], None] = lambda: None
    ) -> PumpStats:
        """Pipelined: keep up to ``concurrency`` requests in flight, record finished ones in
        batches, fan out new events between claims; returns when ``should_stop()``."""
        inflight: set[asyncio.Task[tuple[Claimed, SendResult]]] = set()
        done: list[tuple[Claimed, SendResult]] = []
        if self._notify is not None:
            # Up (again): look once more, for what was written before the LISTEN; down: the
            # wait below turns to polling at once.
            wake = self._wake.set
            self._subscription = self._notify.subscribe(
                WAKE_CHANNEL, lambda _: wake(), on_up=wake, on_down=wake
            )
        try:
            while not should_stop():
                beat()
                # Cleared before looking: a notification that arrives while we look wakes the
                # wait below at once, so nothing committed meanwhile waits for the next look.
                self._wake.clear()
                if time.monotonic() >= self._backlog_at:
                    self._backlog_at = time.monotonic() + BACKLOG_EVERY_SECONDS
                    WEBHOOK_BACKLOG.set(await self.deliveries.pending())
                await self.deliveries.fan_out()
                free = self.settings.concurrency - len(inflight)
                claimed = await self.deliveries.claim(min(free, self.settings.batch))
                for item in claimed:
                    inflight.add(asyncio.create_task(self._send_one(item)))
                finished = [t for t in inflight if t.done()]
                if not claimed and not finished:
                    await self._wait(inflight)
                    finished = [t for t in inflight if t.done()]
                for task in finished:
                    inflight.discard(task)
                    done.append(task.result())
                if done:
                    await self._record(done)
                    done = []
                if claimed:
                    await asyncio.sleep(0)
            if inflight:  # let the last requests finish briefly; unfinished ones lease-expire
                finished_set, _ = await asyncio.wait(inflight, timeout=1.0)
                await self._record([t.result() for t in finished_set])
                inflight -= finished_set
        finally:
            for task in inflight:
                task.cancel()
            if self._subscription is not None:
                self._subscription.close()
                self._subscription = None
        return self.stats

    def wake(self) -> None:
        """Look again at once (e.g. the worker is shutting down: ``run``'s ``should_stop`` is
        checked without waiting out an idle poll)."""
        self._wake.set()

    @property
    def listening(self) -> bool:
        return self._subscription is not None and self._subscription.listening

    async def _wait(self, inflight: set[asyncio.Task[tuple[Claimed, SendResult]]]) -> None:
        """Nothing to do this round: until a request finishes, a notification arrives, the
        next retry is due, or the poll interval passes (short while not listening)."""
        if inflight or not self.listening:
            timeout = self.settings.poll_seconds
        else:
            timeout = min(await self.deliveries.next_due(), self.settings.idle_poll_seconds)
        if timeout <= 0:
            return
        woken = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({*inflight, woken}, timeout=timeout, return_when="FIRST_COMPLETED")
        finally:
            woken.cancel()

    async def send(self, item: Claimed) -> SendResult:
        try:
            await check_url(item.url, self.settings)
        except UnsafeUrl:
            return SendResult(None, 0, "refused: the address is not allowed")
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "X-Service-Signature": signatures(
                [item.secret, *([item.previous_secret] if item.previous_secret else [])], item.body
            ),
            "X-Service-Event": item.event_type,
            "X-Service-Delivery": item.delivery_id,
            "X-Service-Timestamp": str(int(time.time())),
        }
        return await self._sender.send(item.url, item.body, headers)

    async def _send_one(self, item: Claimed) -> tuple[Claimed, SendResult]:
        try:
            return item, await self.send(item)
        except Exception as exc:  # a bug in one send must not stop the pump
            log.exception("webhook send crashed")
            return item, SendResult(None, 0, f"internal error: {type(exc).__name__}")

    async def _record(self, results: list[tuple[Claimed, SendResult]]) -> None:
        await self.deliveries.record(results)
        self.stats.sent += len(results)
        self.stats.succeeded += sum(1 for _, r in results if r.ok)
        self.stats.failed_attempts += sum(1 for _, r in results if not r.ok)

    async def aclose(self) -> None:
        await self._sender.aclose()
