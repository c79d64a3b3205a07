"""Result shapes shared by the families: an account in each encoding (getAccountInfo,
getProgramAccounts, simulateTransaction's accounts) and a recorded transaction as
getTransaction and getBlock answer it (json, jsonParsed, base64, base58; full or accounts)."""

from __future__ import annotations

import base64
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from devchain.node import spl
from devchain.node.codec import b58encode
from devchain.node.rpc.dispatch import invalid
from devchain.node.rpc.parsed import parse_account, parse_instruction
from devchain.node.svm import Chain, Commitment, RpcError

MAX_BASE58_BYTES = 128

# -- accounts --------------------------------------------------------------------------------


def encode_account(chain: Chain, acc: Account | None, cfg: dict[str, Any], c: Commitment) -> Any:
    if acc is None:
        return None
    data = bytes(acc.data)
    encoding = cfg.get("encoding") or "binary"
    out: dict[str, Any] = {
        "lamports": acc.lamports,
        "owner": str(acc.owner),
        "executable": acc.executable,
        "rentEpoch": acc.rent_epoch,
        "space": len(data),
    }
    if encoding == "jsonParsed":
        parsed = spl.json_parsed(acc, _decimals(chain, acc, c)) or parse_account(acc)
        if parsed is not None:
            out["data"] = parsed
            return out
        encoding = "base64"  # what the RPC does when it cannot parse
    if (ds := cfg.get("dataSlice")) is not None:
        off, length = int(ds["offset"]), int(ds["length"])
        data = data[off : off + length]
    if encoding in ("binary", "base58") and len(data) > MAX_BASE58_BYTES:
        raise RpcError(
            -32600,
            f"Encoded binary (base 58) data should be less than {MAX_BASE58_BYTES} bytes, "
            "please use Base64 encoding.",
        )
    if encoding == "base64":
        out["data"] = [base64.b64encode(data).decode(), "base64"]
    elif encoding == "base58":
        out["data"] = [b58encode(data), "base58"]
    elif encoding == "binary":
        out["data"] = b58encode(data)
    else:
        raise invalid(f"unsupported encoding: {encoding}")
    return out


def _decimals(chain: Chain, acc: Account, c: Commitment) -> dict[Pubkey, int]:
    tok = spl.parse_token_account(acc)
    if tok is None:
        return {}
    d = chain.decimals_of(tok.mint, c)
    return {} if d is None else {tok.mint: d}


def keyed(
    chain: Chain, items: list[tuple[Pubkey, Account]], cfg: dict[str, Any], c: Commitment
) -> Any:
    return [{"pubkey": str(k), "account": encode_account(chain, a, cfg, c)} for k, a in items]


# -- transactions ----------------------------------------------------------------------------


def encode_tx(rec: dict[str, Any], cfg: dict[str, Any], details: str = "full") -> dict[str, Any]:
    """A recorded transaction as getTransaction (``details`` "full") or getBlock
    ("full" or "accounts") answer it. With ``jsonParsed`` and in "accounts" the keys are
    objects listing the lookup tables' addresses too (``source``), so ``loadedAddresses``
    is left out of the meta, as the RPC does."""
    raw = base64.b64decode(rec["tx"])
    tx = VersionedTransaction.from_bytes(raw)
    legacy = not isinstance(tx.version(), int)
    max_version = cfg.get("maxSupportedTransactionVersion")
    if not legacy and max_version is None:
        raise RpcError(
            -32015,
            "Transaction version (0) is not supported by the requesting client. Please try "
            "the request again with the following configuration parameter: "
            '"maxSupportedTransactionVersion": 0',
        )
    encoding = cfg.get("encoding") or "json"
    parsed = encoding == "jsonParsed" or details == "accounts"
    keys = _parsed_keys(tx, rec["loadedAddresses"]) if parsed else []
    if details == "accounts":
        encoded: Any = {"signatures": [str(s) for s in tx.signatures], "accountKeys": keys}
    elif encoding == "base64":
        encoded = [rec["tx"], "base64"]
    elif encoding == "base58":
        encoded = [b58encode(raw), "base58"]
    elif encoding in ("json", "jsonParsed"):
        encoded = _ui_tx(tx, legacy, keys if parsed else None)
    else:
        raise invalid(f"unsupported encoding: {encoding}")
    err = rec["err"]
    meta: dict[str, Any] = {
        "err": err,
        "status": {"Ok": None} if err is None else {"Err": err},
        "fee": rec["fee"],
        "preBalances": rec["preBalances"],
        "postBalances": rec["postBalances"],
    }
    if details == "full":
        inner = rec["innerInstructions"]
        if parsed:
            names = [k["pubkey"] for k in keys]
            inner = [
                {
                    "index": g["index"],
                    "instructions": [parse_instruction(ix, names) for ix in g["instructions"]],
                }
                for g in inner
            ]
        meta["innerInstructions"] = inner
        meta["logMessages"] = rec["logs"]
    meta["preTokenBalances"] = rec["preTokenBalances"]
    meta["postTokenBalances"] = rec["postTokenBalances"]
    meta["rewards"] = []
    if details == "full":
        if not parsed:
            meta["loadedAddresses"] = rec["loadedAddresses"]
        meta["computeUnitsConsumed"] = rec["units"]
        if rec.get("returnData") is not None:
            meta["returnData"] = rec["returnData"]
    out = {"slot": rec["slot"], "transaction": encoded, "meta": meta}
    out["blockTime"] = rec["blockTime"]
    if max_version is not None:
        out["version"] = "legacy" if legacy else tx.version()
    return out


def _ui_tx(
    tx: VersionedTransaction, legacy: bool, keys: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """The message as ``json`` (indexes) or, given the parsed ``keys``, as ``jsonParsed``
    (key objects; each instruction partially decoded: program id and account addresses)."""
    msg = tx.message
    h = msg.header
    message: dict[str, Any]
    if keys is None:
        message = {
            "accountKeys": [str(k) for k in msg.account_keys],
            "header": {
                "numRequiredSignatures": h.num_required_signatures,
                "numReadonlySignedAccounts": h.num_readonly_signed_accounts,
                "numReadonlyUnsignedAccounts": h.num_readonly_unsigned_accounts,
            },
            "recentBlockhash": str(msg.recent_blockhash),
            "instructions": [
                {
                    "programIdIndex": ix.program_id_index,
                    "accounts": list(ix.accounts),
                    "data": b58encode(bytes(ix.data)),
                    "stackHeight": None,
                }
                for ix in msg.instructions
            ],
        }
    else:
        names = [k["pubkey"] for k in keys]
        message = {
            "accountKeys": keys,
            "recentBlockhash": str(msg.recent_blockhash),
            "instructions": [
                parse_instruction(
                    {
                        "programIdIndex": ix.program_id_index,
                        "accounts": list(ix.accounts),
                        "data": b58encode(bytes(ix.data)),
                        "stackHeight": None,
                    },
                    names,
                )
                for ix in msg.instructions
            ],
        }
    if not legacy:
        message["addressTableLookups"] = [
            {
                "accountKey": str(lk.account_key),
                "writableIndexes": list(lk.writable_indexes),
                "readonlyIndexes": list(lk.readonly_indexes),
            }
            for lk in msg.address_table_lookups  # type: ignore[union-attr]
        ]
    return {"signatures": [str(s) for s in tx.signatures], "message": message}


def _parsed_keys(tx: VersionedTransaction, loaded: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Every account key as jsonParsed lists it: static keys (signer and writable from the
    header), then the lookup tables' writable and readonly addresses (``source``)."""
    msg = tx.message
    h = msg.header
    static = [str(k) for k in msg.account_keys]
    signed, n = h.num_required_signatures, len(static)
    out = [
        {
            "pubkey": key,
            "writable": (
                i < signed - h.num_readonly_signed_accounts
                if i < signed
                else i < n - h.num_readonly_unsigned_accounts
            ),
            "signer": i < signed,
            "source": "transaction",
        }
        for i, key in enumerate(static)
    ]
    for key in loaded.get("writable") or []:
        out.append({"pubkey": key, "writable": True, "signer": False, "source": "lookupTable"})
    for key in loaded.get("readonly") or []:
        out.append({"pubkey": key, "writable": False, "signer": False, "source": "lookupTable"})
    return out
