"""Fixtures and helpers of the chain node tests (``test_node*.py``): a solana-py client on the
session's node, and small builders for wallets, token accounts and raw JSON-RPC calls."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Confirmed, Processed
from solana.rpc.models import TxOpts
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
from spl.token.constants import TOKEN_PROGRAM_ID
from spl.token.instructions import (
    create_associated_token_account,
    get_associated_token_address,
    mint_to,
)
from spl.token.models import MintToParams

from chain.keys import ChainKeys, load_or_create_keys

SOL = 1_000_000_000


@pytest.fixture(scope="module", name="keys")
def keys_fixture(chain_node: tuple[str, Path]) -> ChainKeys:
    return load_or_create_keys(chain_node[1])


@pytest.fixture(name="client")
async def client_fixture(chain_node: tuple[str, Path]) -> AsyncIterator[AsyncClient]:
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


def pay(kp: Keypair, to: Pubkey, lamports: int) -> Instruction:
    return sol_transfer(SolTransfer(from_pubkey=kp.pubkey(), to_pubkey=to, lamports=lamports))
