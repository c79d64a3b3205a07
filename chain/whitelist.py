"""Client of the MCD Token program's whitelist (``McDVieu…`` on mainnet; on the local chain
our ``devchain/program/mcd_token.c`` at the same id), byte for byte on the real interface.

Facts (``ecosystem-programs.md`` 2.6, 3.1, 3.3). Anchor accounts (8-byte discriminator, then
borsh):

* ``McdConfig`` at ``PDA(["mcd_config"])``, 209 bytes: 8 authority, 40 mcd_mint,
  72 genesis_pool, 104 recycle_pool, 136..199 eight u64 totals, 200 last_update_timestamp,
  208 bump. Its ``authority`` is the only signer the whitelist instructions accept.
* ``McdWhitelist`` at ``PDA(["mcd_whitelist", project_id u64 LE])``, 130 bytes::

      off size field
        0    8 discriminator e4c816307de99739
        8    8 project_id      u64
       16   32 wallet_address
       48   64 project_name    UTF-8, zero-padded
      112    8 registered_at   i64
      120    1 status          0 = active, 1 = suspended
      121    8 updated_at      i64
      129    1 bump

Instructions (data = discriminator ‖ borsh args; account order as listed):

* ``add_to_whitelist(project_id u64, project_name String)`` ``9dd3343690510537``: authority
  (signer, writable, pays rent), mcd_config, whitelist PDA (writable, created), wallet_address
  (read-only, stored), system program.
* ``update_whitelist_status(project_id u64, status u8)`` ``ccc40cba81d2c4ca``: authority
  (signer, writable), mcd_config, whitelist PDA (writable).
* ``remove_from_whitelist(project_id u64)`` ``0790d8eff3ecc1eb``: authority (signer,
  writable, receives the rent), mcd_config, whitelist PDA (writable, closed), system program.

Refusals are custom program errors, see :class:`WhitelistError` and
:class:`chain.anchor.AnchorError`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from chain import cluster
from chain.anchor import AnchorError
from core.config import Settings

SEED_PREFIX = b"mcd_whitelist"
CONFIG_SEED = cluster.MCD_CONFIG_SEED
SYSTEM_PROGRAM_ID = Pubkey.from_string("11111111111111111111111111111111")

ADD_DISCRIMINATOR = bytes.fromhex("9dd3343690510537")  # sha256("global:add_to_whitelist")
UPDATE_STATUS_DISCRIMINATOR = bytes.fromhex("ccc40cba81d2c4ca")  # global:update_whitelist_status
REMOVE_DISCRIMINATOR = bytes.fromhex("0790d8eff3ecc1eb")  # global:remove_from_whitelist
ENTRY_DISCRIMINATOR = bytes.fromhex("e4c816307de99739")  # sha256("account:McdWhitelist")
CONFIG_DISCRIMINATOR = bytes.fromhex("8efbac0d190844c2")  # sha256("account:McdConfig")

ENTRY_SIZE = 130
CONFIG_SIZE = 209
NAME_SIZE = 64
_ENTRY = struct.Struct("<8sQ32s64sqBqB")  # the 130-byte layout above
_CONFIG = struct.Struct("<8s32s32s32s32sQQQQQQQQqB")
assert _ENTRY.size == ENTRY_SIZE and _CONFIG.size == CONFIG_SIZE


class Status(IntEnum):
    ACTIVE = 0
    SUSPENDED = 1


class WhitelistError(IntEnum):
    """The whitelist instructions' own refusals (``Custom(n)`` instruction errors); the Anchor
    framework's are ``chain.anchor.AnchorError``."""

    ALREADY_IN_USE = 0  # the system program's AccountAlreadyInUse: Anchor `init` on an entry
    UNAUTHORIZED = 6000
    PROJECT_NAME_TOO_LONG = 6015
    INVALID_STATUS = 6018


ERRORS: dict[int, str] = {
    WhitelistError.ALREADY_IN_USE: "the project is already whitelisted (its entry exists)",
    AnchorError.INSTRUCTION_MISSING: "instruction data shorter than a discriminator",
    AnchorError.INSTRUCTION_FALLBACK_NOT_FOUND: "unknown instruction",
    AnchorError.INSTRUCTION_DID_NOT_DESERIALIZE: "instruction arguments do not deserialize",
    AnchorError.CONSTRAINT_MUT: "an account that must be writable is not",
    AnchorError.CONSTRAINT_SEEDS: "an account is not the expected PDA",
    AnchorError.ACCOUNT_DISCRIMINATOR_NOT_FOUND: "an account holds no Anchor discriminator",
    AnchorError.ACCOUNT_DISCRIMINATOR_MISMATCH: "an account is of another type",
    AnchorError.ACCOUNT_DID_NOT_DESERIALIZE: "an account's data does not deserialize",
    AnchorError.ACCOUNT_NOT_ENOUGH_KEYS: "not enough accounts",
    AnchorError.ACCOUNT_OWNED_BY_WRONG_PROGRAM: "an account is not owned by the MCD program",
    AnchorError.INVALID_PROGRAM_ID: "the system program account is not the system program",
    AnchorError.ACCOUNT_NOT_SIGNER: "the authority did not sign",
    AnchorError.ACCOUNT_NOT_INITIALIZED: "the project has no whitelist entry on chain",
    WhitelistError.UNAUTHORIZED: "the signer is not the McdConfig authority",
    WhitelistError.PROJECT_NAME_TOO_LONG: "project name over 64 bytes",
    WhitelistError.INVALID_STATUS: "status must be 0 (active) or 1 (suspended)",
}


def error_message(code: int) -> str:
    return ERRORS.get(code, f"unknown MCD token program error {code}")


def program_id(settings: Settings) -> Pubkey:
    """The MCD Token program id (setting ``mcd_token_program_id``)."""
    return cluster.program_id(settings, "mcd_token")


def config_address(settings: Settings) -> Pubkey:
    """The McdConfig address (setting ``mcd_config_address``, else the PDA)."""
    return cluster.configured_mcd_config(settings)


def _u64(project_id: int) -> bytes:
    if not 0 <= project_id < 1 << 64:
        raise ValueError(f"project id {project_id} does not fit in a u64")
    return struct.pack("<Q", project_id)


def find_config_pda(program: Pubkey) -> tuple[Pubkey, int]:
    return Pubkey.find_program_address([CONFIG_SEED], program)


def find_whitelist_pda(program: Pubkey, project_id: int) -> tuple[Pubkey, int]:
    return Pubkey.find_program_address([SEED_PREFIX, _u64(project_id)], program)


def chain_project_name(name: str) -> str:
    """The name as the entry can hold it: at most 64 UTF-8 bytes, cut at a character."""
    raw = name.encode()[:NAME_SIZE]
    return raw.decode("utf-8", errors="ignore")


def _entry_ix(
    program: Pubkey,
    authority: Pubkey,
    config: Pubkey,
    project_id: int,
    data: bytes,
    pda: Pubkey | None,
    *extra: AccountMeta,
) -> Instruction:
    """The accounts every whitelist instruction starts with: the config authority (signer,
    payer), the config, the project's entry PDA; then ``extra``."""
    if pda is None:
        pda = find_whitelist_pda(program, project_id)[0]
    accounts = [
        AccountMeta(authority, is_signer=True, is_writable=True),
        AccountMeta(config, is_signer=False, is_writable=False),
        AccountMeta(pda, is_signer=False, is_writable=True),
        *extra,
    ]
    return Instruction(program, data, accounts)


_SYSTEM = AccountMeta(SYSTEM_PROGRAM_ID, is_signer=False, is_writable=False)


def add_ix(
    program: Pubkey,
    authority: Pubkey,
    config: Pubkey,
    project_id: int,
    project_name: str | bytes,
    wallet: Pubkey,
    *,
    pda: Pubkey | None = None,
) -> Instruction:
    """``add_to_whitelist``; ``authority`` signs and pays the rent. ``project_name`` is sent
    as given (bytes for tests of refusals); use :func:`chain_project_name` to fit 64 bytes."""
    name = project_name.encode() if isinstance(project_name, str) else project_name
    data = ADD_DISCRIMINATOR + _u64(project_id) + struct.pack("<I", len(name)) + name
    owner = AccountMeta(wallet, is_signer=False, is_writable=False)
    return _entry_ix(program, authority, config, project_id, data, pda, owner, _SYSTEM)


def set_status_ix(
    program: Pubkey,
    authority: Pubkey,
    config: Pubkey,
    project_id: int,
    status: int,
    *,
    pda: Pubkey | None = None,
) -> Instruction:
    """``update_whitelist_status``. ``status`` is an int, not only Status, so callers (and
    tests) can send invalid values."""
    data = UPDATE_STATUS_DISCRIMINATOR + _u64(project_id) + bytes([status])
    return _entry_ix(program, authority, config, project_id, data, pda)


def remove_ix(
    program: Pubkey,
    authority: Pubkey,
    config: Pubkey,
    project_id: int,
    *,
    pda: Pubkey | None = None,
) -> Instruction:
    """``remove_from_whitelist``: closes the entry, the rent goes to ``authority``."""
    data = REMOVE_DISCRIMINATOR + _u64(project_id)
    return _entry_ix(program, authority, config, project_id, data, pda, _SYSTEM)


@dataclass(frozen=True)
class WhitelistEntry:
    project_id: int
    wallet: Pubkey
    project_name: str
    registered_at: int
    status: Status
    updated_at: int
    bump: int

    @property
    def active(self) -> bool:
        return self.status is Status.ACTIVE


def decode_entry(data: bytes) -> WhitelistEntry:
    """Decode an McdWhitelist account's data; ValueError if it is not one."""
    if len(data) < ENTRY_SIZE:
        raise ValueError(f"McdWhitelist needs {ENTRY_SIZE} bytes, got {len(data)}")
    disc, project_id, wallet, name, registered, status, updated, bump = _ENTRY.unpack_from(data)
    if disc != ENTRY_DISCRIMINATOR:
        raise ValueError("not an McdWhitelist account (discriminator)")
    return WhitelistEntry(
        project_id=project_id,
        wallet=Pubkey.from_bytes(wallet),
        project_name=name.rstrip(b"\0").decode("utf-8", errors="replace"),
        registered_at=registered,
        status=Status(status),
        updated_at=updated,
        bump=bump,
    )


def entry_fields(entry: WhitelistEntry) -> dict[str, object]:
    """The decoded entry as plain JSON values (for the API)."""
    return {
        "project_id": entry.project_id,
        "wallet_address": str(entry.wallet),
        "project_name": entry.project_name,
        "registered_at": entry.registered_at,
        "status": "active" if entry.active else "suspended",
        "updated_at": entry.updated_at,
        "bump": entry.bump,
    }


@dataclass(frozen=True)
class McdConfig:
    authority: Pubkey
    mcd_mint: Pubkey
    genesis_pool: Pubkey
    recycle_pool: Pubkey
    total_minted: int
    total_recycled: int
    total_vault_minted: int
    total_consumed: int
    total_usdc_deposited: int
    total_usdc_withdrawn: int
    total_burned: int
    total_fees_collected: int
    last_update_timestamp: int
    bump: int


def decode_config(data: bytes) -> McdConfig:
    if len(data) < CONFIG_SIZE or data[:8] != CONFIG_DISCRIMINATOR:
        raise ValueError("not a (migrated, 209-byte) McdConfig account")
    _disc, *keys_and_numbers = _CONFIG.unpack_from(data)
    keys = [Pubkey.from_bytes(k) for k in keys_and_numbers[:4]]
    numbers: list[int] = keys_and_numbers[4:]
    return McdConfig(*keys, *numbers)  # type: ignore[arg-type]


def encode_config(config: McdConfig) -> bytes:
    """The McdConfig data the real program holds for ``config`` (for genesis)."""
    return _CONFIG.pack(
        CONFIG_DISCRIMINATOR,
        bytes(config.authority),
        bytes(config.mcd_mint),
        bytes(config.genesis_pool),
        bytes(config.recycle_pool),
        config.total_minted,
        config.total_recycled,
        config.total_vault_minted,
        config.total_consumed,
        config.total_usdc_deposited,
        config.total_usdc_withdrawn,
        config.total_burned,
        config.total_fees_collected,
        config.last_update_timestamp,
        config.bump,
    )
