"""A transaction as the JSON-RPC returns it, read once: the one parser of its account keys and
of its token balance changes, for receipts, deposits and history alike.

``getTransaction`` and every entry of ``getBlock`` carry ``meta.preTokenBalances`` and
``meta.postTokenBalances``, each entry naming an ``accountIndex``. That index runs over the
message's static ``accountKeys``, then the addresses a version-0 message loaded from lookup
tables: ``meta.loadedAddresses.writable``, then ``meta.loadedAddresses.readonly``. An account
that came from a lookup table is as real as a static one: a deposit through it is a deposit.
(With ``jsonParsed`` the node already lists the loaded keys in ``accountKeys``, each with its
``source``; then they are not appended twice.)

Pure code, no I/O: ``chain/reads.py`` fetches, this reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TokenBalanceChange:
    """One token account's balance before and after a transaction, in its mint's base units."""

    account: str
    mint: str
    owner: str | None
    program_id: str | None  # SPL Token or Token-2022 (absent from some old nodes' answers)
    pre: int
    post: int

    @property
    def delta(self) -> int:
        return self.post - self.pre


@dataclass(frozen=True)
class ChainTx:
    """One landed transaction: where it landed, whether it failed, what it moved."""

    signature: str
    slot: int
    block_time: int | None
    err: Any
    fee: int | None
    token_changes: tuple[TokenBalanceChange, ...]
    confirmation_status: str | None = None

    def deltas(self) -> dict[str, int]:
        """account address -> net token change (post - pre)."""
        return {c.account: c.delta for c in self.token_changes}


def parts(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the encoded transaction {"signatures", "message"}, meta) of a transaction body as the
    RPC nests it, a getBlock entry ``{"transaction", "meta"}`` and a getTransaction answer
    ``{"slot", "transaction", "meta", "blockTime"}`` alike."""
    encoded = body.get("transaction") or {}
    if not isinstance(encoded, dict):
        raise ValueError("the transaction is not JSON-encoded (ask for encoding json)")
    return encoded, body.get("meta") or {}


def account_keys(message: dict[str, Any], meta: dict[str, Any]) -> list[str]:
    """Every account of the transaction in ``accountIndex`` order: static keys, then the
    lookup tables' writable and readonly addresses."""
    raw = message.get("accountKeys") or []
    keys = [k if isinstance(k, str) else str(k.get("pubkey", "")) for k in raw]
    if any(isinstance(k, dict) and "source" in k for k in raw):
        return keys  # jsonParsed: the loaded addresses are listed already
    loaded = meta.get("loadedAddresses") or {}
    return keys + list(loaded.get("writable") or []) + list(loaded.get("readonly") or [])


def token_changes(body: dict[str, Any]) -> tuple[TokenBalanceChange, ...]:
    """Every token account whose balance the transaction lists, in account order."""
    encoded, meta = parts(body)
    # transactionDetails "accounts" lists the keys beside the signatures, without a message.
    keys = account_keys(encoded.get("message") or encoded, meta)
    pre = {b["accountIndex"]: b for b in meta.get("preTokenBalances") or []}
    post = {b["accountIndex"]: b for b in meta.get("postTokenBalances") or []}
    changes = []
    for index in sorted(set(pre) | set(post)):
        if index >= len(keys):
            raise ValueError(f"token balance of account {index}, beyond the transaction's keys")
        ref = post.get(index) or pre[index]
        changes.append(
            TokenBalanceChange(
                account=keys[index],
                mint=ref["mint"],
                owner=ref.get("owner"),
                program_id=ref.get("programId"),
                pre=int(pre[index]["uiTokenAmount"]["amount"]) if index in pre else 0,
                post=int(post[index]["uiTokenAmount"]["amount"]) if index in post else 0,
            )
        )
    return tuple(changes)


def chain_tx(body: dict[str, Any], signature: str | None = None) -> ChainTx:
    """A transaction body (either nesting) as a ``ChainTx``."""
    encoded, meta = parts(body)
    signatures = encoded.get("signatures") or []
    sig = signature or (str(signatures[0]) if signatures else "")
    return ChainTx(
        signature=sig,
        slot=int(body.get("slot") or 0),
        block_time=body.get("blockTime"),
        err=meta.get("err"),
        fee=meta.get("fee"),
        token_changes=token_changes(body),
    )
