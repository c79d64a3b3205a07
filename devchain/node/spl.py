"""Read SPL Token / Token-2022 account and mint layouts, and render them the way the RPC does
(uiTokenAmount, jsonParsed). Pure functions over raw account data: no SVM access here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey

TOKEN_PROGRAM_ID = Pubkey.from_string("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")
TOKEN_2022_PROGRAM_ID = Pubkey.from_string("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
TOKEN_PROGRAMS = (TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID)

ACCOUNT_LEN = 165
MINT_LEN = 82
# Token-2022 pads a mint to ACCOUNT_LEN and puts an account-type byte right after it.
_TYPE_MINT = 1
_TYPE_ACCOUNT = 2
_STATES = {1: "initialized", 2: "frozen"}


@dataclass(frozen=True)
class TokenAccount:
    mint: Pubkey
    owner: Pubkey
    amount: int
    delegate: Pubkey | None
    state: int
    is_native: int | None
    delegated_amount: int
    close_authority: Pubkey | None


@dataclass(frozen=True)
class Mint:
    mint_authority: Pubkey | None
    supply: int
    decimals: int
    is_initialized: bool
    freeze_authority: Pubkey | None


def _u64(data: bytes, off: int) -> int:
    return int.from_bytes(data[off : off + 8], "little")


def _opt_key(data: bytes, off: int) -> Pubkey | None:
    if int.from_bytes(data[off : off + 4], "little") == 0:
        return None
    return Pubkey.from_bytes(data[off + 4 : off + 36])


def _kind(account: Account) -> int | None:
    if account.owner not in TOKEN_PROGRAMS:
        return None
    data = account.data
    if len(data) == ACCOUNT_LEN:
        return _TYPE_ACCOUNT
    if len(data) == MINT_LEN:
        return _TYPE_MINT
    if account.owner == TOKEN_2022_PROGRAM_ID and len(data) > ACCOUNT_LEN:
        return data[ACCOUNT_LEN] if data[ACCOUNT_LEN] in (_TYPE_MINT, _TYPE_ACCOUNT) else None
    return None


def parse_token_account(account: Account | None) -> TokenAccount | None:
    if account is None or _kind(account) != _TYPE_ACCOUNT:
        return None
    d = bytes(account.data)
    if d[108] == 0:  # uninitialized
        return None
    native = _u64(d, 113) if int.from_bytes(d[109:113], "little") else None
    return TokenAccount(
        mint=Pubkey.from_bytes(d[0:32]),
        owner=Pubkey.from_bytes(d[32:64]),
        amount=_u64(d, 64),
        delegate=_opt_key(d, 72),
        state=d[108],
        is_native=native,
        delegated_amount=_u64(d, 121),
        close_authority=_opt_key(d, 129),
    )


def parse_mint(account: Account | None) -> Mint | None:
    if account is None or _kind(account) != _TYPE_MINT:
        return None
    d = bytes(account.data)
    if d[45] == 0:
        return None
    return Mint(
        mint_authority=_opt_key(d, 0),
        supply=_u64(d, 36),
        decimals=d[44],
        is_initialized=True,
        freeze_authority=_opt_key(d, 46),
    )


def ui_amount_string(amount: int, decimals: int) -> str:
    """Trimmed decimal string, like the RPC's `real_number_string_trimmed`."""
    if decimals == 0:
        return str(amount)
    digits = str(amount).rjust(decimals + 1, "0")
    whole, frac = digits[:-decimals], digits[-decimals:].rstrip("0")
    return f"{whole}.{frac}" if frac else whole


def ui_token_amount(amount: int, decimals: int) -> dict[str, Any]:
    return {
        "amount": str(amount),
        "decimals": decimals,
        "uiAmount": amount / 10**decimals,
        "uiAmountString": ui_amount_string(amount, decimals),
    }


def program_name(owner: Pubkey) -> str:
    return "spl-token-2022" if owner == TOKEN_2022_PROGRAM_ID else "spl-token"


def _key(k: Pubkey | None) -> str | None:
    return None if k is None else str(k)


def json_parsed(account: Account, decimals_of: dict[Pubkey, int]) -> dict[str, Any] | None:
    """The `jsonParsed` data object of a token account or mint, or None when not parseable
    (the RPC then falls back to base64). `decimals_of` maps mint → decimals."""
    if (tok := parse_token_account(account)) is not None:
        decimals = decimals_of.get(tok.mint)
        if decimals is None:
            return None
        info: dict[str, Any] = {
            "isNative": tok.is_native is not None,
            "mint": str(tok.mint),
            "owner": str(tok.owner),
            "state": _STATES.get(tok.state, "uninitialized"),
            "tokenAmount": ui_token_amount(tok.amount, decimals),
        }
        if tok.delegate is not None:
            info["delegate"] = str(tok.delegate)
            info["delegatedAmount"] = ui_token_amount(tok.delegated_amount, decimals)
        if tok.close_authority is not None:
            info["closeAuthority"] = str(tok.close_authority)
        if tok.is_native is not None:
            info["rentExemptReserve"] = ui_token_amount(tok.is_native, decimals)
        parsed: dict[str, Any] = {"info": info, "type": "account"}
    elif (mint := parse_mint(account)) is not None:
        parsed = {
            "info": {
                "decimals": mint.decimals,
                "freezeAuthority": _key(mint.freeze_authority),
                "isInitialized": mint.is_initialized,
                "mintAuthority": _key(mint.mint_authority),
                "supply": str(mint.supply),
            },
            "type": "mint",
        }
    else:
        return None
    return {"program": program_name(account.owner), "parsed": parsed, "space": len(account.data)}
