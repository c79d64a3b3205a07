"""Anchor's framework error codes (anchor-lang 0.30.1, ``ErrorCode``): the ``Custom(n)``
refusals below 6000 that any Anchor program returns before its own code runs. A program's own
codes (6000 and up) stay with its client module."""

from __future__ import annotations

from enum import IntEnum


class AnchorError(IntEnum):
    INSTRUCTION_MISSING = 100
    INSTRUCTION_FALLBACK_NOT_FOUND = 101
    INSTRUCTION_DID_NOT_DESERIALIZE = 102
    CONSTRAINT_MUT = 2000
    CONSTRAINT_SEEDS = 2006
    ACCOUNT_DISCRIMINATOR_NOT_FOUND = 3001
    ACCOUNT_DISCRIMINATOR_MISMATCH = 3002
    ACCOUNT_DID_NOT_DESERIALIZE = 3003
    ACCOUNT_NOT_ENOUGH_KEYS = 3005
    ACCOUNT_OWNED_BY_WRONG_PROGRAM = 3007
    INVALID_PROGRAM_ID = 3008
    ACCOUNT_NOT_SIGNER = 3010
    ACCOUNT_NOT_INITIALIZED = 3012
