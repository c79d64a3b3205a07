"""Fragment views: config, vaults, one vault, its holders, a wallet's holdings.

Public reads: vaults and fragment balances are public chain data."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query

from api.callers import PUBLIC
from api.typed import Shape
from api.views_common import READ_ERRORS, Many, One, PagingDep, ViewsDep, many, one
from views import fragment as svc

router = APIRouter(
    prefix="/v1/fragment", tags=["chain views: fragment"], dependencies=[Depends(PUBLIC)]
)
VaultStatus = Literal[
    "initializing", "active", "redeeming", "redeemed", "buyout_pending", "bought_out"
]


class FragmentConfigAttributes(Shape):
    authority: str
    min_fragments: int
    max_fragments: int
    buyout_duration_seconds: int
    total_fragmented_nfts: int
    active_buyouts: int
    is_paused: bool
    created_at: str | None
    updated_at: str | None


class VaultAttributes(Shape):
    account: str
    original_owner: str
    nft_mint: str
    fragment_mint: str | None
    fragment_name: str
    fragment_symbol: str
    total_fragments: str
    circulating_fragments_recorded: str
    status: str
    created_at: str | None
    redeemed_at: str | None


class BuyoutAttributes(Shape):
    account: str
    initiator: str
    status: str
    payment_mint: str
    price_per_fragment: str
    total_buyout_amount: str
    payment_collected: str
    fragments_to_buy: str
    fragments_accepted: str
    initiated_at: str | None
    expires_at: str | None
    completed_at: str | None


class VaultDetailAttributes(VaultAttributes):
    live_supply: str | None
    buyout: BuyoutAttributes | None


class HolderAttributes(Shape):
    token_account: str
    owner: str
    amount: str
    share: str
    is_buyout_escrow: bool


class HoldingAttributes(Shape):
    token_account: str
    vault: str
    nft_mint: str
    fragment_mint: str
    fragment_symbol: str
    amount: str
    share: str
    vault_status: str


@router.get("/config", response_model=One[FragmentConfigAttributes], responses=READ_ERRORS)
async def config(views: ViewsDep) -> dict[str, Any]:
    """The fragment program's config."""
    return one(await svc.config(views), views)


@router.get("/vaults", response_model=Many[VaultAttributes], responses=READ_ERRORS)
async def vaults(
    views: ViewsDep, paging: PagingDep, status: Annotated[VaultStatus | None, Query()] = None
) -> dict[str, Any]:
    """Fragment vaults, newest first, optionally of one status."""
    return many(await svc.vaults(views, status, paging.page, paging.per_page), paging, views)


@router.get("/vault/{id}", response_model=One[VaultDetailAttributes], responses=READ_ERRORS)
async def vault(id: str, views: ViewsDep) -> dict[str, Any]:
    """One vault (id = vault address or NFT mint) with live supply and its buyout."""
    return one(await svc.vault(views, id), views)


@router.get("/vault/{id}/holders", response_model=Many[HolderAttributes], responses=READ_ERRORS)
async def holders(id: str, views: ViewsDep, paging: PagingDep) -> dict[str, Any]:
    """Holders of a vault's fragments (its mint's token accounts), largest first."""
    return many(await svc.holders(views, id, paging.page, paging.per_page), paging, views)


@router.get("/holdings/{wallet}", response_model=Many[HoldingAttributes], responses=READ_ERRORS)
async def holdings(wallet: str, views: ViewsDep, paging: PagingDep) -> dict[str, Any]:
    """A wallet's fragment balances, per vault."""
    return many(await svc.holdings(views, wallet, paging.page, paging.per_page), paging, views)
