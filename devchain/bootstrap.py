"""Bring a real cluster (e.g. `solana-test-validator`) to the state the local node's genesis
creates: the MCC and MCD mints at the keys' addresses, with the gateway's mint authority, each
with its own decimals and token program (``devchain.mints.dev_mints``, the genesis's rule).

Idempotent: an existing mint is checked, never recreated. Each creation goes through the
chain gateway, so it is exactly once like every other chain write.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from solders.system_program import CreateAccountParams, create_account
from spl.token.constants import MINT_LEN
from spl.token.instructions import initialize_mint2
from spl.token.models import InitializeMint2Params

from chain.gateway import ChainGateway
from devchain.mints import MintSpec

log = logging.getLogger("mccgw.chain")

MIN_FEE_PAYER_LAMPORTS = 1_000_000_000  # 1 SOL keeps a dev cluster going for a long while


@dataclass(frozen=True)
class MintState:
    currency: str
    address: str
    created: bool


async def _fund_fee_payer(gateway: ChainGateway) -> None:
    payer = gateway.keys.fee_payer.pubkey()
    if await gateway.sol_balance(payer) >= MIN_FEE_PAYER_LAMPORTS:
        return
    # Only development clusters have a faucet; elsewhere an operator funds the fee payer.
    log.info("airdropping SOL to the fee payer %s", payer)
    await gateway.airdrop(payer, 10 * MIN_FEE_PAYER_LAMPORTS)


async def ensure_mints(gateway: ChainGateway, mints: Sequence[MintSpec]) -> list[MintState]:
    """Create whichever of ``mints`` is missing; refuse a mint of another shape (authority,
    decimals or owner program).

    The gateway must hold the mint keypairs as extra signers (account creation needs them).
    """
    keys = gateway.keys
    mint_keys = {"MCC": keys.mcc_mint, "MCD": keys.mcd_mint}
    states: list[MintState] = []
    for spec in mints:
        currency = spec.currency
        mint = mint_keys[currency].pubkey()
        info = await gateway.mint_info(mint)
        if info is not None:
            authority, mint_decimals = info
            account = await gateway.account(mint, gateway.settings.chain_commitment)
            owner = account.owner if account is not None else None
            expected = (keys.mint_authority.pubkey(), spec.decimals, spec.program)
            if (authority, mint_decimals, owner) != expected:
                raise RuntimeError(
                    f"{currency} mint {mint} exists with authority {authority}, "
                    f"{mint_decimals} decimals and owner {owner}; expected {expected[0]}, "
                    f"{spec.decimals} and {spec.program}"
                )
            states.append(MintState(currency, str(mint), created=False))
            continue
        await _fund_fee_payer(gateway)
        rent = await gateway.rent_exemption(MINT_LEN)
        instructions = [
            create_account(
                CreateAccountParams(
                    from_pubkey=keys.fee_payer.pubkey(),
                    to_pubkey=mint,
                    lamports=rent,
                    space=MINT_LEN,
                    owner=spec.program,
                )
            ),
            initialize_mint2(
                InitializeMint2Params(
                    decimals=spec.decimals,
                    program_id=spec.program,
                    mint=mint,
                    mint_authority=keys.mint_authority.pubkey(),
                    freeze_authority=None,
                )
            ),
        ]
        write = await gateway.submit(f"mint-init:{mint}", instructions, kind="mint_init")
        (await gateway.await_final(write.op_key)).raise_for_failure()
        log.info(
            "created the %s mint %s (%d decimals, %s)", currency, mint, spec.decimals, spec.program
        )
        states.append(MintState(currency, str(mint), created=True))
    return states
