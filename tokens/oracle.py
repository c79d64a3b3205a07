"""The MCC price oracle: the price the rule gives now, the administrator price, the market
samples, and the 4-hourly closes with their base and buyback prices (flush-only: callers
commit).

Rule (decisions.md, "Price oracle"): the market price before the administrator price before the
default of 10 USDC. A close is taken at 00, 04, ..., 20 UTC and stored with its source; base =
mean of the middle half of the last 180 closes (fewer while fewer exist); buyback = base +
floor(base * premium_bps / 10000).

The market price of a close is not one reading of the pool (a swap or a plain donation into a
vault just before the close would set it): the pool is sampled once a minute
(``record_sample``), a sample counts only when the USDC vault holds at least the liquidity
floor, and the close takes the **median** of the counted samples in its 4-hour window, if there
are at least ``min_samples`` of them (else the market is not a source for that close). The base
written on chain then moves at most ``max_move_bps`` from the previous close's base (the first
close: from the administrator or default price), so even a manipulation that holds the median
for hours moves the on-chain price by a bounded step per close. And what one close contributes
to the base is bounded too: the base is the mean of the middle half of the closes (the highest
and lowest quarter left out), so a close held at any price, or up to 45 of the 180, moves it
not at all (issue 38, M3: with a plain mean one window at 181 times the price stayed in it for
30 days, and the cap turned it into a ramp to twice the price). docs/tokens.md has the numbers.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from chain.gateway import ChainGateway
from core.config import Settings
from db.models.tokens import AdminPrice, PriceClose, PriceSample
from tokens.cache import Memo
from tokens.prices import (
    Quote,
    buyback_price,
    choose,
    clamp_move,
    market_price,
    median_price,
    middle_mean,
)

CLOSE_EVERY = timedelta(hours=4)
log = logging.getLogger("mccgw.tokens.oracle")


def close_boundary(now: datetime) -> datetime:
    """The newest close time (00, 04, ..., 20 UTC) at or before ``now``."""
    now = now.astimezone(UTC)
    return now.replace(hour=now.hour - now.hour % 4, minute=0, second=0, microsecond=0)


def close_key(close_at: datetime) -> str:
    """The close's name, used as the price store's write key: ``2026-11-23T16:00:00Z``."""
    return close_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class MarketReader:
    """The market price from the pool's two vaults at ``finalized``; None when no pool is
    configured or it is empty. Kept ``max_age`` seconds (the GET paths' documented freshness),
    and read once however many public requests ask at once (``Memo``)."""

    def __init__(self, gateway: ChainGateway, settings: Settings, max_age: float = 0.0) -> None:
        self.gateway = gateway
        self.mcc_vault = settings.market_pool_mcc_vault
        self.usdc_vault = settings.market_pool_usdc_vault
        self.max_age = max_age
        self._kept: Memo[str, tuple[int | None, datetime]] = Memo(max_age)

    @property
    def configured(self) -> bool:
        return bool(self.mcc_vault and self.usdc_vault)

    async def read_vaults(self) -> tuple[int, int, int | None]:
        """(USDC vault, MCC vault, the price they give) at ``finalized``, read now."""
        usdc = await self.gateway.token_balance(self.usdc_vault, "finalized")
        mcc = await self.gateway.token_balance(self.mcc_vault, "finalized")
        decimals = (await self.gateway.load_token_decimals()).of("MCC")
        return usdc, mcc, market_price(usdc, mcc, decimals)

    async def read(self) -> tuple[int | None, datetime]:
        if not self.configured:
            return None, datetime.now(UTC)
        return await self._kept.get("market", self._read)

    async def _read(self) -> tuple[int | None, datetime]:
        _, _, price = await self.read_vaults()
        return price, datetime.now(UTC)


async def admin_price(session: AsyncSession) -> AdminPrice | None:
    return (
        await session.scalars(select(AdminPrice).order_by(AdminPrice.id.desc()).limit(1))
    ).first()


async def set_admin_price(
    session: AsyncSession, price: int, set_by: str, request_id: str | None
) -> AdminPrice:
    row = AdminPrice(price_usdc=price, set_by=set_by, request_id=request_id)
    session.add(row)
    await session.flush()
    await session.refresh(row)
    return row


async def latest_close(session: AsyncSession) -> PriceClose | None:
    return (
        await session.scalars(select(PriceClose).order_by(PriceClose.close_at.desc()).limit(1))
    ).first()


async def latest_onchain(session: AsyncSession) -> PriceClose | None:
    return (
        await session.scalars(
            select(PriceClose)
            .where(PriceClose.onchain_signature.is_not(None))
            .order_by(PriceClose.close_at.desc())
            .limit(1)
        )
    ).first()


@dataclass(frozen=True)
class PriceNow:
    quote: Quote
    observed_at: datetime


async def price_now(
    session: AsyncSession, market: Callable[[], Awaitable[tuple[int | None, datetime]]],
    default: int,
) -> PriceNow:  # fmt: skip
    """The price the rule gives now, and when its source value was observed/set."""
    market_value, seen = await market()
    if market_value is not None:
        return PriceNow(Quote(market_value, "market"), seen)
    admin = await admin_price(session)
    quote = choose(None, admin.price_usdc if admin else None, default)
    return PriceNow(quote, admin.created_at if admin and quote.source == "admin" else seen)


def sample_minute(now: datetime) -> datetime:
    """The sample's key: its minute (a retried or doubled sampler run records it once)."""
    return now.astimezone(UTC).replace(second=0, microsecond=0)


def counts(vaults: tuple[int, int, int | None], min_liquidity: int) -> bool:
    """Whether a reading counts toward a close: a price, and the liquidity floor in USDC."""
    return vaults[2] is not None and vaults[0] >= min_liquidity


async def record_sample(
    session: AsyncSession,
    at: datetime,
    vaults: tuple[int, int, int | None],
    *,
    min_liquidity: int,
) -> bool:
    """Store one reading of the pool at ``at`` once; whether it was new. It counts toward a
    close only with a price and at least ``min_liquidity`` USDC units in the USDC vault."""
    usdc, mcc, price = vaults
    counted = counts(vaults, min_liquidity)
    inserted = (
        await session.execute(
            insert(PriceSample)
            .values(sampled_at=at, usdc_vault=usdc, mcc_vault=mcc, price_usdc=price,
                    counted=counted)
            .on_conflict_do_nothing(index_elements=["sampled_at"])
            .returning(PriceSample.sampled_at)
        )
    ).scalar_one_or_none()  # fmt: skip
    return inserted is not None


async def market_close_price(
    session: AsyncSession, close_at: datetime, min_samples: int
) -> int | None:
    """The median of the counted samples in the close's window (close_at - 4 h, close_at];
    None when fewer than ``min_samples`` counted."""
    prices = (
        await session.scalars(
            select(PriceSample.price_usdc).where(
                PriceSample.sampled_at > close_at - CLOSE_EVERY,
                PriceSample.sampled_at <= close_at,
                PriceSample.counted,
                PriceSample.price_usdc.is_not(None),
            )
        )
    ).all()
    values = [p for p in prices if p is not None]
    if len(values) < max(1, min_samples):
        return None
    return median_price(values)


async def fallback_quote(session: AsyncSession, default: int) -> Quote:
    """The rule without the market: the administrator price, else the default."""
    admin = await admin_price(session)
    return choose(None, admin.price_usdc if admin else None, default)


async def close_quote(
    session: AsyncSession, close_at: datetime, *, min_samples: int, default: int
) -> Quote:
    """The rule for a close: the samples' median, else the administrator price, else the
    default."""
    market = await market_close_price(session, close_at, min_samples)
    admin = await admin_price(session)
    return choose(market, admin.price_usdc if admin else None, default)


async def record_close(
    session: AsyncSession,
    close_at: datetime,
    quote: Quote,
    *,
    window: int,
    premium_bps: int,
    max_move_bps: int | None = None,
    first_anchor: int | None = None,
) -> PriceClose | None:
    """Store the close at ``close_at`` once (None if it exists already) with the base price over
    the last ``window`` closes including it, moved at most ``max_move_bps`` from the previous
    close's base (from ``first_anchor`` for the first close)."""
    rows = (
        await session.execute(
            select(PriceClose.price_usdc, PriceClose.base_price_usdc)
            .where(PriceClose.close_at < close_at)
            .order_by(PriceClose.close_at.desc())
            .limit(window - 1)
        )
    ).all()
    previous = [price for price, _ in rows]
    points = [quote.price_usdc, *previous]
    base = middle_mean(points)
    if max_move_bps is not None:
        anchor = rows[0][1] if rows else first_anchor
        base = clamp_move(base, anchor, max_move_bps)
        if anchor and clamp_move(quote.price_usdc, anchor, max_move_bps) != quote.price_usdc:
            # The market moved, or someone held the pool: either way an operator looks.
            log.warning(
                "close %s: %s price %d is more than %d bps from the base %d",
                close_key(close_at), quote.source, quote.price_usdc, max_move_bps, anchor,
            )  # fmt: skip
    inserted = (
        await session.execute(
            insert(PriceClose)
            .values(
                close_at=close_at,
                price_usdc=quote.price_usdc,
                source=quote.source,
                base_price_usdc=base,
                buyback_price_usdc=buyback_price(base, premium_bps),
                premium_bps=premium_bps,
                points=len(points),
            )
            .on_conflict_do_nothing(index_elements=["close_at"])
            .returning(PriceClose.close_at)
        )
    ).scalar_one_or_none()
    if inserted is None:
        return None
    return await session.get(PriceClose, close_at)


async def due_closes(session: AsyncSession, now: datetime, catch_up: int) -> list[datetime]:
    """Close times not yet recorded: the newest boundary and the missed ones since the last
    recorded close, at most ``catch_up`` of them (oldest first); [] when it is recorded."""
    newest = close_boundary(now)
    last = await latest_close(session)
    if last is None:
        return [newest]  # a fresh start has nothing to catch up
    start = max(newest - CLOSE_EVERY * (catch_up - 1), last.close_at.astimezone(UTC) + CLOSE_EVERY)
    out = []
    at = start
    while at <= newest:
        out.append(at)
        at += CLOSE_EVERY
    return out


async def unwritten_closes(session: AsyncSession) -> list[PriceClose]:
    """Closes not yet on chain and newer than the newest written one (oldest first): an older
    close is never written after a newer one."""
    written = await latest_onchain(session)
    query = select(PriceClose).where(PriceClose.onchain_signature.is_(None))
    if written is not None:
        query = query.where(PriceClose.close_at > written.close_at)
    return list((await session.scalars(query.order_by(PriceClose.close_at))).all())
