"""Build or restore the chain: genesis accounts from the gateway keys (funded authorities, the
MCC and MCD mints), extra `solana account --output json` files, and our programs with their
accounts at the ecosystem's ids (devchain/node/ecosystem.py)."""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path

from solders.account import Account
from solders.pubkey import Pubkey

from chain.keys import load_or_create_keys
from devchain.mints import MCC_DECIMALS, dev_mints
from devchain.node import ecosystem, spl, validator
from devchain.node.persist import Store
from devchain.node.svm import Chain

log = logging.getLogger("devchain.node")

SOL = 1_000_000_000
AUTHORITY_LAMPORTS = 1_000_000 * SOL  # "plenty": a dev stack never runs dry
FAUCET_LAMPORTS = 10_000_000_000 * SOL
# The ecosystem's read-only programs as genesis accounts (python -m devchain.fixtures).
FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"


def mint_data(authority: Pubkey, decimals: int = MCC_DECIMALS) -> bytes:
    """SPL Mint layout: COption<authority>, supply, decimals, initialized, COption<freeze>."""
    return (
        (1).to_bytes(4, "little")
        + bytes(authority)
        + (0).to_bytes(8, "little")
        + bytes([decimals, 1])
        + (0).to_bytes(4, "little")
        + bytes(32)
    )


def load_account_file(path: Path) -> tuple[Pubkey, Account]:
    doc = json.loads(path.read_text())
    acc = doc["account"]
    data, encoding = acc["data"]
    if encoding != "base64":
        raise ValueError(f"{path}: only base64 account data is supported, got {encoding}")
    return Pubkey.from_string(doc["pubkey"]), Account(
        lamports=int(acc["lamports"]),
        data=base64.b64decode(data),
        owner=Pubkey.from_string(acc["owner"]),
        executable=bool(acc.get("executable", False)),
        rent_epoch=int(acc.get("rentEpoch", 0)),
    )


def open_chain(
    data_dir: Path,
    keys_dir: Path,
    accounts_dir: Path | None = None,
    fixtures_dir: Path | None = FIXTURES_DIR,
    *,
    mcd_decimals: int = MCC_DECIMALS,
    mcd_token_2022: bool = False,
) -> Chain:
    """A fresh chain loads the fixtures first, then `accounts_dir` (a file there wins).
    The MCC and MCD mints as ``devchain.mints.dev_mints`` says (``mcd_decimals``,
    ``mcd_token_2022``), the same rule as ``mccgw chain-init``."""
    keys = load_or_create_keys(keys_dir)
    svm = Chain.new_svm()
    # Programs are reloaded on every start, so a rebuilt .so takes effect on restart.
    for program, so in ecosystem.programs().items():
        svm.add_program(program, so.read_bytes())
    store = Store(data_dir / "chain.sqlite")
    meta = store.load_meta()
    if meta is not None:
        chain = Chain.restore(svm, store, meta)
        # A chain made before an ecosystem or cluster account existed gets it now (never
        # overwritten).
        if validator.ensure_accounts(chain) + ecosystem.ensure_accounts(chain, keys):
            chain.flush(force=True)
        return chain

    chain = Chain(svm, store, Chain.fresh_meta())
    system = Pubkey.default()
    funded = [keys.fee_payer, keys.mint_authority, keys.custody_authority, keys.whitelist_authority]
    for kp in funded:
        chain.set_account(kp.pubkey(), Account(AUTHORITY_LAMPORTS, b"", system, False, 0))
    chain.set_account(chain.faucet.pubkey(), Account(FAUCET_LAMPORTS, b"", system, False, 0))
    rent = chain.minimum_balance(spl.MINT_LEN)
    mint_keys = {"MCC": keys.mcc_mint, "MCD": keys.mcd_mint}
    for spec in dev_mints(mcd_decimals, mcd_token_2022):
        data = mint_data(keys.mint_authority.pubkey(), spec.decimals)
        mint = mint_keys[spec.currency].pubkey()
        chain.set_account(mint, Account(rent, data, spec.program, False, 0))
    for extra in (fixtures_dir, accounts_dir):
        if extra is not None and extra.is_dir():
            for path in sorted(extra.glob("*.json")):
                key, acc = load_account_file(path)
                chain.set_account(key, acc)
    validator.ensure_accounts(chain)
    ecosystem.ensure_accounts(chain, keys)
    chain.flush(force=True)
    return chain
