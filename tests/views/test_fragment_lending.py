"""Fragment and lending views, and the lending calculators against hand-computed cases from
ecosystem-programs.md section 4, on the accounts tests/views/world.py wrote."""

from __future__ import annotations

from typing import Any

import httpx

from chain.ecosystem import fragment as fr
from chain.ecosystem import lending as ln
from devchain.fixtures import wallet
from tests.views.world import ALICE, BOB, CAROL, POOL_NAME, nft_mint

V1_NFT, V2_NFT = wallet("t:frag-nft-1"), wallet("t:frag-nft-2")


async def get(client: httpx.AsyncClient, path: str, status: int = 200) -> Any:
    r = await client.get(path)
    assert r.status_code == status, r.text
    return r.json()


async def post(client: httpx.AsyncClient, path: str, body: object, status: int = 200) -> Any:
    r = await client.post(path, json=body)
    assert r.status_code == status, r.text
    return r.json()


async def test_fragment_config_and_vaults(client: httpx.AsyncClient) -> None:
    c = (await get(client, "/v1/fragment/config"))["data"]["attributes"]
    assert (c["min_fragments"], c["max_fragments"], c["buyout_duration_seconds"]) == (
        100,
        10_000,
        604_800,
    )
    body = await get(client, "/v1/fragment/vaults")
    assert body["meta"]["total"] == 2
    first = body["data"][0]["attributes"]  # newest first
    assert first["fragment_name"] == "Shards of Station Nine" and first["fragment_symbol"] == "SSN"
    assert first["total_fragments"] == "1000" and first["status"] == "active"
    pending = await get(client, "/v1/fragment/vaults?status=buyout_pending")
    assert [d["id"] for d in pending["data"]] == [fr.vault_pda(V2_NFT)[0]]
    assert pending["data"][0]["attributes"]["redeemed_at"] == "2023-11-14T22:30:00Z"
    await get(client, "/v1/fragment/vaults?status=melted", 422)


async def test_vault_by_mint_or_address_with_buyout(client: httpx.AsyncClient) -> None:
    by_mint = await get(client, f"/v1/fragment/vault/{V2_NFT}")
    by_addr = await get(client, f"/v1/fragment/vault/{fr.vault_pda(V2_NFT)[0]}")
    assert by_mint["data"] == by_addr["data"]
    a = by_mint["data"]["attributes"]
    assert a["live_supply"] == "200"
    b = a["buyout"]
    assert b["initiator"] == BOB and b["status"] == "pending"
    assert b["price_per_fragment"] == "2" and b["total_buyout_amount"] == "100"  # 6 decimals
    assert b["fragments_to_buy"] == "50"
    assert (await get(client, f"/v1/fragment/vault/{V1_NFT}"))["data"]["attributes"][
        "buyout"
    ] is None
    await get(client, f"/v1/fragment/vault/{wallet('t:nothing')}", 404)
    await get(client, "/v1/fragment/vault/0OIl", 422)


async def test_holders_and_holdings(client: httpx.AsyncClient) -> None:
    body = await get(client, f"/v1/fragment/vault/{V1_NFT}/holders")
    rows = [
        (d["attributes"]["owner"], d["attributes"]["amount"], d["attributes"]["share"])
        for d in body["data"]
    ]
    assert rows == [(ALICE, "600", "0.6"), (BOB, "300", "0.3"), (CAROL, "100", "0.1")]
    assert body["meta"]["address"] == fr.vault_pda(V1_NFT)[0]
    escrow = await get(client, f"/v1/fragment/vault/{V2_NFT}/holders")
    flags = [
        (d["attributes"]["amount"], d["attributes"]["is_buyout_escrow"]) for d in escrow["data"]
    ]
    assert flags == [("150", True), ("50", False)]
    mine = await get(client, f"/v1/fragment/holdings/{CAROL}")
    got = {
        d["attributes"]["vault"]: (d["attributes"]["amount"], d["attributes"]["share"])
        for d in mine["data"]
    }
    assert got == {fr.vault_pda(V1_NFT)[0]: ("100", "0.1"), fr.vault_pda(V2_NFT)[0]: ("50", "0.25")}


async def test_pool_and_stats(client: httpx.AsyncClient) -> None:
    body = await get(client, "/v1/lending/pool")
    a = body["data"]["attributes"]
    assert body["meta"]["address"] == ln.pool_pda(POOL_NAME)[0] and a["name"] == POOL_NAME
    assert (a["total_deposits"], a["total_borrowed"]) == ("100000", "20000")
    # U = 20000*10000/100000 = 2000; R = 1000 + 2000*1000/8000 = 1250; S = 1250*2000/1e4*0.9 = 225
    assert (a["utilization_bps"], a["borrow_rate_bps"], a["supply_rate_bps"]) == (2000, 1250, 225)
    assert a["oracle"]["max_borrow"] == {
        "station": "500",
        "matrix": "7500",
        "sector": "100000",
        "system": "1250000",
    }
    s = (await get(client, "/v1/lending/stats"))["data"]["attributes"]
    assert s["loans_by_status"] == {"pending": 0, "active": 2, "repaid": 1, "liquidated": 0}
    assert s["active_principal"] == "7100" and s["vault_balance"] == "80000"
    assert s["lp_supply"] == "100000" and s["exchange_rate"] == "1"
    assert (s["tvl"], s["available_liquidity"]) == ("100000", "80000")  # net assets, less loans
    # B*R*dt = 2e13 * 1250 * ~3600 > 2^64-1: the pool's next accrual would abort (section 4)
    assert s["pool_accrual_overflow"] is True and s["pending_pool_interest"] == "0"


async def test_loans_position_and_lp(client: httpx.AsyncClient) -> None:
    body = await get(client, f"/v1/lending/loans/{ALICE}")
    assert body["meta"]["total"] == 2
    late, old = (d["attributes"] for d in body["data"])  # newest first
    assert late["status"] == "active" and late["is_overdue"] and late["is_liquidatable"]
    assert late["rate_bps_now"] == 1250
    # 100 MCC at 1250 bps overflows after 2^64/(1e11*1250) = 147573 s; this loan is 4 days old
    assert late["onchain_overflow"] is True
    assert old["status"] == "repaid" and old["total_debt"] == "403" and not old["onchain_overflow"]
    assert old["repaid_at"] == "2023-07-23T08:13:20Z"
    one = await get(client, f"/v1/lending/loan/{BOB}/{nft_mint(1, 3)}")
    a = one["data"]["attributes"]
    assert one["meta"]["address"] == ln.loan_pda(BOB, nft_mint(1, 3))[0]
    assert (
        a["collateral_type"] == "matrix"
        and a["principal"] == "7000"
        and a["duration"] == "thirty_days"
    )
    # 7000 MCC * 1250 * ~7200 s = 6.3e19 > 2^64-1
    assert a["onchain_overflow"] is True and a["seconds_remaining"] > 35_000
    same = await get(client, f"/v1/lending/loan/{BOB}/{one['meta']['address']}")
    assert same["data"]["id"] == one["data"]["id"]
    await get(client, f"/v1/lending/loan/{ALICE}/{nft_mint(1, 3)}", 404)
    await get(client, f"/v1/lending/loan/{ALICE}/nope", 422)
    lp = (await get(client, f"/v1/lending/lp-balance/{ALICE}"))["data"]["attributes"]
    assert (lp["lp_balance"], lp["value"], lp["share_of_pool"]) == ("60000", "60000", "0.6")
    pos = (await get(client, f"/v1/lending/position/{ALICE}"))["data"]["attributes"]
    assert pos["active_loans"] == 1 and len(pos["loans"]) == 2
    assert pos["liquidity"]["lp_balance"] == "60000"
    assert (await get(client, f"/v1/lending/lp-balance/{CAROL}"))["data"]["attributes"][
        "lp_balance"
    ] == "0"


async def test_calculate_interest_hand_computed(client: httpx.AsyncClient) -> None:
    # 100 MCC at 1000 bps for 184467 s, the last second before overflow (section 4):
    # floor(floor(1e11*1000*184467/10000)/31536000) = floor(1.84467e15/31536000) = 58494101
    body = await post(
        client,
        "/v1/lending/calculate-interest",
        {"principal": "100", "rate_bps": 1000, "duration_seconds": 184_467},
    )
    a = body["data"]["attributes"]
    assert a["interest"] == "0.058494101" and a["onchain_overflow"] is False
    assert a["total_debt"] == "100.058494101" and a["max_seconds_before_overflow"] == 184_467
    # one second more: 1e11*1000*184468 > 2^64-1, the program aborts with 6031
    over = await post(
        client,
        "/v1/lending/calculate-interest",
        {
            "principal": "100",
            "rate_bps": 1000,
            "from_time": "2026-01-01T00:00:00Z",
            "to_time": "2026-01-03T03:14:28Z",
            "accrued_interest": "1.5",
        },
    )
    b = over["data"]["attributes"]
    assert b["duration_seconds"] == 184_468 and b["onchain_overflow"] is True
    assert b["interest"] == "0.058494419" and b["total_debt"] == "101.558494419"
    # the pool's current rate (1250) when none is given; rates above 10000 are capped
    pool_rate = await post(
        client, "/v1/lending/calculate-interest", {"principal": "1", "duration_seconds": 0}
    )
    assert pool_rate["data"]["attributes"]["rate_bps"] == 1250
    assert pool_rate["data"]["attributes"]["rate_source"] == "pool"
    capped = await post(
        client,
        "/v1/lending/calculate-interest",
        {"principal": "1", "rate_bps": 30_000, "duration_seconds": 31_536_000},
    )
    assert capped["data"]["attributes"]["rate_bps"] == 10_000
    assert capped["data"]["attributes"]["interest"] == "1"
    bad = await post(
        client,
        "/v1/lending/calculate-interest",
        {"principal": "1.0000000001", "duration_seconds": 1},
        422,
    )
    assert bad["type"].endswith("/invalid-amount")
    await post(client, "/v1/lending/calculate-interest", {"principal": "1"}, 422)
    await post(
        client, "/v1/lending/calculate-interest", {"principal": "-1", "duration_seconds": 1}, 422
    )


async def test_estimate_borrow_cost_hand_computed(client: httpx.AsyncClient) -> None:
    body = await post(
        client,
        "/v1/lending/estimate-borrow-cost",
        {"loan_amount": "500", "duration": "seven_days", "territory_type": "station"},
    )
    a = body["data"]["attributes"]
    # U_post = 20500*10000/100000 = 2050; R_post = 1000 + 2050*1000/8000 = 1256
    assert (a["rate_bps_now"], a["rate_bps_post"], a["rate_bps_applied"]) == (1250, 1256, 1256)
    # floor(floor(5e11*1256*604800/10000)/31536000) = 1204383561
    assert a["interest_at_due"] == "1.204383561" and a["total_due"] == "501.204383561"
    assert (a["collateral_value"], a["max_borrow"], a["ltv_bps"]) == ("1000", "500", 5000)
    assert a["onchain_overflow"] is True  # 5e11*1256*604800 = 3.8e20 > 2^64-1
    assert a["eligible"] is False and a["checks"]["pool_accrual_ok"] is False
    assert a["checks"]["within_max_borrow"] and a["checks"]["amount_at_least_minimum"]
    over = await post(
        client,
        "/v1/lending/estimate-borrow-cost",
        {"loan_amount": "501", "duration": "three_days", "nft_mint": nft_mint(0, 1)},
    )
    assert over["data"]["attributes"]["checks"]["within_max_borrow"] is False
    big = await post(
        client,
        "/v1/lending/estimate-borrow-cost",
        {"loan_amount": "10000", "duration": "thirty_days", "territory_type": "system"},
    )
    b = big["data"]["attributes"]
    # U_post = 3000 -> R = 1375; exact floor(1e13*1375*2592000/10000/31536000) = 113013698630
    assert b["rate_bps_post"] == 1375 and b["interest_at_due"] == "113.01369863"
    assert b["onchain_overflow"] is True and b["max_borrow"] == "1250000"
    await post(
        client,
        "/v1/lending/estimate-borrow-cost",
        {"loan_amount": "500", "duration": "seven_days"},
        422,
    )
    await post(
        client,
        "/v1/lending/estimate-borrow-cost",
        {"loan_amount": "500", "duration": "a_week", "territory_type": "station"},
        422,
    )
    await post(
        client,
        "/v1/lending/estimate-borrow-cost",
        {"loan_amount": "500", "duration": "seven_days", "nft_mint": wallet("t:x")},
        404,
    )
