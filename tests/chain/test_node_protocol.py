"""The local chain node: JSON-RPC protocol errors (raw HTTP), persistence across a restart,
transaction encodings and commitment rules, getBlock."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Confirmed, Finalized, Processed
from solana.rpc.core import RPCException
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction
from spl.token.constants import TOKEN_PROGRAM_ID

from chain.keys import load_or_create_keys
from core.embedded import free_port
from devchain.node.process import start_node
from tests.chain.node_support import (  # noqa: F401  (fixtures)
    SOL,
    client_fixture,
    funded_wallet,
    keys_fixture,
    pay,
    rpc_raw,
    send,
    wait_status,
)

# -- JSON-RPC protocol ---------------------------------------------------------------------


async def test_protocol_errors(chain_node: tuple[str, Path]) -> None:
    url = chain_node[0]
    cases: list[tuple[object | bytes, int]] = [
        ({"jsonrpc": "2.0", "id": 1, "method": "noSuchMethod"}, -32601),
        (b"{not json", -32700),
        (b"", -32700),
        ({"jsonrpc": "2.0", "id": 1}, -32600),
        ({"id": 1, "method": "getSlot"}, -32600),
        ([], -32600),
        ("just a string", -32600),
        ({"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": ["not-a-key"]}, -32602),
        ({"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": []}, -32602),
        ({"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": {"a": 1}}, -32602),
        (
            {"jsonrpc": "2.0", "id": 1, "method": "getSlot", "params": [{"commitment": "bogus"}]},
            -32602,
        ),
        ({"jsonrpc": "2.0", "id": 1, "method": "sendTransaction", "params": ["!!!"]}, -32602),
        (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "sendTransaction",
                "params": ["AAAA", {"encoding": "base64"}],
            },
            -32602,
        ),
        (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "getMinimumBalanceForRentExemption",
                "params": [-1],
            },
            -32602,
        ),
        (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "getProgramAccounts",
                "params": [str(TOKEN_PROGRAM_ID), {"filters": [{"memcmp": {}}]}],
            },
            -32602,
        ),
    ]
    for body, code in cases:
        status, resp = await rpc_raw(url, body)
        assert status == 200, body
        assert resp["error"]["code"] == code, (body, resp)  # type: ignore[index]
    # batch: each entry answered on its own, in order
    status, resp = await rpc_raw(
        url,
        [
            {"jsonrpc": "2.0", "id": "a", "method": "getHealth"},
            {"jsonrpc": "2.0", "id": "b", "method": "nope"},
            {
                "jsonrpc": "2.0",
                "id": "c",
                "method": "getSlot",
                "params": [{"commitment": "processed"}],
            },
        ],
    )
    assert status == 200 and isinstance(resp, list)
    assert [r["id"] for r in resp] == ["a", "b", "c"]
    assert (
        resp[0]["result"] == "ok" and resp[1]["error"]["code"] == -32601 and resp[2]["result"] > 0
    )
    # the node is still fine after all that
    async with AsyncClient(url) as c:
        assert await c.is_connected()


# -- persistence ---------------------------------------------------------------------------


async def test_restart_keeps_state(tmp_path: Path) -> None:
    keys_dir, data_dir, accounts_dir = tmp_path / "keys", tmp_path / "data", tmp_path / "accounts"
    extra = Pubkey.new_unique()
    accounts_dir.mkdir()
    (accounts_dir / "extra.json").write_text(
        json.dumps(
            {
                "pubkey": str(extra),
                "account": {
                    "lamports": 5 * SOL,
                    "data": [base64.b64encode(b"hello").decode(), "base64"],
                    "owner": str(TOKEN_PROGRAM_ID),
                    "executable": False,
                    "rentEpoch": 0,
                    "space": 5,
                },
            }
        )
    )
    node = start_node(data_dir, keys_dir, free_port(), slot_ms=20, accounts_dir=accounts_dir)
    try:
        async with AsyncClient(node.url) as c:
            info = (await c.get_account_info(extra)).value
            assert info is not None and info.data == b"hello" and info.lamports == 5 * SOL
            kp = Keypair()
            sig = (await c.request_airdrop(kp.pubkey(), 7 * SOL)).value
            await wait_status(c, sig, "confirmed")  # confirmed = its slot is closed and on disk
            landed = (await c.get_signature_statuses([sig])).value[0]
            assert landed is not None
            slot = landed.slot
    finally:
        node.process.kill()  # a crash, not a clean stop: what was flushed must survive
        node.process.wait()
    node = start_node(data_dir, keys_dir, free_port(), slot_ms=20)
    try:
        async with AsyncClient(node.url) as c:
            # Slots after the last flush may be lost to the crash (like an unconfirmed fork),
            # never the slot of a confirmed transaction.
            assert (await c.get_slot(Processed)).value >= slot
            assert (await c.get_balance(kp.pubkey(), Confirmed)).value == 7 * SOL
            st = (await c.get_signature_statuses([sig], search_transaction_history=True)).value[0]
            assert st is not None and st.err is None
            await wait_status(c, sig, "finalized", within=15)
            assert (await c.get_balance(kp.pubkey(), Finalized)).value == 7 * SOL
            assert (await c.get_transaction(sig, commitment=Finalized)).value is not None
            assert (await c.get_account_info(extra)).value is not None
            keys = load_or_create_keys(keys_dir)
            assert (await c.get_account_info(keys.mcc_mint.pubkey())).value is not None
            # state written in this run survives a clean stop too
            sig2 = (await c.request_airdrop(kp.pubkey(), SOL)).value
            await wait_status(c, sig2, "processed")
    finally:
        node.stop()
    assert node.process.returncode == 0  # SIGTERM: graceful, flushed
    node = start_node(data_dir, keys_dir, free_port(), slot_ms=20)
    try:
        async with AsyncClient(node.url) as c:
            assert (await c.get_balance(kp.pubkey(), Processed)).value == 8 * SOL
            assert (await c.get_signature_statuses([sig2])).value[0] is not None
    finally:
        node.stop()


async def test_transaction_encodings_and_commitment_rules(client: AsyncClient) -> None:
    kp = await funded_wallet(client, SOL)
    target = Keypair().pubkey()
    sig = await send(client, [pay(kp, target, SOL // 10)], [kp])
    await wait_status(client, sig, "confirmed")
    as_b64 = (await client.get_transaction(sig, "base64", Confirmed)).value
    assert as_b64 is not None
    tx = as_b64.transaction.transaction
    assert isinstance(tx, VersionedTransaction) and str(tx.signatures[0]) == str(sig)
    versioned = await client.get_transaction(
        sig, "json", Confirmed, max_supported_transaction_version=0
    )
    assert versioned.value is not None and versioned.value.transaction.version is not None
    with pytest.raises(RPCException):  # like the real RPC: history needs >= confirmed
        await client.get_transaction(sig, commitment=Processed)

    # replaceRecentBlockhash simulates even a transaction with an unknown blockhash
    stale = VersionedTransaction(
        Message.new_with_blockhash([pay(kp, target, SOL // 10)], kp.pubkey(), Hash.new_unique()),
        [kp],
    )
    sim = (await client.simulate_transaction(stale)).value
    assert sim.err is not None
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "simulateTransaction",
        "params": [
            base64.b64encode(bytes(stale)).decode(),
            {"encoding": "base64", "replaceRecentBlockhash": True,
             "accounts": {"addresses": [str(target)], "encoding": "base64"}},
        ],
    }  # fmt: skip
    status, resp = await rpc_raw(str(client._provider.endpoint_uri), body)
    assert status == 200
    value = resp["result"]["value"]  # type: ignore[index]
    assert value["err"] is None and value["replacementBlockhash"]["blockhash"]
    assert value["accounts"][0]["lamports"] == 2 * (SOL // 10)  # post-simulation state


async def test_get_block(client: AsyncClient) -> None:
    kp = await funded_wallet(client, SOL)
    sig = await send(client, [pay(kp, Keypair().pubkey(), SOL // 10)], [kp])
    st = (await wait_status(client, sig, "confirmed"))["confirmed"]
    slot = st.slot  # type: ignore[attr-defined]
    block = (await client.get_block(slot, "json", max_supported_transaction_version=0)).value
    assert block.block_height == slot and block.parent_slot == slot - 1
    assert block.transactions is not None
    assert str(sig) in {str(t.transaction.signatures[0]) for t in block.transactions}
    before = (await client.get_block(slot - 1, max_supported_transaction_version=0)).value
    assert before.blockhash == block.previous_blockhash
    with pytest.raises(RPCException):  # the open slot is not a block yet
        await client.get_block(slot + 10_000)
