"""The price oracle: the rule's arithmetic, its source priority, the 180-close mean, and one
on-chain update_price per close across retries and a lost result."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from spl.token.constants import TOKEN_PROGRAM_ID
from spl.token.instructions import mint_to
from spl.token.models import MintToParams
from sqlalchemy import delete, func, select, update
from temporalio.client import ScheduleActionExecutionStartWorkflow
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps
from activities.tokens import (
    OracleCloseRequest,
    OracleSampleRequest,
    OracleWriteRequest,
    TokenActivities,
)
from chain.reincarnation import read_reincarnation_pool
from db.models.chain import ChainTransaction
from db.models.tokens import AdminPrice, PriceClose, PriceSample
from devchain.market_pool import ensure_market_pool
from devchain.outside import OutsideWallet
from tokens import oracle
from tokens.prices import (
    InvalidPrice,
    Quote,
    buyback_price,
    choose,
    clamp_move,
    market_price,
    median_price,
    middle_mean,
    parse_price,
)
from workflows.tokens import OracleInput, OracleWorkflow


def test_buyback_matches_the_facts_page_worked_example() -> None:
    # ecosystem-programs.md §7: base 10 000 000 -> 10 500 000 with premium 500.
    assert buyback_price(10_000_000, 500) == 10_500_000
    # Floored like the program: 10.000001 USDC * 1.05 = 10.50000105 -> 10.500001.
    assert buyback_price(10_000_001, 500) == 10_500_001
    assert buyback_price(19, 500) == 19  # floor(19 * 0.05) = 0


def test_price_rule_pieces() -> None:
    assert choose(12_000_000, 11_000_000, 10_000_000) == Quote(12_000_000, "market")
    assert choose(None, 11_000_000, 10_000_000) == Quote(11_000_000, "admin")
    assert choose(None, None, 10_000_000) == Quote(10_000_000, "default")
    assert middle_mean([10_000_000, 11_000_000, 12_000_001]) == 11_000_000
    # The middle half: a quarter of the closes at each end are left out, however far off.
    assert middle_mean([1_000_000] * 179 + [181_000_000]) == 1_000_000
    assert middle_mean([1, 2, 3, 4, 5, 6, 7, 1_000]) == (3 + 4 + 5 + 6) // 4
    # 10 500 000 USDC units against 1 000 000 MCC (9 decimals): 10.5 USDC per MCC.
    assert market_price(10_500_000 * 10**6, 1_000_000 * 10**9, 9) == 10_500_000
    assert market_price(0, 5, 9) is None
    assert parse_price("10.5") == 10_500_000
    assert parse_price("0.01") == 10_000 and parse_price("1000") == 1_000_000_000
    for bad in ("-1", "0", "1.1234567", "1e3", " 1", "1000.000001", "abc", "", "0.009"):
        with pytest.raises(InvalidPrice):
            parse_price(bad)


def test_close_boundaries() -> None:
    at = datetime(2026, 11, 23, 15, 59, 59, tzinfo=UTC)
    assert oracle.close_boundary(at) == datetime(2026, 11, 23, 12, tzinfo=UTC)
    assert oracle.close_key(oracle.close_boundary(at)) == "2026-11-23T12:00:00Z"


async def _clear(deps: WorkerDeps) -> None:
    async with deps.sessions() as session:
        await session.execute(delete(PriceClose))
        await session.execute(delete(AdminPrice))
        await session.execute(delete(PriceSample))
        await session.commit()


async def test_mean_of_180_closes_with_fewer_points(deps: WorkerDeps) -> None:
    await _clear(deps)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    prices = [10_000_000 + i * 1_000 for i in range(185)]
    async with deps.sessions() as session:
        rows = []
        for i, p in enumerate(prices):
            row = await oracle.record_close(
                session, start + oracle.CLOSE_EVERY * i, Quote(p, "admin"),
                window=180, premium_bps=500,
            )  # fmt: skip
            assert row is not None
            rows.append((row.points, row.base_price_usdc, row.buyback_price_usdc))
        # The same close again is not recorded twice.
        assert await oracle.record_close(session, start, Quote(1, "admin"), window=180,
                                         premium_bps=500) is None  # fmt: skip
        await session.commit()
    assert rows[0] == (1, prices[0], buyback_price(prices[0], 500))
    assert rows[2][:2] == (3, sum(prices[:3]) // 3)
    assert rows[179][:2] == (180, sum(prices[:180]) // 180)
    assert rows[184][:2] == (180, sum(prices[5:185]) // 180)
    await _clear(deps)


async def _bases(deps: WorkerDeps, prices: list[int], anchor: int) -> list[int]:
    """The base of each close recorded with these prices in turn, with the settings' cap."""
    start = datetime(2019, 1, 1, tzinfo=UTC)
    bases = []
    async with deps.sessions() as session:
        for i, price in enumerate(prices):
            row = await oracle.record_close(
                session, start + oracle.CLOSE_EVERY * i, Quote(price, "market"),
                window=180, premium_bps=500, max_move_bps=1_000, first_anchor=anchor,
            )  # fmt: skip
            assert row is not None
            bases.append(row.base_price_usdc)
        await session.rollback()
    return bases


@pytest.mark.parametrize("times", [181, 19])
async def test_one_manipulated_window_moves_the_base_at_most_once_and_not_for_long(
    deps: WorkerDeps, times: int
) -> None:
    """Review 2026-11-28, M3: the pool held at 181 (or 19) times its price for more than half
    of ONE 4-hour window, amid 30 days of honest closes. With the raw close in a plain mean of
    180, the 10 % cap turned it into a ramp: the base doubled within 8 closes and stayed at
    1.5 times or more for 29 days (19 times: +10 % for 30 days). What one close contributes is
    bounded now (the mean of the middle half of the closes): the base moves at most once, by
    at most the cap, and is back within a few closes."""
    await _clear(deps)
    price = 1_000_000
    honest = [price] * 179
    bases = await _bases(deps, [*honest, times * price, *[price] * 60], price)
    after = bases[179:]
    assert bases[:179] == honest
    moved = [b for b in after if b != price]
    assert len(moved) <= 1 and max(after) <= price + price // 10, after[:10]
    assert after[3:] == [price] * (len(after) - 3)
    await _clear(deps)


async def test_a_lasting_move_of_the_market_is_followed(deps: WorkerDeps) -> None:
    """The other side of the same rule: a price that lasts is followed, as the plain mean
    followed it. The market doubles and stays: the base starts to move once more than a
    quarter of the window (45 closes, 7.5 days) is at the new price and reaches it once three
    quarters are (135 closes, 22.5 days; the plain mean took 180), never by more than the
    cap a close; and back down the same way."""
    await _clear(deps)
    price = 1_000_000
    up = await _bases(deps, [price] * 180 + [2 * price] * 180, price)
    assert up[180 + 44] == price and up[180 + 45] > price
    assert up[180 + 134] == 2 * price and up[-1] == 2 * price
    assert all(0 <= b - a <= a // 10 for a, b in itertools.pairwise(up))
    await _clear(deps)
    down = await _bases(deps, [2 * price] * 180 + [price] * 180, 2 * price)
    assert down[180 + 44] == 2 * price and down[180 + 134] == price
    await _clear(deps)


async def test_source_priority_and_one_onchain_write_per_close(
    deps: WorkerDeps,
    solana: AsyncClient,
    temporal_env: WorkflowEnvironment,
    queue: str,
    worker: str,
) -> None:
    await _clear(deps)
    activities = TokenActivities(deps)
    now = datetime.now(UTC)
    t0 = oracle.close_boundary(now) - timedelta(hours=8)

    # No market pool configured and no admin price: the default 10 USDC.
    first = await activities.oracle_record_closes(OracleCloseRequest(now=t0.isoformat()))
    assert first.recorded == [oracle.close_key(t0)]
    async with deps.sessions() as session:
        close = await session.get(PriceClose, t0)
        assert close is not None and (close.source, close.price_usdc) == ("default", 10_000_000)
        # An administrator price comes next.
        await oracle.set_admin_price(session, 12_000_000, "u_admin", None)
        await session.commit()
    t1 = t0 + oracle.CLOSE_EVERY
    await activities.oracle_record_closes(OracleCloseRequest(now=t1.isoformat()))
    # A market pool beats both: 1 000 000 MCC against 10 500 000 USDC = 10.5.
    creator = OutsideWallet(Keypair(), solana)
    pool = await ensure_market_pool(
        deps.gateway, creator, Keypair(), Keypair().pubkey(),
        mcc_amount=1_000_000 * 10**9, usdc_amount=10_500_000 * 10**6,
    )  # fmt: skip
    market_settings = deps.settings.model_copy(
        update={
            "market_pool_mcc_vault": pool.mcc_vault,
            "market_pool_usdc_vault": pool.usdc_vault,
            "oracle_min_samples": 3,
        }
    )
    market_acts = TokenActivities(dataclasses.replace(deps, settings=market_settings))
    t2 = t1 + oracle.CLOSE_EVERY
    # The close takes the market from the samples in its window (three, one a minute).
    for minute in (3, 2, 1):
        at = (t2 - timedelta(minutes=minute)).isoformat()
        assert (await market_acts.oracle_sample(OracleSampleRequest(now=at))).counted
    third = await market_acts.oracle_record_closes(OracleCloseRequest(now=t2.isoformat()))
    async with deps.sessions() as session:
        closes = (await session.scalars(select(PriceClose).order_by(PriceClose.close_at))).all()
    assert [(c.source, c.price_usdc, c.points) for c in closes] == [
        ("default", 10_000_000, 1),
        ("admin", 12_000_000, 2),
        ("market", 10_500_000, 3),
    ]
    base = (10_000_000 + 12_000_000 + 10_500_000) // 3
    assert closes[-1].base_price_usdc == base
    assert closes[-1].buyback_price_usdc == base + base * 500 // 10_000
    assert third.to_write == [oracle.close_key(c.close_at) for c in closes]

    # The workflow records the due close(s) and writes each unwritten one on chain, in order.
    report = await temporal_env.client.execute_workflow(
        OracleWorkflow.run, OracleInput(note="test"),
        id=f"oracle-{uuid.uuid4().hex[:8]}", task_queue=queue,
    )  # fmt: skip
    key = oracle.close_key(t2)
    assert key in report.written
    pool_state = await read_reincarnation_pool(deps.gateway, "finalized")
    async with deps.sessions() as session:
        newest = await oracle.latest_close(session)
        assert newest is not None
        assert pool_state.base_price == newest.base_price_usdc

        # A worker that died after the write but before recording it: the retry finds the
        # same write (same key) and returns the same signature; still one transaction.
        await session.execute(
            update(PriceClose).where(PriceClose.close_at == t2).values(onchain_signature=None)
        )
        await session.commit()
    again = await activities.oracle_write_close(OracleWriteRequest(close_key=key))
    assert again.signature == report.written[key]
    async with deps.sessions() as session:
        writes = await session.scalar(
            select(func.count()).where(ChainTransaction.op_key.like(f"%oracle-close:{key}"))
        )
        assert writes == 1
        stored = await session.get(PriceClose, t2)
        assert stored is not None and stored.onchain_signature == again.signature
    await _clear(deps)


async def test_missed_closes_are_caught_up_once(deps: WorkerDeps) -> None:
    await _clear(deps)
    activities = TokenActivities(deps)
    t0 = datetime(2021, 6, 1, 8, tzinfo=UTC)
    await activities.oracle_record_closes(OracleCloseRequest(now=t0.isoformat()))
    # Nothing ran for 12 hours: the next run records the three missed closes, once.
    later = (t0 + timedelta(hours=12, minutes=3)).isoformat()
    caught = await activities.oracle_record_closes(OracleCloseRequest(now=later))
    assert caught.recorded == [
        "2021-06-01T12:00:00Z", "2021-06-01T16:00:00Z", "2021-06-01T20:00:00Z",
    ]  # fmt: skip
    assert (await activities.oracle_record_closes(OracleCloseRequest(now=later))).recorded == []
    async with deps.sessions() as session:
        assert await session.scalar(select(func.count()).select_from(PriceClose)) == 4
    await _clear(deps)


async def test_schedules_close_every_four_hours_utc(
    temporal_env: WorkflowEnvironment, queue: str
) -> None:
    from workflows.schedules import ensure_token_schedules
    from workflows.tokens import (
        DEPOSIT_SCHEDULE_ID,
        ORACLE_SAMPLE_SCHEDULE_ID,
        ORACLE_SCHEDULE_ID,
    )

    client = temporal_env.client
    # The suite's Temporal is shared: a worker started by an earlier test may have created
    # these schedules with its own settings (ensure never replaces one that exists).
    for schedule_id in (ORACLE_SCHEDULE_ID, DEPOSIT_SCHEDULE_ID, ORACLE_SAMPLE_SCHEDULE_ID):
        with contextlib.suppress(RPCError):
            await client.get_schedule_handle(schedule_id).delete()
    await ensure_token_schedules(client, queue, timedelta(seconds=10))
    await ensure_token_schedules(client, queue, timedelta(seconds=10))  # idempotent
    try:
        oracle_schedule = await client.get_schedule_handle(ORACLE_SCHEDULE_ID).describe()
        upcoming = oracle_schedule.info.next_action_times[:6]
        assert len(upcoming) >= 2
        for at in upcoming:
            at = at.astimezone(UTC)
            assert at.hour % 4 == 0 and (at.minute, at.second) == (0, 0), at
        assert upcoming[1] - upcoming[0] == timedelta(hours=4)
        watch_handle = client.get_schedule_handle(DEPOSIT_SCHEDULE_ID)
        watch = await watch_handle.describe()
        assert watch.schedule.spec.intervals[0].every == timedelta(seconds=10)
        # A worker started with another DEPOSIT_SCAN_SECONDS moves the schedule to it, and an
        # operator's pause stays.
        await watch_handle.pause(note="operator: chain maintenance")
        await ensure_token_schedules(client, queue, timedelta(seconds=20))
        watch = await watch_handle.describe()
        assert watch.schedule.spec.intervals[0].every == timedelta(seconds=20)
        assert watch.schedule.state.paused
        assert watch.schedule.state.note == "operator: chain maintenance"
        # The market sampler: once a minute, each run one sample.
        sampler = await client.get_schedule_handle(ORACLE_SAMPLE_SCHEDULE_ID).describe()
        assert sampler.schedule.spec.intervals[0].every == timedelta(minutes=1)
    finally:
        for schedule_id in (ORACLE_SCHEDULE_ID, DEPOSIT_SCHEDULE_ID, ORACLE_SAMPLE_SCHEDULE_ID):
            handle = client.get_schedule_handle(schedule_id)
            running = (await handle.describe()).info.running_actions
            await handle.delete()
            for action in running:  # the watcher's first run, started with its schedule
                if isinstance(action, ScheduleActionExecutionStartWorkflow):
                    with contextlib.suppress(RPCError):
                        await client.get_workflow_handle(action.workflow_id).terminate("over")


def test_median_and_move_cap() -> None:
    assert median_price([3, 1, 2]) == 2 and median_price([4, 1, 3, 2]) == 2
    assert median_price([10, 10, 10, 1_000]) == 10  # one outlier never moves it
    assert clamp_move(20_000_000, 10_000_000, 1_000) == 11_000_000
    assert clamp_move(5_000_000, 10_000_000, 1_000) == 9_000_000
    assert clamp_move(10_500_000, 10_000_000, 1_000) == 10_500_000
    assert clamp_move(10_500_000, None, 1_000) == 10_500_000


async def _until_price(market: oracle.MarketReader, different_from: int | None) -> int | None:
    """The pool's price at finalized, once it differs from ``different_from``."""
    for _ in range(200):
        _, _, price = await market.read_vaults()
        if price != different_from:
            return price
        await asyncio.sleep(0.05)
    raise AssertionError("the pool's price did not change at finalized")


async def test_a_donation_between_two_samples_does_not_steer_the_close(
    deps: WorkerDeps, solana: AsyncClient
) -> None:
    """Issue 31 M6: someone donates USDC into the pool's vault between two samples. The close
    takes the median of the window's samples, so a donation seen by a minority of them moves
    nothing; seen by most of them, the on-chain base still moves at most 10 % per close. A
    pool below the liquidity floor is no source at all."""
    await _clear(deps)
    creator = OutsideWallet(Keypair(), solana)
    usdc_mint = Keypair()
    pool = await ensure_market_pool(
        deps.gateway, creator, usdc_mint, Keypair().pubkey(),
        mcc_amount=1_000_000 * 10**9, usdc_amount=10_500_000 * 10**6,
    )  # fmt: skip
    settings = deps.settings.model_copy(
        update={
            "market_pool_mcc_vault": pool.mcc_vault,
            "market_pool_usdc_vault": pool.usdc_vault,
            "oracle_min_samples": 5,
            "oracle_min_liquidity_usdc": 1_000 * 10**6,
            "oracle_max_move_bps": 1_000,
        }
    )
    acts = TokenActivities(dataclasses.replace(deps, settings=settings))
    t1 = datetime(2022, 3, 1, 4, tzinfo=UTC)
    t2 = t1 + oracle.CLOSE_EVERY

    async def sample(close_at: datetime, minutes_before: int) -> None:
        at = close_at - timedelta(minutes=minutes_before)
        result = await acts.oracle_sample(OracleSampleRequest(now=at.isoformat()))
        assert result.recorded and result.counted

    honest = await _until_price(acts.market, None)
    assert honest == 10_500_000
    for minute in (9, 8, 7, 6):
        await sample(t1, minute)
    # The donation: 21,000,000 USDC straight into the USDC vault (spot price x3).
    await creator.send_instructions(
        [
            mint_to(
                MintToParams(
                    program_id=TOKEN_PROGRAM_ID, mint=usdc_mint.pubkey(),
                    dest=Pubkey.from_string(pool.usdc_vault),
                    mint_authority=creator.address, amount=21_000_000 * 10**6,
                )
            )
        ]
    )  # fmt: skip
    steered = await _until_price(acts.market, honest)
    assert steered == 31_500_000
    for minute in (3, 2, 1):
        await sample(t1, minute)
    await acts.oracle_record_closes(OracleCloseRequest(now=t1.isoformat()))
    async with deps.sessions() as session:
        first = await session.get(PriceClose, t1)
    assert first is not None
    # 4 honest samples and 3 donated ones: the median is honest.
    assert (first.source, first.price_usdc) == ("market", honest)
    # The first close moves at most 10 % from the rule's price without the market (10 USDC).
    assert first.base_price_usdc == 10_500_000

    # The donation stays: every sample of the next window sees it, and the close takes it;
    # the on-chain base moves 10 % of the previous base, no more.
    for minute in (5, 4, 3, 2, 1):
        await sample(t2, minute)
    await acts.oracle_record_closes(OracleCloseRequest(now=t2.isoformat()))
    async with deps.sessions() as session:
        second = await session.get(PriceClose, t2)
    assert second is not None and second.price_usdc == steered
    assert second.base_price_usdc == first.base_price_usdc * 11 // 10  # not (10.5+31.5)/2

    # Below the liquidity floor the pool is no source: the close falls back to the default.
    floor = settings.model_copy(update={"oracle_min_liquidity_usdc": 10**9 * 10**6})
    thin = TokenActivities(dataclasses.replace(deps, settings=floor))
    t3 = t2 + oracle.CLOSE_EVERY
    for minute in (5, 4, 3, 2, 1):
        at = (t3 - timedelta(minutes=minute)).isoformat()
        assert not (await thin.oracle_sample(OracleSampleRequest(now=at))).counted
    await thin.oracle_record_closes(OracleCloseRequest(now=t3.isoformat()))
    async with deps.sessions() as session:
        third = await session.get(PriceClose, t3)
    assert third is not None and third.source == "default"
    await _clear(deps)
