"""The gateway's chain keypairs, kept as Solana CLI JSON files in one directory.

The local node reads them at genesis (it creates the mints at these ids and makes the
authority keys the authorities of McdConfig and the ReincarnationPool); the chain gateway
signs with them. Missing files are generated on first use, so a fresh machine needs nothing
by hand. The directory is git-ignored.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solders.keypair import Keypair
from solders.pubkey import Pubkey
from spl.token.constants import TOKEN_PROGRAM_ID

KEY_NAMES = (
    "fee_payer",  # pays fees and rent for every gateway transaction
    "mint_authority",  # MCC/MCD mint authority (mining rewards are mint_to)
    "custody_authority",  # owner of every custody token account
    "whitelist_authority",  # the only signer allowed to change the MCD whitelist
    "price_authority",  # authority of the ReincarnationPool: signs update_price
    "mcc_mint",
    "mcd_mint",
)


def read_keypair(path: Path) -> Keypair:
    return Keypair.from_bytes(bytes(json.loads(path.read_text())))


def write_keypair(path: Path, keypair: Keypair) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(list(bytes(keypair))))
    os.chmod(tmp, 0o600)
    tmp.replace(path)  # atomic: a crash never leaves half a key


@dataclass(frozen=True)
class ChainKeys:
    fee_payer: Keypair
    mint_authority: Keypair
    custody_authority: Keypair
    whitelist_authority: Keypair
    price_authority: Keypair
    mcc_mint: Keypair
    mcd_mint: Keypair
    # The cluster's mints when they are not these keypairs' (settings MCC_MINT / MCD_MINT,
    # mainnet in production): set by the chain gateway, see chain/cluster.py.
    mints: dict[str, Pubkey] = field(default_factory=dict, compare=False)
    # The token program that owns each mint (SPL Token or Token-2022), as read from the chain
    # by the gateway at start-up (chain/custody_writes.py load_token_decimals). Filled in place,
    # so every holder of these keys derives custody accounts with the right program; a
    # currency not read yet is SPL Token's.
    programs: dict[str, Pubkey] = field(default_factory=dict, compare=False)

    def mint_for(self, currency: str) -> Pubkey:
        if (configured := self.mints.get(currency.upper())) is not None:
            return configured
        match currency.upper():
            case "MCC":
                return self.mcc_mint.pubkey()
            case "MCD":
                return self.mcd_mint.pubkey()
        raise ValueError(f"unknown currency {currency!r}")

    def token_program(self, currency: str) -> Pubkey:
        """The program owning ``currency``'s mint: its token accounts and instructions."""
        return self.programs.get(currency.upper(), TOKEN_PROGRAM_ID)


def load_or_create_keys(keys_dir: Path) -> ChainKeys:
    keys_dir.mkdir(parents=True, exist_ok=True)
    loaded: dict[str, Any] = {}
    for name in KEY_NAMES:
        path = keys_dir / f"{name}.json"
        if not path.exists():
            write_keypair(path, Keypair())
        loaded[name] = read_keypair(path)
    return ChainKeys(**loaded)
