"""Territory and auction views against the accounts tests/views/world.py wrote."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import httpx

from chain.ecosystem import auction as au
from chain.ecosystem import lending as ln
from chain.ecosystem import territory as te
from devchain.fixtures import wallet
from tests.views.world import ALICE, AUTH, BOB, CAROL, nft_mint


async def get(client: httpx.AsyncClient, path: str, status: int = 200) -> Any:
    r = await client.get(path)
    assert r.status_code == status, r.text
    return r.json()


async def test_collection(client: httpx.AsyncClient) -> None:
    body = await get(client, "/v1/territory/collection")
    a = body["data"]["attributes"]
    assert body["meta"]["address"] == te.collection_pda()[0] and body["meta"]["slot"] >= 0
    assert a["authority"] == AUTH and a["collection_mint"] == wallet("t:coll-mint")
    assert a["totals"] == {"stations": 3, "matrices": 1, "sectors": 0, "systems": 0}
    assert a["is_initialized"] is True and a["created_at"] == "2023-11-14T22:13:20Z"


async def test_nft_holder_comes_from_the_token_account(client: httpx.AsyncClient) -> None:
    a = (await get(client, f"/v1/territory/nft/{nft_mint(0, 2)}"))["data"]["attributes"]
    assert (a["territory_type"], a["territory_id"], a["name"]) == (
        "station",
        2,
        "Microcosm Station #2",
    )
    assert a["recorded_owner"] == ALICE and a["holder"] == BOB and a["owner_is_stale"] is True
    assert a["current_members"] == 17 and a["escrowed_in"] is None
    matrix = (await get(client, f"/v1/territory/nft/{nft_mint(1, 3)}"))["data"]["attributes"]
    assert matrix["parent_id"] == 9
    assert matrix["holder"] == ln.loan_pda(BOB, nft_mint(1, 3))[0]
    assert matrix["escrowed_in"] == "lending_loan"
    await get(client, f"/v1/territory/nft/{wallet('t:nobody')}", 404)
    problem = await get(client, "/v1/territory/nft/not-a-key", 422)
    assert problem["type"].endswith("/validation-error")


async def test_wallet_nfts_and_unit(client: httpx.AsyncClient) -> None:
    body = await get(client, f"/v1/territory/nfts/{BOB}")
    assert body["meta"]["total"] == 2
    station, matrix = body["data"]  # by type, then id
    assert station["id"] == nft_mint(0, 2) and station["attributes"]["owner_is_stale"] is True
    assert station["attributes"]["custody"] == "wallet"
    # matrix 3 is bob's loan collateral: in the Loan's escrow, still listed as his
    assert matrix["id"] == nft_mint(1, 3) and matrix["attributes"]["custody"] == "lending_loan"
    assert matrix["attributes"]["holder"] == ln.loan_pda(BOB, nft_mint(1, 3))[0]
    only = await get(client, f"/v1/territory/nfts/{BOB}?include_encumbered=false")
    assert [d["id"] for d in only["data"]] == [nft_mint(0, 2)]
    assert (await get(client, f"/v1/territory/nfts/{CAROL}"))["meta"]["total"] == 0
    unit = await get(client, "/v1/territory/unit/4/nft?type=station")
    assert unit["data"]["attributes"]["status"] == "reserved"
    assert unit["data"]["attributes"]["mint"] is None
    assert unit["meta"]["address"] == te.nft_pda(0, 4)[0]
    minted = await get(client, "/v1/territory/unit/3/nft?type=matrix")
    assert minted["data"]["attributes"]["mint"] == nft_mint(1, 3)
    await get(client, "/v1/territory/unit/3/nft?type=sector", 404)
    await get(client, "/v1/territory/unit/3/nft", 422)  # the type is required
    await get(client, "/v1/territory/unit/0/nft?type=station", 422)
    # The ids /v1/organizations gives (issue 34): station-4 is the same unit as 4 + station.
    named = await get(client, "/v1/territory/unit/station-4/nft")
    assert named["data"] == unit["data"] and named["meta"]["address"] == unit["meta"]["address"]
    assert (await get(client, "/v1/territory/unit/matrix-3/nft?type=matrix"))["data"] == minted[
        "data"
    ]
    await get(client, "/v1/territory/unit/matrix-3/nft?type=station", 422)  # contradicts
    await get(client, "/v1/territory/unit/galaxy-3/nft", 422)
    await get(client, "/v1/territory/unit/station-0/nft", 422)


async def test_auction_config_uses_the_mints_decimals(client: httpx.AsyncClient) -> None:
    a = (await get(client, "/v1/auction-solana/config"))["data"]["attributes"]
    assert a["total_volume"] == "30"  # 30_000_000 base units of a 6-decimal mint
    assert a["min_bid_increment_percent"] == 10 and a["next_auction_id"] == 5
    assert (a["auction_duration_seconds"], a["extension_threshold_seconds"]) == (86_400, 300)


async def test_active_auctions(client: httpx.AsyncClient) -> None:
    body = await get(client, "/v1/auction-solana/active")
    assert [d["id"] for d in body["data"]] == ["1", "2"]  # ending soonest first
    a1, a2 = (d["attributes"] for d in body["data"])
    assert a1["current_price"] == "12.5" and a1["highest_bidder"] == BOB
    assert a1["min_next_bid"] == "13.75"  # 12.5 + 10 %
    end = datetime.fromisoformat(a1["end_time"].replace("Z", "+00:00")).timestamp()
    assert abs(a1["seconds_left"] - (end - time.time())) <= 2 and a1["is_biddable"]
    assert 0 < a1["seconds_left"] <= 3600
    assert a2["buy_now_price"] == "90" and a2["nft_mint"] == nft_mint(0, 1)
    assert a2["min_next_bid"] == "50" and a2["auction_type"] == "secondary"
    both = await get(client, "/v1/auction-solana/active?include_unsettled=true")
    assert [d["id"] for d in both["data"]] == ["3", "1", "2"]
    assert both["data"][0]["attributes"]["ended_unsettled"] is True
    paged = await get(client, "/v1/auction-solana/active?page=2&per_page=1")
    assert [d["id"] for d in paged["data"]] == ["2"] and paged["meta"]["total"] == 2
    await get(client, "/v1/auction-solana/active?per_page=101", 422)


async def test_one_auction_with_escrow(client: httpx.AsyncClient) -> None:
    body = await get(client, "/v1/auction-solana/auction/1")
    a = body["data"]["attributes"]
    assert body["meta"]["address"] == au.auction_pda(1)[0]
    assert a["escrow_account"] == au.escrow_pda(1)[0] and a["escrow_balance"] == "23.5"
    done = (await get(client, "/v1/auction-solana/auction/4"))["data"]["attributes"]
    assert done["status"] == "completed" and done["settled_amount"] == "30"
    assert done["completed_at"] is not None and done["min_next_bid"] is None
    assert done["escrow_balance"] is None  # no escrow account on chain for it
    await get(client, "/v1/auction-solana/auction/99", 404)
    await get(client, "/v1/auction-solana/auction/abc", 422)


async def test_bids(client: httpx.AsyncClient) -> None:
    body = await get(client, "/v1/auction-solana/auction/1/bids")
    rows = [(d["attributes"]["bidder"], d["attributes"]["amount"]) for d in body["data"]]
    assert rows == [(BOB, "12.5"), (CAROL, "11"), (ALICE, "10")]  # highest first
    first = body["data"][0]["attributes"]
    assert first["is_highest"] is True and body["data"][1]["attributes"]["is_highest"] is False
    assert body["data"][2]["attributes"]["status"] == "withdrawn"
    assert body["data"][2]["attributes"]["is_refunded"] is True
    await get(client, "/v1/auction-solana/auction/99/bids", 404)
    mine = await get(client, f"/v1/auction-solana/bids/{CAROL}")
    assert [d["attributes"]["auction_id"] for d in mine["data"]] == [1, 3]
    assert mine["data"][1]["attributes"]["auction_ended"] is True
    created = await get(client, f"/v1/auction-solana/auctions/{ALICE}")
    assert [d["id"] for d in created["data"]] == ["2"]
    assert (await get(client, f"/v1/auction-solana/auctions/{AUTH}"))["meta"]["total"] == 3
    await get(client, "/v1/auction-solana/bids/xyz", 422)
