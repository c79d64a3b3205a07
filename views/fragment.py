"""Fragment views (ecosystem-programs.md 2.2, 5.2, 8)."""

from __future__ import annotations

import base64

from solders.pubkey import Pubkey

from chain.ecosystem import TOKEN_PROGRAM_ID
from chain.ecosystem import fragment as fr
from chain.ecosystem.borsh import ZERO_KEY
from views.base import Attrs, View, ViewPage, Views, address, amount, iso, key_or_none, paged, share
from views.cache import Snapshot
from views.errors import invalid, not_found


async def config(v: Views) -> View:
    s = await v.fragment.get()
    addr = fr.config_pda(v.ids.fragment)[0]
    c = s.get(fr.FragmentConfig, addr)
    if c is None:
        raise not_found(f"Fragment config {addr}")
    attrs = {
        "authority": c.authority,
        "min_fragments": c.min_fragments,
        "max_fragments": c.max_fragments,
        "buyout_duration_seconds": c.buyout_duration,
        "total_fragmented_nfts": c.total_fragmented_nfts,
        "active_buyouts": c.active_buyouts,
        "is_paused": c.is_paused,
        "created_at": iso(c.created_at),
        "updated_at": iso(c.updated_at),
    }
    return View("fragment_config", addr, attrs, s.slot, addr)


def vault_attrs(addr: str, x: fr.FragmentVault) -> Attrs:
    return {
        "account": addr,
        "original_owner": x.original_owner,
        "nft_mint": x.nft_mint,
        "fragment_mint": key_or_none(x.fragment_mint),
        "fragment_name": x.fragment_name,
        "fragment_symbol": x.fragment_symbol,
        "total_fragments": str(x.total_fragments),  # fragments have 0 decimals
        "circulating_fragments_recorded": str(x.circulating_fragments),
        "status": fr.VAULT_STATUSES[x.status] if x.status < 6 else "unknown",
        "created_at": iso(x.created_at),
        "redeemed_at": iso(x.redeemed_at),
    }


async def vaults(v: Views, status: str | None, page: int, per_page: int) -> ViewPage:
    if status is not None and status not in fr.VAULT_STATUSES:
        raise invalid("status", f"one of {', '.join(fr.VAULT_STATUSES)}")
    s = await v.fragment.get()
    rows = [
        (a, x)
        for a, x in s.all(fr.FragmentVault).items()
        if status is None or (x.status < 6 and fr.VAULT_STATUSES[x.status] == status)
    ]
    rows.sort(key=lambda r: (-r[1].created_at, r[0]))
    items = [(a, vault_attrs(a, x)) for a, x in paged(rows, page, per_page)]
    return ViewPage("fragment_vault", items, len(rows), s.slot, v.ids.fragment)


def _find(v: Views, s: Snapshot, vault_id: str) -> tuple[str, fr.FragmentVault]:
    """The id is the vault address or the fractionalized NFT's mint."""
    vault_id = address(vault_id, "id")
    x = s.get(fr.FragmentVault, vault_id)
    if x is not None:
        return vault_id, x
    pda = fr.vault_pda(vault_id, v.ids.fragment)[0]
    x = s.get(fr.FragmentVault, pda)
    if x is None:
        raise not_found(f"Fragment vault {vault_id}")
    return pda, x


async def vault(v: Views, vault_id: str) -> View:
    s = await v.fragment.get()
    addr, x = _find(v, s, vault_id)
    attrs = vault_attrs(addr, x)
    supply = None if x.fragment_mint == ZERO_KEY else await v.supply(x.fragment_mint)
    attrs["live_supply"] = None if supply is None else str(supply)
    buyout_addr = fr.buyout_pda(addr, v.ids.fragment)[0]
    b = s.get(fr.Buyout, buyout_addr)
    attrs["buyout"] = None
    if b is not None:
        d = await v.decimals(b.payment_mint)
        attrs["buyout"] = {
            "account": buyout_addr,
            "initiator": b.initiator,
            "status": fr.BUYOUT_STATUSES[b.status] if b.status < 5 else "unknown",
            "payment_mint": b.payment_mint,
            "price_per_fragment": amount(b.price_per_fragment, d),
            "total_buyout_amount": amount(b.total_buyout_amount, d),
            "payment_collected": amount(b.payment_collected, d),
            "fragments_to_buy": str(b.fragments_to_buy),
            "fragments_accepted": str(b.fragments_accepted),
            "initiated_at": iso(b.initiated_at),
            "expires_at": iso(b.expires_at),
            "completed_at": iso(b.completed_at),
        }
    return View("fragment_vault", addr, attrs, s.slot, addr)


async def holders(v: Views, vault_id: str, page: int, per_page: int) -> ViewPage:
    s = await v.fragment.get()
    addr, x = _find(v, s, vault_id)
    rows: list[tuple[str, str, int]] = []
    slot = s.slot
    if x.fragment_mint != ZERO_KEY:
        got = await v.reads.call(
            "getProgramAccounts",
            TOKEN_PROGRAM_ID,
            {
                "encoding": "base64",
                "withContext": True,
                "commitment": "confirmed",
                "dataSlice": {"offset": 32, "length": 40},  # owner @32, amount @64
                "filters": [
                    {"dataSize": 165},
                    {"memcmp": {"offset": 0, "bytes": x.fragment_mint}},
                ],
            },
        )
        slot = max(slot, got["context"]["slot"])
        for item in got["value"]:
            raw = base64.b64decode(item["account"]["data"][0])
            held = int.from_bytes(raw[32:40], "little")
            if held > 0:
                rows.append((item["pubkey"], str(Pubkey.from_bytes(raw[:32])), held))
    rows.sort(key=lambda r: (-r[2], r[0]))
    buyout = fr.buyout_pda(addr, v.ids.fragment)[0]
    items = [
        (
            acct,
            {
                "token_account": acct,
                "owner": owner,
                "amount": str(held),
                "share": share(held, x.total_fragments),
                "is_buyout_escrow": owner == buyout,
            },
        )
        for acct, owner, held in paged(rows, page, per_page)
    ]
    return ViewPage("fragment_holder", items, len(rows), slot, v.ids.fragment, {"address": addr})


def _by_fragment_mint(s: Snapshot) -> dict[str, tuple[str, fr.FragmentVault]]:
    return {x.fragment_mint: (a, x) for a, x in s.all(fr.FragmentVault).items()}


async def holdings(v: Views, wallet: str, page: int, per_page: int) -> ViewPage:
    wallet = address(wallet, "wallet")
    s = await v.fragment.get()
    index = s.index("by_fragment_mint", _by_fragment_mint)
    tokens, slot = await v.token_accounts(wallet, {"programId": TOKEN_PROGRAM_ID})
    rows = [(t, *index[t["mint"]]) for t in tokens if t["mint"] in index and t["amount"] > 0]
    rows.sort(key=lambda r: (-r[0]["amount"], r[1]))
    items = [
        (
            t["address"],
            {
                "token_account": t["address"],
                "vault": a,
                "nft_mint": x.nft_mint,
                "fragment_mint": x.fragment_mint,
                "fragment_symbol": x.fragment_symbol,
                "amount": str(t["amount"]),
                "share": share(t["amount"], x.total_fragments),
                "vault_status": fr.VAULT_STATUSES[x.status] if x.status < 6 else "unknown",
            },
        )
        for t, a, x in paged(rows, page, per_page)
    ]
    return ViewPage("fragment_holding", items, len(rows), max(s.slot, slot), v.ids.fragment)
