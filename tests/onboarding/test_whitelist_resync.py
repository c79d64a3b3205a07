"""`mccgw whitelist-resync`: stored entries missing on chain (a dev chain from before the MCD
Token layout, or a wiped one) are re-created in the real layout, once, with their status."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import whitelist as wl
from db.models.chain import ChainTransaction
from db.models.onboarding import McdWhitelistEntry
from onboarding.whitelist import WhitelistChain, resync
from tests.factories import World
from tests.onboarding.conftest import WALLET


async def _stored(
    world: World, sessions: async_sessionmaker[AsyncSession], status: str, name: str
) -> int:
    project_id = (await world.project(name=name, mcd_wallet_address=WALLET)).project_id
    async with sessions() as s:
        s.add(
            McdWhitelistEntry(
                project_id=project_id,
                project_name=name,
                wallet_address=WALLET,
                pda_address="OldProgramPda1111111111111111111111111111111",
                pda_bump=255,
                status=status,
                created_by="test",
            )
        )
        await s.commit()
    return project_id


async def test_resync_recreates_missing_entries_once(
    world: World, chain: WhitelistChain, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    long_name = "Ωmega " + "x" * 90  # stored whole, cut to 64 bytes on chain
    active = await _stored(world, session_maker, "active", long_name)
    suspended = await _stored(world, session_maker, "suspended", "Sleepy")
    removed = await _stored(world, session_maker, "removed", "Gone")
    mine = {active, suspended, removed}

    results = {r.project_id: r for r in await resync(session_maker, chain) if r.project_id in mine}
    assert {p: r.action for p, r in results.items()} == {
        active: "added",
        suspended: "added+suspended",
    }
    first = await chain.entry(active)
    assert first is not None and first.active and str(first.wallet) == WALLET
    assert first.project_name == wl.chain_project_name(long_name)
    assert len(first.project_name.encode()) <= 64
    second = await chain.entry(suspended)
    assert second is not None and second.status is wl.Status.SUSPENDED
    assert await chain.entry(removed) is None
    async with session_maker() as s:
        row = await s.scalar(
            select(McdWhitelistEntry).where(McdWhitelistEntry.project_id == active)
        )
        assert row is not None
        pda, bump = chain.pda(active)
        assert (row.pda_address, row.pda_bump) == (str(pda), bump)
        assert row.add_tx == results[active].signature == row.last_tx

    # Again on the same chain: nothing to do, no new chain write.
    async with session_maker() as s:
        before = await s.scalar(select(func.count()).select_from(ChainTransaction))
    again = {
        r.project_id: r.action for r in await resync(session_maker, chain) if r.project_id in mine
    }
    assert again == {active: "present", suspended: "present"}
    async with session_maker() as s:
        assert await s.scalar(select(func.count()).select_from(ChainTransaction)) == before
