"""The local chain node: transaction submission rules, signature history and program-account
filters, through solana-py's AsyncClient."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Confirmed, Finalized, Processed
from solana.rpc.core import RPCException
from solana.rpc.models import MemcmpOpts, TxOpts
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import Message
from solders.rpc.errors import RpcCustomErrorFieldless
from solders.signature import Signature
from solders.transaction import VersionedTransaction
from solders.transaction_status import TransactionConfirmationStatus
from spl.token.constants import TOKEN_PROGRAM_ID

from chain.keys import ChainKeys
from devchain.node.codec import b58encode
from tests.chain.node_support import (  # noqa: F401  (fixtures)
    SOL,
    blockhash_valid,
    build,
    client_fixture,
    funded_wallet,
    keys_fixture,
    pay,
    rpc_raw,
    send,
    token_account,
    wait_status,
)

# -- transaction submission rules ----------------------------------------------------------


async def test_duplicate_send_executes_once(client: AsyncClient) -> None:
    """As a validator: a landed transaction sent again is refused by preflight ("already been
    processed", -32002), and accepted (then de-duplicated) without preflight."""
    kp = await funded_wallet(client, 2 * SOL)
    target = Keypair().pubkey()
    raw = await build(client, [pay(kp, target, SOL // 10)], [kp])
    opts = TxOpts(skip_confirmation=True)
    first = (await client.send_raw_transaction(raw, opts)).value
    with pytest.raises(RPCException) as info:
        await client.send_raw_transaction(raw, opts)
    err = info.value.args[0]
    assert (
        err.message == "Transaction simulation failed: This transaction has already been processed"
    )
    await wait_status(client, first, "confirmed")
    later = (
        await client.send_raw_transaction(raw, TxOpts(skip_confirmation=True, skip_preflight=True))
    ).value
    assert first == later
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
