"""Verify on chain that a finalized transaction moved exactly the expected token amounts:
the net change of every custody account it touched, from the transaction's own pre/post token
balances (never from a later balance read that other transfers may have changed)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Commitment
from solders.signature import Signature


class ReceiptMismatch(Exception):
    """The finalized transaction did not move the expected amounts."""


class ReceiptUnavailable(Exception):
    """The node could not return the transaction (yet); retry."""


def token_deltas(body: dict[str, Any]) -> dict[str, int]:
    """account address -> post - pre token amount, from a getTransaction JSON body."""
    tx = body.get("transaction") or {}
    meta = tx.get("meta") or body.get("meta") or {}
    encoded = tx.get("transaction") or tx
    message = encoded.get("message") or {}
    keys = [
        k if isinstance(k, str) else k.get("pubkey", "") for k in message.get("accountKeys", [])
    ]
    pre = {
        b["accountIndex"]: int(b["uiTokenAmount"]["amount"])
        for b in meta.get("preTokenBalances") or []
    }
    post = {
        b["accountIndex"]: int(b["uiTokenAmount"]["amount"])
        for b in meta.get("postTokenBalances") or []
    }
    deltas: dict[str, int] = {}
    for index in set(pre) | set(post):
        if index < len(keys):
            deltas[keys[index]] = post.get(index, 0) - pre.get(index, 0)
    return deltas


async def verify_receipt(
    client: AsyncClient, signature: str, expected: Mapping[str, int]
) -> dict[str, int]:
    """Raise ReceiptMismatch unless every expected account changed by exactly its amount."""
    try:
        resp = await client.get_transaction(
            Signature.from_string(signature),
            "json",
            Commitment("finalized"),
            max_supported_transaction_version=0,
        )
    except Exception as exc:  # transport errors: the caller retries
        raise ReceiptUnavailable(f"getTransaction {signature}: {exc!r}") from exc
    if resp.value is None:
        raise ReceiptUnavailable(f"transaction {signature} not found at finalized")
    body = json.loads(resp.value.to_json())
    deltas = token_deltas(body)
    wrong = {
        a: (want, deltas.get(a, 0)) for a, want in expected.items() if deltas.get(a, 0) != want
    }
    if wrong:
        detail = ", ".join(f"{a}: expected {w:+d}, saw {g:+d}" for a, (w, g) in wrong.items())
        raise ReceiptMismatch(f"transaction {signature} moved other amounts: {detail}")
    return deltas
