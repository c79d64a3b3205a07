"""Client of the Reincarnation program's price store (``devchain/program/reincarnation.c`` on the
local chain, ``REn8oKy…`` on mainnet): read the ``ReincarnationPool`` account, write
``update_price`` exactly once per caller key.

Facts (``ecosystem-programs.md`` 2.7, 3.1): the pool is the Anchor account at
``PDA(["reincarnation_pool_v2"])``. Its first field is ``name: String`` (u32 length n + UTF-8),
so every later offset moves with n; decode sequentially:

    off      field                         off      field
    0        discriminator 8b0733331e05a697 324+n   paused bool
    8        name (4+n)                    325+n   daily_limit u64
    12+n     authority                     333+n   daily_used u64
    44+n     mcc_mint                      341+n   last_reset_day i64
    76+n     usdc_mint                     349+n   total_mcc_bought u64
    108+n    mcd_mint                      357+n   total_usd_paid u64
    140+n    usdc_vault                    365+n   total_buyback_count u64
    172+n    mcc_vault                     373+n   total_mining_usd_received u64
    204+n    mcd_vault                     381+n   total_mining_mcc_minted u64
    236+n    usdt_mint                     389+n   total_mining_mcd_minted u64
    268+n    usdt_vault                    397+n   total_mining_count u64
    300+n    base_price u64 (6-dec USD/MCC) 405+n  last_cycle_timestamp i64
    308+n    premium_bps u64               413+n   total_mcc_cycled u64
    316+n    price_updated_at i64          421+n   total_mcd_cycled u64
                                           429+n   total_cycle_count u64
                                           437+n   created_at i64
                                           445+n   bump u8;  446+n _reserved [u8; 32]

``update_price(new_base_price: u64)``: data ``3d22759b4b227bd0 || u64 LE``; accounts
authority (signer, read-only; must be ``pool.authority``), pool (writable). It sets base_price
and price_updated_at; premium_bps is never changed by it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, fields
from enum import IntEnum
from typing import Any

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from chain import cluster
from chain.gateway import ChainGateway
from core.config import Settings

POOL_SEED = cluster.REINCARNATION_POOL_SEED
POOL_DISCRIMINATOR = bytes.fromhex("8b0733331e05a697")  # sha256("account:ReincarnationPool")
UPDATE_PRICE_DISCRIMINATOR = bytes.fromhex("3d22759b4b227bd0")  # sha256("global:update_price")
PRICE_UPDATED_EVENT = bytes.fromhex("9a485796f6e617d9")  # sha256("event:PriceUpdated")
POOL_SPACE = 566  # what initialize_pool allocates (ReincarnationPool::LEN)
MIN_BASE_PRICE = 10_000  # $0.01 in 6-decimal USD
MAX_BASE_PRICE = 1_000_000_000  # $1000
DEFAULT_PREMIUM_BPS = 500
WRITE_TIMEOUT = 60.0
OP_KEY_PREFIX = "reincarnation:update_price:"

# After the name: 9 pubkeys, 3 u64/i64, bool, 16 u64/i64, bump, 32 reserved.
_AFTER_NAME = struct.Struct("<32s32s32s32s32s32s32s32s32sQQq?QQqQQQQQQQqQQQqB32s")
assert _AFTER_NAME.size == 466


class ReincarnationError(IntEnum):
    """The program's own refusals of update_price (its Anchor framework refusals:
    ``chain.anchor.AnchorError``)."""

    PRICE_EXCEEDS_MAXIMUM = 6011
    PRICE_BELOW_MINIMUM = 6012
    UNAUTHORIZED = 6013


class PoolNotFound(LookupError):
    """No ReincarnationPool at the configured address (wrong cluster or settings)."""


class PriceOutOfRange(ValueError):
    """The price is outside what update_price accepts ($0.01 … $1000, 6-decimal units)."""


@dataclass(frozen=True)
class ReincarnationPool:
    name: str
    authority: Pubkey
    mcc_mint: Pubkey
    usdc_mint: Pubkey
    mcd_mint: Pubkey
    usdc_vault: Pubkey
    mcc_vault: Pubkey
    mcd_vault: Pubkey
    usdt_mint: Pubkey
    usdt_vault: Pubkey
    base_price: int
    premium_bps: int
    price_updated_at: int
    paused: bool
    daily_limit: int
    daily_used: int
    last_reset_day: int
    total_mcc_bought: int
    total_usd_paid: int
    total_buyback_count: int
    total_mining_usd_received: int
    total_mining_mcc_minted: int
    total_mining_mcd_minted: int
    total_mining_count: int
    last_cycle_timestamp: int
    total_mcc_cycled: int
    total_mcd_cycled: int
    total_cycle_count: int
    created_at: int
    bump: int
    reserved: bytes = bytes(32)  # _reserved [u8; 32]

    @property
    def buyback_price(self) -> int:
        """What user trades execute at: base + floor(base * premium_bps / 10000)."""
        return self.base_price + self.base_price * self.premium_bps // 10_000


def reincarnation_pool_address(program_id: Pubkey) -> Pubkey:
    """PDA(["reincarnation_pool_v2"], program_id): the pool the code uses (not the docs' seed)."""
    return Pubkey.find_program_address([POOL_SEED], program_id)[0]


def decode_reincarnation_pool(data: bytes) -> ReincarnationPool:
    """Decode a ReincarnationPool account's data; ValueError if it is not one."""
    if len(data) < 12 or data[:8] != POOL_DISCRIMINATOR:
        raise ValueError("not a ReincarnationPool account (discriminator)")
    (n,) = struct.unpack_from("<I", data, 8)
    if len(data) < 12 + n + _AFTER_NAME.size:
        raise ValueError(f"ReincarnationPool data too short for a {n}-byte name")
    name = data[12 : 12 + n].decode("utf-8")  # UnicodeDecodeError is a ValueError
    values = _AFTER_NAME.unpack_from(data, 12 + n)
    keys: list[Any] = [Pubkey.from_bytes(v) for v in values[:9]]
    return ReincarnationPool(name, *keys, *values[9:])


def encode_reincarnation_pool(pool: ReincarnationPool, space: int = POOL_SPACE) -> bytes:
    """The account data the real program would hold for ``pool`` (zero-padded to ``space``);
    used to create the pool at genesis on the local chain."""
    name = pool.name.encode()
    values: list[Any] = []
    for f in fields(pool)[1:]:
        value = getattr(pool, f.name)
        values.append(bytes(value) if isinstance(value, Pubkey) else value)
    body = POOL_DISCRIMINATOR + struct.pack("<I", len(name)) + name + _AFTER_NAME.pack(*values)
    if len(body) > space:
        raise ValueError(f"a pool named {pool.name!r} needs {len(body)} bytes, space is {space}")
    return body.ljust(space, b"\0")


def update_price_instruction(
    *, program_id: Pubkey, pool: Pubkey, authority: Pubkey, new_base_price: int
) -> Instruction:
    """``update_price(new_base_price)`` exactly as the Reincarnation program takes it."""
    if not 0 <= new_base_price < 1 << 64:
        raise ValueError(f"price {new_base_price} does not fit in a u64")
    return Instruction(
        program_id,
        UPDATE_PRICE_DISCRIMINATOR + struct.pack("<Q", new_base_price),
        [
            AccountMeta(authority, is_signer=True, is_writable=False),
            AccountMeta(pool, is_signer=False, is_writable=True),
        ],
    )


def decode_price_updated_event(data: bytes) -> tuple[int, int, Pubkey, int] | None:
    """(old_price, new_price, updated_by, timestamp) of a PriceUpdated event's bytes (the
    base64-decoded "Program data:" log), or None for another event."""
    if len(data) != 64 or data[:8] != PRICE_UPDATED_EVENT:
        return None
    old, new, by, ts = struct.unpack_from("<QQ32sq", data, 8)
    return old, new, Pubkey.from_bytes(by), ts


def program_id(settings: Settings) -> Pubkey:
    return cluster.program_id(settings, "reincarnation")


def pool_address(settings: Settings) -> Pubkey:
    """The configured pool address (setting ``reincarnation_pool_address``, else the PDA)."""
    return cluster.configured_reincarnation_pool(settings)


async def read_reincarnation_pool(
    gateway: ChainGateway, commitment: str | None = None
) -> ReincarnationPool:
    """The pool as the chain holds it at ``commitment`` (default: the settings' commitment).

    Raises PoolNotFound when the account is missing or not owned by the configured program.
    """
    settings = gateway.settings
    address = pool_address(settings)
    account = await gateway.account(address, commitment or settings.chain_commitment)
    if account is None or account.owner != program_id(settings):
        raise PoolNotFound(f"no ReincarnationPool at {address}")
    return decode_reincarnation_pool(account.data)


def update_price_op_key(write_key: str) -> str:
    return OP_KEY_PREFIX + write_key


async def write_update_price(gateway: ChainGateway, *, write_key: str, new_base_price: int) -> str:
    """Write ``base_price`` on chain with ``update_price``, exactly once per ``write_key``.

    Goes through the gateway's record-before-send protocol (chain_transactions row keyed
    ``reincarnation:update_price:<write_key>``): a retry or a restarted process with the same
    key resumes that write and never sends a second one; reusing a key for another price
    raises ChainWriteConflict. Returns the signature once the write is final (the settings'
    commitment, finalized in production). Raises PriceOutOfRange before any write,
    ChainRejected if the program refused it, ChainTimeout/ChainUnavailable (retryable: call
    again with the same key).
    """
    if not MIN_BASE_PRICE <= new_base_price <= MAX_BASE_PRICE:
        raise PriceOutOfRange(
            f"base price {new_base_price} is outside {MIN_BASE_PRICE}..{MAX_BASE_PRICE}"
        )
    settings = gateway.settings
    ix = update_price_instruction(
        program_id=program_id(settings),
        pool=pool_address(settings),
        authority=gateway.keys.price_authority.pubkey(),
        new_base_price=new_base_price,
    )
    op_key = update_price_op_key(write_key)
    await gateway.submit(op_key, [ix], kind="price_update", meta={"new_base_price": new_base_price})
    write = await gateway.await_final(op_key, WRITE_TIMEOUT)
    write.raise_for_failure()
    return str(write.signature)
