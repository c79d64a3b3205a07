"""What the chain keeps of one executed transaction: LiteSVM's metadata turned into the RPC's
forms (errors, return data, inner instructions, token balances), the memo program's log lines
as a validator prints them, and the simulation result. Pure functions: no chain state here."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from solders.account import Account
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata, TransactionMetadata

from devchain.node import spl
from devchain.node.codec import b58encode, err_json

MEMO_V3 = Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
MEMO_V1 = Pubkey.from_string("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")
MEMO_PROGRAMS = {MEMO_V3, MEMO_V1}
_LOOKUP_TABLE_META = 56  # address lookup table header size, addresses follow


@dataclass
class Simulation:
    err: Any
    logs: list[str]
    units: int
    return_data: Any
    inner: list[dict[str, Any]]
    post_accounts: dict[Pubkey, Account]

    def result(self) -> dict[str, Any]:
        return {
            "err": self.err,
            "logs": self.logs,
            "accounts": None,
            "unitsConsumed": self.units,
            "returnData": self.return_data,
            "innerInstructions": None,
            "replacementBlockhash": None,
        }


def meta_parts(res: Any) -> tuple[Any, TransactionMetadata]:
    if isinstance(res, FailedTransactionMetadata):
        return err_json(res.err()), res.meta()
    return None, res


def return_data(meta: TransactionMetadata) -> Any:
    rd = meta.return_data()
    if rd is None or not rd.data:
        return None
    return {"programId": str(rd.program_id), "data": [base64.b64encode(rd.data).decode(), "base64"]}


def inner_instructions(meta: TransactionMetadata) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index, items in enumerate(meta.inner_instructions()):
        if items:
            ixs = [
                {
                    "programIdIndex": ix.program_id_index,
                    "accounts": list(ix.accounts),
                    "data": b58encode(bytes(ix.data)),
                    "stackHeight": it.stack_height(),
                }
                for it in items
                for ix in [it.instruction()]
            ]
            out.append({"index": index, "instructions": ixs})
    return out


def token_balances(
    keys: list[Pubkey],
    accounts: list[Account | None],
    decimals_of: Callable[[Pubkey], int | None],
) -> list[dict[str, Any]]:
    out = []
    for i, acc in enumerate(accounts):
        tok = spl.parse_token_account(acc)
        if tok is None or acc is None:
            continue
        decimals = decimals_of(tok.mint)
        if decimals is None:
            continue
        out.append(
            {
                "accountIndex": i,
                "mint": str(tok.mint),
                "owner": str(tok.owner),
                "programId": str(acc.owner),
                "uiTokenAmount": spl.ui_token_amount(tok.amount, decimals),
            }
        )
    return out


def account_keys(
    tx: VersionedTransaction, get_account: Callable[[Pubkey], Account | None]
) -> tuple[list[Pubkey], list[str], list[str]]:
    """Static keys plus keys loaded from address lookup tables (writable, readonly)."""
    msg = tx.message
    keys = list(msg.account_keys)
    if not isinstance(msg, MessageV0):
        return keys, [], []
    writable: list[Pubkey] = []
    readonly: list[Pubkey] = []
    for lookup in msg.address_table_lookups:
        table = get_account(lookup.account_key)
        data = bytes(table.data) if table is not None else b""
        addrs = [
            Pubkey.from_bytes(data[i : i + 32])
            for i in range(_LOOKUP_TABLE_META, len(data) - 31, 32)
        ]
        writable += [addrs[i] for i in lookup.writable_indexes if i < len(addrs)]
        readonly += [addrs[i] for i in lookup.readonly_indexes if i < len(addrs)]
    return keys + writable + readonly, [str(k) for k in writable], [str(k) for k in readonly]


def memo_field(tx: VersionedTransaction, keys: list[Pubkey]) -> str | None:
    """getSignaturesForAddress's ``memo``: each memo instruction as ``[len] text``."""
    memos = [
        f"[{len(ix.data)}] {bytes(ix.data).decode(errors='replace')}"
        for ix in tx.message.instructions
        if keys[ix.program_id_index] in MEMO_PROGRAMS
    ]
    return "; ".join(memos) if memos else None


def rust_debug(text: str) -> str:
    """A str as Rust's ``{:?}`` writes it: quoted, with \\t \\r \\n \\\\ \\" \\0 escaped and
    other unprintable characters as \\u{hex}."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif not ch.isprintable():
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_ESCAPES = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"', "\0": "\\0"}
_MEMO_INVOKE = f"Program {MEMO_V3} invoke ["


def memo_logs(logs: list[str]) -> list[str]:
    """The memo program's lines as the program deployed on the clusters prints them.

    LiteSVM ships a rebuilt spl-memo that logs ``Signed by:`` and each signer on separate
    lines, then ``Memo (len N)`` and the raw text (which may hold newlines, so it may span
    log entries up to the program's ``consumed`` line). The deployed program prints
    ``Signed by <key>`` and ``Memo (len N): "<text as Rust's {:?}>"``."""
    out: list[str] = []
    i = 0
    while i < len(logs):
        line = logs[i]
        out.append(line)
        i += 1
        if not line.startswith(_MEMO_INVOKE):
            continue
        while i < len(logs) and logs[i] == "Program log: Signed by:" and i + 1 < len(logs):
            out.append("Program log: Signed by " + logs[i + 1].removeprefix("Program log: "))
            i += 2
        head = logs[i] if i < len(logs) else ""
        if head.startswith("Program log: Memo (len ") and head.endswith(")"):
            end = i + 1
            while end < len(logs) and not logs[end].startswith(f"Program {MEMO_V3} "):
                end += 1
            text = "\n".join(logs[i + 1 : end]).removeprefix("Program log: ")
            out.append(f"{head}: {rust_debug(text)}")
            i = end
    return out
