"""Territory NFT views (ecosystem-programs.md 2.8, 6, 8)."""

from __future__ import annotations

from chain.ecosystem import TERRITORY_TYPES, TOKEN_PROGRAM_ID
from chain.ecosystem import fragment as fr
from chain.ecosystem import lending as ln
from chain.ecosystem import territory as te
from chain.ecosystem.borsh import ZERO_KEY
from views.base import Attrs, View, ViewPage, Views, address, iso, key_or_none, paged, present
from views.cache import Snapshot
from views.errors import not_found

CAPACITY = {"station": 1_000, "matrix": 10_000, "sector": 100_000, "system": 1_000_000}
# Metaplex metadata of the collection (section 6); constants of the program, not read back.
COLLECTION_NAME, COLLECTION_SYMBOL = "Microcosm Territory", "MTER"


def by_mint(s: Snapshot) -> dict[str, tuple[str, te.TerritoryNft]]:
    return {n.mint: (a, n) for a, n in s.all(te.TerritoryNft).items() if n.mint != ZERO_KEY}


def nft_attrs(addr: str, n: te.TerritoryNft) -> Attrs:
    kind = TERRITORY_TYPES[n.territory_type] if n.territory_type < 4 else "unknown"
    return {
        "account": addr,
        "territory_type": kind,
        "territory_id": n.territory_id,
        "name": f"Microcosm {kind.capitalize()} #{n.territory_id}",
        "mint": key_or_none(n.mint),
        "recorded_owner": n.owner,
        "parent_id": n.parent_id or None,
        "current_members": n.current_members,
        "is_auctioning": n.is_auctioning,
        "is_frozen": n.is_frozen,
        "status": "minted" if n.mint != ZERO_KEY else "reserved",
        "created_at": iso(n.created_at),
        "updated_at": iso(n.updated_at),
    }


async def collection(v: Views) -> View:
    s = await v.territory.get()
    addr, _ = te.collection_pda(v.ids.territory)
    c = present(s.get(te.TerritoryCollection, addr), f"Territory collection {addr}")
    totals = {
        "stations": c.total_stations,
        "matrices": c.total_matrices,
        "sectors": c.total_sectors,
        "systems": c.total_systems,
    }
    attrs = {
        "name": COLLECTION_NAME,
        "symbol": COLLECTION_SYMBOL,
        "authority": c.authority,
        "collection_mint": c.collection_mint,
        "collection_metadata": c.collection_metadata,
        "collection_master_edition": c.collection_master_edition,
        "totals": totals,
        "capacities": CAPACITY,
        "is_initialized": c.is_initialized,
        "created_at": iso(c.created_at),
        "updated_at": iso(c.updated_at),
    }
    return View("territory_collection", addr, attrs, s.slot, addr)


async def _escrow_of(v: Views, holder: str) -> str | None:
    """Whose escrow a holder address is: a lending Loan or a fragment vault PDA."""
    if (await v.lending.get()).get(ln.Loan, holder) is not None:
        return "lending_loan"
    if (await v.fragment.get()).get(fr.FragmentVault, holder) is not None:
        return "fragment_vault"
    return None


async def nft(v: Views, mint: str) -> View:
    mint = address(mint, "mint")
    s = await v.territory.get()
    found = present(s.index("by_mint", by_mint).get(mint), f"Territory NFT with mint {mint}")
    addr, n = found
    attrs = nft_attrs(addr, n)
    # The true holder is the token account holding the single token, not `owner`.
    largest = await v.reads.call("getTokenLargestAccounts", mint, {"commitment": "confirmed"})
    holder_account = next((x["address"] for x in largest["value"] if x["amount"] == "1"), None)
    holder = None
    held = None if holder_account is None else await v.token_account(holder_account)
    if held is not None:
        holder = held[0]["owner"]
    attrs |= {
        "holder": holder,
        "holder_token_account": holder_account,
        "owner_is_stale": holder is not None and holder != n.owner,
        "escrowed_in": None if holder is None else await _escrow_of(v, holder),
    }
    return View("territory_nft", mint, attrs, max(s.slot, largest["context"]["slot"]), addr)


async def nfts_of(
    v: Views, wallet: str, page: int, per_page: int, include_encumbered: bool = True
) -> ViewPage:
    """NFTs in the wallet's token accounts, plus (unless excluded) the ones it has put up as
    loan collateral or fractionalized: those sit in a program escrow but are still its."""
    wallet = address(wallet, "wallet")
    s = await v.territory.get()
    index = s.index("by_mint", by_mint)
    tokens, slot = await v.token_accounts(wallet, {"programId": TOKEN_PROGRAM_ID})
    held: dict[str, tuple[str, str, te.TerritoryNft]] = {}  # mint -> (custody, holder, nft)
    for t in tokens:
        if t["amount"] == 1 and t["decimals"] == 0 and t["mint"] in index:
            held[t["mint"]] = ("wallet", wallet, index[t["mint"]][1])
    if include_encumbered:
        lending, fragment = await v.lending.get(), await v.fragment.get()
        slot = max(slot, lending.slot, fragment.slot)
        for loan_addr, loan in lending.all(ln.Loan).items():
            if loan.borrower == wallet and loan.status in (0, 1) and loan.nft_mint in index:
                held.setdefault(loan.nft_mint, ("lending_loan", loan_addr, index[loan.nft_mint][1]))
        for vault_addr, vault in fragment.all(fr.FragmentVault).items():
            locked = vault.status not in (3, 5)  # not redeemed, not bought out
            if vault.original_owner == wallet and locked and vault.nft_mint in index:
                held.setdefault(
                    vault.nft_mint, ("fragment_vault", vault_addr, index[vault.nft_mint][1])
                )
    rows = sorted(held.values(), key=lambda r: (r[2].territory_type, r[2].territory_id))
    items = []
    for custody, holder, n in paged(rows, page, per_page):
        addr = te.nft_pda(n.territory_type, n.territory_id, v.ids.territory)[0]
        attrs = nft_attrs(addr, n) | {
            "holder": holder,
            "owner_is_stale": n.owner != wallet,
            "custody": custody,
        }
        items.append((n.mint, attrs))
    return ViewPage("territory_nft", items, len(rows), max(s.slot, slot), v.ids.territory)


async def unit(v: Views, territory_type: int, unit_id: int) -> View:
    s = await v.territory.get()
    addr, _ = te.nft_pda(territory_type, unit_id, v.ids.territory)
    n = s.get(te.TerritoryNft, addr)
    if n is None:
        kind = TERRITORY_TYPES[territory_type]
        raise not_found(f"Territory NFT account of {kind} {unit_id} ({addr})")
    return View(
        "territory_unit",
        f"{TERRITORY_TYPES[territory_type]}:{unit_id}",
        nft_attrs(addr, n),
        s.slot,
        addr,
    )
