"""Accounts and SPL Token reads: getBalance, getAccountInfo, getMultipleAccounts,
getProgramAccounts (filters), getTokenAccountBalance, getTokenSupply, getTokenLargestAccounts,
getTokenAccountsByOwner and getTokenAccountsByDelegate."""

from __future__ import annotations

import base64
from typing import Any

from solders.account import Account

from devchain.node import spl
from devchain.node.codec import b58decode
from devchain.node.rpc.dispatch import Params, Rpc, invalid, method
from devchain.node.rpc.encoding import encode_account, keyed
from devchain.node.rpc.params import arg, commitment, config, pubkey
from devchain.node.svm import Commitment

MAX_MULTIPLE_ACCOUNTS = 100
MAX_LARGEST_ACCOUNTS = 20


@method("getBalance")
def get_balance(rpc: Rpc, params: Params) -> Any:
    key = pubkey(arg(params, 0))
    c = commitment(config(params, 1))
    acc = rpc.chain.get_account(key, c)
    return rpc.ctx(c, 0 if acc is None else acc.lamports)


@method("getAccountInfo")
def get_account_info(rpc: Rpc, params: Params) -> Any:
    key = pubkey(arg(params, 0))
    cfg = config(params, 1)
    c = commitment(cfg)
    return rpc.ctx(c, encode_account(rpc.chain, rpc.chain.get_account(key, c), cfg, c))


@method("getMultipleAccounts")
def get_multiple_accounts(rpc: Rpc, params: Params) -> Any:
    keys = arg(params, 0)
    if not isinstance(keys, list) or len(keys) > MAX_MULTIPLE_ACCOUNTS:
        raise invalid(f"expected a list of at most {MAX_MULTIPLE_ACCOUNTS} public keys")
    cfg = config(params, 1)
    c = commitment(cfg)
    accounts = [rpc.chain.get_account(pubkey(k), c) for k in keys]
    return rpc.ctx(c, [encode_account(rpc.chain, a, cfg, c) for a in accounts])


def matches(acc: Account, filters: list[Any]) -> bool:
    """Whether an account passes getProgramAccounts' filters (dataSize, memcmp,
    tokenAccountState)."""
    data = bytes(acc.data)
    for f in filters:
        if not isinstance(f, dict):
            raise invalid("invalid filter")
        if "dataSize" in f:
            if len(data) != int(f["dataSize"]):
                return False
        elif "memcmp" in f:
            mc = f["memcmp"]
            off = int(mc["offset"])
            enc = mc.get("encoding", "base58")
            want = base64.b64decode(mc["bytes"]) if enc == "base64" else b58decode(mc["bytes"])
            if data[off : off + len(want)] != want:
                return False
        elif "tokenAccountState" in f:
            if spl.parse_token_account(acc) is None:
                return False
        else:
            raise invalid(f"unsupported filter: {f}")
    return True


@method("getProgramAccounts")
def get_program_accounts(rpc: Rpc, params: Params) -> Any:
    program = pubkey(arg(params, 0))
    cfg = config(params, 1)
    c = commitment(cfg)
    filters = cfg.get("filters") or []
    if not isinstance(filters, list):
        raise invalid("filters must be a list")
    items = [(k, a) for k, a in rpc.chain.program_accounts(program, c) if matches(a, filters)]
    value = keyed(rpc.chain, items, cfg, c)
    return rpc.ctx(c, value) if cfg.get("withContext") else value


# -- SPL Token -------------------------------------------------------------------------------


def _token_account(rpc: Rpc, params: Params) -> tuple[Commitment, spl.TokenAccount]:
    key = pubkey(arg(params, 0))
    c = commitment(config(params, 1))
    tok = spl.parse_token_account(rpc.chain.get_account(key, c))
    if tok is None:
        raise invalid("Invalid param: not a Token account")
    return c, tok


@method("getTokenAccountBalance")
def get_token_account_balance(rpc: Rpc, params: Params) -> Any:
    c, tok = _token_account(rpc, params)
    decimals = rpc.chain.decimals_of(tok.mint, c)
    if decimals is None:
        raise invalid("Invalid param: could not find mint")
    return rpc.ctx(c, spl.ui_token_amount(tok.amount, decimals))


@method("getTokenSupply")
def get_token_supply(rpc: Rpc, params: Params) -> Any:
    key = pubkey(arg(params, 0))
    c = commitment(config(params, 1))
    mint = spl.parse_mint(rpc.chain.get_account(key, c))
    if mint is None:
        raise invalid("Invalid param: not a Token mint")
    return rpc.ctx(c, spl.ui_token_amount(mint.supply, mint.decimals))


@method("getTokenLargestAccounts")
def get_token_largest_accounts(rpc: Rpc, params: Params) -> Any:
    """The 20 largest token accounts of a mint, amount descending (ties: address order)."""
    key = pubkey(arg(params, 0))
    c = commitment(config(params, 1))
    mint_acc = rpc.chain.get_account(key, c)
    mint = spl.parse_mint(mint_acc)
    if mint is None or mint_acc is None:
        raise invalid("Invalid param: not a Token mint")
    holders = []
    for k, a in rpc.chain.program_accounts(mint_acc.owner, c):
        tok = spl.parse_token_account(a)
        if tok is not None and tok.mint == key:
            holders.append((tok.amount, str(k)))
    holders.sort(key=lambda h: (-h[0], h[1]))
    value = [
        {"address": addr, **spl.ui_token_amount(amount, mint.decimals)}
        for amount, addr in holders[:MAX_LARGEST_ACCOUNTS]
    ]
    return rpc.ctx(c, value)


def _tokens_by(rpc: Rpc, params: Params, field: str) -> Any:
    key = pubkey(arg(params, 0))
    want = arg(params, 1)
    if not isinstance(want, dict) or len(want) != 1 or not ({"mint", "programId"} & set(want)):
        raise invalid("Invalid param: expected {mint} or {programId}")
    cfg = config(params, 2)
    c = commitment(cfg)
    mint = pubkey(want["mint"]) if "mint" in want else None
    if mint is not None:
        owner = rpc.chain.get_account(mint, c)
        programs = [owner.owner] if owner is not None and owner.owner in spl.TOKEN_PROGRAMS else []
        if not programs:
            raise invalid("Invalid param: could not find mint")
    else:
        program = pubkey(want["programId"])
        if program not in spl.TOKEN_PROGRAMS:
            raise invalid("Invalid param: unrecognized Token program id")
        programs = [program]
    items = []
    for program in programs:
        for k, a in rpc.chain.program_accounts(program, c):
            tok = spl.parse_token_account(a)
            if tok is None or getattr(tok, field) != key or (mint and tok.mint != mint):
                continue
            items.append((k, a))
    return rpc.ctx(c, keyed(rpc.chain, items, cfg, c))


@method("getTokenAccountsByOwner")
def get_token_accounts_by_owner(rpc: Rpc, params: Params) -> Any:
    return _tokens_by(rpc, params, "owner")


@method("getTokenAccountsByDelegate")
def get_token_accounts_by_delegate(rpc: Rpc, params: Params) -> Any:
    return _tokens_by(rpc, params, "delegate")
