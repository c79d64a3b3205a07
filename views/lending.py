"""Lending views and the two calculators (ecosystem-programs.md 2.3, 4, 8).

Every figure is the program's integer formula (chain.ecosystem.lending): u64 floor divisions,
checked products reported as `onchain_overflow` instead of wrapped."""

from __future__ import annotations

from dataclasses import dataclass

from chain.ecosystem import TERRITORY_TYPES
from chain.ecosystem import lending as ln
from views.base import Attrs, View, ViewPage, Views, address, amount, iso, now, paged, share
from views.cache import Snapshot
from views.errors import ViewError, invalid, not_found
from views.territory import by_mint


def _pool(v: Views, s: Snapshot) -> tuple[str, ln.LendingPool]:
    pools = s.all(ln.LendingPool)
    if v.lending_pool:
        p = pools.get(v.lending_pool)
        if p is None:
            raise not_found(f"Lending pool {v.lending_pool}")
        return v.lending_pool, p
    if not pools:
        raise not_found("Lending pool")
    addr = min(pools)  # several pools: the configured one, else the first by address
    return addr, pools[addr]


def _oracle(v: Views, s: Snapshot, pool: str) -> tuple[str, ln.NftPriceOracle | None]:
    addr = ln.oracle_pda(pool, v.ids.lending)[0]
    return addr, s.get(ln.NftPriceOracle, addr)


async def _ctx(v: Views) -> tuple[Snapshot, str, ln.LendingPool, int]:
    s = await v.lending.get()
    addr, p = _pool(v, s)
    return s, addr, p, await v.decimals(p.asset_mint)


def _rates(p: ln.LendingPool) -> Attrs:
    u = ln.utilization(p.total_deposits, p.total_borrowed)
    r = ln.pool_borrow_rate(p)
    return {"utilization_bps": u, "borrow_rate_bps": r, "supply_rate_bps": ln.supply_rate(r, u)}


async def pool(v: Views) -> View:
    s, addr, p, d = await _ctx(v)
    oracle_addr, o = _oracle(v, s, addr)
    values = [o.value_of(t) for t in range(len(TERRITORY_TYPES))] if o else None
    attrs = {
        "name": p.name,
        "authority": p.authority,
        "asset_mint": p.asset_mint,
        "lp_mint": p.lp_mint,
        "vault": p.vault,
        "total_deposits": amount(p.total_deposits, d),
        "total_borrowed": amount(p.total_borrowed, d),
        "total_lp_supply": amount(p.total_lp_supply, d),
        "accrued_interest": amount(p.accrued_interest, d),
        "protocol_fees": amount(p.protocol_fees, d),
        "base_rate_bps": p.base_rate,
        "optimal_utilization_bps": p.optimal_utilization,
        "slope1_bps": p.slope1,
        "slope2_bps": p.slope2,
        "max_ltv_bps": ln.MAX_LTV_BPS,
        "is_active": p.is_active,
        "deposits_paused": p.deposits_paused,
        "borrows_paused": p.borrows_paused,
        "last_update_at": iso(p.last_update_timestamp),
        "created_at": iso(p.created_at),
        "updated_at": iso(p.updated_at),
        **_rates(p),
        "oracle": None
        if o is None or values is None
        else {
            "account": oracle_addr,
            "authority": o.authority,
            "collateral_values": {
                k: amount(x, d) for k, x in zip(TERRITORY_TYPES, values, strict=True)
            },
            "max_borrow": {
                k: amount(ln.max_borrow(x), d) for k, x in zip(TERRITORY_TYPES, values, strict=True)
            },
            "last_update": iso(o.last_update),
        },
    }
    return View("lending_pool", addr, attrs, s.slot, addr)


async def stats(v: Views) -> View:
    s, addr, p, d = await _ctx(v)
    t = now()
    acc = ln.pool_accrual(p, t)
    after = ln.accrued_pool(p, t)
    vault = await v.token_amount(p.vault)
    lp_supply = await v.supply(p.lp_mint)
    loans = [x for x in s.all(ln.Loan).values() if x.lending_pool == addr]
    by_status = {name: 0 for name in ln.LOAN_STATUSES}
    for x in loans:
        if x.status < 4:
            by_status[ln.LOAN_STATUSES[x.status]] += 1
    active_principal = sum(x.principal for x in loans if x.status == 1)
    rate = ln.exchange_rate(after)
    attrs = {
        **_rates(p),
        "available_liquidity": amount(ln.available_liquidity(after), d),
        "exchange_rate": amount(rate, 6),
        "tvl": amount(ln.net_assets(after), d),
        "vault_balance": None if vault is None else amount(vault[0], d),
        "lp_supply": None if lp_supply is None else amount(lp_supply, d),
        "loans": len(loans),
        "loans_by_status": by_status,
        "active_principal": amount(active_principal, d),
        "recorded_total_borrowed": amount(p.total_borrowed, d),
        "pending_pool_interest": amount(acc.interest, d),
        "pending_protocol_fee": amount(acc.fee, d),
        "pool_accrual_overflow": acc.overflow,
        "as_of": iso(t),
    }
    slot = max(s.slot, vault[1] if vault else 0)
    return View("lending_stats", addr, attrs, slot, addr)


def loan_attrs(addr: str, x: ln.Loan, p: ln.LendingPool, d: int, t: int) -> Attrs:
    r_now = ln.pool_borrow_rate(p)
    active = x.status == 1
    got = ln.interest(x.principal, r_now, t - x.last_interest_update if active else 0)
    debt = x.principal + x.accrued_interest + got.interest
    return {
        "account": addr,
        "borrower": x.borrower,
        "lending_pool": x.lending_pool,
        "nft_mint": x.nft_mint,
        "collateral_type": TERRITORY_TYPES[x.collateral_type]
        if x.collateral_type < 4
        else "unknown",
        "collateral_value": amount(x.collateral_value, d),
        "principal": amount(x.principal, d),
        "accrued_interest": amount(x.accrued_interest, d),
        "borrow_rate_at_origination_bps": x.borrow_rate_at_origination,
        "status": ln.LOAN_STATUSES[x.status] if x.status < 4 else "unknown",
        "duration": ln.DURATIONS[x.duration] if x.duration < 3 else "unknown",
        "created_at": iso(x.created_at),
        "due_at": iso(x.due_at),
        "last_interest_update": iso(x.last_interest_update),
        "repaid_at": iso(x.repaid_at),
        "liquidated_at": iso(x.liquidated_at),
        "rate_bps_now": got.rate_bps,
        "interest_since_update": amount(got.interest, d),
        "total_debt": amount(debt, d),
        "ltv_bps": ln.ltv_bps(debt, x.collateral_value),
        "seconds_remaining": max(0, x.due_at - t) if active else 0,
        "is_overdue": active and t > x.due_at,
        "is_liquidatable": active and t > x.due_at,
        "onchain_overflow": got.overflow,
    }


def _loans_by_borrower(s: Snapshot) -> dict[str, list[tuple[str, ln.Loan]]]:
    out: dict[str, list[tuple[str, ln.Loan]]] = {}
    for a, x in s.all(ln.Loan).items():
        out.setdefault(x.borrower, []).append((a, x))
    for rows in out.values():
        rows.sort(key=lambda r: (-r[1].created_at, r[0]))
    return out


async def loans_of(v: Views, wallet: str, page: int, per_page: int) -> ViewPage:
    wallet = address(wallet, "wallet")
    s, _, p, d = await _ctx(v)
    rows = s.index("loans_by_borrower", _loans_by_borrower).get(wallet, [])
    t = now()
    items = [(a, loan_attrs(a, x, p, d, t)) for a, x in paged(rows, page, per_page)]
    return ViewPage("lending_loan", items, len(rows), s.slot, v.ids.lending)


async def loan(v: Views, wallet: str, loan_id: str) -> View:
    """loan_id is the collateral NFT's mint (the Loan PDA's seed) or the Loan address."""
    wallet = address(wallet, "wallet")
    loan_id = address(loan_id, "loan_id")
    s, _, p, d = await _ctx(v)
    x = s.get(ln.Loan, loan_id)
    addr = loan_id
    if x is None or x.borrower != wallet:
        addr = ln.loan_pda(wallet, loan_id, v.ids.lending)[0]
        x = s.get(ln.Loan, addr)
    if x is None:
        raise not_found(f"Loan of {wallet} against {loan_id}")
    return View("lending_loan", addr, loan_attrs(addr, x, p, d, now()), s.slot, addr)


async def _lp(v: Views, wallet: str) -> tuple[Attrs, int, int]:
    s, addr, p, d = await _ctx(v)
    tokens, slot = await v.token_accounts(wallet, {"mint": p.lp_mint})
    lp = sum(t["amount"] for t in tokens)
    after = ln.accrued_pool(p, now())
    rate = ln.exchange_rate(after)
    attrs = {
        "wallet": wallet,
        "lending_pool": addr,
        "lp_mint": p.lp_mint,
        "lp_balance": amount(lp, d),
        "token_accounts": [t["address"] for t in tokens],
        "exchange_rate": amount(rate, 6),
        "value": amount(ln.lp_value(lp, rate), d),
        "share_of_pool": share(lp, p.total_lp_supply),
    }
    return attrs, max(s.slot, slot), d


async def lp_balance(v: Views, wallet: str) -> View:
    wallet = address(wallet, "wallet")
    attrs, slot, _ = await _lp(v, wallet)
    return View("lending_lp_balance", wallet, attrs, slot, attrs["lending_pool"])


async def position(v: Views, wallet: str) -> View:
    wallet = address(wallet, "wallet")
    lp, slot, d = await _lp(v, wallet)
    s, _, p, _ = await _ctx(v)
    t = now()
    rows = s.index("loans_by_borrower", _loans_by_borrower).get(wallet, [])
    loans = [loan_attrs(a, x, p, d, t) for a, x in rows]
    debt = 0
    for _, x in rows:
        if x.status == 1:
            got = ln.interest(x.principal, ln.pool_borrow_rate(p), t - x.last_interest_update)
            debt += x.principal + x.accrued_interest + got.interest
    attrs = {
        "wallet": wallet,
        "liquidity": {k: lp[k] for k in ("lp_balance", "value", "share_of_pool", "exchange_rate")},
        "loans": loans,
        "active_loans": sum(1 for _, x in rows if x.status == 1),
        "total_debt": amount(debt, d),
    }
    return View("lending_position", wallet, attrs, max(slot, s.slot), lp["lending_pool"])


# -- calculators ------------------------------------------------------------------------------


@dataclass(frozen=True)
class InterestInput:
    principal: int  # base units
    rate_bps: int | None  # None: the pool's current rate
    duration_seconds: int
    accrued_interest: int


async def asset_decimals(v: Views) -> int:
    return (await _ctx(v))[3]


async def calculate_interest(v: Views, q: InterestInput) -> Attrs:
    _, _, p, d = await _ctx(v)
    source = "request" if q.rate_bps is not None else "pool"
    rate = q.rate_bps if q.rate_bps is not None else ln.pool_borrow_rate(p)
    got = ln.interest(q.principal, rate, q.duration_seconds)
    exact = q.principal * got.rate_bps * q.duration_seconds // ln.BPS // ln.SECONDS_PER_YEAR
    limit = ln.max_seconds_before_overflow(q.principal, rate)
    return {
        "principal": amount(q.principal, d),
        "rate_bps": got.rate_bps,
        "rate_source": source,
        "duration_seconds": q.duration_seconds,
        "interest": amount(exact, d),
        "prior_accrued_interest": amount(q.accrued_interest, d),
        "total_debt": amount(q.principal + q.accrued_interest + exact, d),
        "onchain_overflow": got.overflow,
        "max_seconds_before_overflow": limit,
        "decimals": d,
    }


@dataclass(frozen=True)
class BorrowInput:
    loan_amount: int
    duration_type: int
    territory_type: int | None
    nft_mint: str | None


async def estimate_borrow_cost(v: Views, q: BorrowInput) -> Attrs:
    s, addr, p, d = await _ctx(v)
    kind = q.territory_type
    if q.nft_mint is not None:
        mint = address(q.nft_mint, "nft_mint")
        found = (await v.territory.get()).index("by_mint", by_mint).get(mint)
        if found is None:
            raise not_found(f"Territory NFT with mint {mint}")
        kind = found[1].territory_type
    if kind is None:
        raise invalid("territory_type", "give territory_type or nft_mint")
    _, o = _oracle(v, s, addr)
    if o is None:
        raise ViewError("The lending pool has no NFT price oracle", slug="not-found", status=404)
    t = now()
    after = ln.accrued_pool(p, t)
    value = o.value_of(kind)
    cap = ln.max_borrow(value)
    r_now = ln.pool_borrow_rate(after)
    r_post = ln.pool_borrow_rate(after, extra_borrowed=q.loan_amount)
    seconds = ln.DURATION_SECONDS[q.duration_type]
    got = ln.interest(q.loan_amount, r_post, seconds)
    exact = q.loan_amount * got.rate_bps * seconds // ln.BPS // ln.SECONDS_PER_YEAR
    liquidity = ln.available_liquidity(after)
    checks = {
        "amount_at_least_minimum": q.loan_amount >= ln.MIN_LOAN,
        "amount_at_most_maximum": q.loan_amount <= ln.MAX_LOAN,
        "within_max_borrow": q.loan_amount <= cap,
        "within_available_liquidity": q.loan_amount <= liquidity,
        "collateral_value_set": value > 0,
        "pool_active": p.is_active,
        "borrows_not_paused": not p.borrows_paused,
        "pool_accrual_ok": not ln.pool_accrual(p, t).overflow,
    }
    return {
        "lending_pool": addr,
        "loan_amount": amount(q.loan_amount, d),
        "duration": ln.DURATIONS[q.duration_type],
        "duration_seconds": seconds,
        "collateral_type": TERRITORY_TYPES[kind],
        "collateral_value": amount(value, d),
        "max_borrow": amount(cap, d),
        "available_liquidity": amount(liquidity, d),
        "rate_bps_now": r_now,
        "rate_bps_post": r_post,
        "rate_bps_applied": got.rate_bps,
        "interest_at_due": amount(exact, d),
        "total_due": amount(q.loan_amount + exact, d),
        "due_at": iso(t + seconds),
        "ltv_bps": ln.ltv_bps(q.loan_amount, value),
        "onchain_overflow": got.overflow,
        "max_seconds_before_overflow": ln.max_seconds_before_overflow(q.loan_amount, r_post),
        "checks": checks,
        "eligible": all(checks.values()),
        "decimals": d,
    }
