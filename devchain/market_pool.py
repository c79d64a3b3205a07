"""A development MCC/USDC market pool: a USDC-like mint (6 decimals) and the pool's two vault
token accounts, made with real SPL transactions on a development chain.

The oracle's market source reads only the two vault balances (settings
``MARKET_POOL_MCC_VAULT`` / ``MARKET_POOL_USDC_VAULT``), as it would a real pool's vaults. The
vaults are the pool owner's associated token accounts, so their addresses follow from the two
keypairs. Idempotent: a step whose result is on chain already is skipped.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.system_program import CreateAccountParams, create_account
from spl.token.constants import MINT_LEN, TOKEN_PROGRAM_ID
from spl.token.instructions import (
    create_idempotent_associated_token_account,
    get_associated_token_address,
    initialize_mint2,
    mint_to,
)
from spl.token.models import InitializeMint2Params, MintToParams

from chain.gateway import ChainGateway
from devchain.outside import OutsideWallet

USDC_DECIMALS = 6


@dataclass(frozen=True)
class MarketPool:
    usdc_mint: str
    mcc_vault: str
    usdc_vault: str


async def ensure_market_pool(
    gateway: ChainGateway,
    creator: OutsideWallet,
    usdc_mint: Keypair,
    pool_owner: Pubkey,
    *,
    mcc_amount: int,
    usdc_amount: int,
) -> MarketPool:
    """Create the pool if missing: price = usdc_amount / mcc_amount (in whole tokens)."""
    mint = usdc_mint.pubkey()
    mcc = gateway.keys.mint_for("MCC")
    mcc_vault = get_associated_token_address(pool_owner, mcc)
    usdc_vault = get_associated_token_address(pool_owner, mint)
    await creator.ensure_sol(gateway)
    # The two sides are independent transactions: both finalize in the same wait.
    await asyncio.gather(
        _usdc_side(gateway, creator, usdc_mint, pool_owner, usdc_vault, usdc_amount),
        # The MCC side: minted by the gateway's mint authority straight into the MCC vault.
        creator.receive_minted(
            gateway, "MCC", mcc_amount, f"market-pool:{mcc_vault}", owner=pool_owner
        ),
    )
    return MarketPool(str(mint), str(mcc_vault), str(usdc_vault))


async def _usdc_side(
    gateway: ChainGateway,
    creator: OutsideWallet,
    usdc_mint: Keypair,
    pool_owner: Pubkey,
    usdc_vault: Pubkey,
    usdc_amount: int,
) -> None:
    """The USDC-like mint and the pool's USDC vault holding ``usdc_amount``: one transaction
    on a new chain (each step is skipped when its result is on chain already)."""
    mint = usdc_mint.pubkey()
    instructions = []
    signers: tuple[Keypair, ...] = ()
    if await gateway.mint_info(mint, "confirmed") is None:
        rent = await gateway.rent_exemption(MINT_LEN)
        instructions += [
            create_account(
                CreateAccountParams(
                    from_pubkey=creator.address, to_pubkey=mint, lamports=rent,
                    space=MINT_LEN, owner=TOKEN_PROGRAM_ID,
                )
            ),
            initialize_mint2(
                InitializeMint2Params(
                    decimals=USDC_DECIMALS, program_id=TOKEN_PROGRAM_ID, mint=mint,
                    mint_authority=creator.address, freeze_authority=None,
                )
            ),
        ]  # fmt: skip
        signers = (usdc_mint,)
    if await gateway.token_balance(usdc_vault, "confirmed") == 0:
        instructions += [
            create_idempotent_associated_token_account(creator.address, pool_owner, mint),
            mint_to(
                MintToParams(
                    program_id=TOKEN_PROGRAM_ID, mint=mint, dest=usdc_vault,
                    mint_authority=creator.address, amount=usdc_amount,
                )
            ),
        ]  # fmt: skip
    if instructions:
        await creator.send_instructions(instructions, signers=signers)
