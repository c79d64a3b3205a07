"""The local chain node, driven only through solana-py's AsyncClient (plus raw HTTP for the
JSON-RPC error cases a typed client cannot produce)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Confirmed, Finalized, Processed
from solana.rpc.models import TokenAccountOpts, TxOpts
from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
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

from chain.keys import ChainKeys, load_or_create_keys

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
            if name == level:
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
        mint_info = parsed.data.parsed["info"]  # type: ignore[union-attr]
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
    assert {"confirmed", "finalized"} <= set(seen)
    fin = seen["finalized"]
    assert fin.confirmations is None and fin.err is None  # type: ignore[attr-defined]
    if "processed" in seen:
        assert seen["processed"].confirmations == 0  # type: ignore[attr-defined]

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
    info = parsed.value[0].account.data.parsed["info"]
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
