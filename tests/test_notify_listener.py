"""db.notify.NotifyListener on a real PostgreSQL: every subscriber's channel on one connection,
each notification to its own channel's subscribers only, and a lost connection reported to
every subscriber (down, so it polls) and then re-opened (up, so it looks again)."""

from __future__ import annotations

import asyncio
import re
import selectors
from collections.abc import AsyncIterator, Callable

import psycopg
import pytest

from core.config import Settings
from db.notify import NotifyListener


class Heard:
    def __init__(self) -> None:
        self.notes: list[str] = []
        self.ups = 0
        self.downs = 0

    def note(self, payload: str) -> None:
        self.notes.append(payload)

    def up(self) -> None:
        self.ups += 1

    def down(self) -> None:
        self.downs += 1


async def until(condition: Callable[[], object], seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():  # noqa: ASYNC110 (callbacks set plain fields)
            await asyncio.sleep(0.02)


@pytest.fixture
async def listener(settings: Settings) -> AsyncIterator[NotifyListener]:
    one = NotifyListener(settings.database_url_plain)
    yield one
    await one.stop()


async def notify(settings: Settings, channel: str, payload: str) -> None:
    async with await psycopg.AsyncConnection.connect(
        settings.database_url_plain, autocommit=True
    ) as conn:
        await conn.execute("SELECT pg_notify(%s, %s)", (channel, payload))


async def listen_backends(settings: Settings) -> list[tuple[int, str]]:
    async with await psycopg.AsyncConnection.connect(
        settings.database_url_plain, autocommit=True
    ) as conn:
        cur = await conn.execute(
            "SELECT pid, query FROM pg_stat_activity WHERE query LIKE 'LISTEN test_%'"
        )
        return [(int(pid), str(query)) for pid, query in await cur.fetchall()]


async def test_subscribers_share_one_connection_and_hear_only_their_channel(
    listener: NotifyListener, settings: Settings
) -> None:
    a, b, late = Heard(), Heard(), Heard()
    sub_a = listener.subscribe("test_a", a.note, a.up, a.down)
    await listener.start(ready_timeout=10)
    assert sub_a.listening and a.ups == 1
    # Subscribed while the connection is up: LISTENed on the same connection, then told.
    sub_b = listener.subscribe("test_b", b.note, b.up, b.down)
    await until(lambda: sub_b.listening)
    assert b.ups == 1
    backends = await listen_backends(settings)
    assert len(backends) == 1
    assert {"test_a", "test_b"} <= set(re.findall(r"LISTEN (\w+)", backends[0][1]))
    # A second subscriber of a channel already LISTENed is up at once.
    sub_late = listener.subscribe("test_a", late.note, late.up, late.down)
    assert sub_late.listening and late.ups == 1

    await notify(settings, "test_a", "one")
    await notify(settings, "test_b", "two")
    await until(lambda: a.notes and b.notes and late.notes)
    assert (a.notes, b.notes, late.notes) == (["one"], ["two"], ["one"])

    sub_b.close()  # its last subscriber gone: the channel is UNLISTENed
    assert not sub_b.listening and b.downs == 1
    await asyncio.sleep(0.2)
    await notify(settings, "test_b", "unheard")
    await notify(settings, "test_a", "three")
    await until(lambda: len(a.notes) == 2)
    assert b.notes == ["two"]


async def test_a_lost_connection_is_reported_down_then_up_again(
    listener: NotifyListener, settings: Settings
) -> None:
    heard = Heard()
    sub = listener.subscribe("test_lost", heard.note, heard.up, heard.down)
    await listener.start(ready_timeout=10)
    assert sub.listening
    [(pid, _)] = await listen_backends(settings)
    async with await psycopg.AsyncConnection.connect(
        settings.database_url_plain, autocommit=True
    ) as conn:
        await conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
    await until(lambda: heard.downs == 1)
    await until(lambda: sub.listening and heard.ups == 2)  # re-opened after its back-off
    await notify(settings, "test_lost", "after")
    await until(lambda: heard.notes == ["after"])


async def test_a_failing_subscriber_does_not_stop_the_others(
    listener: NotifyListener, settings: Settings
) -> None:
    def broken(payload: str) -> None:
        raise RuntimeError("a bug in one subscriber")

    heard = Heard()
    listener.subscribe("test_shared", broken)
    listener.subscribe("test_shared", heard.note)
    await listener.start(ready_timeout=10)
    await notify(settings, "test_shared", "x")
    await notify(settings, "test_shared", "y")
    await until(lambda: heard.notes == ["x", "y"])


class CountingSelector(selectors.DefaultSelector):
    """The loop's own selector, counting how often the loop waits: once per wake-up."""

    def __init__(self) -> None:
        super().__init__()
        self.selects = 0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        self.selects += 1
        return super().select(timeout)


def test_an_idle_listener_leaves_its_loop_asleep(settings: Settings) -> None:
    """Nothing to hear, nothing done: over 2 s of silence the loop wakes for its own sleep's
    timer only (psycopg's ``notifies()`` looked at the socket every 0.1 s: about 20 wake-ups,
    most of an idle worker's CPU); what arrives then is heard at once, a transaction's several
    notifications (one read) each in order."""
    selector = CountingSelector()
    loop = asyncio.SelectorEventLoop(selector)

    async def idle_then_hear() -> tuple[int, list[str]]:
        listener = NotifyListener(settings.database_url_plain)
        heard = Heard()
        sub = listener.subscribe("test_idle", heard.note, heard.up, heard.down)
        try:
            await listener.start(ready_timeout=10)
            assert sub.listening
            await asyncio.sleep(0.2)  # the start's own traffic over
            before = selector.selects
            await asyncio.sleep(2.0)
            woke = selector.selects - before
            async with await psycopg.AsyncConnection.connect(settings.database_url_plain) as conn:
                for payload in ("one", "two", "three"):
                    await conn.execute("SELECT pg_notify('test_idle', %s)", (payload,))
                await conn.commit()
            await until(lambda: len(heard.notes) == 3, 5)
            return woke, heard.notes
        finally:
            await listener.stop()

    try:
        woke, notes = loop.run_until_complete(idle_then_hear())
    finally:
        loop.close()
    assert notes == ["one", "two", "three"]
    assert woke <= 3, f"the idle listener's loop woke {woke} times in 2 s"


def test_a_channel_name_is_an_identifier() -> None:
    with pytest.raises(ValueError):
        NotifyListener(None).subscribe("x; DROP TABLE users", lambda p: None)
