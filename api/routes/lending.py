"""Lending views and calculators: pool, stats, a wallet's position, loans and LP balance, and
the two POST calculators computing with the program's integer formulas.

Public reads: loans and LP balances are public chain data, readable by anyone from an RPC
node; the two POSTs compute from their body and the public pool state and write nothing
(so they take no idempotency key)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends
from pydantic import AwareDatetime, BaseModel, Field, model_validator

from api.callers import PUBLIC
from api.openapi import problems
from api.typed import Shape
from api.views_common import (
    READ_ERRORS,
    Many,
    One,
    PagingDep,
    ViewsDep,
    many,
    one,
)
from chain.ecosystem import TERRITORY_TYPES
from chain.ecosystem.lending import DURATIONS
from core.money import InvalidAmount, to_base_units
from views import lending as svc
from views.base import View
from views.errors import ViewError

router = APIRouter(
    prefix="/v1/lending", tags=["chain views: lending"], dependencies=[Depends(PUBLIC)]
)


class RatesBps(Shape):
    utilization_bps: int
    borrow_rate_bps: int
    supply_rate_bps: int


class TypeAmounts(Shape):
    station: str
    matrix: str
    sector: str
    system: str


class OracleAttributes(Shape):
    account: str
    authority: str
    collateral_values: TypeAmounts
    max_borrow: TypeAmounts
    last_update: str | None


class PoolAttributes(RatesBps):
    name: str
    authority: str
    asset_mint: str
    lp_mint: str
    vault: str
    total_deposits: str
    total_borrowed: str
    total_lp_supply: str
    accrued_interest: str
    protocol_fees: str
    base_rate_bps: int
    optimal_utilization_bps: int
    slope1_bps: int
    slope2_bps: int
    max_ltv_bps: int
    is_active: bool
    deposits_paused: bool
    borrows_paused: bool
    last_update_at: str | None
    created_at: str | None
    updated_at: str | None
    oracle: OracleAttributes | None


class LoansByStatus(Shape):
    pending: int
    active: int
    repaid: int
    liquidated: int


class StatsAttributes(RatesBps):
    available_liquidity: str
    exchange_rate: str = Field(description="Assets per LP token (6 decimals, floored)")
    tvl: str = Field(description="Deposits + accrued interest - protocol fees, accrued to now")
    vault_balance: str | None
    lp_supply: str | None
    loans: int
    loans_by_status: LoansByStatus
    active_principal: str
    recorded_total_borrowed: str = Field(
        description="The pool's total_borrowed field (drifts upward, see docs/views.md)"
    )
    pending_pool_interest: str
    pending_protocol_fee: str
    pool_accrual_overflow: bool
    as_of: str | None


class LoanAttributes(Shape):
    account: str
    borrower: str
    lending_pool: str
    nft_mint: str
    collateral_type: str
    collateral_value: str
    principal: str
    accrued_interest: str
    borrow_rate_at_origination_bps: int
    status: str
    duration: str
    created_at: str | None
    due_at: str | None
    last_interest_update: str | None
    repaid_at: str | None
    liquidated_at: str | None
    rate_bps_now: int
    interest_since_update: str
    total_debt: str
    ltv_bps: int | None
    seconds_remaining: int
    is_overdue: bool
    is_liquidatable: bool
    onchain_overflow: bool


class LpAttributes(Shape):
    wallet: str
    lending_pool: str
    lp_mint: str
    lp_balance: str
    token_accounts: list[str]
    exchange_rate: str
    value: str
    share_of_pool: str


class Liquidity(Shape):
    lp_balance: str
    value: str
    share_of_pool: str
    exchange_rate: str


class PositionAttributes(Shape):
    wallet: str
    liquidity: Liquidity
    loans: list[LoanAttributes]
    active_loans: int
    total_debt: str


@router.get("/pool", response_model=One[PoolAttributes], responses=READ_ERRORS)
async def pool(views: ViewsDep) -> dict[str, Any]:
    """The lending pool: balances, rate parameters, current rates and the NFT price oracle."""
    return one(await svc.pool(views), views)


@router.get("/stats", response_model=One[StatsAttributes], responses=READ_ERRORS)
async def stats(views: ViewsDep) -> dict[str, Any]:
    """Utilization, rates, liquidity, LP exchange rate, TVL and loan counts, accrued to now."""
    return one(await svc.stats(views), views)


@router.get("/position/{wallet}", response_model=One[PositionAttributes], responses=READ_ERRORS)
async def position(wallet: str, views: ViewsDep) -> dict[str, Any]:
    """A wallet's LP position and all its loans with their live debt."""
    return one(await svc.position(views, wallet), views)


@router.get("/loans/{wallet}", response_model=Many[LoanAttributes], responses=READ_ERRORS)
async def loans(wallet: str, views: ViewsDep, paging: PagingDep) -> dict[str, Any]:
    """A wallet's loans, newest first, with interest accrued to now at the pool's rate."""
    return many(await svc.loans_of(views, wallet, paging.page, paging.per_page), paging, views)


@router.get("/loan/{wallet}/{loan_id}", response_model=One[LoanAttributes], responses=READ_ERRORS)
async def loan(wallet: str, loan_id: str, views: ViewsDep) -> dict[str, Any]:
    """One loan: loan_id is the collateral NFT's mint (or the Loan account address)."""
    return one(await svc.loan(views, wallet, loan_id), views)


@router.get("/lp-balance/{wallet}", response_model=One[LpAttributes], responses=READ_ERRORS)
async def lp_balance(wallet: str, views: ViewsDep) -> dict[str, Any]:
    """A wallet's LP tokens, their value in the pool asset and share of the pool."""
    return one(await svc.lp_balance(views, wallet), views)


# -- calculators ------------------------------------------------------------------------------


def _units(text: str, decimals: int, field: str) -> int:
    try:
        return to_base_units(text, decimals, allow_zero=True)
    except InvalidAmount as exc:
        raise ViewError(
            str(exc),
            slug="invalid-amount",
            status=422,
            errors=[{"field": field, "message": str(exc)}],
        ) from None


MAX_SECONDS = 100 * 31_536_000


class CalculateInterestIn(BaseModel):
    principal: str = Field(description="Decimal string in the pool asset (MCC)", examples=["100"])
    rate_bps: int | None = Field(
        None, ge=0, le=1_000_000, description="Annual rate; omitted = the pool's current rate"
    )
    duration_seconds: int | None = Field(None, ge=0, le=MAX_SECONDS)
    # An offset is required: a naive and an aware time cannot be compared (422, not a 500).
    from_time: AwareDatetime | None = Field(
        None, description="With to_time, instead of duration (with an offset, e.g. `Z`)"
    )
    to_time: AwareDatetime | None = Field(None, description="With an offset, e.g. `Z`")
    accrued_interest: str = Field("0", description="Interest already accrued (decimal string)")

    @model_validator(mode="after")
    def _one_duration(self) -> CalculateInterestIn:
        has_span = self.from_time is not None or self.to_time is not None
        if (self.duration_seconds is None) == (not has_span):
            raise ValueError("give duration_seconds, or from_time and to_time")
        if has_span and (self.from_time is None or self.to_time is None):
            raise ValueError("from_time and to_time go together")
        if has_span and self.to_time < self.from_time:  # type: ignore[operator]
            raise ValueError("to_time is before from_time")
        if has_span and self.seconds() > MAX_SECONDS:
            raise ValueError("from_time and to_time are more than 100 years apart")
        return self

    def seconds(self) -> int:
        if self.duration_seconds is not None:
            return self.duration_seconds
        return int((self.to_time - self.from_time).total_seconds())  # type: ignore[operator]


class InterestAttributes(Shape):
    principal: str
    rate_bps: int = Field(description="The rate applied: min(rate, 10000) as loans cap it")
    rate_source: Literal["request", "pool"]
    duration_seconds: int
    interest: str = Field(description="floor(floor(principal*rate*dt/10000)/31536000)")
    prior_accrued_interest: str
    total_debt: str
    onchain_overflow: bool = Field(
        description="principal*rate*dt exceeds 2^64-1: the program would fail (6031)"
    )
    max_seconds_before_overflow: int | None
    decimals: int


class EstimateBorrowIn(BaseModel):
    loan_amount: str = Field(description="Decimal string in the pool asset", examples=["500"])
    duration: Literal["three_days", "seven_days", "thirty_days"]
    territory_type: Literal["station", "matrix", "sector", "system"] | None = None
    nft_mint: str | None = Field(None, description="Instead of territory_type")


class BorrowChecks(Shape):
    amount_at_least_minimum: bool
    amount_at_most_maximum: bool
    within_max_borrow: bool
    within_available_liquidity: bool
    collateral_value_set: bool
    pool_active: bool
    borrows_not_paused: bool
    pool_accrual_ok: bool


class EstimateAttributes(Shape):
    lending_pool: str
    loan_amount: str
    duration: str
    duration_seconds: int
    collateral_type: str
    collateral_value: str
    max_borrow: str
    available_liquidity: str
    rate_bps_now: int
    rate_bps_post: int = Field(description="The rate once this loan is borrowed")
    rate_bps_applied: int
    interest_at_due: str
    total_due: str
    due_at: str | None
    ltv_bps: int | None
    onchain_overflow: bool
    max_seconds_before_overflow: int | None
    checks: BorrowChecks
    eligible: bool
    decimals: int


CALC_ERRORS = READ_ERRORS | problems(s404="No lending pool / oracle / NFT on chain (`not-found`)")


@router.post("/calculate-interest", response_model=One[InterestAttributes], responses=CALC_ERRORS)
async def calculate_interest(body: CalculateInterestIn, views: ViewsDep) -> dict[str, Any]:
    """Interest on a loan exactly as the lending program computes it, with the overflow flag."""
    d = await svc.asset_decimals(views)
    q = svc.InterestInput(
        principal=_units(body.principal, d, "principal"),
        rate_bps=body.rate_bps,
        duration_seconds=body.seconds(),
        accrued_interest=_units(body.accrued_interest, d, "accrued_interest"),
    )
    attrs = await svc.calculate_interest(views, q)
    s = await views.lending.get()
    return one(View("interest_calculation", "calculation", attrs, s.slot), views)


@router.post("/estimate-borrow-cost", response_model=One[EstimateAttributes], responses=CALC_ERRORS)
async def estimate_borrow_cost(body: EstimateBorrowIn, views: ViewsDep) -> dict[str, Any]:
    """What a loan would cost now: collateral, limits, rates before/after, interest at due."""
    d = await svc.asset_decimals(views)
    q = svc.BorrowInput(
        loan_amount=_units(body.loan_amount, d, "loan_amount"),
        duration_type=DURATIONS.index(body.duration),
        territory_type=None
        if body.territory_type is None
        else TERRITORY_TYPES.index(body.territory_type),
        nft_mint=body.nft_mint,
    )
    attrs = await svc.estimate_borrow_cost(views, q)
    s = await views.lending.get()
    return one(View("borrow_estimate", "estimate", attrs, s.slot, attrs["lending_pool"]), views)
