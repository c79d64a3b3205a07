"""Wire encodings shared by the node: base58 for arbitrary bytes (solders only covers keys,
hashes and signatures) and the RPC's JSON/text forms of transaction errors."""

from __future__ import annotations

import json
from typing import Any

from solders.transaction_status import TransactionErrorType, TransactionStatus

_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_INDEX = {c: i for i, c in enumerate(_ALPHABET)}


def b58encode(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    out = []
    while n:
        n, r = divmod(n, 58)
        out.append(_ALPHABET[r])
    pad = len(data) - len(data.lstrip(b"\0"))
    return "1" * pad + "".join(reversed(out))


def b58decode(text: str) -> bytes:
    n = 0
    for c in text:
        n = n * 58 + _INDEX[c]  # KeyError on a bad character: callers map it to -32602
    body = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    pad = len(text) - len(text.lstrip("1"))
    return b"\0" * pad + body


def err_json(err: TransactionErrorType | None) -> Any:
    """The RPC JSON of a transaction error, e.g. {"InstructionError":[0,{"Custom":1}]}.
    solders knows the exact serde form; borrow it through TransactionStatus."""
    if err is None:
        return None
    return json.loads(TransactionStatus(0, None, None, err, None).to_json())["err"]


_FIELDLESS_TEXT = {
    "AccountNotFound": "Attempt to debit an account but found no record of a prior credit.",
    "BlockhashNotFound": "Blockhash not found",
    "InsufficientFundsForFee": "Insufficient funds for fee",
    "AlreadyProcessed": "This transaction has already been processed",
    "SignatureFailure": "Transaction did not pass signature verification",
    "InvalidAccountForFee": "This account may not be used to pay transaction fees",
}


def err_text(err: Any) -> str:
    """Human text of an error JSON, close to the validator's Display impl."""
    if isinstance(err, str):
        return _FIELDLESS_TEXT.get(err, err)
    if isinstance(err, dict) and "InstructionError" in err:
        index, inner = err["InstructionError"]
        if isinstance(inner, dict) and "Custom" in inner:
            detail = f"custom program error: {inner['Custom']:#x}"
        else:
            detail = json.dumps(inner) if not isinstance(inner, str) else inner
        return f"Error processing Instruction {index}: {detail}"
    return json.dumps(err)
