"""SPL Token and Token-2022 instructions as the validator's ``parse_token`` writes them (the
base instruction set; Token-2022 extension instructions stay partially decoded here)."""

from __future__ import annotations

import struct
from typing import Any

from solders.pubkey import Pubkey

from devchain.node.spl import ui_token_amount

_AUTHORITY_TYPES = [
    "mintTokens",
    "freezeAccount",
    "accountOwner",
    "closeAccount",
    "transferFeeConfig",
    "withheldWithdraw",
    "closeMint",
    "interestRate",
    "permanentDelegate",
    "confidentialTransferMint",
    "transferHookProgramId",
    "confidentialTransferFeeConfig",
    "metadataPointer",
    "groupPointer",
    "groupMemberPointer",
    "scaledUiAmount",
    "pause",
]


class _NotParsable(ValueError):
    pass


def _t(kind: str, info: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "info": info}


def _signers(info: dict[str, Any], a: list[str], last: int, single: str, multi: str) -> None:
    """The authority: one signer at ``last``, or a multisig there and its signers after."""
    if len(a) <= last:
        raise _NotParsable
    if len(a) > last + 1:
        info[multi] = a[last]
        info["signers"] = a[last + 1 :]
    else:
        info[single] = a[last]


def _opt_key(data: bytes, off: int) -> tuple[str | None, int]:
    """A COption<Pubkey> as the instruction packs it: 1 tag byte, then 32 bytes if set."""
    if data[off] == 0:
        return None, off + 1
    return str(Pubkey.from_bytes(data[off + 1 : off + 33])), off + 33


def _u64(data: bytes, off: int = 1) -> int:
    return int(struct.unpack_from("<Q", data, off)[0])


# The instructions that name accounts, maybe an amount (``amount``: a u64; ``checked``: a u64
# and the mint's decimals), and then their authority (one signer, or a multisig and its
# signers): tag -> (type, the accounts' names in order, the authority's name, the amount).
_ACCOUNTS_AND_AUTHORITY: dict[int, tuple[str, tuple[str, ...], str, str | None]] = {
    3: ("transfer", ("source", "destination"), "authority", "amount"),
    4: ("approve", ("source", "delegate"), "owner", "amount"),
    5: ("revoke", ("source",), "owner", None),
    7: ("mintTo", ("mint", "account"), "mintAuthority", "amount"),
    8: ("burn", ("account", "mint"), "authority", "amount"),
    9: ("closeAccount", ("account", "destination"), "owner", None),
    10: ("freezeAccount", ("account", "mint"), "freezeAuthority", None),
    11: ("thawAccount", ("account", "mint"), "freezeAuthority", None),
    12: ("transferChecked", ("source", "mint", "destination"), "authority", "checked"),
    13: ("approveChecked", ("source", "mint", "delegate"), "owner", "checked"),
    14: ("mintToChecked", ("mint", "account"), "mintAuthority", "checked"),
    15: ("burnChecked", ("account", "mint"), "authority", "checked"),
}


def _accounts_and_authority(tag: int, data: bytes, a: list[str]) -> dict[str, Any]:
    kind, names, authority, amount = _ACCOUNTS_AND_AUTHORITY[tag]
    info: dict[str, Any] = {name: a[i] for i, name in enumerate(names)}
    if amount == "amount":
        info["amount"] = str(_u64(data))
    elif amount == "checked":
        info["tokenAmount"] = ui_token_amount(_u64(data), data[9])
    multi = "multisig" + authority[0].upper() + authority[1:]
    _signers(info, a, len(names), authority, multi)
    return _t(kind, info)


def parse_token(data: bytes, a: list[str]) -> Any:
    tag = data[0]
    if tag in (0, 20):  # InitializeMint, InitializeMint2
        decimals = data[1]
        mint_authority = str(Pubkey.from_bytes(data[2:34]))
        freeze, _ = _opt_key(data, 34)
        info: dict[str, Any] = {"mint": a[0], "decimals": decimals, "mintAuthority": mint_authority}
        if tag == 0:
            info["rentSysvar"] = a[1]
        if freeze is not None:
            info["freezeAuthority"] = freeze
        return _t("initializeMint" if tag == 0 else "initializeMint2", info)
    if tag == 1:
        return _t(
            "initializeAccount", {"account": a[0], "mint": a[1], "owner": a[2], "rentSysvar": a[3]}
        )
    if tag in (16, 18):  # InitializeAccount2, InitializeAccount3: owner in the data
        info = {"account": a[0], "mint": a[1], "owner": str(Pubkey.from_bytes(data[1:33]))}
        if tag == 16:
            info["rentSysvar"] = a[2]
        return _t("initializeAccount2" if tag == 16 else "initializeAccount3", info)
    if tag in (2, 19):  # InitializeMultisig(2)
        info = {"multisig": a[0]}
        if tag == 2:
            info["rentSysvar"] = a[1]
        info |= {"signers": a[2 if tag == 2 else 1 :], "m": data[1]}
        return _t("initializeMultisig" if tag == 2 else "initializeMultisig2", info)
    if tag in _ACCOUNTS_AND_AUTHORITY:
        return _accounts_and_authority(tag, data, a)
    if tag == 6:
        kind = _AUTHORITY_TYPES[data[1]]
        new, _ = _opt_key(data, 2)
        field = "mint" if kind in ("mintTokens", "freezeAccount", "closeMint") else "account"
        info = {field: a[0], "authorityType": kind, "newAuthority": new}
        _signers(info, a, 1, "authority", "multisigAuthority")
        return _t("setAuthority", info)
    if tag == 17:
        return _t("syncNative", {"account": a[0]})
    if tag == 21:
        return _t("getAccountDataSize", {"mint": a[0]})
    if tag == 22:
        return _t("initializeImmutableOwner", {"account": a[0]})
    if tag == 23:
        return _t("amountToUiAmount", {"mint": a[0], "amount": str(_u64(data))})
    if tag == 24:
        return _t("uiAmountToAmount", {"mint": a[0], "uiAmount": data[1:].decode()})
    raise _NotParsable
