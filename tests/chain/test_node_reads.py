"""The reads the chain views need, in the real RPC's JSON shapes, against a node started on
accounts this module writes itself (ecosystem layouts via devchain.fixtures.World)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from chain.ecosystem import AUCTION_PROGRAM_ID, TOKEN_PROGRAM_ID, ata
from chain.ecosystem import auction as au
from core.embedded import free_port
from devchain.fixtures import World, wallet
from devchain.node.codec import b58encode
from devchain.node.process import start_node

MINT = wallet("reads:mint")
OTHER_MINT = wallet("reads:other-mint")
HOLDERS = [wallet(f"reads:holder{i}") for i in range(22)]


def auction(aid: int, status: int, creator: str, buy_now: int | None) -> au.Auction:
    return au.Auction(
        aid,
        0,
        status,
        0,
        aid,
        creator,
        10**9,
        buy_now,
        0,
        None,
        0,
        1,
        2,
        0,
        creator,
        0,
        None,
        1,
        None,
        au.auction_pda(aid)[1],
    )


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("reads")
    w = World()
    w.mint(MINT, 6, wallet("reads:authority"))
    w.mint(OTHER_MINT, 0)
    for i, h in enumerate(HOLDERS):
        w.token(h, MINT, (i + 1) * 1_000_000)
    w.token(HOLDERS[0], OTHER_MINT, 5)
    for aid, status in ((1, 1), (2, 1), (3, 2)):
        w.anchor(
            au.auction_pda(aid)[0],
            AUCTION_PROGRAM_ID,
            auction(aid, status, HOLDERS[aid], 5 * 10**9 if aid == 2 else None),
        )
    w.write(tmp / "accounts")
    handle = start_node(
        tmp / "data",
        tmp / "keys",
        free_port(),
        slot_ms=20,
        accounts_dir=tmp / "accounts",
        fixtures=False,
    )
    try:
        yield handle.url
    finally:
        handle.stop()


async def rpc(url: str, method: str, *params: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    async with aiohttp.ClientSession() as s, s.post(url, json=body) as r:
        doc = await r.json()
    if "error" in doc:
        raise AssertionError(doc["error"])
    return doc["result"]


async def test_program_accounts_memcmp_datasize_and_slice(node: str) -> None:
    disc = b58encode(au.Auction.discriminator())
    flt = [{"memcmp": {"offset": 0, "bytes": disc}}, {"dataSize": 260}]
    got = await rpc(
        node, "getProgramAccounts", AUCTION_PROGRAM_ID, {"encoding": "base64", "filters": flt}
    )
    assert {g["pubkey"] for g in got} == {au.auction_pda(i)[0] for i in (1, 2, 3)}
    first = got[0]["account"]
    assert first["owner"] == AUCTION_PROGRAM_ID and first["data"][1] == "base64"
    assert first["space"] == 260 and not first["executable"]
    decoded = au.Auction.decode(base64.b64decode(first["data"][0]))
    assert decoded.auction_id in (1, 2, 3)
    # status byte @17 = 1 (base58 "2"): the two active ones
    active = [*flt, {"memcmp": {"offset": 17, "bytes": "2"}}]
    got = await rpc(
        node, "getProgramAccounts", AUCTION_PROGRAM_ID, {"encoding": "base64", "filters": active}
    )
    assert {g["pubkey"] for g in got} == {au.auction_pda(i)[0] for i in (1, 2)}
    # creator @27 with base64 bytes, a dataSlice of the id, and withContext
    creator = {
        "memcmp": {
            "offset": 27,
            "bytes": base64.b64encode(
                bytes(
                    __import__("solders.pubkey", fromlist=["Pubkey"]).Pubkey.from_string(HOLDERS[2])
                )
            ).decode(),
            "encoding": "base64",
        }
    }
    got = await rpc(
        node,
        "getProgramAccounts",
        AUCTION_PROGRAM_ID,
        {
            "encoding": "base64",
            "filters": [creator],
            "dataSlice": {"offset": 8, "length": 8},
            "withContext": True,
        },
    )
    assert got["context"]["slot"] >= 0
    [only] = got["value"]
    assert base64.b64decode(only["account"]["data"][0]) == (2).to_bytes(8, "little")
    assert only["account"]["space"] == 260  # space is the full size even when sliced
    # token accounts of one mint by memcmp @0
    got = await rpc(
        node,
        "getProgramAccounts",
        TOKEN_PROGRAM_ID,
        {
            "encoding": "jsonParsed",
            "filters": [{"dataSize": 165}, {"memcmp": {"offset": 0, "bytes": MINT}}],
        },
    )
    assert len(got) == 22
    info = got[0]["account"]["data"]["parsed"]["info"]
    assert info["mint"] == MINT and info["tokenAmount"]["decimals"] == 6


async def test_multiple_accounts_encodings(node: str) -> None:
    keys = [ata(HOLDERS[3], MINT), au.auction_pda(1)[0], wallet("reads:missing")]
    got = await rpc(node, "getMultipleAccounts", keys, {"encoding": "jsonParsed"})
    tok, auc, missing = got["value"]
    assert tok["data"]["program"] == "spl-token"
    assert tok["data"]["parsed"]["info"]["tokenAmount"] == {
        "amount": "4000000",
        "decimals": 6,
        "uiAmount": 4.0,
        "uiAmountString": "4",
    }
    assert auc["data"][1] == "base64"  # not parseable: falls back to base64
    assert missing is None
    got = await rpc(
        node,
        "getMultipleAccounts",
        keys[:2],
        {"encoding": "base64", "dataSlice": {"offset": 64, "length": 8}},
    )
    amount = base64.b64decode(got["value"][0]["data"][0])
    assert int.from_bytes(amount, "little") == 4_000_000


async def test_token_accounts_by_owner_supply_and_largest(node: str) -> None:
    owner = HOLDERS[0]
    by_mint = await rpc(
        node, "getTokenAccountsByOwner", owner, {"mint": MINT}, {"encoding": "jsonParsed"}
    )
    assert [v["pubkey"] for v in by_mint["value"]] == [ata(owner, MINT)]
    by_program = await rpc(
        node,
        "getTokenAccountsByOwner",
        owner,
        {"programId": TOKEN_PROGRAM_ID},
        {"encoding": "base64"},
    )
    assert {v["pubkey"] for v in by_program["value"]} == {ata(owner, MINT), ata(owner, OTHER_MINT)}
    supply = await rpc(node, "getTokenSupply", MINT)
    total = sum(range(1, 23)) * 1_000_000
    assert supply["value"] == {
        "amount": str(total),
        "decimals": 6,
        "uiAmount": total / 1e6,
        "uiAmountString": str(total // 1_000_000),
    }
    largest = (await rpc(node, "getTokenLargestAccounts", MINT))["value"]
    assert len(largest) == 20  # the RPC's cap
    assert [x["address"] for x in largest[:2]] == [ata(HOLDERS[21], MINT), ata(HOLDERS[20], MINT)]
    assert largest[0] == {
        "address": ata(HOLDERS[21], MINT),
        "amount": "22000000",
        "decimals": 6,
        "uiAmount": 22.0,
        "uiAmountString": "22",
    }
    assert [int(x["amount"]) for x in largest] == sorted(
        (int(x["amount"]) for x in largest), reverse=True
    )


async def test_signatures_for_address_paging(node: str) -> None:
    target = wallet("reads:history")
    sigs = [await rpc(node, "requestAirdrop", target, 1_000_000 + i) for i in range(4)]
    for _ in range(200):
        got = await rpc(node, "getSignaturesForAddress", target, {"commitment": "confirmed"})
        if len(got) == 4:
            break
        await asyncio.sleep(0.02)
    assert [g["signature"] for g in got] == sigs[::-1]
    assert set(got[0]) >= {"signature", "slot", "err", "memo", "blockTime", "confirmationStatus"}
    page = await rpc(
        node,
        "getSignaturesForAddress",
        target,
        {"before": sigs[3], "limit": 2, "commitment": "confirmed"},
    )
    assert [p["signature"] for p in page] == [sigs[2], sigs[1]]
    page = await rpc(
        node, "getSignaturesForAddress", target, {"until": sigs[1], "commitment": "confirmed"}
    )
    assert [p["signature"] for p in page] == [sigs[3], sigs[2]]


async def test_default_fixtures_load_at_genesis(tmp_path: Path) -> None:
    from chain.ecosystem.territory import collection_pda

    handle = start_node(tmp_path / "d", tmp_path / "k", free_port(), slot_ms=20)
    try:
        got = await rpc(handle.url, "getAccountInfo", collection_pda()[0], {"encoding": "base64"})
        assert got["value"]["owner"] == "ipYLo2aitVyNXGzCgpiaKKA2JLvtbBvMHiV7qKZTPVZ"
    finally:
        handle.stop()
