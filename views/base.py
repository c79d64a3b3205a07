"""The views' shared state (one per process) and result shapes."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, TypeVar

from solders.pubkey import Pubkey

from chain.ecosystem import auction as au
from chain.ecosystem import fragment as fr
from chain.ecosystem import lending as ln
from chain.ecosystem import level_verifier as lv
from chain.ecosystem import territory as te
from chain.ecosystem.borsh import ZERO_KEY
from chain.errors import ChainRpcError
from chain.rpc import ChainRpc
from core.money import to_decimal_string
from core.time import iso_unix
from views.cache import ProgramCache, TtlCache
from views.errors import ViewError, invalid, not_found

Attrs = dict[str, Any]


T = TypeVar("T")


@dataclass
class View:
    """One resource: its id, attributes, and where/when it was read."""

    type: str
    id: str
    attributes: Attrs
    slot: int
    address: str | None = None


@dataclass
class ViewPage:
    type: str
    items: list[tuple[str, Attrs]]
    total: int
    slot: int
    program: str | None = None
    extra: Attrs = field(default_factory=dict)


@dataclass(frozen=True)
class ProgramIds:
    territory: str
    auction: str
    fragment: str
    lending: str
    level_verifier: str


class Views:
    """Reader, per-program snapshots and the short read cache, built once per process."""

    def __init__(
        self, reader: ChainRpc, ids: ProgramIds, ttl: float, lending_pool: str = ""
    ) -> None:
        self.reader, self.ids, self.ttl, self.lending_pool = reader, ids, ttl, lending_pool
        self.reads = TtlCache(reader, ttl)
        self.territory = ProgramCache(
            reader, ids.territory, (te.TerritoryCollection, te.TerritoryNft), ttl
        )
        self.auction = ProgramCache(
            reader, ids.auction, (au.AuctionConfig, au.Auction, au.Bid), ttl
        )
        self.fragment = ProgramCache(
            reader, ids.fragment, (fr.FragmentConfig, fr.FragmentVault, fr.Buyout), ttl
        )
        self.lending = ProgramCache(
            reader, ids.lending, (ln.LendingPool, ln.Loan, ln.NftPriceOracle), ttl
        )
        self.level = ProgramCache(
            reader, ids.level_verifier, (lv.VerifierConfig, lv.UserProfile), ttl
        )

    async def decimals(self, mint: str) -> int:
        async def load() -> int:
            try:
                got = await self.reader.call("getTokenSupply", [mint, {"commitment": "confirmed"}])
            except ChainRpcError as exc:
                raise ViewError(
                    f"mint {mint} is not readable on chain ({exc})",
                    slug="service-unavailable",
                    status=503,
                ) from exc
            return int(got["value"]["decimals"])

        return await self.reads.forever("decimals:" + mint, load)

    async def token_account(self, token_account: str) -> tuple[dict[str, Any], int] | None:
        """(parsed info, slot) of a token account, None when it does not exist."""
        got = await self.reads.call(
            "getMultipleAccounts",
            [token_account],
            {"encoding": "jsonParsed", "commitment": "confirmed"},
        )
        acc = got["value"][0]
        if acc is None or not isinstance(acc["data"], dict):
            return None
        return acc["data"]["parsed"]["info"], got["context"]["slot"]

    async def token_amount(self, token_account: str) -> tuple[int, int] | None:
        """(amount, slot) of a token account, None when it does not exist."""
        found = await self.token_account(token_account)
        return None if found is None else (int(found[0]["tokenAmount"]["amount"]), found[1])

    async def supply(self, mint: str) -> int | None:
        try:
            got = await self.reads.call("getTokenSupply", mint, {"commitment": "confirmed"})
        except ChainRpcError:
            return None
        return int(got["value"]["amount"])

    async def token_accounts(self, owner: str, by: dict[str, str]) -> tuple[list[Attrs], int]:
        """[{address, mint, owner, amount, decimals}] of an owner's token accounts, and slot."""
        try:
            got = await self.reads.call(
                "getTokenAccountsByOwner",
                owner,
                by,
                {"encoding": "jsonParsed", "commitment": "confirmed"},
            )
        except ChainRpcError:
            return [], 0  # e.g. an LP mint that is not on this chain
        out = []
        for item in got["value"]:
            data = item["account"]["data"]
            if not isinstance(data, dict):
                continue
            info = data["parsed"]["info"]
            out.append(
                {
                    "address": item["pubkey"],
                    "mint": info["mint"],
                    "owner": info["owner"],
                    "amount": int(info["tokenAmount"]["amount"]),
                    "decimals": int(info["tokenAmount"]["decimals"]),
                }
            )
        return out, int(got["context"]["slot"])


# -- small helpers shared by the view modules ------------------------------------------------


iso = iso_unix  # the view modules render chain (unix) times with it


def now() -> int:
    return int(time.time())


def amount(units: int, decimals: int) -> str:
    return to_decimal_string(units, decimals)


def address(value: str, field_name: str) -> str:
    """A base58 public key, else a 422."""
    try:
        return str(Pubkey.from_string(value))
    except ValueError:
        raise invalid(field_name, "not a base58 Solana address") from None


def key_or_none(value: str | None) -> str | None:
    return None if value is None or value == ZERO_KEY else value


def present(value: T | None, what: str) -> T:
    """``value``, or the 404 problem naming ``what`` when the account is missing."""
    if value is None:
        raise not_found(what)
    return value


def paged(items: list[Any], page: int, per_page: int) -> list[Any]:
    start = (page - 1) * per_page
    return items[start : start + per_page]


def share(part: int, whole: int, places: int = 6) -> str:
    """part/whole as a decimal string floored to `places` digits ("0.6", "0.333333")."""
    if whole <= 0:
        return "0"
    return to_decimal_string(part * 10**places // whole, places)
