"""The local chain node, driven only through solana-py's AsyncClient (plus raw HTTP for the
JSON-RPC error cases a typed client cannot produce)."""

from __future__ import annotations

import asyncio
from typing import Any

from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Confirmed, Finalized, Processed
from solana.rpc.models import TokenAccountOpts
from solders.hash import Hash
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.system_program import TransferParams as SolTransfer
from solders.system_program import transfer as sol_transfer
from solders.transaction_status import TransactionConfirmationStatus
from spl.token.constants import TOKEN_PROGRAM_ID
from spl.token.instructions import (
    transfer_checked,
)
from spl.token.models import TransferCheckedParams

from chain.cluster import MAINNET_PROGRAM_IDS
from chain.keys import ChainKeys
from tests.chain.node_support import (  # noqa: F401  (fixtures)
    SOL,
    blockhash_valid,
    client_fixture,
    funded_wallet,
    keys_fixture,
    rpc_raw,
    send,
    token_account,
    wait_status,
)

# -- cluster basics ------------------------------------------------------------------------


async def test_health_version_and_slots_advance(client: AsyncClient) -> None:
    assert (await client.is_connected()) is True
    assert (await client.get_version()).value.solana_core
    s1 = (await client.get_slot(Processed)).value
    await asyncio.sleep(0.1)
    s2 = (await client.get_slot(Processed)).value
    assert s2 > s1
    # One batch, answered at one slot: three calls in a row may straddle slots on a loaded
    # machine (a finalized height read last may pass a processed one read first).
    status, answers = await rpc_raw(
        str(client._provider.endpoint_uri),
        [
            {"jsonrpc": "2.0", "id": i, "method": "getBlockHeight", "params": [{"commitment": c}]}
            for i, c in enumerate(("processed", "confirmed", "finalized"))
        ],
    )
    assert status == 200 and isinstance(answers, list)
    processed, confirmed, finalized = (a["result"] for a in sorted(answers, key=lambda a: a["id"]))
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
