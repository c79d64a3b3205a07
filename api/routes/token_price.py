"""The MCC price (read, and the administrator's set) and the global token statistics.
See docs/tokens.md."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response

from access.callers import admin
from api import token_common as common
from api.auth.declaration import Callers
from api.auth.principal import UserPrincipal
from api.callers import PUBLIC
from api.common import usdc
from api.envelope import fast, meta
from api.idempotency import write_context
from api.openapi import problems
from api.routing import LightRoute
from api.schemas.tokens import MccPriceAttributes, MccPriceIn, TokenStatsAttributes
from api.typed import One
from chain.errors import ChainError
from core.config import Settings
from core.logging import request_id_var
from core.money import to_decimal_string
from core.time import iso
from db.models.tokens import PriceClose
from tokens import oracle, stats
from tokens.cache import PRICE_KEY, Memo
from tokens.prices import parse_price

router = APIRouter(tags=["tokens"], route_class=LightRoute)

MccAdmin = Annotated[UserPrincipal, Depends(Callers(admin("mcc:admin")))]
STATS_SECONDS = common.STATS_SECONDS


def _view(
    price: int,
    source: str,
    observed: datetime,
    close: PriceClose | None,
    written: PriceClose | None,
    settings: Settings,
) -> dict[str, Any]:
    """The price attributes: the rule's answer now beside the newest close and on-chain write."""
    return {
        "price_usdc": usdc(price),
        "source": source,
        "updated_at": iso(observed),
        "base_price_usdc": usdc(close.base_price_usdc) if close else None,
        "buyback_price_usdc": usdc(close.buyback_price_usdc) if close else None,
        "premium_bps": close.premium_bps if close else settings.oracle_premium_bps,
        "points": close.points if close else 0,
        "close_at": iso(close.close_at) if close else None,
        "tx_signature": written.onchain_signature if written else None,
        "onchain_updated_at": iso(written.onchain_at) if written else None,
    }


async def _price_view(request: Request) -> dict[str, Any]:
    settings = common.settings_of(request)
    market: oracle.MarketReader = request.app.state.market_reader

    async def load() -> dict[str, Any]:
        async with request.app.state.session_maker() as session:
            try:
                now = await oracle.price_now(session, market.read, settings.default_price_usdc)
            except ChainError as exc:
                raise common.chain_down(exc) from exc
            close = await oracle.latest_close(session)
            written = await oracle.latest_onchain(session)
        q = now.quote
        return _view(q.price_usdc, q.source, now.observed_at, close, written, settings)

    ttl = settings.market_price_cache_seconds if market.configured else None
    view: dict[str, Any] = await common.cache_of(request).get(PRICE_KEY, load, ttl)
    return view


def _price_response(view: dict[str, Any], settings: Settings) -> dict[str, Any]:
    return {
        "data": {"type": "mcc_price", "id": "MCC", "attributes": view},
        "meta": meta(window=settings.oracle_window, points=view["points"]),
    }


@router.get(
    "/v1/mcc/price",
    response_model=One[MccPriceAttributes],
    responses=common.PUBLIC_PROBLEMS,
    dependencies=[Depends(PUBLIC)],
)
async def mcc_price(request: Request) -> Response:
    """The MCC price the rule gives now (market > admin > default), with base and buyback."""
    return fast(_price_response(await _price_view(request), common.settings_of(request)))


@router.post(
    "/v1/mcc/price",
    response_model=One[MccPriceAttributes],
    responses=problems(
        401,
        409,
        s403="`insufficient-scope` (mcc:admin) or `admin-required`",
        s422="`invalid-amount`: not a positive decimal with at most 6 places between 0.01 and "
        "1000; `validation-error`",
    ),
)
async def set_mcc_price(payload: MccPriceIn, user: MccAdmin, request: Request) -> Any:
    """Set the administrator price (scope mcc:admin, role admin; audited)."""
    price = parse_price(payload.price_usdc)
    settings = common.settings_of(request)
    async with write_context(
        request, user, operation="mcc.price.set", user_uid=user.uid, key_optional=True
    ) as ctx:
        row = await oracle.set_admin_price(ctx.session, price, user.uid, request_id_var.get())
        close = await oracle.latest_close(ctx.session)
        written = await oracle.latest_onchain(ctx.session)
        view = _view(row.price_usdc, "admin", row.created_at, close, written, settings)
        return ctx.respond(200, _price_response(view, settings))


async def _stats(request: Request, currency: str) -> dict[str, Any]:
    """The statistics' body, loaded at most once per STATS_SECONDS in this process however
    many requests ask at once (public, so a burst at each expiry is anyone's to send)."""
    memo: Memo[str, dict[str, Any]] = request.app.state.token_stats
    return await memo.get(currency, lambda: _load_stats(request, currency))


async def _load_stats(request: Request, currency: str) -> dict[str, Any]:
    gateway = common.gateway_of(request)
    try:
        async with request.app.state.session_maker() as session:
            s = await stats.load(session, gateway, currency, gateway.keys.mint_for(currency))
    except ChainError as exc:
        raise common.chain_down(exc) from exc
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
        "updated_at": iso(s.updated_at),
    }
    if currency == "MCC":
        view = await _price_view(request)
        attributes["price_usdc"] = view["price_usdc"]
        attributes["price_source"] = view["source"]
    return {
        "data": {"type": f"{currency.lower()}_stats", "id": currency, "attributes": attributes},
        "meta": meta(cache_seconds=STATS_SECONDS),
    }


@router.get(
    "/v1/mcc/stats",
    response_model=One[TokenStatsAttributes],
    responses=common.PUBLIC_PROBLEMS,
    dependencies=[Depends(PUBLIC)],
)
async def mcc_stats(request: Request) -> dict[str, Any]:
    """Global MCC statistics: supply, custody, holders, volume, price (cached 30 s)."""
    body = await _stats(request, "MCC")
    return {**body, "meta": meta(cache_seconds=STATS_SECONDS)}


@router.get(
    "/v1/mcd/stats",
    response_model=One[TokenStatsAttributes],
    responses=common.PUBLIC_PROBLEMS,
    dependencies=[Depends(PUBLIC)],
)
async def mcd_stats(request: Request) -> dict[str, Any]:
    """Global MCD statistics: supply, custody, holders, volume (cached 30 s)."""
    body = await _stats(request, "MCD")
    return {**body, "meta": meta(cache_seconds=STATS_SECONDS)}
