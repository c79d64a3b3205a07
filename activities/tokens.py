"""Activities of token data: the deposit watcher's pass and the price oracle's steps. Each has
one commit point per unit of work; every step is idempotent (see tokens/deposits.py and
tokens/oracle.py)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from activities.heartbeat import heartbeating
from activities.shutdown import at_worker_shutdown
from chain.errors import ChainRejected, ChainWriteConflict
from chain.reincarnation import PriceOutOfRange
from db.models.tokens import PriceClose
from tokens import oracle
from tokens.deposits import ScanSummary
from tokens.price_store import write_base_price

if TYPE_CHECKING:
    from activities.deps import WorkerDeps


@dataclass
class DepositScanRequest:
    note: str = ""
    # 0: one pass; else passes back to back for this long (the scheduled watcher follows the
    # chain for its whole interval, so a deposit is credited a few slots after it finalizes).
    follow_seconds: float = 0.0


# The pass's summary is the activity's result as it is (a dataclass of plain fields).
DepositScanReport = ScanSummary


@dataclass
class OracleCloseRequest:
    now: str  # ISO 8601: the workflow's own clock, so a replay asks for the same closes


@dataclass
class OracleClosesRecorded:
    recorded: list[str]  # close keys recorded by this call
    to_write: list[str]  # close keys not yet on chain, oldest first


@dataclass
class OracleSampleRequest:
    now: str  # ISO 8601: the workflow's clock; the sample is keyed by its minute


@dataclass
class OracleSampleResult:
    recorded: bool  # False: no pool configured, or this minute was sampled already
    price_usdc: int | None = None
    counted: bool = False


@dataclass
class OracleWriteRequest:
    close_key: str


@dataclass
class OracleWriteResult:
    close_key: str
    signature: str
    base_price_usdc: int


class TokenActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        self.deps = deps
        self.scanner = deps.deposits  # the worker's one scanner (reconcile scans with it too)
        self.market = oracle.MarketReader(deps.gateway, deps.settings)

    @activity.defn(name="tokens.scan_deposits")
    @heartbeating  # a pass follows the chain for seconds; a killed worker's is retried in 10 s
    async def scan_deposits(self, request: DepositScanRequest) -> DepositScanReport:
        if request.follow_seconds <= 0:
            return await self.scanner.scan()
        # A worker that shuts down ends the follow at once (its cursor saved) instead of
        # holding the whole stop for its grace period (10 s) until the SDK cancels it; the
        # retry (1 s later, on whichever worker polls) follows on from the cursor, so no
        # deposit waits for the schedule's next run.
        stop = asyncio.Event()
        async with at_worker_shutdown(stop.set):
            # Every 0.1 s while watched accounts move; every 2 s after 10 s without
            # (an idle worker idles: issue 33).
            report = await self.scanner.follow(
                min(request.follow_seconds, 90.0), poll=0.1, stop=stop, idle_poll=2.0
            )
        if stop.is_set():
            raise ApplicationError(
                "the worker is shutting down: the follow goes on in a retry from its cursor",
                type="WorkerShutdown",
                category=ApplicationErrorCategory.BENIGN,  # logged at DEBUG: a stop, not a fault
            )
        return report

    @activity.defn(name="tokens.oracle_record_closes")
    async def oracle_record_closes(self, request: OracleCloseRequest) -> OracleClosesRecorded:
        """Record every due close once (the newest and missed ones), each with the source the
        rule gives now; list the closes still to be written on chain."""
        settings = self.deps.settings
        now = datetime.fromisoformat(request.now).astimezone(UTC)
        recorded: list[str] = []
        async with self.deps.sessions() as session:
            for close_at in await oracle.due_closes(session, now, settings.oracle_catch_up):
                quote = await oracle.close_quote(
                    session, close_at, min_samples=settings.oracle_min_samples,
                    default=settings.default_price_usdc,
                )  # fmt: skip
                # The first close moves from the rule's price without the market.
                anchor = await oracle.fallback_quote(session, settings.default_price_usdc)
                row = await oracle.record_close(
                    session, close_at, quote,
                    window=settings.oracle_window, premium_bps=settings.oracle_premium_bps,
                    max_move_bps=settings.oracle_max_move_bps, first_anchor=anchor.price_usdc,
                )  # fmt: skip
                if row is not None:
                    recorded.append(oracle.close_key(close_at))
            await session.commit()
            pending = await oracle.unwritten_closes(session)
        return OracleClosesRecorded(recorded, [oracle.close_key(c.close_at) for c in pending])

    @activity.defn(name="tokens.oracle_sample")
    async def oracle_sample(self, request: OracleSampleRequest) -> OracleSampleResult:
        """Read the market pool once and keep the reading for the closes (one per minute)."""
        if not self.market.configured:
            return OracleSampleResult(recorded=False)
        vaults = await self.market.read_vaults()
        at = oracle.sample_minute(datetime.fromisoformat(request.now))
        async with self.deps.sessions() as session:
            recorded = await oracle.record_sample(
                session, at, vaults, min_liquidity=self.deps.settings.oracle_min_liquidity_usdc
            )
            await session.commit()
        counted = (
            vaults[2] is not None and vaults[0] >= self.deps.settings.oracle_min_liquidity_usdc
        )
        return OracleSampleResult(recorded, vaults[2], counted)

    @activity.defn(name="tokens.oracle_write_close")
    async def oracle_write_close(self, request: OracleWriteRequest) -> OracleWriteResult:
        """Write the close's base price with update_price, exactly once per close (write key
        ``oracle-close:<close>``), then record the signature on the close."""
        close_at = datetime.strptime(request.close_key, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        async with self.deps.sessions() as session:
            row = await session.get(PriceClose, close_at)
            if row is None:
                raise ApplicationError(
                    f"no close {request.close_key}", type="UnknownClose", non_retryable=True
                )
            base = row.base_price_usdc
        try:
            signature = await write_base_price(
                self.deps.gateway, close_key=request.close_key, base_price=base
            )
        except (ChainRejected, ChainWriteConflict, PriceOutOfRange) as exc:
            raise ApplicationError(str(exc), type=type(exc).__name__, non_retryable=True) from exc
        async with self.deps.sessions() as session:
            row = await session.get(PriceClose, close_at, with_for_update=True)
            assert row is not None
            if row.onchain_signature is None:
                row.onchain_signature = signature
                row.onchain_at = datetime.now(UTC)
            await session.commit()
        return OracleWriteResult(request.close_key, signature, base)
