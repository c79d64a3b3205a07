"""Transactions: sendTransaction, simulateTransaction, requestAirdrop, getSignatureStatuses,
getTransaction and getSignaturesForAddress."""

from __future__ import annotations

import base64
from typing import Any

from solders.transaction import VersionedTransaction

from devchain.node.codec import b58decode
from devchain.node.rpc.dispatch import Params, Rpc, invalid, method
from devchain.node.rpc.encoding import encode_account, encode_tx
from devchain.node.rpc.params import (
    arg,
    at_least_confirmed,
    commitment,
    config,
    pubkey,
    signature,
)
from devchain.node.svm import Commitment, RpcError

MAX_SIGNATURE_STATUSES = 256
MAX_SIGNATURES_FOR_ADDRESS = 1000
PACKET_DATA_SIZE = 1232


def decode_tx(value: Any, encoding: str) -> VersionedTransaction:
    if not isinstance(value, str):
        raise invalid("transaction must be an encoded string")
    try:
        if encoding == "base64":
            raw = base64.b64decode(value, validate=True)
        elif encoding == "base58":
            raw = b58decode(value)
        else:
            raise invalid(f"unsupported encoding: {encoding}")
        if len(raw) > PACKET_DATA_SIZE:
            # As a real validator answers: a transaction must fit one packet.
            raise invalid(
                f"{encoding} encoded solana_sdk::transaction::versioned::VersionedTransaction too "
                f"large: {len(raw)} bytes (max: {PACKET_DATA_SIZE} bytes)"
            )
        return VersionedTransaction.from_bytes(raw)
    except RpcError:
        raise
    except Exception as exc:
        raise invalid(f"failed to deserialize transaction: {exc}") from exc


@method("sendTransaction")
def send_transaction(rpc: Rpc, params: Params) -> Any:
    cfg = config(params, 1)
    tx = decode_tx(arg(params, 0), cfg.get("encoding") or "base58")
    return rpc.chain.send(tx, skip_preflight=bool(cfg.get("skipPreflight", False)))


@method("simulateTransaction")
def simulate_transaction(rpc: Rpc, params: Params) -> Any:
    cfg = config(params, 1)
    c = commitment(cfg)
    tx = decode_tx(arg(params, 0), cfg.get("encoding") or "base58")
    sig_verify = bool(cfg.get("sigVerify", False))
    replace = bool(cfg.get("replaceRecentBlockhash", False))
    if sig_verify and replace:
        raise invalid("sigVerify may not be used with replaceRecentBlockhash")
    if sig_verify:
        rpc.chain.check_transaction(tx)
    replacement = None
    if replace:
        # LiteSVM does not look at the blockhash: replacing it = skipping our check.
        blockhash, last_valid = rpc.chain.latest_blockhash(Commitment.PROCESSED)
        replacement = {"blockhash": blockhash, "lastValidBlockHeight": last_valid}
    sim = rpc.chain.simulate(tx, check_blockhash=not replace)
    result = sim.result()
    result["replacementBlockhash"] = replacement
    if cfg.get("innerInstructions"):
        result["innerInstructions"] = sim.inner
    if (wanted := cfg.get("accounts")) is not None:
        addrs = wanted.get("addresses") or []
        acfg = {"encoding": wanted.get("encoding", "base64")}
        result["accounts"] = [
            encode_account(
                rpc.chain,
                sim.post_accounts.get(k) or rpc.chain.get_account(k),
                acfg,
                Commitment.PROCESSED,
            )
            for k in map(pubkey, addrs)
        ]
    return rpc.ctx(c, result)


@method("requestAirdrop")
def request_airdrop(rpc: Rpc, params: Params) -> Any:
    key = pubkey(arg(params, 0))
    lamports = arg(params, 1)
    if not isinstance(lamports, int) or isinstance(lamports, bool) or lamports <= 0:
        raise invalid("lamports must be a positive integer")
    return rpc.chain.airdrop(key, lamports)


@method("getSignatureStatuses")
def get_signature_statuses(rpc: Rpc, params: Params) -> Any:
    sigs = arg(params, 0)
    if not isinstance(sigs, list) or len(sigs) > MAX_SIGNATURE_STATUSES:
        raise invalid(f"expected a list of at most {MAX_SIGNATURE_STATUSES} signatures")
    search = bool(config(params, 1).get("searchTransactionHistory", False))
    value = [rpc.chain.signature_status(signature(s), search) for s in sigs]
    return rpc.ctx(Commitment.PROCESSED, value)


@method("getTransaction")
def get_transaction(rpc: Rpc, params: Params) -> Any:
    sig = signature(arg(params, 0))
    if len(params) > 1 and isinstance(params[1], str):  # legacy form: [sig, "json"]
        cfg: dict[str, Any] = {"encoding": params[1]}
    else:
        cfg = config(params, 1)
    rec = rpc.chain.get_tx(sig, at_least_confirmed(cfg))
    return None if rec is None else encode_tx(rec, cfg)


@method("getSignaturesForAddress")
def get_signatures_for_address(rpc: Rpc, params: Params) -> Any:
    address = str(pubkey(arg(params, 0)))
    cfg = config(params, 1)
    c = at_least_confirmed(cfg)
    limit = cfg.get("limit") or MAX_SIGNATURES_FOR_ADDRESS
    if not isinstance(limit, int) or not 1 <= limit <= MAX_SIGNATURES_FOR_ADDRESS:
        raise invalid("Invalid limit; max 1000")

    def seq_of(name: str) -> int | None:
        if cfg.get(name) is None:
            return None
        seq = rpc.chain.tx_seq(signature(cfg[name]))
        if seq is None:
            raise invalid(f"Invalid param: unknown `{name}` signature")
        return seq

    rows = rpc.chain.signatures_for_address(address, seq_of("before"), seq_of("until"), limit, c)
    out = []
    for r in rows:
        _, status = rpc.chain.confirmation(r["slot"])
        out.append(
            {
                "signature": r["signature"],
                "slot": r["slot"],
                "err": r["err"],
                "memo": r.get("memo"),
                "blockTime": r["blockTime"],
                "confirmationStatus": status,
            }
        )
    return out
