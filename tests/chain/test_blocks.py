"""``chain/blocks.py``'s per-account reads (the deposit watcher's repair walk) and the write
store's "is this signature ours?" query, against the real node and database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from solders.signature import Signature
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import blocks as chain_blocks
from chain import tx_store
from chain.blocks import BlockReader
from chain.gateway import ChainGateway
from chain.rpc import ChainRpc
from tests.chain.gateway_support import (  # noqa: F401  (fixtures)
    UNIT,
    gw_fixture,
    make_gateway_fixture,
    op,
    row,
    uid,
)


@pytest.fixture(name="blocks")
async def blocks_fixture(chain_node: tuple[str, Path]) -> AsyncIterator[BlockReader]:
    async with ChainRpc(chain_node[0]) as rpc:
        yield BlockReader(rpc)


async def test_an_accounts_signatures_oldest_first_within_slots_and_their_transactions(
    gw: ChainGateway, blocks: BlockReader, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    user = uid()
    address = await gw.ensure_custody_account(user, "MCC")
    minted = await gw.mint(op(), user, 3 * UNIT, currency="MCC")
    created = await row(session_maker, f"custody:{address}")
    assert created.slot is not None and minted.slot is not None and created.slot < minted.slot

    walked = await blocks.signatures_of(str(address))
    assert [s.signature for s in walked] == [created.signature, minted.signature]
    assert [s.slot for s in walked] == [created.slot, minted.slot]
    assert all(s.err is None for s in walked)
    later = await blocks.signatures_of(str(address), minted.slot)
    assert [s.signature for s in later] == [minted.signature]
    earlier = await blocks.signatures_of(str(address), 0, minted.slot - 1)
    assert [s.signature for s in earlier] == [created.signature]

    found = await blocks.transaction(minted.signature)
    assert found is not None and found.slot == minted.slot and found.block_time is not None
    assert found.tx.signature == minted.signature and found.tx.err is None
    assert {c.account: c.delta for c in found.tx.token_changes} == {str(address): 3 * UNIT}
    assert await blocks.transaction(str(Signature.default())) is None


async def test_the_walk_pages_through_every_signature(
    gw: ChainGateway, blocks: BlockReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = uid()
    address = await gw.ensure_custody_account(user, "MCD")
    for _ in range(2):
        await gw.mint(op(), user, UNIT, currency="MCD")
    whole = await blocks.signatures_of(str(address))
    assert len(whole) == 3
    monkeypatch.setattr(chain_blocks, "SIGNATURES_PAGE", 1)  # one signature a call
    assert await blocks.signatures_of(str(address)) == whole
    assert await blocks.signatures_of(str(address), whole[1].slot) == whole[1:]


async def test_transactions_are_read_in_batches_in_order(
    gw: ChainGateway, blocks: BlockReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catch-up's reads: several transactions to an HTTP request (one turn of the request
    budget), answered in the order asked, a signature the node lacks as None."""
    user = uid()
    address = await gw.ensure_custody_account(user, "MCC")
    for _ in range(2):
        await gw.mint(op(), user, UNIT, currency="MCC")
    walked = [s.signature for s in await blocks.signatures_of(str(address))]
    missing = str(Signature.default())
    asked = [walked[2], missing, walked[0], walked[1]]
    monkeypatch.setattr(chain_blocks, "TRANSACTIONS_BATCH", 3)
    posted = blocks._rpc.calls["getTransaction"]
    requests = []
    post = blocks._rpc._post

    async def counted(method: str, body: bytes, *args: Any, **kwargs: Any) -> bytes:
        requests.append(method)
        return await post(method, body, *args, **kwargs)

    monkeypatch.setattr(blocks._rpc, "_post", counted)
    found = await blocks.transactions(asked)
    assert [f.tx.signature if f is not None else None for f in found] == [
        walked[2], None, walked[0], walked[1]
    ]  # fmt: skip
    assert requests == ["getTransaction", "getTransaction"]  # 3 + 1 of them
    assert blocks._rpc.calls["getTransaction"] - posted == 4
    minted = [f for f in (found[0], found[3]) if f is not None]
    assert [{c.account: c.delta for c in f.tx.token_changes} for f in minted] == [
        {str(address): UNIT}, {str(address): UNIT}
    ]  # fmt: skip


async def test_known_signatures_are_those_of_any_attempt_of_a_gateway_write(
    gw: ChainGateway, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    user = uid()
    address = await gw.ensure_custody_account(user, "MCD")
    ours = (await row(session_maker, f"custody:{address}")).signature
    other = str(Signature.new_unique())
    async with session_maker() as session:
        assert await tx_store.known_signatures(session, [ours, other]) == {ours}
        assert await tx_store.known_signatures(session, [other]) == set()
        assert await tx_store.known_signatures(session, []) == set()
