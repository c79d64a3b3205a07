"""The local chain's ecosystem accounts: created at genesis, added on restart to a chain made
before they existed, never overwritten once a program has changed them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from solders.account import Account
from solders.pubkey import Pubkey

from chain import reincarnation as rn
from chain import whitelist as wl
from chain.keys import load_or_create_keys
from devchain.node.ecosystem import MCD_TOKEN_PROGRAM_ID, REINCARNATION_PROGRAM_ID
from devchain.node.genesis import open_chain

POOL = rn.reincarnation_pool_address(REINCARNATION_PROGRAM_ID)
CONFIG = wl.find_config_pda(MCD_TOKEN_PROGRAM_ID)[0]


def test_genesis_then_restart_adds_what_is_missing_and_keeps_the_rest(tmp_path: Path) -> None:
    keys = load_or_create_keys(tmp_path / "keys")
    chain = open_chain(tmp_path / "data", tmp_path / "keys")
    pool_account = chain.get_account(POOL)
    config_account = chain.get_account(CONFIG)
    assert pool_account is not None and pool_account.owner == REINCARNATION_PROGRAM_ID
    assert config_account is not None and config_account.owner == MCD_TOKEN_PROGRAM_ID
    assert rn.decode_reincarnation_pool(bytes(pool_account.data)).authority == (
        keys.price_authority.pubkey()
    )
    assert wl.decode_config(bytes(config_account.data)).authority == (
        keys.whitelist_authority.pubkey()
    )
    for program in (MCD_TOKEN_PROGRAM_ID, REINCARNATION_PROGRAM_ID):
        loaded = chain.svm.get_account(program)
        assert loaded is not None and loaded.executable

    # A chain from before the config existed, and a pool the program has changed since.
    chain.set_account(CONFIG, Account(0, b"", Pubkey.default(), False, 0))
    changed = rn.decode_reincarnation_pool(bytes(pool_account.data))
    moved = dataclasses.replace(changed, base_price=12_345_678)
    data = rn.encode_reincarnation_pool(moved)
    chain.set_account(
        POOL, Account(pool_account.lamports, data, REINCARNATION_PROGRAM_ID, False, 0)
    )
    chain.close()

    again = open_chain(tmp_path / "data", tmp_path / "keys")
    restored = again.get_account(CONFIG)
    assert restored is not None and restored.owner == MCD_TOKEN_PROGRAM_ID
    kept = again.get_account(POOL)
    assert kept is not None
    assert rn.decode_reincarnation_pool(bytes(kept.data)).base_price == 12_345_678
    again.close()
