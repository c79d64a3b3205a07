"""The local node where deposits depend on it behaves as a validator (issue 29, item 3): the
SlotHashes and Clock sysvars advance every slot, so an address lookup table is created and
extended from a recent slot; a version-0 transaction through it executes and is recorded with
``loadedAddresses``; ``getBlocks``, ``getBlocksWithLimit``, ``getBlockHeight`` and ``getBlock``
answer as the JSON-RPC spec does (full, accounts; json, jsonParsed; token balances with their
``programId``), for SPL Token and Token-2022 alike. The gateway's one parser
(chain/transactions.py) reads every shape the same."""

from __future__ import annotations

import asyncio
import base64
import struct
from pathlib import Path
from typing import Any

import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Confirmed, Finalized, Processed
from solana.rpc.models import TxOpts
from solders.address_lookup_table_account import (
    ID as ALT_PROGRAM,
)
from solders.address_lookup_table_account import (
    AddressLookupTableAccount,
    derive_lookup_table_address,
)
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.system_program import ID as SYSTEM_PROGRAM
from solders.system_program import CreateAccountParams, create_account
from solders.sysvar import CLOCK, SLOT_HASHES
from solders.transaction import VersionedTransaction
from spl.token.constants import MINT_LEN, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID
from spl.token.instructions import (
    create_associated_token_account,
    get_associated_token_address,
    initialize_mint2,
    mint_to,
    transfer_checked,
)
from spl.token.models import InitializeMint2Params, MintToParams, TransferCheckedParams

from chain.blocks import BlockReader
from chain.errors import ReceiptMismatch
from chain.reads import ChainReads
from chain.rpc import ChainRpc
from chain.transactions import token_changes
from tests.chain.node_support import (  # noqa: F401  (fixtures)
    SOL,
    client_fixture,
    funded_wallet,
    keys_fixture,
    rpc_raw,
    send,
    wait_status,
)

DECIMALS = 6


def _url(client: AsyncClient) -> str:
    return str(client._provider.endpoint_uri)


async def _call(client: AsyncClient, method: str, *params: Any) -> Any:
    status, resp = await rpc_raw(
        _url(client), {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    )
    assert status == 200
    return resp


async def _result(client: AsyncClient, method: str, *params: Any) -> Any:
    resp = await _call(client, method, *params)
    assert "error" not in resp, resp
    return resp["result"]


async def _sysvars(client: AsyncClient, *keys: Pubkey) -> tuple[int, list[bytes]]:
    """The slot the node answered at, and the accounts' data (one call: one slot)."""
    resp = await client.get_multiple_accounts(list(keys), Processed)
    assert all(v is not None for v in resp.value)
    return resp.context.slot, [bytes(v.data) for v in resp.value if v is not None]


async def _next_slot(client: AsyncClient, after: int) -> None:
    for _ in range(3000):  # 30 s at most
        if (await client.get_slot(Processed)).value > after:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the node did not pass slot {after}")


def _alt_ix(kind: int, table: Pubkey, payer: Pubkey, data: bytes) -> Instruction:
    metas = [
        AccountMeta(table, False, True),
        AccountMeta(payer, True, False),  # authority
        AccountMeta(payer, True, True),  # payer
        AccountMeta(SYSTEM_PROGRAM, False, False),
    ]
    return Instruction(ALT_PROGRAM, struct.pack("<I", kind) + data, metas)


async def _lookup_table(client: AsyncClient, payer: Keypair, addresses: list[Pubkey]) -> Pubkey:
    """Create and extend a lookup table from a recent (finalized) slot, as wallets do."""
    recent = (await client.get_slot(Finalized)).value
    table, bump = derive_lookup_table_address(payer.pubkey(), recent)
    create = _alt_ix(0, table, payer.pubkey(), struct.pack("<QB", recent, bump))
    extend = _alt_ix(
        2,
        table,
        payer.pubkey(),
        struct.pack("<Q", len(addresses)) + b"".join(bytes(a) for a in addresses),
    )
    sig = await send(client, [create, extend], [payer])
    seen = await wait_status(client, sig, "confirmed")
    assert seen["confirmed"].err is None  # type: ignore[attr-defined]
    # Addresses added in a slot are usable from the next one on, as on a validator.
    await _next_slot(client, seen["confirmed"].slot)  # type: ignore[attr-defined]
    return table


async def _mint(client: AsyncClient, payer: Keypair, program: Pubkey) -> Pubkey:
    mint = Keypair()
    rent = (await client.get_minimum_balance_for_rent_exemption(MINT_LEN)).value
    ixs = [
        create_account(
            CreateAccountParams(
                from_pubkey=payer.pubkey(), to_pubkey=mint.pubkey(), lamports=rent,
                space=MINT_LEN, owner=program,
            )
        ),
        initialize_mint2(
            InitializeMint2Params(
                decimals=DECIMALS, program_id=program, mint=mint.pubkey(),
                mint_authority=payer.pubkey(), freeze_authority=None,
            )
        ),
    ]  # fmt: skip
    await wait_status(client, await send(client, ixs, [payer, mint]), "confirmed")
    return mint.pubkey()


async def _accounts(
    client: AsyncClient, payer: Keypair, mint: Pubkey, program: Pubkey, amount: int
) -> tuple[Keypair, Pubkey, Pubkey]:
    """A sender holding ``amount`` and a receiver's associated account (empty)."""
    sender, receiver = Keypair(), Keypair()
    src = get_associated_token_address(sender.pubkey(), mint, program)
    dst = get_associated_token_address(receiver.pubkey(), mint, program)
    ixs = [
        create_associated_token_account(payer.pubkey(), sender.pubkey(), mint, program),
        create_associated_token_account(payer.pubkey(), receiver.pubkey(), mint, program),
        mint_to(
            MintToParams(
                program_id=program, mint=mint, dest=src, mint_authority=payer.pubkey(),
                amount=amount,
            )
        ),
    ]  # fmt: skip
    await wait_status(client, await send(client, ixs, [payer]), "confirmed")
    return sender, src, dst


async def _v0_transfer(
    client: AsyncClient,
    payer: Keypair,
    sender: Keypair,
    src: Pubkey,
    mint: Pubkey,
    program: Pubkey,
    table: Pubkey,
    dst: Pubkey,
    amount: int,
) -> Signature:
    """transfer_checked with the destination loaded from the lookup table."""
    ix = transfer_checked(
        TransferCheckedParams(
            program_id=program, source=src, mint=mint, dest=dst, owner=sender.pubkey(),
            amount=amount, decimals=DECIMALS,
        )
    )  # fmt: skip
    blockhash = (await client.get_latest_blockhash(Processed)).value.blockhash
    message = MessageV0.try_compile(
        payer.pubkey(), [ix], [AddressLookupTableAccount(table, [dst])], blockhash
    )
    assert [list(lk.writable_indexes) for lk in message.address_table_lookups] == [[0]]
    assert dst not in message.account_keys  # the destination comes from the table only
    raw = bytes(VersionedTransaction(message, [payer, sender]))
    return (await client.send_raw_transaction(raw, TxOpts(skip_confirmation=True))).value


async def test_sysvars_advance_every_slot(client: AsyncClient) -> None:
    """Clock.slot is the open slot; SlotHashes lists the closed slots before it, newest first,
    each with its block's hash, 512 of them at most."""
    await _next_slot(client, 600)  # past SLOT_HASHES' capacity, so the window slides
    for _ in range(2):
        # One call, so both are read at the slot it answers at (a separate getSlot before it
        # may be slots behind on a loaded machine).
        slot, (clock, hashes) = await _sysvars(client, CLOCK, SLOT_HASHES)
        (count,) = struct.unpack_from("<Q", hashes)
        entries = [struct.unpack_from("<Q", hashes, 8 + 40 * i)[0] for i in range(count)]
        (clock_slot,) = struct.unpack_from("<Q", clock)
        assert slot - 1 <= clock_slot <= slot + 1
        assert count == 512 and entries == list(range(clock_slot - 1, clock_slot - 513, -1))
        newest = (await client.get_block(entries[0], max_supported_transaction_version=0)).value
        assert hashes[16:48] == bytes(newest.blockhash)
        await _next_slot(client, slot)


async def test_getblocks_and_block_height(client: AsyncClient) -> None:
    top = (await client.get_slot(Finalized)).value
    assert await _result(client, "getBlocks", top - 5, top) == list(range(top - 5, top + 1))
    # Without an end: up to the newest block at the commitment (finalized by default).
    open_ended = await _result(client, "getBlocks", top - 3)
    after = (await client.get_slot(Finalized)).value
    assert open_ended[0] == top - 3 and top <= open_ended[-1] <= after
    assert open_ended == list(range(top - 3, open_ended[-1] + 1))
    confirmed = await _result(client, "getBlocks", top, None, {"commitment": "confirmed"})
    assert confirmed[-1] > top
    # An end past the commitment's newest block is capped, not invented.
    capped = await _result(client, "getBlocks", top, top + 10_000)
    assert capped[-1] < top + 10_000
    assert await _result(client, "getBlocksWithLimit", top - 9, 4) == list(range(top - 9, top - 5))
    assert (await client.get_blocks(top - 2, top)).value == [top - 2, top - 1, top]
    # Refusals as the RPC gives them.
    for params in ([top, top + 500_001], [top, None, {"commitment": "processed"}], [-1]):
        assert (await _call(client, "getBlocks", *params))["error"]["code"] == -32602
    # getBlockHeight: the height of the newest block at the commitment (one block per slot).
    height = (await client.get_block_height(Finalized)).value
    block = (await client.get_block(height, max_supported_transaction_version=0)).value
    assert block.block_height == height and block.parent_slot == height - 1


@pytest.mark.parametrize("program", [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID], ids=["spl", "2022"])
async def test_v0_transfer_through_a_lookup_table_in_every_block_shape(
    client: AsyncClient, chain_node: tuple[str, Path], program: Pubkey
) -> None:
    payer = await funded_wallet(client, 10 * SOL)
    mint = await _mint(client, payer, program)
    sender, src, dst = await _accounts(client, payer, mint, program, 5_000_000)
    table = await _lookup_table(client, payer, [dst])
    sig = await _v0_transfer(client, payer, sender, src, mint, program, table, dst, 3_000_000)
    seen = await wait_status(client, sig, "finalized", within=20)
    slot = next(iter(seen.values())).slot  # type: ignore[attr-defined]
    assert (await client.get_token_account_balance(dst)).value.amount == "3000000"

    cfg = {"maxSupportedTransactionVersion": 0, "commitment": "finalized"}
    tx = await _result(client, "getTransaction", str(sig), {**cfg, "encoding": "json"})
    assert tx["version"] == 0
    meta = tx["meta"]
    assert meta["loadedAddresses"] == {"writable": [str(dst)], "readonly": []}
    static = tx["transaction"]["message"]["accountKeys"]
    post = {b["accountIndex"]: b for b in meta["postTokenBalances"]}
    dst_balance = post[len(static)]  # the first loaded address follows the static keys
    assert dst_balance["mint"] == str(mint) and dst_balance["programId"] == str(program)
    assert dst_balance["uiTokenAmount"]["amount"] == "3000000"
    assert dst_balance["uiTokenAmount"]["decimals"] == DECIMALS

    expected = {str(src): -3_000_000, str(dst): 3_000_000}

    def moved(entry: dict[str, Any]) -> dict[str, int]:
        return {c.account: c.delta for c in token_changes(entry) if c.delta}

    def ours(block: dict[str, Any], key: str) -> dict[str, Any]:
        (entry,) = [
            e for e in block["transactions"] if e["transaction"]["signatures"][0] == str(sig)
        ]
        assert entry["version"] == 0 and key in entry["transaction"]
        return entry

    full = await _result(client, "getBlock", slot, {**cfg, "encoding": "json"})
    entry = ours(full, "message")
    assert entry["meta"]["loadedAddresses"]["writable"] == [str(dst)]
    assert moved(entry) == expected

    parsed = await _result(client, "getBlock", slot, {**cfg, "encoding": "jsonParsed"})
    entry = ours(parsed, "message")
    keys = entry["transaction"]["message"]["accountKeys"]
    assert {"pubkey": str(dst), "writable": True, "signer": False, "source": "lookupTable"} in keys
    assert keys[0] == {
        "pubkey": str(payer.pubkey()), "writable": True, "signer": True, "source": "transaction",
    }  # fmt: skip
    assert "loadedAddresses" not in entry["meta"] and moved(entry) == expected

    accounts = await _result(
        client, "getBlock", slot, {**cfg, "transactionDetails": "accounts", "rewards": False}
    )
    entry = ours(accounts, "accountKeys")
    assert "rewards" not in accounts and "logMessages" not in entry["meta"]
    assert moved(entry) == expected

    signatures = await _result(
        client, "getBlock", slot, {**cfg, "transactionDetails": "signatures"}
    )
    assert str(sig) in signatures["signatures"] and "transactions" not in signatures

    # A version-0 block asked for without maxSupportedTransactionVersion: refused, as the RPC does.
    refused = await _call(client, "getBlock", slot, {"commitment": "finalized"})
    assert refused["error"]["code"] == -32015

    # solana-py / solders parse the node's block, and the gateway's reads see the lookup table.
    block = (await client.get_block(slot, "json", max_supported_transaction_version=0)).value
    assert str(sig) in {str(t.transaction.signatures[0]) for t in block.transactions or []}
    async with ChainRpc(chain_node[0]) as rpc:
        await _gateway_reads(
            ChainReads(rpc, "finalized", poll_interval=0.05), rpc, sig, dst, slot, expected
        )


async def _gateway_reads(
    reads: ChainReads,
    rpc: ChainRpc,
    sig: Signature,
    dst: Pubkey,
    slot: int,
    expected: dict[str, int],
) -> None:
    found = await reads.transaction(str(sig))
    assert found is not None and found.slot == slot
    assert {a: d for a, d in found.deltas().items() if d} == expected
    deltas = await reads.receipt(str(sig), expected)
    assert {a: d for a, d in deltas.items() if d} == expected
    with pytest.raises(ReceiptMismatch):
        await reads.receipt(str(sig), {str(dst): 2_999_999})
    # The per-account walk (the deposit watcher's repair) finds it at the loaded address too.
    walked = await BlockReader(rpc).signatures_of(str(dst))
    assert str(sig) in {t.signature for t in walked}
    repaired = await BlockReader(rpc).transaction(str(sig))
    assert repaired is not None and repaired.slot == slot
    assert {c.account: c.delta for c in repaired.tx.token_changes if c.delta} == expected
    # What the operator console shows: the status and the transaction as the node reports them.
    status, shown = await reads.transaction_view(str(sig))
    assert status is not None and '"confirmationStatus":"finalized"' in status
    assert shown is not None and str(sig) in shown and str(dst) in shown
    assert await reads.transaction_view(str(Signature.default())) == (None, None)


async def test_a_lookup_table_from_a_slot_not_recent_is_refused(client: AsyncClient) -> None:
    """The SlotHashes check is real: a slot that is not among the recent ones fails, as on a
    validator ("is not a recent slot")."""
    payer = await funded_wallet(client, SOL)
    future = (await client.get_slot(Processed)).value + 10_000
    table, bump = derive_lookup_table_address(payer.pubkey(), future)
    create = _alt_ix(0, table, payer.pubkey(), struct.pack("<QB", future, bump))
    blockhash = (await client.get_latest_blockhash(Processed)).value.blockhash
    message = MessageV0.try_compile(payer.pubkey(), [create], [], blockhash)
    raw = base64.b64encode(bytes(VersionedTransaction(message, [payer]))).decode()
    sim = await _result(client, "simulateTransaction", raw, {"encoding": "base64"})
    assert sim["value"]["err"] is not None
    assert any("is not a recent slot" in line for line in sim["value"]["logs"])
    # Confirmed (so at least one slot old) is recent: the same instruction succeeds.
    recent = (await client.get_slot(Confirmed)).value
    table, bump = derive_lookup_table_address(payer.pubkey(), recent)
    create = _alt_ix(0, table, payer.pubkey(), struct.pack("<QB", recent, bump))
    seen = await wait_status(client, await send(client, [create], [payer]), "confirmed")
    assert seen["confirmed"].err is None  # type: ignore[attr-defined]
