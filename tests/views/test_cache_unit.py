"""The snapshot cache's refresh rules, with a scripted reader standing in for the RPC (pure
logic: the RPC paths themselves are covered against a real node in the other view tests)."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest

from chain.ecosystem import territory as te
from chain.errors import ChainUnavailable
from devchain.fixtures import wallet
from views.cache import ProgramCache


def nft(i: int, members: int = 0) -> te.TerritoryNft:
    return te.TerritoryNft(
        0, i, wallet(f"u:{i}"), wallet("u:o"), 0, members, False, False, 1, 2, 255
    )


class ScriptedReader:
    """Answers getProgramAccounts with the current `accounts`, after `delay` seconds."""

    def __init__(self) -> None:
        self.accounts: dict[str, bytes] = {}
        self.calls = 0
        self.delay = 0.0
        self.fail = False

    async def call_raw(self, method: str, params: Any = ()) -> bytes:
        self.calls += 1
        await asyncio.sleep(self.delay)
        if self.fail:
            raise ChainUnavailable("scripted")
        value = [
            {"pubkey": k, "account": {"data": [base64.b64encode(d).decode(), "base64"]}}
            for k, d in self.accounts.items()
        ]
        return json.dumps({"result": {"context": {"slot": self.calls}, "value": value}}).encode()


def cache(reader: ScriptedReader, ttl: float) -> ProgramCache:
    c = ProgramCache(reader, "prog", (te.TerritoryNft,), ttl)  # type: ignore[arg-type]
    c.max_stale = 0.5
    return c


async def test_concurrent_gets_share_one_read() -> None:
    r = ScriptedReader()
    r.accounts = {"a": nft(1).encode(), "b": nft(2).encode(), "junk": b"\x00" * 20}
    r.delay = 0.05
    c = cache(r, ttl=10)
    snaps = await asyncio.gather(*(c.get() for _ in range(50)))
    assert r.calls == 1 and all(s is snaps[0] for s in snaps)
    assert set(snaps[0].all(te.TerritoryNft)) == {"a", "b"}  # undecodable bytes skipped


async def test_stale_snapshot_served_while_one_refresh_runs() -> None:
    r = ScriptedReader()
    r.accounts = {"a": nft(1).encode(), "b": nft(2).encode()}
    c = cache(r, ttl=0.05)
    first = await c.get()
    a_before = first.get(te.TerritoryNft, "a")
    await asyncio.sleep(0.06)
    r.accounts["b"] = nft(2, members=9).encode()
    r.delay = 0.05
    during = await asyncio.gather(*(c.get() for _ in range(20)))
    assert all(s is first for s in during)  # answered at once from the old snapshot
    await asyncio.sleep(0.1)
    assert r.calls == 2  # one background refresh for 20 requests
    second = await c.get()
    changed = second.get(te.TerritoryNft, "b")
    assert second.slot == 2 and changed is not None and changed.current_members == 9
    assert second.get(te.TerritoryNft, "a") is a_before  # unchanged bytes: not decoded again


async def test_failed_refresh_keeps_serving_until_max_stale() -> None:
    r = ScriptedReader()
    r.accounts = {"a": nft(1).encode()}
    c = cache(r, ttl=0.05)
    first = await c.get()
    r.fail = True
    await asyncio.sleep(0.06)
    assert await c.get() is first  # still within max_stale: served, refresh fails in background
    await asyncio.sleep(0.6)
    with pytest.raises(ChainUnavailable):
        await c.get()  # too old now: the request itself reads, and the failure is its answer
    r.fail = False
    assert (await c.get()).slot > first.slot
