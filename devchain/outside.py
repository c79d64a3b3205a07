"""A wallet that is NOT the gateway: the dev stack's faucet, and tests' outside senders.

Its transfers are signed by its own key and sent straight to the RPC (never through the chain
gateway), so to the deposit watcher they are what a user's own wallet sending tokens is.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from dataclasses import dataclass
from typing import Any

from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Commitment
from solana.rpc.models import TxOpts
from solders.compute_budget import set_compute_unit_price
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction
from spl.token.constants import TOKEN_PROGRAM_ID
from spl.token.instructions import (
    create_idempotent_associated_token_account,
    get_associated_token_address,
    mint_to,
    transfer_checked,
)
from spl.token.models import MintToParams, TransferCheckedParams

from chain.errors import ChainRejected, ChainTimeout
from chain.gateway import ChainGateway
from chain.rpc import ChainRpc

# micro-lamports a compute unit: above the congested weather's market (devchain/node/weather.py)
WALLET_CU_PRICE = 20_000

_RAW_SEND = {"encoding": "base64", "skipPreflight": True}
_LEVELS = ("processed", "confirmed", "finalized")


@dataclass
class OutsideWallet:
    keypair: Keypair
    client: AsyncClient

    @property
    def address(self) -> Pubkey:
        return self.keypair.pubkey()

    def token_account(self, mint: Pubkey, program: Pubkey = TOKEN_PROGRAM_ID) -> Pubkey:
        """This wallet's associated token account of ``mint`` (owned by ``program``)."""
        return get_associated_token_address(self.address, mint, program)

    async def ensure_sol(
        self, gateway: ChainGateway, lamports: int = 10**9, *, wait: str | None = None
    ) -> None:
        """Airdrop ``lamports`` unless the wallet holds half of it; the airdrop is awaited at
        the gateway's commitment, or at ``wait`` (e.g. "confirmed": enough for this wallet to
        pay a fee in the next slot, no finality wait)."""
        if await gateway.sol_balance(self.address, "confirmed") >= lamports // 2:
            return
        if wait is None:
            await gateway.airdrop(self.address, lamports)
            return
        resp = await self.client.request_airdrop(self.address, lamports)
        signature = str(resp.value)
        await self.wait_for(signature, wait)

    async def receive_minted(
        self,
        gateway: ChainGateway,
        currency: str,
        amount: int,
        op_key: str,
        owner: Pubkey | None = None,
    ) -> str:
        """The gateway mints ``amount`` of MCC/MCD into this wallet's token account (or
        ``owner``'s; one gateway write, exactly once per ``op_key``); returns its signature."""
        await gateway.load_token_decimals()  # the mint's token program
        mint = gateway.keys.mint_for(currency)
        program = gateway.keys.token_program(currency)
        payer = gateway.keys.fee_payer.pubkey()
        owner = owner or self.address
        ata = get_associated_token_address(owner, mint, program)
        instructions = [
            create_idempotent_associated_token_account(payer, owner, mint, program),
            mint_to(
                MintToParams(
                    program_id=program,
                    mint=mint,
                    dest=ata,
                    mint_authority=gateway.keys.mint_authority.pubkey(),
                    amount=amount,
                )
            ),
        ]
        await gateway.submit(op_key, instructions, kind="outside_mint")
        write = (await gateway.await_final(op_key)).raise_for_failure()
        return write.signature

    async def send_instructions(
        self,
        instructions: list[Instruction],
        signers: tuple[Keypair, ...] = (),
        timeout: float = 60.0,  # noqa: ASYNC109
        *,
        commitment: str = "finalized",
    ) -> str:
        """Sign (this wallet pays), send, and wait for ``commitment``; raises ChainRejected
        if it landed with an error."""
        blockhash = (await self.client.get_latest_blockhash(Commitment("confirmed"))).value
        # As a wallet sends on a busy cluster: a priority fee (the node's weather holds cheaper
        # sends back), and the same bytes again every 2 s until they land (sends get dropped).
        priced = [*instructions, set_compute_unit_price(WALLET_CU_PRICE)]
        message = Message.new_with_blockhash(priced, self.address, blockhash.blockhash)
        tx = VersionedTransaction(message, [self.keypair, *signers])
        signature = str(tx.signatures[0])
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            with contextlib.suppress(Exception):  # a 429 or a dropped connection: send again
                await self.client.send_raw_transaction(bytes(tx), TxOpts(skip_preflight=True))
            try:
                await self.wait_for(signature, commitment, min(2.0, deadline - loop.time()))
                return signature
            except ChainTimeout:
                if loop.time() >= deadline:
                    raise

    async def wait_for(
        self,
        signature: str,
        commitment: str = "finalized",
        timeout: float = 60.0,  # noqa: ASYNC109
    ) -> None:
        """Wait until ``signature`` reaches ``commitment`` (processed, confirmed or
        finalized); raises ChainRejected if it landed with an error."""
        sig = Signature.from_string(signature)
        wanted = _LEVELS.index(commitment)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            status = (await self.client.get_signature_statuses([sig], True)).value[0]
            level = str(status.confirmation_status).rsplit(".", 1)[-1].lower() if status else ""
            if level in _LEVELS and _LEVELS.index(level) >= wanted:
                assert status is not None
                if status.err is not None:
                    raise ChainRejected(f"outside:{signature}", str(status.err), signature)
                return
            await asyncio.sleep(0.05)
        raise ChainTimeout(f"{signature} not {commitment} after {timeout:.0f}s")

    async def send_many(self, messages: list[list[Instruction]], rpc_url: str) -> list[str]:
        """Sign one transaction per instruction list (this wallet pays; each must differ) and
        send them all in JSON-RPC batches of 100, without waiting: a flood, as anyone can send
        one. Returns their signatures; wait for the last with ``wait_finalized``."""
        txs: list[VersionedTransaction] = []
        async with ChainRpc(rpc_url) as rpc:
            for start in range(0, len(messages), 100):
                # A fresh blockhash per batch: a flood outlasts one (150 slots).
                latest = await self.client.get_latest_blockhash(Commitment("confirmed"))
                batch = [
                    VersionedTransaction(
                        Message.new_with_blockhash(ixs, self.address, latest.value.blockhash),
                        [self.keypair],
                    )
                    for ixs in messages[start : start + 100]
                ]
                txs += batch
                calls: list[list[Any]] = [
                    [base64.b64encode(bytes(tx)).decode(), _RAW_SEND] for tx in batch
                ]
                for answer in await rpc.batch("sendTransaction", calls):
                    if answer.get("error") is not None:
                        raise ChainRejected("outside:flood", answer["error"], None)
        return [str(tx.signatures[0]) for tx in txs]

    async def wait_finalized(self, signature: str, timeout: float = 120.0) -> None:  # noqa: ASYNC109
        sig = Signature.from_string(signature)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            status = (await self.client.get_signature_statuses([sig], True)).value[0]
            if status is not None and str(status.confirmation_status).endswith("Finalized"):
                return
            await asyncio.sleep(0.05)
        raise ChainTimeout(f"{signature} not finalized after {timeout:.0f}s")

    async def send_tokens(
        self,
        mint: Pubkey,
        dest: Pubkey,
        amount: int,
        decimals: int,
        program: Pubkey = TOKEN_PROGRAM_ID,
    ) -> str:
        """``transfer_checked`` from this wallet's token account of ``mint`` to ``dest``."""
        return await self.send_instructions(
            [self.transfer_instruction(mint, dest, amount, decimals, program)]
        )

    def transfer_instruction(
        self,
        mint: Pubkey,
        dest: Pubkey,
        amount: int,
        decimals: int,
        program: Pubkey = TOKEN_PROGRAM_ID,
    ) -> Instruction:
        return transfer_checked(
            TransferCheckedParams(
                program_id=program,
                source=self.token_account(mint, program),
                mint=mint,
                dest=dest,
                owner=self.address,
                amount=amount,
                decimals=decimals,
            )
        )

    async def deposit(self, gateway: ChainGateway, currency: str, dest: Pubkey, amount: int) -> str:
        """Send ``amount`` base units of ``currency`` to ``dest`` with the mint's own program
        and decimals, as a user's wallet does (e.g. to a deposit address)."""
        decimals = (await gateway.load_token_decimals()).of(currency)
        mint, program = gateway.keys.mint_for(currency), gateway.keys.token_program(currency)
        return await self.send_tokens(mint, dest, amount, decimals, program)
