"""Landing under congestion (``chain/fees.py``, ``chain/pricing.py``): every write carries a
compute-unit limit from its simulation and a price from the cluster's recent priority fees,
the fee it paid is recorded, a re-sign after expiry pays more within the ceiling, and the size
rule of the packers counts the budget instructions. On the session's real node (calm: the
market is 0, so the floor) and the prices against a node in the storm (congested)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from solders.transaction import VersionedTransaction
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.custody_writes import CustodyTransfer
from chain.fees import FeeOracle, FeePolicy, budget_of, fee_of
from chain.gateway import PACKET_DATA_SIZE, ChainGateway
from chain.rpc import ChainRpc
from core.metrics import CHAIN_WRITE_FEES
from tests.chain.gateway_support import (  # noqa: F401 (fixtures)
    UNIT,
    GatewayFactory,
    funded,
    gw_fixture,
    make_gateway_fixture,
    op,
    row,
    wait_until_expired,
)
from tests.chain.test_weather import storm_fixture  # noqa: F401 (fixture)


async def test_a_write_sets_its_limit_from_simulation_and_records_its_fee(
    gw: ChainGateway, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    alice = await funded(gw, "MCC", 5 * UNIT)
    bob = await funded(gw, "MCC", 0)
    fees_before = CHAIN_WRITE_FEES.labels("transfer")._sum.get()
    key = op()
    ix = [gw.transfer_instruction(CustodyTransfer("MCC", alice, bob, UNIT))]
    final = await gw.await_final((await gw.submit(key, ix, kind="transfer")).op_key, 30)
    assert final.succeeded
    stored = await row(session_maker, key)
    message = VersionedTransaction.from_bytes(stored.tx_bytes).message
    limit, price = budget_of(message)
    assert price == 1_000  # a calm cluster's market is 0: the floor
    assert 1_000 < limit < 50_000  # what transfer_checked consumed, plus the margin, not 200 000
    assert stored.cu_price == price
    priority = (limit * price + 999_999) // 10**6
    signatures = message.header.num_required_signatures  # the fee payer and custody's authority
    assert stored.fee_lamports == fee_of(stored.tx_bytes) == 5_000 * signatures + priority
    # the caller's instruction keeps its index (the budget is appended): errors name it alike
    assert message.account_keys[message.instructions[0].program_id_index] == ix[0].program_id
    assert CHAIN_WRITE_FEES.labels("transfer")._sum.get() == fees_before + stored.fee_lamports


async def test_a_resign_after_expiry_pays_more_within_the_ceiling(
    gw: ChainGateway, make_gateway: GatewayFactory, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    alice = await funded(gw, "MCC", 5 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    ix = [gw.transfer_instruction(CustodyTransfer("MCC", alice, bob, UNIT))]
    prepared = await gw.prepare(key, ix, kind="transfer")
    first_bytes = (await row(session_maker, key)).tx_bytes
    await wait_until_expired(gw, prepared.last_valid_block_height)
    retry = await make_gateway()
    final = await retry.await_final((await retry.submit(key, ix, kind="transfer")).op_key, 30)
    assert final.succeeded and final.attempt == 2
    stored = await row(session_maker, key)
    assert stored.cu_price == 1_501  # 1.5 times the old price (the market is lower), + 1
    first = VersionedTransaction.from_bytes(first_bytes).message
    second = VersionedTransaction.from_bytes(stored.tx_bytes).message
    assert second.account_keys == first.account_keys  # the same instructions, a new price
    assert budget_of(second)[0] == budget_of(first)[0]


async def test_the_price_follows_the_congested_market_within_floor_and_ceiling(
    storm: tuple[str, Path],
) -> None:
    async with ChainRpc(storm[0], retry_within=15) as rpc:
        market = FeeOracle(rpc, FeePolicy(percentile=75, floor=1_000, ceiling=200_000))
        price = await market.price([])
        assert 2_500 <= price <= 7_500  # the storm's market is around 5 000
        capped = FeeOracle(rpc, FeePolicy(percentile=75, floor=1_000, ceiling=3_000))
        assert await capped.price([]) <= 3_000
        assert await capped.raised([], 2_900) == 3_000  # a re-sign never passes the ceiling

        async def spent() -> int:
            return 10**9

        broke = FeeOracle(rpc, FeePolicy(floor=1_000, daily_budget=10**6), spent)
        assert await broke.price([]) == 1_000  # past the day's budget: the floor


async def test_the_packers_size_rule_counts_the_budget(
    gw: ChainGateway, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    """The most transfers ``fits_one_transaction`` lets into one write, signed with their
    compute budget, still fit one packet."""
    alice, *users = await asyncio.gather(
        funded(gw, "MCC", 50 * UNIT), *(funded(gw, "MCC", 0) for _ in range(20))
    )  # at once: 21 creations one after another took 14-19 s of the suite
    ixs = [gw.transfer_instruction(CustodyTransfer("MCC", alice, u, UNIT)) for u in users]
    n = max(k for k in range(1, len(ixs) + 1) if gw.fits_one_transaction(ixs[:k]))
    assert n < len(ixs)
    key = op()
    prepared = await gw.prepare(key, ixs[:n], kind="transfer")
    assert len((await row(session_maker, prepared.op_key)).tx_bytes) <= PACKET_DATA_SIZE
