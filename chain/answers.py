"""The node's JSON answers the gateway reads, as small typed values: an account, a signature's
status. Pure code, no I/O (``chain/reads.py`` asks, this reads)."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from solders.pubkey import Pubkey
from spl.token.constants import TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID

RANK = {"processed": 0, "confirmed": 1, "finalized": 2}
TOKEN_PROGRAMS = (TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID)


@dataclass(frozen=True)
class AccountInfo:
    """An account as getAccountInfo / getMultipleAccounts return it (``base64`` encoding)."""

    lamports: int
    owner: Pubkey
    data: bytes
    executable: bool


def account_info(value: dict[str, Any] | None) -> AccountInfo | None:
    """One account of an answer's ``value`` (None: there is no account at that address)."""
    if value is None:
        return None
    return AccountInfo(
        lamports=int(value["lamports"]),
        owner=Pubkey.from_string(value["owner"]),
        data=base64.b64decode(value["data"][0]),
        executable=bool(value.get("executable")),
    )


@dataclass(frozen=True)
class SignatureStatus:
    """One signature's status as getSignatureStatuses returns it: the slot it landed in, its
    error (the node's JSON, None when it succeeded) and how far it is confirmed."""

    slot: int
    confirmations: int | None
    err: Any
    confirmation_status: str | None  # processed | confirmed | finalized; None from old nodes

    @classmethod
    def of(cls, value: dict[str, Any] | None) -> SignatureStatus | None:
        if value is None:
            return None
        level = value.get("confirmationStatus")
        return cls(
            slot=int(value["slot"]),
            confirmations=value.get("confirmations"),
            err=value.get("err"),
            confirmation_status=level if level in RANK else None,
        )

    @property
    def level(self) -> str:
        """The commitment reached; a node without ``confirmationStatus`` says "rooted" by
        ``confirmations: null``."""
        if self.confirmation_status is not None:
            return self.confirmation_status
        return "finalized" if self.confirmations is None else "processed"


def as_pubkey(address: Pubkey | str) -> Pubkey:
    return address if isinstance(address, Pubkey) else Pubkey.from_string(address)
