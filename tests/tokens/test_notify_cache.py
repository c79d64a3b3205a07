"""The per-process NotifyCache's storing rule: a value loaded while *its own* key is evicted
is not stored (it may predate the change), while evictions of other keys do not stop caching.
On a busy ledger balance notifications arrive all the time on the shared channel; with one
global counter no project row could be cached while money moved."""

from __future__ import annotations

import asyncio

from db.notify import NotifyCache


def _listening() -> NotifyCache[str]:
    cache: NotifyCache[str] = NotifyCache(None, 60.0)
    cache._feeds = 1  # as when a LISTEN connection feeds it
    return cache


async def test_an_eviction_of_another_key_during_a_load_still_caches() -> None:
    cache = _listening()

    async def load() -> str:
        cache.evict("uid-1:MCC")  # someone's balance changed meanwhile
        return "row"

    assert await cache.get("project:1", load) == "row"
    assert "project:1" in cache._entries


async def test_an_eviction_of_the_same_key_during_a_load_is_not_stored() -> None:
    cache = _listening()

    async def load() -> str:
        cache.evict("project:1")  # the row changed while it was being read
        return "old row"

    assert await cache.get("project:1", load) == "old row"
    assert "project:1" not in cache._entries
    assert cache._loading == {}


async def test_concurrent_loads_of_one_key_all_see_its_eviction() -> None:
    cache = _listening()
    started = asyncio.Event()
    release = asyncio.Event()

    async def slow() -> str:
        started.set()
        await release.wait()
        return "old row"

    first = asyncio.create_task(cache.get("project:1", slow))
    await started.wait()
    second = asyncio.create_task(cache.get("project:1", slow))
    await asyncio.sleep(0)
    cache.evict("project:1")
    release.set()
    assert await asyncio.gather(first, second) == ["old row", "old row"]
    assert "project:1" not in cache._entries
    assert cache._loading == {}


async def test_a_clear_during_a_load_is_not_stored() -> None:
    cache = _listening()

    async def load() -> str:
        cache.clear()  # the listener reconnected: anything may have been missed
        return "row"

    await cache.get("project:1", load)
    assert cache._entries == {}
