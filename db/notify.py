"""One LISTEN connection per process, and the per-process caches its notifications evict.

``NotifyListener`` holds the process's one LISTEN connection; every part of the process that
wants to hear a channel subscribes to it (``listener.subscribe(channel, on_note, on_up,
on_down)``) instead of opening a connection of its own: the caches below (``mccgw_cache``),
the webhook pump (``mccgw_webhooks``) and the deposit watcher (``mccgw_deposits``). The API
builds one in its lifespan (``app.state.notify``), a worker in its dependencies
(``WorkerDeps.notify``). While the connection is down every subscriber falls back to what it
did without it (a cache keeps nothing, the pump and the watcher poll); when it is (back) up
each is told so and looks again for what it may have missed.

Triggers NOTIFY on ``mccgw_cache`` at commit, whatever process or code path made the change:
every ledger account and price (``uid:currency``, ``price``; migration 0012), every project row
(``project:<id>``; 0018) and every consent (``consent:<project_id>:<uid>``; 0022). The
listener evicts the named entry from every cache attached to it: balances, project rows
(authentication), a project's amount limits (engine.limits) and consent grants
(access.consent). While that connection is down nothing is cached (every read goes to
PostgreSQL), so a missed notification can never serve a stale value. Entries also expire after
``max_age`` seconds as a second line of defence.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import psycopg

log = logging.getLogger("mccgw.db.notify")

CHANNEL = "mccgw_cache"
_MAX_ENTRIES = 100_000

T = TypeVar("T")


def project_key(project_id: int) -> str:
    """The key a change of the project's row names (the trigger's NOTIFY payload)."""
    return f"project:{project_id}"


def consent_key(project_id: int, uid: str) -> str:
    """The key a change of ``uid``'s consent to ``project_id`` names."""
    return f"consent:{project_id}:{uid}"


class NotifyCache(Generic[T]):
    """Values by key, kept only while a listener feeds this cache its evictions.

    With a ``dsn`` the cache owns a listener of its own (``start``/``stop``); without one it
    is attached to a shared ``NotifyListener`` (``listener.attach(cache)``)."""

    def __init__(self, dsn: str | None, max_age: float) -> None:
        self._max_age = max_age
        self._entries: dict[str, tuple[float, T]] = {}
        # Bumped by every clear: a value read before a clear is not stored after it.
        self._generation = 0
        # Keys being loaded -> [loads in flight, evictions of the key seen meanwhile]: a value
        # read before its own key's eviction is not stored after it. Evictions of other keys
        # do not matter (they arrive all the time on a busy ledger and would stop all caching).
        self._loading: dict[str, list[int]] = {}
        # How many live LISTEN connections feed this cache (nothing is kept while none does).
        self._feeds = 0
        self._own = NotifyListener(dsn) if dsn is not None else None
        if self._own is not None:
            self._own.attach(self)

    @property
    def listening(self) -> bool:
        return self._feeds > 0

    async def get(
        self, key: str, load: Callable[[], Awaitable[T]], max_age: float | None = None
    ) -> T:
        hit = self._entries.get(key)
        now = time.monotonic()
        limit = self._max_age if max_age is None else min(max_age, self._max_age)
        if hit is not None and self._feeds > 0 and now - hit[0] < limit:
            return hit[1]
        generation = self._generation
        loading = self._loading.setdefault(key, [0, 0])
        loading[0] += 1
        seen = loading[1]
        try:
            value = await load()
        finally:
            loading[0] -= 1
            if loading[0] == 0:
                del self._loading[key]
        if self._feeds > 0 and generation == self._generation and loading[1] == seen:
            if len(self._entries) >= _MAX_ENTRIES:
                self._entries.clear()
            self._entries[key] = (now, value)
        return value

    def evict(self, key: str) -> None:
        loading = self._loading.get(key)
        if loading is not None:
            loading[1] += 1
        self._entries.pop(key, None)

    def clear(self) -> None:
        self._generation += 1
        self._entries.clear()

    def _fed(self, delta: int) -> None:
        """A feeding connection came up (+1) or went down (-1): either way anything kept may
        have missed a notification."""
        self._feeds = max(self._feeds + delta, 0)
        self.clear()

    # -- a listener of its own (a cache built with a dsn) --------------------------------

    async def start(self, ready_timeout: float = 0.0) -> None:
        if self._own is not None:
            await self._own.start(ready_timeout)

    async def stop(self) -> None:
        if self._own is not None:
            await self._own.stop()


_CHANNEL_NAME = re.compile(r"[a-z_][a-z0-9_]*")


@dataclass(eq=False)
class Subscription:
    """One subscriber's channel on the process's listener (``NotifyListener.subscribe``)."""

    channel: str
    _listener: NotifyListener
    _on_note: Callable[[str], None]
    _on_up: Callable[[], None] | None
    _on_down: Callable[[], None] | None
    _up: bool = False

    @property
    def listening(self) -> bool:
        """Its channel is LISTENed on a live connection: every NOTIFY from now on arrives."""
        return self._up

    def close(self) -> None:
        """Unsubscribe (``on_down`` runs if it was listening)."""
        self._listener._remove(self)

    def _note(self, payload: str) -> None:
        self._call(self._on_note, payload)

    def _set_up(self, up: bool) -> None:
        if up != self._up:
            self._up = up
            callback = self._on_up if up else self._on_down
            if callback is not None:
                self._call(callback)

    def _call(self, callback: Callable[..., None], *args: str) -> None:
        try:
            callback(*args)
        except Exception:  # a subscriber's bug must not stop every other one's notifications
            log.exception("notify subscriber on %s failed", self.channel)


class NotifyListener:
    """The process's one LISTEN connection, shared by every channel a subscriber names.

    ``subscribe(channel, on_note, on_up, on_down)``: ``on_note(payload)`` for each NOTIFY on
    the channel; ``on_up()`` once the channel is LISTENed on a live connection (at subscribe
    time if it already is, and after every reconnect): anything committed before may have
    been missed, so look again; ``on_down()`` when the connection is lost (fall back to
    polling). Callbacks run on the listener's task and must not block. The connection is
    re-opened with back-off (0.5 s doubling to 10 s). Caches are subscribers on ``CHANNEL``
    (``attach``)."""

    def __init__(self, dsn: str | None) -> None:
        self._dsn = dsn
        self._subs: dict[str, list[Subscription]] = {}
        self._caches: dict[int, Subscription] = {}
        self._listened: set[str] = set()  # LISTENed on the live connection (empty: down)
        self._up = False
        self._changed = asyncio.Event()  # a channel was added or lost its last subscriber
        self._task: asyncio.Task[None] | None = None
        self._heard_meanwhile: list[tuple[str, str]] = []  # (channel, payload), see _heard
        self._when_lost: list[Callable[[], None]] = []
        self._backend_pid: int | None = None

    @property
    def listening(self) -> bool:
        return self._up

    @property
    def backend_pid(self) -> int | None:
        """The server process of the live connection (None while down)."""
        return self._backend_pid if self._up else None

    def when_lost(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` each time the live connection is lost (not at ``stop``).

        The listener is the one connection of the process that is always reading, so it is
        the first to see the database restart: the other connections of the process (its
        pool's) are likely dead too, and are known to be only when next used
        (``db.session.renew_after_loss``). Runs on the listener's task; must not block."""
        self._when_lost.append(callback)

    def subscribe(
        self,
        channel: str,
        on_note: Callable[[str], None],
        on_up: Callable[[], None] | None = None,
        on_down: Callable[[], None] | None = None,
    ) -> Subscription:
        if not _CHANNEL_NAME.fullmatch(channel):
            raise ValueError(f"not a channel name: {channel!r}")
        sub = Subscription(channel, self, on_note, on_up, on_down)
        self._subs.setdefault(channel, []).append(sub)
        if channel in self._listened:
            sub._set_up(True)
        else:
            self._changed.set()  # the listener LISTENs, then tells it it is up
        return sub

    def _remove(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.channel, [])
        if sub in subs:
            subs.remove(sub)
            sub._set_up(False)
            if not subs:
                del self._subs[sub.channel]
                self._changed.set()

    def attach(self, cache: NotifyCache[Any]) -> None:
        """Feed ``cache`` the evictions named on ``CHANNEL`` (nothing is kept while down)."""
        if id(cache) not in self._caches:
            self._caches[id(cache)] = self.subscribe(
                CHANNEL, cache.evict, lambda: cache._fed(+1), lambda: cache._fed(-1)
            )

    def detach(self, cache: NotifyCache[Any]) -> None:
        sub = self._caches.pop(id(cache), None)
        if sub is not None:
            sub.close()

    def _set_down(self) -> None:
        self._up = False
        self._listened = set()
        for subs in list(self._subs.values()):
            for sub in list(subs):
                sub._set_up(False)

    async def start(self, ready_timeout: float = 0.0) -> None:
        """Start listening in the background; wait up to ``ready_timeout`` seconds for the
        connection (and the channels subscribed so far)."""
        if self._dsn is None or self._task is not None:
            return
        ready = asyncio.Event()
        self._task = asyncio.create_task(self._run(ready), name="mccgw-notify-listener")
        if ready_timeout > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ready.wait(), ready_timeout)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        self._set_down()

    async def _run(self, ready: asyncio.Event) -> None:
        assert self._dsn is not None
        backoff = 0.5
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._dsn, autocommit=True
                ) as conn:
                    self._heard_meanwhile = []
                    conn.add_notify_handler(self._heard)
                    self._backend_pid = conn.info.backend_pid
                    self._up = True
                    backoff = 0.5
                    await self._serve(conn, ready)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._up:
                    log.warning("notify listener lost its connection (%r); subscribers poll", exc)
                    self._lost()
                else:
                    log.warning("notify listener cannot connect (%r); subscribers poll", exc)
            finally:
                self._set_down()
            ready.set()  # start-up does not wait for a database that is down
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 10.0)

    async def _serve(self, conn: psycopg.AsyncConnection[Any], ready: asyncio.Event) -> None:
        """LISTEN to every subscribed channel (one statement, so pg_stat_activity shows them
        all), tell the new ones they are up, deliver notifications until the channels change."""
        while True:
            self._changed.clear()
            wanted = set(self._subs)
            statements = [f"LISTEN {c}" for c in sorted(wanted)]
            statements += [f"UNLISTEN {c}" for c in sorted(self._listened - wanted)]
            if statements and wanted != self._listened:
                await conn.execute("; ".join(statements))
            self._listened = wanted
            for channel in wanted:
                for sub in list(self._subs.get(channel, [])):
                    sub._set_up(True)
            ready.set()
            notes = asyncio.ensure_future(self._deliver(conn))
            changed = asyncio.ensure_future(self._changed.wait())
            try:
                await asyncio.wait({notes, changed}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                changed.cancel()
                if not notes.done():  # waiting for the socket: nothing read, nothing lost
                    notes.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await notes
            if notes.done() and not notes.cancelled():
                notes.result()  # the connection's error
                raise ConnectionError("notifications ended")

    async def _deliver(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Deliver notifications as the socket brings them, asleep in between.

        Not ``conn.notifies()``: psycopg waits for the socket 0.1 s at a time (its
        ``_WAIT_INTERVAL``), so an idle listener woke its loop ten times a second, most of an
        idle worker's CPU (issue 43 pass five). Here the loop wakes only when the socket is
        readable: a notification, or the connection's end (``consume_input`` raises, and
        ``_run`` reconnects), as libpq's own asynchronous pattern reads it."""
        pgconn = conn.pgconn
        encoding = conn.info.encoding
        readable = asyncio.Event()
        loop = asyncio.get_running_loop()
        fd = pgconn.socket
        loop.add_reader(fd, readable.set)
        try:
            # Those read with the last LISTEN's reply, now that its channels are up.
            heard, self._heard_meanwhile = self._heard_meanwhile, []
            for channel, payload in heard:
                self._dispatch(channel, payload)
            while True:
                # Parsed from what is already read first (libpq's PQnotifies parses its input
                # buffer): a notification that came with the last statement's reply is not
                # left waiting for the next one.
                while (note := pgconn.notifies()) is not None:
                    self._dispatch(note.relname.decode(encoding), note.extra.decode(encoding))
                await readable.wait()
                readable.clear()
                pgconn.consume_input()  # OperationalError once the connection is lost
        finally:
            loop.remove_reader(fd)

    def _lost(self) -> None:
        for callback in self._when_lost:
            try:
                callback()
            except Exception:  # one hook's bug must not stop the listener reconnecting
                log.exception("notify listener: a when_lost hook failed")

    def _heard(self, note: psycopg.Notify) -> None:
        """A notification psycopg read while running a statement (a LISTEN): delivered by
        ``_deliver`` once the statement's channels are up, as ``conn.notifies()`` did."""
        self._heard_meanwhile.append((note.channel, note.payload))

    def _dispatch(self, channel: str, payload: str) -> None:
        for sub in list(self._subs.get(channel, [])):
            if sub.listening:
                sub._note(payload)
