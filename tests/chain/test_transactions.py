"""The one parser of a transaction's token balance changes (chain/transactions.py), on bodies in
the shapes the JSON-RPC spec gives: static keys, lookup-table keys, jsonParsed keys, and both
nestings the clients produce. The node's own answers are checked in test_node_blocks.py."""

from __future__ import annotations

from typing import Any

import pytest

from chain.transactions import chain_tx, token_changes

TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
TOKEN_2022 = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"
PAYER, PROGRAM, STATIC_ACC = (
    "Payer1111111111111111111111111111",
    TOKEN,
    "Static11111111111111111111111111",
)
LOADED_W, LOADED_R = "LoadedW1111111111111111111111111", "LoadedR1111111111111111111111111"


def _balance(index: int, amount: int, mint: str = "MintA", program: str = TOKEN) -> dict[str, Any]:
    return {
        "accountIndex": index,
        "mint": mint,
        "owner": f"owner{index}",
        "programId": program,
        "uiTokenAmount": {"amount": str(amount), "decimals": 6, "uiAmountString": "0"},
    }


def _meta(pre: list[Any], post: list[Any], loaded: dict[str, list[str]] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"err": None, "fee": 5000, "preTokenBalances": pre}
    meta["postTokenBalances"] = post
    if loaded is not None:
        meta["loadedAddresses"] = loaded
    return meta


def _block_entry(keys: list[Any], meta: dict[str, Any]) -> dict[str, Any]:
    """A getBlock entry: {"transaction": {"signatures", "message"}, "meta"}."""
    return {"transaction": {"signatures": ["sig1"], "message": {"accountKeys": keys}}, "meta": meta}


def test_static_keys() -> None:
    meta = _meta([_balance(2, 10)], [_balance(2, 7)], {"writable": [], "readonly": []})
    (change,) = token_changes(_block_entry([PAYER, PROGRAM, STATIC_ACC], meta))
    assert (change.account, change.pre, change.post, change.delta) == (STATIC_ACC, 10, 7, -3)
    assert change.owner == "owner2" and change.program_id == TOKEN


def test_lookup_table_accounts_count_writable_then_readonly() -> None:
    """accountIndex runs over static keys, then loadedAddresses.writable, then .readonly."""
    meta = _meta(
        [_balance(2, 0), _balance(3, 5, "MintB", TOKEN_2022), _balance(4, 1)],
        [_balance(2, 4), _balance(3, 1, "MintB", TOKEN_2022), _balance(4, 1)],
        {"writable": [STATIC_ACC, LOADED_W], "readonly": [LOADED_R]},
    )
    changes = {c.account: c for c in token_changes(_block_entry([PAYER, PROGRAM], meta))}
    assert changes[STATIC_ACC].delta == 4
    assert (changes[LOADED_W].delta, changes[LOADED_W].mint) == (-4, "MintB")
    assert changes[LOADED_W].program_id == TOKEN_2022
    assert changes[LOADED_R].delta == 0


def test_json_parsed_keys_already_list_the_loaded_addresses() -> None:
    keys = [
        {"pubkey": PAYER, "signer": True, "writable": True, "source": "transaction"},
        {"pubkey": PROGRAM, "signer": False, "writable": False, "source": "transaction"},
        {"pubkey": LOADED_W, "signer": False, "writable": True, "source": "lookupTable"},
    ]
    meta = _meta([_balance(2, 0)], [_balance(2, 9)], {"writable": [LOADED_W], "readonly": []})
    (change,) = token_changes(_block_entry(keys, meta))
    assert (change.account, change.delta) == (LOADED_W, 9)


def test_get_transaction_nesting_and_chain_tx() -> None:
    """A getTransaction answer is a block entry with its slot and block time beside it."""
    meta = _meta([], [_balance(1, 3)], None)
    body = {  # a getTransaction answer
        "slot": 42,
        "blockTime": 1_700_000_000,
        "transaction": {"signatures": ["sigX"], "message": {"accountKeys": [PAYER, LOADED_W]}},
        "meta": meta,
    }
    tx = chain_tx(body)
    assert (tx.signature, tx.slot, tx.block_time, tx.fee, tx.err) == (
        "sigX", 42, 1_700_000_000, 5000, None,
    )  # fmt: skip
    assert tx.deltas() == {LOADED_W: 3}


def test_a_balance_beyond_the_keys_is_refused_not_misattributed() -> None:
    """An index no key answers for (a node that omits loadedAddresses) must not be guessed."""
    meta = _meta([], [_balance(3, 1)], None)
    with pytest.raises(ValueError, match="beyond"):
        token_changes(_block_entry([PAYER, PROGRAM], meta))
