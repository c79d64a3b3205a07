"""Client side of the MCD whitelist program (``chain/program/whitelist.c``).

One account per project, at ``PDA(["mcd_whitelist", project_id u64 LE], program_id)`` with
the canonical bump. Entry account data, 80 bytes, little-endian::

    off size field
      0    1 version     = 1 (also the discriminator)
      1    1 status      1 = active, 2 = suspended
      2    1 bump        canonical PDA bump
      3    5 reserved    zero
      8    8 project_id  u64
     16   32 wallet
     48   32 authority   signer of ``add``; only it may set_status / remove

Instructions (first data byte is the tag):

* ``0 add [project_id u64 LE][wallet 32][bump u8]`` — accounts: authority (signer,
  writable, pays rent), entry PDA (writable), system program. Anyone may add while the PDA is
  free; the signer becomes the entry's authority. The gateway signs with
  ``keys.whitelist_authority``, so it is the authority of every entry it creates.
* ``1 set_status [status u8]`` — accounts: authority (signer), entry PDA (writable).
* ``2 remove`` — accounts: authority (signer, writable), entry PDA (writable). Refunds all
  lamports to the authority and frees the address (the project id can be added again).

Refusals are custom program errors, see :data:`ERRORS`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from chain.keys import ChainKeys

PROGRAM_PATH = Path(__file__).parent / "program" / "mcd_whitelist.so"
SEED_PREFIX = b"mcd_whitelist"
SYSTEM_PROGRAM_ID = Pubkey.from_string("11111111111111111111111111111111")

ENTRY_VERSION = 1
ENTRY_SIZE = 80
_ENTRY = struct.Struct("<BBB5xQ32s32s")  # the 80-byte layout above

TAG_ADD, TAG_SET_STATUS, TAG_REMOVE = 0, 1, 2


class Status(IntEnum):
    ACTIVE = 1
    SUSPENDED = 2


class WhitelistError(IntEnum):
    """Custom error codes returned by the program (``Custom(n)`` instruction errors)."""

    INVALID_INSTRUCTION = 1
    NOT_ENOUGH_ACCOUNTS = 2
    MISSING_SIGNER = 3
    NOT_WRITABLE = 4
    INVALID_PDA = 5
    ALREADY_EXISTS = 6
    WRONG_SYSTEM_PROGRAM = 7
    NOT_OWNED = 8
    INVALID_ENTRY = 9
    NOT_AUTHORITY = 10
    BAD_STATUS = 11
    RENT_UNAVAILABLE = 12


ERRORS: dict[int, str] = {
    WhitelistError.INVALID_INSTRUCTION: "unknown instruction or wrong instruction data length",
    WhitelistError.NOT_ENOUGH_ACCOUNTS: "not enough accounts",
    WhitelistError.MISSING_SIGNER: "the authority did not sign",
    WhitelistError.NOT_WRITABLE: "an account that must be writable is not",
    WhitelistError.INVALID_PDA: "the entry account is not the project's canonical PDA",
    WhitelistError.ALREADY_EXISTS: "the project is already whitelisted (PDA in use)",
    WhitelistError.WRONG_SYSTEM_PROGRAM: "the third account is not the system program",
    WhitelistError.NOT_OWNED: "the entry account is not owned by the whitelist program",
    WhitelistError.INVALID_ENTRY: "the entry account holds no whitelist entry",
    WhitelistError.NOT_AUTHORITY: "the signer is not the entry's authority",
    WhitelistError.BAD_STATUS: "status must be 1 (active) or 2 (suspended)",
    WhitelistError.RENT_UNAVAILABLE: "the rent sysvar could not be used",
}


def error_message(code: int) -> str:
    return ERRORS.get(code, f"unknown whitelist program error {code}")


def program_id(keys: ChainKeys, configured: str = "") -> Pubkey:
    """The program's address: ``configured`` (settings.whitelist_program_id, for a real
    cluster where it was deployed elsewhere) or the whitelist_program keypair's address, under
    which the local node and the compose validator load it."""
    return Pubkey.from_string(configured) if configured else keys.whitelist_program.pubkey()


def program_bytes() -> bytes:
    return PROGRAM_PATH.read_bytes()


def _project_seed(project_id: int) -> bytes:
    if not 0 <= project_id < 1 << 64:
        raise ValueError(f"project id {project_id} does not fit in a u64")
    return struct.pack("<Q", project_id)


def find_whitelist_pda(program: Pubkey, project_id: int) -> tuple[Pubkey, int]:
    return Pubkey.find_program_address([SEED_PREFIX, _project_seed(project_id)], program)


def add_ix(
    program: Pubkey,
    authority: Pubkey,
    project_id: int,
    wallet: Pubkey,
    *,
    pda: Pubkey | None = None,
    bump: int | None = None,
) -> Instruction:
    """Whitelist ``project_id`` with ``wallet``; ``authority`` signs, pays rent, owns the entry.

    ``pda``/``bump`` default to the canonical ones (overridable to test refusals).
    """
    found_pda, found_bump = find_whitelist_pda(program, project_id)
    pda = found_pda if pda is None else pda
    bump = found_bump if bump is None else bump
    data = bytes([TAG_ADD]) + _project_seed(project_id) + bytes(wallet) + bytes([bump])
    return Instruction(
        program,
        data,
        [
            AccountMeta(authority, is_signer=True, is_writable=True),
            AccountMeta(pda, is_signer=False, is_writable=True),
            AccountMeta(SYSTEM_PROGRAM_ID, is_signer=False, is_writable=False),
        ],
    )


def set_status_ix(
    program: Pubkey, authority: Pubkey, project_id: int, status: int, *, pda: Pubkey | None = None
) -> Instruction:
    # status is an int, not only Status, so callers (and tests) can send invalid values.
    if pda is None:
        pda = find_whitelist_pda(program, project_id)[0]
    return Instruction(
        program,
        bytes([TAG_SET_STATUS, status]),
        [
            AccountMeta(authority, is_signer=True, is_writable=False),
            AccountMeta(pda, is_signer=False, is_writable=True),
        ],
    )


def remove_ix(
    program: Pubkey, authority: Pubkey, project_id: int, *, pda: Pubkey | None = None
) -> Instruction:
    if pda is None:
        pda = find_whitelist_pda(program, project_id)[0]
    return Instruction(
        program,
        bytes([TAG_REMOVE]),
        [
            AccountMeta(authority, is_signer=True, is_writable=True),
            AccountMeta(pda, is_signer=False, is_writable=True),
        ],
    )


@dataclass(frozen=True)
class WhitelistEntry:
    version: int
    status: Status
    bump: int
    project_id: int
    wallet: Pubkey
    authority: Pubkey

    @property
    def active(self) -> bool:
        return self.status is Status.ACTIVE


def decode_entry(data: bytes) -> WhitelistEntry:
    """Decode an entry account's data; ValueError if it is not a whitelist entry."""
    if len(data) < ENTRY_SIZE:
        raise ValueError(f"whitelist entry needs {ENTRY_SIZE} bytes, got {len(data)}")
    version, status, bump, project_id, wallet, authority = _ENTRY.unpack_from(data)
    if version != ENTRY_VERSION:
        raise ValueError(f"unknown whitelist entry version {version}")
    return WhitelistEntry(
        version=version,
        status=Status(status),
        bump=bump,
        project_id=project_id,
        wallet=Pubkey.from_bytes(wallet),
        authority=Pubkey.from_bytes(authority),
    )
