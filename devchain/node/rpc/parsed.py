"""jsonParsed beyond SPL Token accounts, as the validator's parsers write it: address lookup
table and nonce accounts, and the instructions of the System, Memo, Associated Token Account,
Address Lookup Table and SPL Token / Token-2022 programs (``parsed_token.py``). An instruction
of any other program (the Compute Budget program among them: the validator has no parser for
it either) stays partially decoded: program id, accounts, base58 data."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey

from devchain.node.codec import b58decode
from devchain.node.rpc.parsed_token import parse_token
from devchain.node.spl import TOKEN_PROGRAMS

SYSTEM = Pubkey.default()
LOOKUP_TABLE = Pubkey.from_string("AddressLookupTab1e1111111111111111111111111")
ATA = Pubkey.from_string("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
MEMOS = {
    Pubkey.from_string("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo"),
    Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"),
}
NONCE_LEN = 80
_TABLE_META = 56


class NotParsable(Exception):
    """The validator's ParseInstructionError: the instruction is then partially decoded."""


# -- accounts --------------------------------------------------------------------------------


def parse_account(acc: Account) -> dict[str, Any] | None:
    """The jsonParsed data of a lookup table or nonce account, or None (then base64)."""
    data = bytes(acc.data)
    if acc.owner == LOOKUP_TABLE and len(data) >= _TABLE_META:
        (kind,) = struct.unpack_from("<I", data)
        if kind == 0:
            parsed: dict[str, Any] = {"type": "uninitialized"}
        else:
            deactivation, extended, start = struct.unpack_from("<QQB", data, 4)
            info: dict[str, Any] = {
                "deactivationSlot": str(deactivation),
                "lastExtendedSlot": str(extended),
                "lastExtendedSlotStartIndex": start,
            }
            if data[21]:
                info["authority"] = str(Pubkey.from_bytes(data[22:54]))
            info["addresses"] = [
                str(Pubkey.from_bytes(data[i : i + 32]))
                for i in range(_TABLE_META, len(data) - 31, 32)
            ]
            parsed = {"type": "lookupTable", "info": info}
        return {"program": "address-lookup-table", "parsed": parsed, "space": len(data)}
    if acc.owner == SYSTEM and len(data) == NONCE_LEN:
        _, state = struct.unpack_from("<II", data)
        if state == 0:
            parsed = {"type": "uninitialized"}
        else:
            info = {
                "authority": str(Pubkey.from_bytes(data[8:40])),
                "blockhash": str(Pubkey.from_bytes(data[40:72])),
                "feeCalculator": {
                    "lamportsPerSignature": str(struct.unpack_from("<Q", data, 72)[0])
                },
            }
            parsed = {"type": "initialized", "info": info}
        return {"program": "nonce", "parsed": parsed, "space": len(data)}
    return None


# -- instructions ----------------------------------------------------------------------------


def parse_instruction(ix: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """A compiled instruction (``programIdIndex``, ``accounts``, base58 ``data``) as
    jsonParsed writes it: parsed where the validator has a parser, else partially decoded."""
    program = names[ix["programIdIndex"]]
    accounts = [names[i] for i in ix["accounts"]]
    key = Pubkey.from_string(program)
    parser = _PARSERS.get(key) or (parse_token if key in TOKEN_PROGRAMS else None)
    if parser is not None:
        try:
            data = b58decode(ix["data"])
            return {
                "program": _PROGRAM_NAMES.get(key, "spl-token"),
                "programId": program,
                "parsed": parser(data, accounts),
                "stackHeight": ix.get("stackHeight"),
            }
        except (NotParsable, struct.error, IndexError, ValueError, KeyError):
            pass
    return {
        "programId": program,
        "accounts": accounts,
        "data": ix["data"],
        "stackHeight": ix.get("stackHeight"),
    }


def _need(accounts: list[str], n: int) -> None:
    if len(accounts) < n:
        raise NotParsable


def _memo(data: bytes, accounts: list[str]) -> Any:
    try:
        return data.decode()
    except UnicodeDecodeError:
        raise NotParsable from None


def _system(data: bytes, a: list[str]) -> Any:
    (tag,) = struct.unpack_from("<I", data)
    body = data[4:]

    def key(off: int) -> str:
        return str(Pubkey.from_bytes(body[off : off + 32]))

    def seed(off: int) -> tuple[str, int]:
        (n,) = struct.unpack_from("<Q", body, off)
        return body[off + 8 : off + 8 + n].decode(), off + 8 + n

    if tag == 0:  # CreateAccount
        _need(a, 2)
        lamports, space = struct.unpack_from("<QQ", body)
        info: dict[str, Any] = {
            "source": a[0],
            "newAccount": a[1],
            "lamports": lamports,
            "space": space,
        }
        return _t("createAccount", info | {"owner": key(16)})
    if tag == 1:
        _need(a, 1)
        return _t("assign", {"account": a[0], "owner": key(0)})
    if tag == 2:
        _need(a, 2)
        (lamports,) = struct.unpack_from("<Q", body)
        return _t("transfer", {"source": a[0], "destination": a[1], "lamports": lamports})
    if tag == 3:  # CreateAccountWithSeed
        _need(a, 2)
        text, off = seed(32)
        lamports, space = struct.unpack_from("<QQ", body, off)
        info = {"source": a[0], "newAccount": a[1], "base": key(0), "seed": text}
        return _t(
            "createAccountWithSeed",
            info | {"lamports": lamports, "space": space, "owner": key(off + 16)},
        )
    if tag == 4:
        _need(a, 3)
        return _t(
            "advanceNonce",
            {"nonceAccount": a[0], "recentBlockhashesSysvar": a[1], "nonceAuthority": a[2]},
        )
    if tag == 5:
        _need(a, 5)
        (lamports,) = struct.unpack_from("<Q", body)
        info = {"nonceAccount": a[0], "destination": a[1], "recentBlockhashesSysvar": a[2]}
        return _t(
            "withdrawFromNonce",
            info | {"rentSysvar": a[3], "nonceAuthority": a[4], "lamports": lamports},
        )
    if tag == 6:
        _need(a, 3)
        info = {"nonceAccount": a[0], "recentBlockhashesSysvar": a[1], "rentSysvar": a[2]}
        return _t("initializeNonce", info | {"nonceAuthority": key(0)})
    if tag == 7:
        _need(a, 2)
        return _t(
            "authorizeNonce",
            {"nonceAccount": a[0], "nonceAuthority": a[1], "newAuthorized": key(0)},
        )
    if tag == 8:
        _need(a, 1)
        return _t("allocate", {"account": a[0], "space": struct.unpack_from("<Q", body)[0]})
    if tag in (9, 10):  # AllocateWithSeed, AssignWithSeed
        _need(a, 2)
        text, off = seed(32)
        info = {"account": a[0], "base": key(0), "seed": text}
        if tag == 9:
            info["space"] = struct.unpack_from("<Q", body, off)[0]
            off += 8
        return _t("allocateWithSeed" if tag == 9 else "assignWithSeed", info | {"owner": key(off)})
    if tag == 11:  # TransferWithSeed
        _need(a, 3)
        (lamports,) = struct.unpack_from("<Q", body)
        text, off = seed(8)
        info = {"source": a[0], "sourceBase": a[1], "destination": a[2], "lamports": lamports}
        return _t("transferWithSeed", info | {"sourceSeed": text, "sourceOwner": key(off)})
    if tag == 12:
        _need(a, 1)
        return _t("upgradeNonce", {"nonceAccount": a[0]})
    raise NotParsable


def _associated_token(data: bytes, a: list[str]) -> Any:
    kind = data[0] if data else 0
    if kind in (0, 1):
        _need(a, 6)
        info = {"source": a[0], "account": a[1], "wallet": a[2], "mint": a[3]}
        info |= {"systemProgram": a[4], "tokenProgram": a[5]}
        return _t("create" if kind == 0 else "createIdempotent", info)
    if kind == 2:
        _need(a, 7)
        names = ("nestedSource", "nestedMint", "destination", "nestedOwner", "ownerMint")
        info = dict(zip(names, a, strict=False)) | {"wallet": a[5], "tokenProgram": a[6]}
        return _t("recoverNested", info)
    raise NotParsable


def _lookup_table(data: bytes, a: list[str]) -> Any:
    (tag,) = struct.unpack_from("<I", data)
    if tag == 0:
        _need(a, 4)
        slot, bump = struct.unpack_from("<QB", data, 4)
        info: dict[str, Any] = {
            "lookupTableAccount": a[0],
            "lookupTableAuthority": a[1],
            "payerAccount": a[2],
        }
        return _t(
            "createLookupTable",
            info | {"systemProgram": a[3], "recentSlot": slot, "bumpSeed": bump},
        )
    if tag in (1, 3):
        _need(a, 2)
        name = "freezeLookupTable" if tag == 1 else "deactivateLookupTable"
        return _t(name, {"lookupTableAccount": a[0], "lookupTableAuthority": a[1]})
    if tag == 2:
        _need(a, 2)
        (n,) = struct.unpack_from("<Q", data, 4)
        new = [str(Pubkey.from_bytes(data[12 + 32 * i : 44 + 32 * i])) for i in range(n)]
        info = {"lookupTableAccount": a[0], "lookupTableAuthority": a[1]}
        if len(a) >= 4:
            info |= {"payerAccount": a[2], "systemProgram": a[3]}
        return _t("extendLookupTable", info | {"newAddresses": new})
    if tag == 4:
        _need(a, 3)
        return _t(
            "closeLookupTable",
            {"lookupTableAccount": a[0], "lookupTableAuthority": a[1], "recipient": a[2]},
        )
    raise NotParsable


def _t(kind: str, info: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "info": info}


_PARSERS: dict[Pubkey, Callable[[bytes, list[str]], Any]] = {
    SYSTEM: _system,
    ATA: _associated_token,
    LOOKUP_TABLE: _lookup_table,
    **{m: _memo for m in MEMOS},
}
_PROGRAM_NAMES = {
    SYSTEM: "system",
    ATA: "spl-associated-token-account",
    LOOKUP_TABLE: "address-lookup-table",
    **{m: "spl-memo" for m in MEMOS},
}
