"""Territory NFT views: the collection, one NFT, a wallet's NFTs, a unit's NFT.

Public reads: every field is public chain data that anyone can read from an RPC node."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from pydantic import Field

from api.callers import PUBLIC
from api.errors import invalid_field
from api.typed import Shape
from api.views_common import READ_ERRORS, Many, One, PagingDep, ViewsDep, many, one
from chain.ecosystem import TERRITORY_TYPES
from views import territory as svc

router = APIRouter(
    prefix="/v1/territory", tags=["chain views: territory"], dependencies=[Depends(PUBLIC)]
)

TerritoryType = Literal["station", "matrix", "sector", "system"]


class TerritoryTotals(Shape):
    stations: int
    matrices: int
    sectors: int
    systems: int


class Capacities(Shape):
    station: int
    matrix: int
    sector: int
    system: int


class CollectionAttributes(Shape):
    name: str
    symbol: str
    authority: str
    collection_mint: str
    collection_metadata: str
    collection_master_edition: str
    totals: TerritoryTotals
    capacities: Capacities
    is_initialized: bool
    created_at: str | None
    updated_at: str | None


class NftAttributes(Shape):
    account: str
    territory_type: str
    territory_id: int
    name: str
    mint: str | None
    recorded_owner: str
    parent_id: int | None
    current_members: int
    is_auctioning: bool
    is_frozen: bool
    status: Literal["minted", "reserved"]
    created_at: str | None
    updated_at: str | None


class HeldNftAttributes(NftAttributes):
    holder: str | None
    owner_is_stale: bool


class WalletNftAttributes(HeldNftAttributes):
    custody: Literal["wallet", "lending_loan", "fragment_vault"] = Field(
        description="wallet = in the wallet's token account; lending_loan / fragment_vault = "
        "escrowed by that program for this wallet (holder is the escrowing account)"
    )


class NftDetailAttributes(HeldNftAttributes):
    holder_token_account: str | None
    escrowed_in: Literal["lending_loan", "fragment_vault"] | None


@router.get("/collection", response_model=One[CollectionAttributes], responses=READ_ERRORS)
async def collection(views: ViewsDep) -> dict[str, Any]:
    """The territory collection: authority, collection mint, minted totals per type."""
    return one(await svc.collection(views), views)


@router.get("/nft/{mint}", response_model=One[NftDetailAttributes], responses=READ_ERRORS)
async def nft(mint: str, views: ViewsDep) -> dict[str, Any]:
    """One territory NFT by its mint, with its true holder (from the token account).

    `recorded_owner` is the program's `owner` field, which goes stale on any transfer made
    outside the program; `holder` is the owner of the token account holding the token."""
    return one(await svc.nft(views, mint), views)


@router.get("/nfts/{wallet}", response_model=Many[WalletNftAttributes], responses=READ_ERRORS)
async def nfts(
    wallet: str,
    views: ViewsDep,
    paging: PagingDep,
    include_encumbered: Annotated[
        bool, Query(description="Also list NFTs the wallet put up as collateral or fractionalized")
    ] = True,
) -> dict[str, Any]:
    """The territory NFTs a wallet holds, by type and id (escrowed ones marked by `custody`)."""
    page = await svc.nfts_of(views, wallet, paging.page, paging.per_page, include_encumbered)
    return many(page, paging, views)


@router.get("/unit/{unit_id}/nft", response_model=One[NftAttributes], responses=READ_ERRORS)
async def unit_nft(
    unit_id: Annotated[
        str,
        Path(
            pattern=r"^((station|matrix|sector|system)-)?[1-9][0-9]{0,19}$",
            examples=["station-1", "4"],
            description="The id `/v1/organizations` gives (`station-1`), or a number with `type`",
        ),
    ],
    views: ViewsDep,
    type: Annotated[
        TerritoryType | None,
        Query(description="Unit type, required with a bare number (ids are numbered per type)"),
    ] = None,
) -> dict[str, Any]:
    """The territory NFT account of a unit (`station-1`, or type + id); `status` reserved = not
    minted yet."""
    kind, _, number = unit_id.rpartition("-")
    if kind and type is not None and type != kind:
        raise invalid_field("type", f"{type!r} contradicts the unit id {unit_id!r}")
    chosen = kind or type
    if chosen is None:
        raise invalid_field("type", "required with a bare unit number (or use e.g. station-1)")
    if int(number) > 2**64 - 1:
        raise invalid_field("unit_id", "the unit number is out of range")
    return one(await svc.unit(views, TERRITORY_TYPES.index(chosen), int(number)), views)
