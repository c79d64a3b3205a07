"""The local node's weather (``devchain/node/weather.py``): a real node process started with
``--weather storm`` answers as a busy public cluster does, each kind of weather seen from the
outside, and the gateway's door gets every call through it (the 429s waited out)."""

from __future__ import annotations

import asyncio
import base64
import itertools
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from solders.compute_budget import set_compute_unit_price
from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from chain.errors import ChainRateLimited
from chain.keys import ChainKeys, load_or_create_keys
from chain.rpc import ChainRpc
from core.embedded import free_port
from devchain.node.process import start_node
from devchain.node.weather import PROFILES


@pytest.fixture(scope="module", name="storm")
def storm_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    base = tmp_path_factory.mktemp("storm")
    node = start_node(
        data_dir=base / "chain",
        keys_dir=base / "keys",
        port=free_port(),
        slot_ms=100,  # blockhashes valid 15 s: the re-sends below outlast 3 s in a storm
        ws_port=free_port(),
        fixtures=False,
        weather="storm",
    )
    try:
        yield node.url, base / "keys"
    finally:
        node.stop()


@pytest.fixture(name="rpc")
async def rpc_fixture(storm: tuple[str, Path]) -> AsyncIterator[ChainRpc]:
    async with ChainRpc(storm[0], retry_within=15) as rpc:
        yield rpc


def _keys(storm: tuple[str, Path]) -> ChainKeys:
    return load_or_create_keys(storm[1])


async def _signed(rpc: ChainRpc, keys: ChainKeys, extra: list[Instruction]) -> bytes:
    # A blockhash from the node's own view (a lagging answer is as old as a real one's).
    latest = (await rpc.call("getLatestBlockhash", [{"commitment": "confirmed"}]))["value"]
    payer = keys.fee_payer
    ix = transfer(
        TransferParams(from_pubkey=payer.pubkey(), to_pubkey=Keypair().pubkey(), lamports=1_000_000)
    )
    msg = Message.new_with_blockhash(
        [*extra, ix], payer.pubkey(), Hash.from_string(latest["blockhash"])
    )
    return bytes(VersionedTransaction(msg, [payer]))


async def _landed(rpc: ChainRpc, sig: str) -> bool:
    got = await rpc.call("getSignatureStatuses", [[sig], {"searchTransactionHistory": True}])
    return got["value"][0] is not None


def test_profiles_are_named_and_storm_is_all_of_them() -> None:
    assert set(PROFILES) == {"calm", "dropped", "rate-limited", "lagging", "congested", "storm"}
    storm = PROFILES["storm"]
    assert storm.drop and storm.rps and storm.lag_share and storm.fee and PROFILES["calm"].calm


async def test_above_the_rate_the_provider_answers_429_and_the_door_waits_it_out(
    storm: tuple[str, Path], rpc: ChainRpc
) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"getHealth"}'
    async with aiohttp.ClientSession() as http:

        async def once() -> tuple[int, str | None]:
            headers = {"Content-Type": "application/json"}
            async with http.post(storm[0], data=body, headers=headers) as resp:
                return resp.status, resp.headers.get("Retry-After")

        answers = await asyncio.gather(*(once() for _ in range(120)))
    assert (429, "1") in answers and any(status == 200 for status, _ in answers)
    await asyncio.sleep(1.1)
    async with ChainRpc(storm[0]) as bare:  # the bare error map: the 429 raised
        with pytest.raises(ChainRateLimited):
            await asyncio.gather(*(bare.call("getHealth") for _ in range(120)))
    # the door: every call through, the 429s waited out
    await asyncio.sleep(1.1)
    assert set(await asyncio.gather(*(rpc.call("getHealth") for _ in range(120)))) == {"ok"}


async def test_sends_are_dropped_and_the_same_bytes_land_when_sent_again(
    storm: tuple[str, Path], rpc: ChainRpc
) -> None:
    """Half the accepted sends never land (and cheap ones wait in the congestion): the
    protocol's re-send of the same bytes lands each exactly once."""
    keys = _keys(storm)
    price = [set_compute_unit_price(PROFILES["storm"].fee * 2)]  # above the market: no wait
    txs = [await _signed(rpc, keys, price) for _ in range(8)]
    sigs = []
    for raw in txs:
        cfg = {"encoding": "base64", "skipPreflight": True}
        sigs.append(await rpc.call("sendTransaction", [base64.b64encode(raw).decode(), cfg]))
    await asyncio.sleep(0.5)
    first = [await _landed(rpc, s) for s in sigs]
    assert not all(first), "some sends were dropped"
    for _ in range(20):
        missing = [(raw, s) for raw, s in zip(txs, sigs, strict=True) if not await _landed(rpc, s)]
        if not missing:
            break
        for raw, _sig in missing:
            cfg = {"encoding": "base64", "skipPreflight": True}
            await rpc.call("sendTransaction", [base64.b64encode(raw).decode(), cfg])
        await asyncio.sleep(0.3)
    assert not missing


async def test_the_lagging_node_answers_lower_slots_and_null_statuses(
    storm: tuple[str, Path], rpc: ChainRpc
) -> None:
    slots = [await rpc.call("getSlot", [{"commitment": "processed"}]) for _ in range(30)]
    assert any(b < a for a, b in itertools.pairwise(slots)), "a lower slot than seen"
    # A landed signature, then null from the lagging node: its 12 slots' lag is 1.2 s here, so
    # right after the first answer that shows it landed, a burst of reads within that window
    # (each lagged with the storm's 0.4) meets the lagging node; a fresh transfer if not.
    price = [set_compute_unit_price(PROFILES["storm"].fee * 2)]
    burst: list[bool] = []
    for _ in range(3):
        raw = base64.b64encode(await _signed(rpc, _keys(storm), price)).decode()
        for _ in range(60):
            sig = await rpc.call(
                "sendTransaction", [raw, {"encoding": "base64", "skipPreflight": True}]
            )
            if await _landed(rpc, sig):
                break
        else:
            pytest.fail("a transfer above the market's price never landed")
        burst = list(await asyncio.gather(*(_landed(rpc, sig) for _ in range(12))))
        if False in burst:
            break
    assert False in burst, "no read within the lag answered null for the landed signature"
    fees = await rpc.call("getRecentPrioritizationFees", [[]])
    assert fees and max(f["prioritizationFee"] for f in fees) > 0  # the congestion's market


async def test_a_cheap_send_waits_in_the_congestion(storm: tuple[str, Path], rpc: ChainRpc) -> None:
    """Without a compute-unit price under congestion, a send is held for slots: not landed
    right after the node accepted it, however often it is sent again."""
    keys = _keys(storm)
    raws = [await _signed(rpc, keys, []) for _ in range(6)]
    sigs = []
    for raw in raws:
        cfg = {"encoding": "base64", "skipPreflight": True}
        sigs.append(await rpc.call("sendTransaction", [base64.b64encode(raw).decode(), cfg]))
        await rpc.call("sendTransaction", [base64.b64encode(raw).decode(), cfg])
    assert not any([await _landed(rpc, s) for s in sigs])
