"""Lending program (ecosystem-programs.md sections 2.3 and 4): accounts and the exact integer
math (u64 floor division; `checked` products report overflow instead of wrapping)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from chain.ecosystem import LENDING_PROGRAM_ID, key_bytes, pda
from chain.ecosystem.borsh import BOOL, ENUM, I64, OPTION, PUBKEY, STRING, U8, U64, AnchorAccount

LOAN_STATUSES = ("pending", "active", "repaid", "liquidated")
DURATIONS = ("three_days", "seven_days", "thirty_days")
DURATION_SECONDS = (259_200, 604_800, 2_592_000)

U64_MAX = 2**64 - 1
BPS = 10_000
SECONDS_PER_YEAR = 31_536_000
PROTOCOL_FEE_BPS = 1_000
MAX_LTV_BPS = 5_000
MAX_INTEREST_RATE_BPS = 10_000
MIN_LOAN = 100_000_000_000
MAX_LOAN = 10_000_000_000_000_000
RATE_SCALE = 1_000_000


@dataclass
class LendingPool(AnchorAccount):
    NAME = "LendingPool"
    SPACE = 272
    name: Annotated[str, STRING(32)]
    authority: PUBKEY
    asset_mint: PUBKEY
    lp_mint: PUBKEY
    vault: PUBKEY
    total_deposits: U64
    total_borrowed: U64
    total_lp_supply: U64
    accrued_interest: U64
    protocol_fees: U64
    base_rate: U64
    optimal_utilization: U64
    slope1: U64
    slope2: U64
    is_active: BOOL
    deposits_paused: BOOL
    borrows_paused: BOOL
    last_update_timestamp: I64
    created_at: I64
    updated_at: I64
    bump: U8


@dataclass
class Loan(AnchorAccount):
    NAME = "Loan"
    SPACE = 182
    borrower: PUBKEY
    lending_pool: PUBKEY
    nft_mint: PUBKEY
    collateral_type: ENUM
    collateral_value: U64
    principal: U64
    accrued_interest: U64
    borrow_rate_at_origination: U64
    status: ENUM
    duration: ENUM
    created_at: I64
    due_at: I64
    last_interest_update: I64
    repaid_at: OPTION[I64]
    liquidated_at: OPTION[I64]
    bump: U8


@dataclass
class NftPriceOracle(AnchorAccount):
    NAME = "NftPriceOracle"
    SPACE = 89
    authority: PUBKEY
    station_value: U64
    matrix_value: U64
    sector_value: U64
    system_value: U64
    last_update: I64
    created_at: I64
    bump: U8

    def value_of(self, territory_type: int) -> int:
        return (self.station_value, self.matrix_value, self.sector_value, self.system_value)[
            territory_type
        ]


def pool_pda(name: str, program: str = LENDING_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"mcc_lending_pool", name.encode())


def lp_mint_pda(pool: str, program: str = LENDING_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"mcc_lp_mint", key_bytes(pool))


def oracle_pda(pool: str, program: str = LENDING_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"nft_price_oracle", key_bytes(pool))


def loan_pda(borrower: str, nft_mint: str, program: str = LENDING_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"mcc_loan", key_bytes(borrower), key_bytes(nft_mint))


# -- pool math -----------------------------------------------------------------------------


def utilization(deposits: int, borrowed: int) -> int:
    return 0 if deposits == 0 else borrowed * BPS // deposits


def borrow_rate(u: int, base: int, optimal: int, slope1: int, slope2: int) -> int:
    if u <= optimal:
        return base + (u * slope1 // optimal if optimal else 0)
    return base + slope1 + (u - optimal) * slope2 // (BPS - optimal)


def pool_borrow_rate(pool: LendingPool, extra_borrowed: int = 0) -> int:
    u = utilization(pool.total_deposits, pool.total_borrowed + extra_borrowed)
    return borrow_rate(u, pool.base_rate, pool.optimal_utilization, pool.slope1, pool.slope2)


def supply_rate(rate: int, u: int) -> int:
    return (rate * u // BPS) * 9_000 // BPS


def net_assets(pool: LendingPool) -> int:
    """What the LP holders own: deposits plus interest, less the protocol's fees (the TVL)."""
    return max(0, pool.total_deposits + pool.accrued_interest - pool.protocol_fees)


def available_liquidity(pool: LendingPool) -> int:
    return max(0, net_assets(pool) - pool.total_borrowed)


def exchange_rate(pool: LendingPool) -> int:
    """LP exchange rate scaled by 1e6 (u128 on chain)."""
    if pool.total_lp_supply == 0:
        return RATE_SCALE
    return net_assets(pool) * RATE_SCALE // pool.total_lp_supply


def lp_value(lp_amount: int, rate: int) -> int:
    return lp_amount * rate // RATE_SCALE


@dataclass(frozen=True)
class Interest:
    interest: int  # 0 when the on-chain product would overflow (the instruction fails)
    overflow: bool  # the checked u64 product principal*rate*dt exceeds 2^64-1
    rate_bps: int  # the rate applied


def interest(principal: int, rate_bps: int, dt: int, cap: bool = True) -> Interest:
    """floor(floor(principal*r*dt / 10000) / 31536000) with r capped at 10000 for loans;
    the product is a checked u64 multiply on chain (6031 MathOverflow)."""
    r = min(rate_bps, MAX_INTEREST_RATE_BPS) if cap else rate_bps
    if dt <= 0:
        return Interest(0, False, r)
    product = principal * r * dt
    if product > U64_MAX:
        return Interest(0, True, r)
    return Interest(product // BPS // SECONDS_PER_YEAR, False, r)


def max_seconds_before_overflow(principal: int, rate_bps: int) -> int | None:
    r = min(rate_bps, MAX_INTEREST_RATE_BPS)
    return None if principal * r == 0 else U64_MAX // (principal * r)


@dataclass(frozen=True)
class PoolAccrual:
    interest: int
    fee: int
    overflow: bool


def pool_accrual(pool: LendingPool, now: int) -> PoolAccrual:
    """What the next accruing instruction would add (uncapped rate, checked u64)."""
    dt = now - pool.last_update_timestamp
    if dt <= 0:
        return PoolAccrual(0, 0, False)
    got = interest(pool.total_borrowed, pool_borrow_rate(pool), dt, cap=False)
    if got.overflow:
        return PoolAccrual(0, 0, True)
    return PoolAccrual(got.interest, got.interest * PROTOCOL_FEE_BPS // BPS, False)


def accrued_pool(pool: LendingPool, now: int) -> LendingPool:
    """The pool as the chain would see it after accrual at `now` (unchanged on overflow)."""
    acc = pool_accrual(pool, now)
    if acc.overflow or acc.interest == 0:
        return pool
    from dataclasses import replace

    return replace(
        pool,
        accrued_interest=pool.accrued_interest + acc.interest,
        protocol_fees=pool.protocol_fees + acc.fee,
        last_update_timestamp=now,
    )


def max_borrow(collateral_value: int) -> int:
    return collateral_value * MAX_LTV_BPS // BPS


def ltv_bps(debt: int, collateral_value: int) -> int | None:
    return None if collateral_value == 0 else debt * BPS // collateral_value
