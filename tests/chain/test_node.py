"""The local chain node, driven only through solana-py's AsyncClient (plus raw HTTP for the
JSON-RPC error cases a typed client cannot produce)."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Confirmed, Finalized, Processed
from solana.rpc.core import RPCException
from solana.rpc.models import MemcmpOpts, TokenAccountOpts, TxOpts
from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.rpc.errors import RpcCustomErrorFieldless
from solders.rpc.requests import IsBlockhashValid
from solders.rpc.responses import IsBlockhashValidResp
from solders.signature import Signature
from solders.system_program import TransferParams as SolTransfer
from solders.system_program import transfer as sol_transfer
from solders.transaction import VersionedTransaction
from solders.transaction_status import TransactionConfirmationStatus
from spl.token.constants import TOKEN_PROGRAM_ID
from spl.token.instructions import (
    create_associated_token_account,
    get_associated_token_address,
    mint_to,
    transfer_checked,
)
from spl.token.models import MintToParams, TransferCheckedParams

from chain.ecosystem import MAINNET_PROGRAM_IDS
from chain.keys import ChainKeys, load_or_create_keys
from chain.node.codec import b58encode
from chain.node.process import start_node
from core.embedded import free_port

SOL = 1_000_000_000


@pytest.fixture(scope="module")
def keys(chain_node: tuple[str, Path]) -> ChainKeys:
    return load_or_create_keys(chain_node[1])


@pytest.fixture
async def client(chain_node: tuple[str, Path]) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(chain_node[0], commitment=Confirmed) as c:
        yield c


async def build(client: AsyncClient, ixs: list[Instruction], signers: list[Keypair]) -> bytes:
    blockhash = (await client.get_latest_blockhash(Processed)).value.blockhash
    msg = Message.new_with_blockhash(ixs, signers[0].pubkey(), blockhash)
    return bytes(VersionedTransaction(msg, signers))


async def send(client: AsyncClient, ixs: list[Instruction], signers: list[Keypair]) -> Signature:
    raw = await build(client, ixs, signers)
    return (await client.send_raw_transaction(raw, TxOpts(skip_confirmation=True))).value


_RANK = {"processed": 0, "confirmed": 1, "finalized": 2}


async def wait_status(
    client: AsyncClient, sig: Signature, level: str, within: float = 10
) -> dict[str, object]:
    """Poll until the signature reaches `level`; return every status seen on the way."""
    seen: dict[str, object] = {}
    deadline = asyncio.get_running_loop().time() + within
    while asyncio.get_running_loop().time() < deadline:
        st = (await client.get_signature_statuses([sig])).value[0]
        if st is not None:
            name = str(st.confirmation_status).split(".")[-1].lower()
            seen.setdefault(name, st)
            # At or past the level: a slow poll may first see a later level (finalized).
            if _RANK[name] >= _RANK[level]:
                return seen
        await asyncio.sleep(0.005)
    raise AssertionError(f"{sig} did not reach {level}: {seen}")


async def funded_wallet(client: AsyncClient, lamports: int = 10 * SOL) -> Keypair:
    kp = Keypair()
    sig = (await client.request_airdrop(kp.pubkey(), lamports)).value
    await wait_status(client, sig, "confirmed")
    return kp


async def token_account(
    client: AsyncClient, keys: ChainKeys, owner: Pubkey, mint: Pubkey, amount: int = 0
) -> Pubkey:
    ata = get_associated_token_address(owner, mint)
    ixs = [create_associated_token_account(keys.fee_payer.pubkey(), owner, mint)]
    if amount:
        ixs.append(
            mint_to(
                MintToParams(
                    program_id=TOKEN_PROGRAM_ID,
                    mint=mint,
                    dest=ata,
                    mint_authority=keys.mint_authority.pubkey(),
                    amount=amount,
                )
            )
        )
    signers = [keys.fee_payer, keys.mint_authority] if amount else [keys.fee_payer]
    sig = await send(client, ixs, signers)
    await wait_status(client, sig, "confirmed")
    return ata


async def blockhash_valid(client: AsyncClient, blockhash: Hash) -> bool:
    # solana-py has no wrapper for isBlockhashValid; its provider sends solders' request type
    resp = await client._provider.make_request(IsBlockhashValid(blockhash), IsBlockhashValidResp)
    return bool(resp.value)


async def rpc_raw(url: str, body: object | bytes) -> tuple[int, object]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with (
        aiohttp.ClientSession() as s,
        s.post(url, data=data, headers={"Content-Type": "application/json"}) as r,
    ):
        return r.status, await r.json(content_type=None)


# -- cluster basics ------------------------------------------------------------------------


async def test_health_version_and_slots_advance(client: AsyncClient) -> None:
    assert (await client.is_connected()) is True
    assert (await client.get_version()).value.solana_core
    s1 = (await client.get_slot(Processed)).value
    await asyncio.sleep(0.1)
    s2 = (await client.get_slot(Processed)).value
    assert s2 > s1
    processed = (await client.get_block_height(Processed)).value
    confirmed = (await client.get_block_height(Confirmed)).value
    finalized = (await client.get_block_height(Finalized)).value
    assert finalized <= confirmed <= processed
    assert processed - finalized <= 32


async def test_latest_blockhash_and_validity(client: AsyncClient) -> None:
    resp = await client.get_latest_blockhash(Processed)
    height = (await client.get_block_height(Processed)).value
    assert resp.value.last_valid_block_height - height in range(148, 151)
    assert await blockhash_valid(client, resp.value.blockhash)
    assert not await blockhash_valid(client, Hash.new_unique())
    await asyncio.sleep(0.05)  # a new slot brings a new blockhash
    assert (await client.get_latest_blockhash(Processed)).value.blockhash != resp.value.blockhash


async def test_rent_exemption(client: AsyncClient) -> None:
    assert (await client.get_minimum_balance_for_rent_exemption(165)).value == 2039280
    assert (await client.get_minimum_balance_for_rent_exemption(0)).value == 890880


async def test_genesis_mints_and_funded_keys(client: AsyncClient, keys: ChainKeys) -> None:
    for kp in (keys.fee_payer, keys.mint_authority, keys.custody_authority):
        assert (await client.get_balance(kp.pubkey(), Finalized)).value >= 1000 * SOL
    for mint in (keys.mcc_mint.pubkey(), keys.mcd_mint.pubkey()):
        info = (await client.get_account_info(mint, Finalized)).value
        assert info is not None and info.owner == TOKEN_PROGRAM_ID and len(info.data) == 82
        parsed = (await client.get_account_info_json_parsed(mint)).value
        assert parsed is not None
        mint_info: Any = parsed.data.parsed["info"]  # type: ignore[union-attr]
        assert mint_info["decimals"] == 9
        assert mint_info["mintAuthority"] == str(keys.mint_authority.pubkey())
        assert mint_info["freezeAuthority"] is None


async def test_airdrop_and_balance(client: AsyncClient) -> None:
    kp = Keypair()
    assert (await client.get_balance(kp.pubkey())).value == 0
    assert (await client.get_account_info(kp.pubkey())).value is None
    sig = (await client.request_airdrop(kp.pubkey(), 3 * SOL)).value
    await wait_status(client, sig, "confirmed")
    assert (await client.get_balance(kp.pubkey(), Confirmed)).value == 3 * SOL
    # two identical airdrops in a row are two transfers, not a de-duplicated one
    sig2 = (await client.request_airdrop(kp.pubkey(), 3 * SOL)).value
    sig3 = (await client.request_airdrop(kp.pubkey(), 3 * SOL)).value
    assert len({sig, sig2, sig3}) == 3
    assert (await client.get_balance(kp.pubkey(), Processed)).value == 9 * SOL


# -- the SPL transfer end to end -----------------------------------------------------------


async def test_spl_transfer_lifecycle(client: AsyncClient, keys: ChainKeys) -> None:
    mint = keys.mcc_mint.pubkey()
    alice, bob = await funded_wallet(client), Keypair()
    src = await token_account(client, keys, alice.pubkey(), mint, amount=5 * SOL)
    dst = await token_account(client, keys, bob.pubkey(), mint)
    bal = (await client.get_token_account_balance(src, Confirmed)).value
    assert (bal.amount, bal.decimals, bal.ui_amount_string) == (str(5 * SOL), 9, "5")
    supply_before = int((await client.get_token_supply(mint, Processed)).value.amount)

    ix = transfer_checked(
        TransferCheckedParams(
            program_id=TOKEN_PROGRAM_ID,
            source=src,
            mint=mint,
            dest=dst,
            owner=alice.pubkey(),
            amount=1_500_000_000,
            decimals=9,
        )
    )
    sig = await send(client, [ix], [alice])
    seen = await wait_status(client, sig, "finalized", within=15)
    fin = seen["finalized"]  # earlier levels are checked when the (timing-bound) poll saw them
    assert fin.confirmations is None and fin.err is None  # type: ignore[attr-defined]
    if "processed" in seen:
        assert seen["processed"].confirmations == 0  # type: ignore[attr-defined]
    if "confirmed" in seen:
        assert seen["confirmed"].confirmations >= 1  # type: ignore[attr-defined]

    for commitment in (Processed, Confirmed, Finalized):
        got = (await client.get_token_account_balance(dst, commitment)).value
        assert got.ui_amount_string == "1.5"
    assert (await client.get_token_account_balance(src)).value.amount == "3500000000"
    # a transfer does not change the supply
    assert int((await client.get_token_supply(mint, Processed)).value.amount) == supply_before

    tx = (await client.get_transaction(sig, "json", Finalized)).value
    assert tx is not None
    meta = tx.transaction.meta
    assert meta is not None and meta.err is None and meta.fee == 5000
    assert meta.log_messages is not None
    assert meta.log_messages[0] == f"Program {TOKEN_PROGRAM_ID} invoke [1]"
    assert meta.log_messages[-1] == f"Program {TOKEN_PROGRAM_ID} success"
    pre = {str(b.owner): b.ui_token_amount.amount for b in meta.pre_token_balances or []}
    post = {str(b.owner): b.ui_token_amount.amount for b in meta.post_token_balances or []}
    assert pre == {str(alice.pubkey()): "5000000000", str(bob.pubkey()): "0"}
    assert post == {str(alice.pubkey()): "3500000000", str(bob.pubkey()): "1500000000"}
    assert meta.pre_balances[0] - meta.post_balances[0] == 5000
    assert tx.slot == fin.slot  # type: ignore[attr-defined]

    mine = await client.get_token_accounts_by_owner(alice.pubkey(), TokenAccountOpts(mint=mint))
    assert [a.pubkey for a in mine.value] == [src]
    parsed = await client.get_token_accounts_by_owner_json_parsed(
        bob.pubkey(), TokenAccountOpts(program_id=TOKEN_PROGRAM_ID)
    )
    info: Any = parsed.value[0].account.data.parsed["info"]
    assert info["tokenAmount"]["amount"] == "1500000000" and info["mint"] == str(mint)


async def test_finalized_reads_lag_behind(client: AsyncClient, keys: ChainKeys) -> None:
    kp = await funded_wallet(client, 2 * SOL)
    target = Keypair().pubkey()
    sig = await send(
        client,
        [sol_transfer(SolTransfer(from_pubkey=kp.pubkey(), to_pubkey=target, lamports=SOL))],
        [kp],
    )
    await wait_status(client, sig, "confirmed")
    assert (await client.get_balance(target, Confirmed)).value == SOL
    st = (await client.get_signature_statuses([sig])).value[0]
    assert st is not None
    if st.confirmation_status != TransactionConfirmationStatus.Finalized:
        # not final yet: a finalized read still sees the old state, getTransaction hides it
        assert (await client.get_balance(target, Finalized)).value == 0
        assert (await client.get_account_info(target, Finalized)).value is None
        assert (await client.get_transaction(sig, commitment=Finalized)).value is None
    await wait_status(client, sig, "finalized", within=15)
    assert (await client.get_balance(target, Finalized)).value == SOL
    assert (await client.get_transaction(sig, commitment=Finalized)).value is not None


async def test_our_programs_are_loaded_at_the_ecosystem_ids(client: AsyncClient) -> None:
    for name in ("mcd_token", "reincarnation"):
        program = Pubkey.from_string(MAINNET_PROGRAM_IDS[name])
        info = (await client.get_account_info(program)).value
        assert info is not None and info.executable, name


# -- transaction submission rules ----------------------------------------------------------


def pay(kp: Keypair, to: Pubkey, lamports: int) -> Instruction:
    return sol_transfer(SolTransfer(from_pubkey=kp.pubkey(), to_pubkey=to, lamports=lamports))


async def test_duplicate_send_executes_once(client: AsyncClient) -> None:
    kp = await funded_wallet(client, 2 * SOL)
    target = Keypair().pubkey()
    raw = await build(client, [pay(kp, target, SOL // 10)], [kp])
    opts = TxOpts(skip_confirmation=True)
    first = (await client.send_raw_transaction(raw, opts)).value
    again = (await client.send_raw_transaction(raw, opts)).value
    await wait_status(client, first, "confirmed")
    later = (
        await client.send_raw_transaction(raw, TxOpts(skip_confirmation=True, skip_preflight=True))
    ).value
    assert first == again == later
    assert (await client.get_balance(target, Processed)).value == SOL // 10
    assert (await client.get_balance(kp.pubkey(), Processed)).value == 2 * SOL - SOL // 10 - 5000


async def test_base58_send_and_preflight_failure(
    chain_node: tuple[str, Path], client: AsyncClient
) -> None:
    kp = await funded_wallet(client, SOL)
    target = Keypair().pubkey()
    raw = await build(client, [pay(kp, target, SOL // 100)], [kp])
    status, body = await rpc_raw(
        chain_node[0],
        {"jsonrpc": "2.0", "id": 7, "method": "sendTransaction", "params": [b58encode(raw)]},
    )
    assert status == 200 and body["id"] == 7  # type: ignore[index]
    sig = Signature.from_string(body["result"])  # type: ignore[index]
    await wait_status(client, sig, "confirmed")
    assert (await client.get_balance(target, Confirmed)).value == SOL // 100

    # preflight refuses an overdraft: nothing lands, no fee is taken
    before = (await client.get_balance(kp.pubkey(), Processed)).value
    raw = await build(client, [pay(kp, target, 10 * SOL)], [kp])
    with pytest.raises(RPCException) as info:
        await client.send_raw_transaction(raw, TxOpts(skip_confirmation=True))
    err = info.value.args[0]
    assert "Transaction simulation failed" in err.message
    assert err.data.err is not None and err.data.logs
    assert (await client.get_balance(kp.pubkey(), Processed)).value == before

    # without preflight the same overdraft lands as a failed transaction that pays its fee
    raw = await build(client, [pay(kp, target, 10 * SOL), pay(kp, target, 1)], [kp])
    sig = (
        await client.send_raw_transaction(raw, TxOpts(skip_confirmation=True, skip_preflight=True))
    ).value
    seen = await wait_status(client, sig, "confirmed")
    landed = seen.get("confirmed") or seen["finalized"]
    assert landed.err is not None  # type: ignore[attr-defined]
    assert (await client.get_balance(kp.pubkey(), Processed)).value == before - 5000
    tx = (await client.get_transaction(sig, commitment=Confirmed)).value
    assert tx is not None and tx.transaction.meta is not None
    assert tx.transaction.meta.err is not None and tx.transaction.meta.fee == 5000


async def test_bad_signature_refused(client: AsyncClient) -> None:
    kp = await funded_wallet(client, SOL)
    raw = bytearray(await build(client, [pay(kp, Keypair().pubkey(), 1)], [kp]))
    raw[5] ^= 0xFF  # corrupt the signature
    with pytest.raises(RPCException) as info:
        await client.send_raw_transaction(bytes(raw), TxOpts(skip_confirmation=True))
    assert info.value.args[0] == RpcCustomErrorFieldless.TransactionSignatureVerificationFailure


async def test_expired_blockhash_refused(client: AsyncClient) -> None:
    kp = await funded_wallet(client, SOL)
    target = Keypair().pubkey()
    latest = (await client.get_latest_blockhash(Processed)).value
    old = bytes(
        VersionedTransaction(
            Message.new_with_blockhash([pay(kp, target, 1)], kp.pubkey(), latest.blockhash), [kp]
        )
    )
    unknown = bytes(
        VersionedTransaction(
            Message.new_with_blockhash([pay(kp, target, 2)], kp.pubkey(), Hash.new_unique()), [kp]
        )
    )
    with pytest.raises(RPCException) as info:
        await client.send_raw_transaction(unknown, TxOpts(skip_confirmation=True))
    assert info.value.args[0].data.err.__class__.__name__ == "TransactionErrorFieldless"
    assert "Blockhash not found" in info.value.args[0].message
    # wait until the block height passes lastValidBlockHeight (150 slots of 20 ms)
    for _ in range(100):
        if (await client.get_block_height(Processed)).value > latest.last_valid_block_height:
            break
        await asyncio.sleep(0.2)
    assert not await blockhash_valid(client, latest.blockhash)
    with pytest.raises(RPCException):
        await client.send_raw_transaction(old, TxOpts(skip_confirmation=True))
    # skipping preflight: the RPC hands back the signature, but the tx never lands
    sig = (
        await client.send_raw_transaction(old, TxOpts(skip_confirmation=True, skip_preflight=True))
    ).value
    await asyncio.sleep(0.1)
    assert (await client.get_signature_statuses([sig], search_transaction_history=True)).value == [
        None
    ]
    assert (await client.get_balance(target, Processed)).value == 0


async def test_simulate_does_not_write(client: AsyncClient) -> None:
    kp = await funded_wallet(client, SOL)
    target = Keypair().pubkey()
    tx = VersionedTransaction.from_bytes(await build(client, [pay(kp, target, SOL // 100)], [kp]))
    sim = (await client.simulate_transaction(tx, sig_verify=True)).value
    assert sim.err is None and sim.units_consumed and sim.logs
    assert (await client.get_balance(target, Processed)).value == 0
    bad = VersionedTransaction.from_bytes(await build(client, [pay(kp, target, 100 * SOL)], [kp]))
    assert (await client.simulate_transaction(bad)).value.err is not None


# -- history -------------------------------------------------------------------------------


async def test_signature_statuses_and_history(client: AsyncClient) -> None:
    kp = await funded_wallet(client, 2 * SOL)
    sigs = []
    for i in range(3):
        sigs.append(await send(client, [pay(kp, Keypair().pubkey(), SOL // 100 + i)], [kp]))
    for s in sigs:
        await wait_status(client, s, "confirmed")
    unknown = Signature.default()
    statuses = (await client.get_signature_statuses([*sigs, unknown])).value
    assert [s is not None for s in statuses] == [True, True, True, False]
    assert len((await client.get_signature_statuses([unknown] * 256)).value) == 256
    with pytest.raises(RPCException):
        await client.get_signature_statuses([unknown] * 257)

    got = (await client.get_signatures_for_address(kp.pubkey(), commitment=Confirmed)).value
    assert [g.signature for g in got[:3]] == sigs[::-1]  # newest first, airdrop last
    assert len(got) == 4
    page = (
        await client.get_signatures_for_address(
            kp.pubkey(), before=sigs[2], limit=1, commitment=Confirmed
        )
    ).value
    assert [p.signature for p in page] == [sigs[1]]
    page = (
        await client.get_signatures_for_address(kp.pubkey(), until=sigs[0], commitment=Confirmed)
    ).value
    assert [p.signature for p in page] == [sigs[2], sigs[1]]
    # finalized history only lists finalized transactions
    fin = (await client.get_signatures_for_address(kp.pubkey(), commitment=Finalized)).value
    for f in fin:
        st = (await client.get_signature_statuses([f.signature])).value[0]
        assert st is not None and st.confirmation_status == TransactionConfirmationStatus.Finalized


# -- program accounts ----------------------------------------------------------------------


async def test_program_accounts_filters(client: AsyncClient, keys: ChainKeys) -> None:
    mint = keys.mcd_mint.pubkey()
    owner = Keypair().pubkey()
    ata = await token_account(client, keys, owner, mint, amount=42)
    by_owner = MemcmpOpts(offset=32, bytes=str(owner))
    got = (
        await client.get_program_accounts(
            TOKEN_PROGRAM_ID, Confirmed, "base64", filters=[165, by_owner]
        )
    ).value
    assert [a.pubkey for a in got] == [ata]
    assert (
        await client.get_program_accounts(
            TOKEN_PROGRAM_ID, Confirmed, "base64", filters=[82, by_owner]
        )
    ).value == []
    mints = (
        await client.get_program_accounts(TOKEN_PROGRAM_ID, Confirmed, "base64", filters=[82])
    ).value
    assert {keys.mcc_mint.pubkey(), keys.mcd_mint.pubkey()} <= {m.pubkey for m in mints}
    multi = (await client.get_multiple_accounts([ata, Keypair().pubkey()], Confirmed)).value
    assert multi[0] is not None and multi[0].owner == TOKEN_PROGRAM_ID and multi[1] is None


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
