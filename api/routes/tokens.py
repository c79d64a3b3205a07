"""Token data: custody balances, transactions, public address balances, stats and the MCC price.
See docs/tokens.md."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any, Generic, Literal, TypeVar

from fastapi import APIRouter, Depends, FastAPI, Path, Request, Security
from pydantic import BaseModel, Field
from solana.exceptions import SolanaRpcException
from solana.rpc.commitment import Commitment
from solana.rpc.core import RPCException
from solana.rpc.models import TokenAccountOpts
from solders.pubkey import Pubkey
from sqlalchemy import func, select

from api.auth.deps import current_user
from api.auth.principal import UserPrincipal
from api.deps import SessionDep
from api.envelope import Meta, PageParams, meta
from api.idempotency import write_context
from api.routes.legacy import LegacyUser
from chain.custody import parse_token_account
from chain.errors import ChainError
from chain.gateway import ChainGateway
from core.config import Settings
from core.errors import DomainError, ServiceUnavailable
from core.logging import request_id_var
from core.money import to_decimal_string
from db.models.mining import MiningSubmission
from tokens import balances, history, oracle, stats
from tokens.cache import PRICE_KEY, NotifyCache
from tokens.deposits import decimals_of, deposit_address, register
from tokens.prices import USDC_DECIMALS, InvalidPrice, parse_price

router = APIRouter(tags=["tokens"])

MccRead = Annotated[UserPrincipal, Security(current_user, scopes=["mcc:read"])]
McdRead = Annotated[UserPrincipal, Security(current_user, scopes=["mcd:read"])]
MccAdmin = Annotated[UserPrincipal, Security(current_user, scopes=["mcc:admin"])]

_USER_PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: {"description": "Missing or invalid bearer token (`unauthorized`)"},
    403: {"description": "Missing scope (`insufficient-scope`)"},
    422: {"description": "`validation-error` (page, per_page)"},
    429: {"description": "Rate limited (`rate-limit-exceeded`)"},
}
_PUBLIC_PROBLEMS: dict[int | str, dict[str, Any]] = {
    429: {"description": "Rate limited (`rate-limit-exceeded`)"},
    503: {"description": "The chain RPC is unreachable (`service-unavailable`)"},
}
STATS_SECONDS = 30.0

A = TypeVar("A", bound=BaseModel)


# ------------------------------------------------------------------ typed envelopes


class Item(BaseModel, Generic[A]):
    type: str
    id: str
    attributes: A


class One(BaseModel, Generic[A]):
    data: Item[A]
    meta: Meta


class PageMeta(Meta):
    total: int
    page: int
    per_page: int


class Many(BaseModel, Generic[A]):
    data: list[Item[A]]
    meta: PageMeta


class McdBalance(BaseModel):
    total_balance: str = Field(description="finalized custody balance as booked (decimal)")
    available_balance: str
    frozen_balance: str = Field(description="sum of active fund locks")
    pending_out: str = Field(description="outgoing transfers not yet final")
    deposit_address: str = Field(description="the user's custody token account: send here")
    deposit_owner: str = Field(description="owner of the deposit address (the custody authority)")
    updated_at: str | None


class MccBalance(BaseModel):
    total_balance: str
    available_balance: str
    locked_balance: str = Field(description="sum of active fund locks")
    pending_out: str
    deposit_address: str
    deposit_owner: str
    updated_at: str | None


class LegacyMccBalance(BaseModel):
    """The legacy plain form: JSON numbers (whole tokens with a fraction), no envelope."""

    total_balance: float
    locked_balance: float
    available_balance: float
    pending_rewards: float = Field(description="MCD of mining submissions not yet confirmed")


class AddressBalance(BaseModel):
    address: str
    total_balance: str = Field(description="sum of the wallet's MCC token accounts (finalized)")
    token_accounts: int
    updated_at: str


class TokenTransaction(BaseModel):
    type: str = Field(
        description="deposit, transfer_in, transfer_out, settlement_in, settlement_out, "
        "mining_reward, credit, debit"
    )
    direction: Literal["in", "out"]
    currency: str
    amount: str
    counterparty: str | None = Field(description="user uid, sending wallet, or project")
    status: str
    signature: str | None
    reference: str | None
    created_at: str


class TokenStats(BaseModel):
    mint: str
    supply: str
    decimals: int
    custody_total: str
    holders: int
    volume_24h: str
    transactions_24h: int
    volume_30d: str
    transactions_30d: int
    price_usdc: str | None = None
    price_source: str | None = None
    updated_at: str


class MccPrice(BaseModel):
    price_usdc: str = Field(description="the price the rule gives now")
    source: Literal["market", "admin", "default"]
    updated_at: str = Field(description="when the source value was observed or set")
    base_price_usdc: str | None = Field(description="mean of the last closes (up to 180)")
    buyback_price_usdc: str | None = Field(description="base + floor(base * premium / 10000)")
    premium_bps: int
    points: int = Field(description="closes in the mean (180 once that many exist)")
    close_at: str | None = Field(description="the newest close")
    tx_signature: str | None = Field(description="the last on-chain update_price")
    onchain_updated_at: str | None


class PriceSet(BaseModel):
    price_usdc: str = Field(examples=["10.5"], description="6 decimals at most, 0.01 to 1000")
    idempotency_key: str | None = Field(
        None, description="Required unless the Idempotency-Key header is sent"
    )


# ------------------------------------------------------------------ helpers


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat().replace("+00:00", "Z")


def _usdc(units: int | None) -> str | None:
    return None if units is None else to_decimal_string(units, USDC_DECIMALS)


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _cache(request: Request) -> NotifyCache[Any]:
    cache: NotifyCache[Any] = request.app.state.token_cache
    return cache


def _gateway(request: Request) -> ChainGateway:
    gateway: ChainGateway = request.app.state.gateway
    return gateway


def _address(value: str) -> Pubkey:
    try:
        if not 32 <= len(value) <= 44:
            raise ValueError("length")
        return Pubkey.from_string(value)
    except ValueError as exc:
        raise DomainError(
            "address is not a valid base58 chain address",
            status=422,
            slug="validation-error",
            errors=[{"field": "address", "message": "not a valid base58 address (32 bytes)"}],
        ) from exc


def _chain_down(exc: Exception) -> DomainError:
    return ServiceUnavailable("The chain RPC is unreachable", headers={"Retry-After": "5"})


async def _custody(request: Request, uid: str, currency: str) -> Any:
    """The caller's balance from the cache (evicted by every ledger change) or the ledger; a
    hit opens no database session at all."""

    async def load() -> balances.CustodyBalance:
        registered: set[tuple[str, str]] = request.app.state.token_watched
        async with request.app.state.session_maker() as session:
            if (uid, currency) not in registered:
                # From now on the deposit watcher follows this deposit address.
                await register(session, _gateway(request).keys, uid, currency)
                await session.commit()
                registered.add((uid, currency))
            return await balances.load(session, uid, currency)

    return await _cache(request).get(f"{uid}:{currency}", load)


async def _decimals(request: Request, currency: str) -> int:
    """The mint's decimals as read from the chain (once per process; chain/decimals.py)."""
    try:
        return await decimals_of(_gateway(request), currency)
    except ChainError as exc:
        raise _chain_down(exc) from exc


async def _balance_attributes(
    request: Request, b: balances.CustodyBalance, held_name: str
) -> dict[str, Any]:
    decimals = await _decimals(request, b.currency)
    address, owner = deposit_address(_gateway(request).keys, b.uid, b.currency)
    return {
        "total_balance": to_decimal_string(b.total, decimals),
        "available_balance": to_decimal_string(b.available, decimals),
        held_name: to_decimal_string(b.held, decimals),
        "pending_out": to_decimal_string(b.pending_out, decimals),
        "deposit_address": address,
        "deposit_owner": owner,
        "updated_at": _iso(b.updated_at),
    }


# ------------------------------------------------------------------ balances


@router.get("/v1/mcc/balance", response_model=One[MccBalance], responses=_USER_PROBLEMS)
async def mcc_balance(user: MccRead, request: Request) -> dict[str, Any]:
    """The caller's MCC custody balance: total, locked, available, deposit address."""
    b = await _custody(request, user.uid, "MCC")
    attributes = await _balance_attributes(request, b, "locked_balance")
    return {"data": {"type": "mcc_balance", "id": user.uid, "attributes": attributes},
            "meta": meta()}  # fmt: skip


@router.get("/v1/mcd/balance", response_model=One[McdBalance], responses=_USER_PROBLEMS)
async def mcd_balance(user: McdRead, request: Request) -> dict[str, Any]:
    """The caller's MCD custody balance (`mcd_balance`): total, frozen, available."""
    b = await _custody(request, user.uid, "MCD")
    attributes = await _balance_attributes(request, b, "frozen_balance")
    return {"data": {"type": "mcd_balance", "id": user.uid, "attributes": attributes},
            "meta": meta()}  # fmt: skip


@router.get(
    "/v1/mcc/balance/{address}",
    response_model=One[AddressBalance],
    responses={422: {"description": "`validation-error`: not a base58 address"},
               **_PUBLIC_PROBLEMS},
)  # fmt: skip
async def mcc_address_balance(
    request: Request,
    address: Annotated[str, Path(description="any base58 wallet address", max_length=64)],
) -> dict[str, Any]:
    """The on-chain MCC balance of any wallet (public; the same answer for users and others)."""
    owner = _address(address)
    gateway = _gateway(request)
    client = request.app.state.solana
    try:
        resp = await client.get_token_accounts_by_owner(
            owner, TokenAccountOpts(mint=gateway.keys.mint_for("MCC")), Commitment("finalized")
        )
    except (RPCException, SolanaRpcException, OSError) as exc:
        raise _chain_down(exc) from exc
    total, count = 0, 0
    for keyed in resp.value:
        state = parse_token_account(bytes(keyed.account.data))
        if state is not None:
            total += state.amount
            count += 1
    attributes = {
        "address": str(owner),
        "total_balance": to_decimal_string(total, await _decimals(request, "MCC")),
        "token_accounts": count,
        "updated_at": _iso(datetime.now(UTC)),
    }
    return {"data": {"type": "mcc_address_balance", "id": str(owner), "attributes": attributes},
            "meta": meta()}  # fmt: skip


@router.get(
    "/mcc/balance",
    tags=["legacy"],
    response_model=LegacyMccBalance,
    responses={401: {"description": "`{error: unauthorized, message, code: 401}`"}},
)
async def legacy_mcc_balance(
    user: LegacyUser, session: SessionDep, request: Request
) -> dict[str, Any]:
    """Legacy MCC balance (plain JSON numbers; bearer is an ID token)."""
    decimals = await _decimals(request, "MCC")
    mcd_decimals = await _decimals(request, "MCD")
    b = await _custody(request, user.uid, "MCC")
    pending = await session.scalar(
        select(func.coalesce(func.sum(MiningSubmission.mcd_amount), 0)).where(
            MiningSubmission.user_uid == user.uid,
            MiningSubmission.status.in_(("verified", "pending_onchain")),
        )
    )

    def number(units: int, places: int = decimals) -> float:
        # JSON numbers, as the legacy form shows; converted only at this edge.
        return float(Decimal(to_decimal_string(units, places)))

    return {
        "total_balance": number(b.total),
        "locked_balance": number(b.held),
        "available_balance": number(b.available),
        "pending_rewards": number(int(pending or 0), mcd_decimals),
    }


# ------------------------------------------------------------------ transactions


async def _transactions(
    session: SessionDep, uid: str, currency: str, params: PageParams, decimals: int
) -> dict[str, Any]:
    rows, total = await history.page(
        session, uid, currency, limit=params.per_page, offset=params.offset
    )
    items = [
        {
            "type": f"{currency.lower()}_transaction",
            "id": str(r.id),
            "attributes": {
                "type": r.type,
                "direction": r.direction,
                "currency": currency,
                "amount": to_decimal_string(r.amount, decimals),
                "counterparty": r.counterparty,
                "status": r.status,
                "signature": r.signature,
                "reference": r.reference,
                "created_at": _iso(r.created_at),
            },
        }
        for r in rows
    ]
    return {
        "data": items,
        "meta": meta(total=total, page=params.page, per_page=params.per_page),
    }


@router.get("/v1/mcc/transactions", response_model=Many[TokenTransaction], responses=_USER_PROBLEMS)
async def mcc_transactions(
    user: MccRead, session: SessionDep, request: Request,
    params: Annotated[PageParams, Depends()],
) -> dict[str, Any]:  # fmt: skip
    """The caller's MCC movements, newest first (deposits, transfers, settlements)."""
    return await _transactions(session, user.uid, "MCC", params, await _decimals(request, "MCC"))


@router.get("/v1/mcd/transactions", response_model=Many[TokenTransaction], responses=_USER_PROBLEMS)
async def mcd_transactions(
    user: McdRead, session: SessionDep, request: Request,
    params: Annotated[PageParams, Depends()],
) -> dict[str, Any]:  # fmt: skip
    """The caller's MCD movements, newest first (deposits, transfers, mining rewards)."""
    return await _transactions(session, user.uid, "MCD", params, await _decimals(request, "MCD"))


# ------------------------------------------------------------------ price


async def _price_view(request: Request) -> dict[str, Any]:
    settings = _settings(request)
    market: oracle.MarketReader = request.app.state.market_reader

    async def load() -> dict[str, Any]:
        async with request.app.state.session_maker() as session:
            try:
                now = await oracle.price_now(session, market.read, settings.default_price_usdc)
            except ChainError as exc:
                raise _chain_down(exc) from exc
            close = await oracle.latest_close(session)
            written = await oracle.latest_onchain(session)
        return {
            "price_usdc": _usdc(now.quote.price_usdc),
            "source": now.quote.source,
            "updated_at": _iso(now.observed_at),
            "base_price_usdc": _usdc(close.base_price_usdc) if close else None,
            "buyback_price_usdc": _usdc(close.buyback_price_usdc) if close else None,
            "premium_bps": close.premium_bps if close else settings.oracle_premium_bps,
            "points": close.points if close else 0,
            "close_at": _iso(close.close_at) if close else None,
            "tx_signature": written.onchain_signature if written else None,
            "onchain_updated_at": _iso(written.onchain_at) if written else None,
        }

    ttl = settings.market_price_cache_seconds if market.configured else None
    view: dict[str, Any] = await _cache(request).get(PRICE_KEY, load, ttl)
    return view


def _price_response(view: dict[str, Any], settings: Settings) -> dict[str, Any]:
    return {
        "data": {"type": "mcc_price", "id": "MCC", "attributes": view},
        "meta": meta(window=settings.oracle_window, points=view["points"]),
    }


@router.get("/v1/mcc/price", response_model=One[MccPrice], responses=_PUBLIC_PROBLEMS)
async def mcc_price(request: Request) -> dict[str, Any]:
    """The MCC price the rule gives now (market > admin > default), with base and buyback."""
    return _price_response(await _price_view(request), _settings(request))


@router.post(
    "/v1/mcc/price",
    response_model=One[MccPrice],
    responses={
        401: {"description": "Missing or invalid bearer token (`unauthorized`)"},
        403: {"description": "`insufficient-scope` (mcc:admin) or `admin-required`"},
        409: {"description": "`idempotency-key-reused` / `idempotency-key-in-use`"},
        422: {"description": "`invalid-amount`: not a positive decimal with at most 6 places "
              "between 0.01 and 1000; `validation-error`"},
    },
)  # fmt: skip
async def set_mcc_price(payload: PriceSet, user: MccAdmin, request: Request) -> Any:
    """Set the administrator price (scope mcc:admin, role admin; audited)."""
    if not user.is_admin:
        raise DomainError(
            "Only administrators set the MCC price", status=403, slug="admin-required"
        )
    try:
        price = parse_price(payload.price_usdc)
    except InvalidPrice as exc:
        raise DomainError(
            str(exc), status=422, slug="invalid-amount",
            errors=[{"field": "price_usdc", "message": str(exc)}],
        ) from exc  # fmt: skip
    settings = _settings(request)
    async with write_context(request, user, operation="mcc.price.set", user_uid=user.uid) as ctx:
        row = await oracle.set_admin_price(ctx.session, price, user.uid, request_id_var.get())
        close = await oracle.latest_close(ctx.session)
        written = await oracle.latest_onchain(ctx.session)
        view = {
            "price_usdc": _usdc(row.price_usdc),
            "source": "admin",
            "updated_at": _iso(row.created_at),
            "base_price_usdc": _usdc(close.base_price_usdc) if close else None,
            "buyback_price_usdc": _usdc(close.buyback_price_usdc) if close else None,
            "premium_bps": close.premium_bps if close else settings.oracle_premium_bps,
            "points": close.points if close else 0,
            "close_at": _iso(close.close_at) if close else None,
            "tx_signature": written.onchain_signature if written else None,
            "onchain_updated_at": _iso(written.onchain_at) if written else None,
        }
        return ctx.respond(200, _price_response(view, settings))


# ------------------------------------------------------------------ stats


async def _stats(request: Request, session: SessionDep, currency: str) -> dict[str, Any]:
    cached: dict[str, tuple[float, dict[str, Any]]] = request.app.state.token_stats
    hit = cached.get(currency)
    if hit is not None and time.monotonic() - hit[0] < STATS_SECONDS:
        return hit[1]
    gateway = _gateway(request)
    try:
        s = await stats.load(
            session, request.app.state.solana, currency, gateway.keys.mint_for(currency)
        )
    except (RPCException, SolanaRpcException, OSError) as exc:
        raise _chain_down(exc) from exc
    d = s.decimals
    attributes: dict[str, Any] = {
        "mint": s.mint,
        "supply": to_decimal_string(s.supply, d),
        "decimals": d,
        "custody_total": to_decimal_string(s.custody_total, d),
        "holders": s.holders,
        "volume_24h": to_decimal_string(s.volume_24h, d),
        "transactions_24h": s.count_24h,
        "volume_30d": to_decimal_string(s.volume_30d, d),
        "transactions_30d": s.count_30d,
        "updated_at": _iso(s.updated_at),
    }
    if currency == "MCC":
        view = await _price_view(request)
        attributes["price_usdc"] = view["price_usdc"]
        attributes["price_source"] = view["source"]
    body = {
        "data": {"type": f"{currency.lower()}_stats", "id": currency, "attributes": attributes},
        "meta": meta(cache_seconds=STATS_SECONDS),
    }
    cached[currency] = (time.monotonic(), body)
    return body


@router.get("/v1/mcc/stats", response_model=One[TokenStats], responses=_PUBLIC_PROBLEMS)
async def mcc_stats(request: Request, session: SessionDep) -> dict[str, Any]:
    """Global MCC statistics: supply, custody, holders, volume, price (cached 30 s)."""
    body = await _stats(request, session, "MCC")
    return {**body, "meta": meta(cache_seconds=STATS_SECONDS)}


@router.get("/v1/mcd/stats", response_model=One[TokenStats], responses=_PUBLIC_PROBLEMS)
async def mcd_stats(request: Request, session: SessionDep) -> dict[str, Any]:
    """Global MCD statistics: supply, custody, holders, volume (cached 30 s)."""
    body = await _stats(request, session, "MCD")
    return {**body, "meta": meta(cache_seconds=STATS_SECONDS)}


# ------------------------------------------------------------------ wiring


@asynccontextmanager
async def token_services(app: FastAPI) -> AsyncIterator[None]:
    """Per-process token state: the NOTIFY-evicted cache, the market reader, stats."""
    settings: Settings = app.state.settings
    cache: NotifyCache[Any] = NotifyCache(
        settings.database_url_plain, settings.balance_cache_seconds
    )
    app.state.token_cache = cache
    app.state.token_watched = set()
    app.state.token_stats = {}
    app.state.market_reader = oracle.MarketReader(
        app.state.gateway, settings, settings.market_price_cache_seconds
    )
    await cache.start()
    try:
        yield
    finally:
        await cache.stop()
