"""Token data: custody balances, transactions, public address balances, stats and the MCC price.
See docs/tokens.md."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Request, Response
from solders.pubkey import Pubkey
from sqlalchemy import func, select

from access.callers import id_token, user
from api.auth.declaration import Callers
from api.auth.principal import UserPrincipal
from api.callers import LEGACY_PROBLEMS, PUBLIC, LegacyCallers, McdRead
from api.deps import DecimalsDep, SessionDep
from api.envelope import PageParams, PageQuery, fast, meta, single
from api.errors import invalid_field
from api.openapi import problems
from api.routing import LightRoute
from api.schemas.tokens import (
    AddressBalanceAttributes,
    LegacyMccBalanceBody,
    MccBalanceAttributes,
    McdBalanceAttributes,
    TokenTransactionAttributes,
)
from api.token_common import (
    PUBLIC_PROBLEMS,
    STATS_SECONDS,
    USER_PROBLEMS,
    cache_of,
    chain_down,
    gateway_of,
)
from api.typed import Many, One
from chain.decimals import TokenDecimals
from chain.errors import ChainError
from core.config import Settings
from core.money import to_decimal_string
from core.time import iso
from db.models.mining import MiningSubmission
from db.notify import NotifyCache
from tokens import balances, history, oracle
from tokens.cache import Memo
from tokens.deposits import deposit_address, register

router = APIRouter(tags=["tokens"], route_class=LightRoute)

MccRead = Annotated[UserPrincipal, Depends(Callers(user("mcc:read")))]
# The legacy form: an ID token counts for what its client was granted (mcc:read here).
LegacyMccRead = Annotated[UserPrincipal, Depends(LegacyCallers(id_token("mcc:read")))]


# ------------------------------------------------------------------ helpers


def _address(value: str) -> Pubkey:
    try:
        if not 32 <= len(value) <= 44:
            raise ValueError("length")
        return Pubkey.from_string(value)
    except ValueError as exc:
        raise invalid_field(
            "address",
            "not a valid base58 address (32 bytes)",
            "address is not a valid base58 chain address",
        ) from exc


async def _custody(request: Request, uid: str, currency: str) -> Any:
    """The caller's balance from the cache (evicted by every ledger change) or the ledger; a
    hit opens no database session at all."""

    async def load() -> balances.CustodyBalance:
        registered: set[tuple[str, str]] = request.app.state.token_watched
        async with request.app.state.session_maker() as session:
            if (uid, currency) not in registered:
                # From now on the deposit watcher follows this deposit address.
                await register(session, gateway_of(request), uid, currency)
                await session.commit()
                registered.add((uid, currency))
            return await balances.load(session, uid, currency)

    return await cache_of(request).get(f"{uid}:{currency}", load)


# ------------------------------------------------------------------ balances


async def _balance(
    request: Request, uid: str, model: type[MccBalanceAttributes] | type[McdBalanceAttributes]
) -> Response:
    currency = "MCC" if model is MccBalanceAttributes else "MCD"
    gateway = gateway_of(request)
    # The decimals as ``DecimalsDep`` reads them (503 until read), without a dependency of
    # its own: FastAPI's solving of one costs a read as much as the rest of the handler.
    decimals = gateway.token_decimals().of(currency)
    b = await _custody(request, uid, currency)
    deposit = deposit_address(gateway.keys, uid, currency)
    key = (uid, currency)
    built = _BUILT.get(key)
    if built is None or built[0] is not b or built[1] != decimals or built[2] != deposit:
        if len(_BUILT) >= _MAX_BUILT:
            _BUILT.clear()
        shown = model.of(b, decimals, deposit).model_dump(mode="json", exclude_unset=True)
        built = _BUILT[key] = (b, decimals, deposit, shown)
    return fast(single(f"{currency.lower()}_balance", uid, built[3]))


# The attributes last sent for each (uid, currency), with the cached balance (the same object
# until a ledger change evicts it), the decimals and the deposit address they were built from:
# a read of an unchanged balance sends them again instead of building the model anew (4-5 % of
# the read's CPU). ``api.envelope.resource`` sends a model's set fields, as here.
_BUILT: dict[tuple[str, str], tuple[Any, int, tuple[str, str], dict[str, Any]]] = {}
_MAX_BUILT = 100_000


@router.get("/v1/mcc/balance", response_model=One[MccBalanceAttributes], responses=USER_PROBLEMS)
async def mcc_balance(user: MccRead, request: Request) -> Response:
    """The caller's MCC custody balance: total, locked, available, deposit address."""
    return await _balance(request, user.uid, MccBalanceAttributes)


@router.get("/v1/mcd/balance", response_model=One[McdBalanceAttributes], responses=USER_PROBLEMS)
async def mcd_balance(user: McdRead, request: Request) -> Response:
    """The caller's MCD custody balance (`mcd_balance`): total, frozen, available."""
    return await _balance(request, user.uid, McdBalanceAttributes)


@router.get(
    "/v1/mcc/balance/{address}",
    response_model=One[AddressBalanceAttributes],
    responses=PUBLIC_PROBLEMS | problems(s422="`validation-error`: not a base58 address"),
    dependencies=[Depends(PUBLIC)],
)
async def mcc_address_balance(
    request: Request,
    decimals: DecimalsDep,
    address: Annotated[str, Path(description="any base58 wallet address", max_length=64)],
) -> dict[str, Any]:
    """The on-chain MCC balance of any wallet (public; the same answer for users and others)."""
    owner = _address(address)
    gateway = gateway_of(request)
    try:
        amounts = await gateway.owned_token_amounts(
            owner, gateway.keys.mint_for("MCC"), "finalized"
        )
    except ChainError as exc:
        raise chain_down(exc) from exc
    attributes = {
        "address": str(owner),
        "total_balance": to_decimal_string(sum(amounts), decimals.mcc),
        "token_accounts": len(amounts),
        "updated_at": iso(datetime.now(UTC)),
    }
    return single("mcc_address_balance", str(owner), attributes)


@router.get(
    "/mcc/balance",
    tags=["legacy"],
    response_model=LegacyMccBalanceBody,
    responses=LEGACY_PROBLEMS | problems(503),
)
async def legacy_mcc_balance(
    user: LegacyMccRead, session: SessionDep, mints: DecimalsDep, request: Request
) -> dict[str, Any]:
    """Legacy MCC balance (plain JSON numbers; bearer is an ID token)."""
    decimals, mcd_decimals = mints.mcc, mints.mcd
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
    session: SessionDep, uid: str, currency: str, params: PageParams, mints: TokenDecimals
) -> dict[str, Any]:
    decimals = mints.of(currency)
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
                "created_at": iso(r.created_at),
            },
        }
        for r in rows
    ]
    return {
        "data": items,
        "meta": meta(total=total, page=params.page, per_page=params.per_page),
    }


@router.get(
    "/v1/mcc/transactions", response_model=Many[TokenTransactionAttributes], responses=USER_PROBLEMS
)
async def mcc_transactions(
    user: MccRead, session: SessionDep, decimals: DecimalsDep, params: PageQuery
) -> dict[str, Any]:
    """The caller's MCC movements, newest first (deposits, transfers, settlements)."""
    return await _transactions(session, user.uid, "MCC", params, decimals)


@router.get(
    "/v1/mcd/transactions", response_model=Many[TokenTransactionAttributes], responses=USER_PROBLEMS
)
async def mcd_transactions(
    user: McdRead, session: SessionDep, decimals: DecimalsDep, params: PageQuery
) -> dict[str, Any]:
    """The caller's MCD movements, newest first (deposits, transfers, mining rewards)."""
    return await _transactions(session, user.uid, "MCD", params, decimals)


@asynccontextmanager
async def token_services(app: FastAPI) -> AsyncIterator[None]:
    """Per-process token state: the NOTIFY-evicted cache, the market reader, stats."""
    settings: Settings = app.state.settings
    # Fed by the process's one listener (db.notify): the ledger's and the price's triggers.
    cache: NotifyCache[Any] = NotifyCache(None, settings.balance_cache_seconds)
    app.state.notify.attach(cache)
    app.state.token_cache = cache
    app.state.token_watched = set()
    app.state.token_stats = Memo(STATS_SECONDS)  # the public statistics (token_price.py)
    app.state.market_reader = oracle.MarketReader(
        app.state.gateway, settings, settings.market_price_cache_seconds
    )
    try:
        yield
    finally:
        app.state.notify.detach(cache)
