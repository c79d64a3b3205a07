"""The Reincarnation price store, run for real: the committed reincarnation.so in LiteSVM at
the mainnet program id, driven by instructions built with chain.reincarnation, checked against
the facts page (ecosystem-programs.md 2.7, 3.1)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import struct

import pytest
from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from chain import cluster
from chain import reincarnation as rn
from chain.anchor import AnchorError as A
from chain.reincarnation import ReincarnationError as E
from devchain.node.ecosystem import REINCARNATION_PROGRAM_ID, genesis_pool
from devchain.program import elf
from tests.chain.svm_util import NOW, Svm

PROGRAM = REINCARNATION_PROGRAM_ID
POOL = rn.reincarnation_pool_address(PROGRAM)


class PoolChain(Svm):
    def __init__(self, name: str = "MCC Reincarnation Pool") -> None:
        super().__init__({PROGRAM: elf("reincarnation")})
        self.authority = self.funded()
        self.payer = self.funded()
        self.pool = self.make_pool(name)
        self.put(POOL, rn.encode_reincarnation_pool(self.pool), PROGRAM)

    def make_pool(self, name: str) -> rn.ReincarnationPool:
        base = genesis_pool_for(self.authority.pubkey(), Pubkey.new_unique())
        return dataclasses.replace(base, name=name, base_price=7_000_000, premium_bps=450)

    def ix(self, price: int, signer: Pubkey | None = None, pool: Pubkey = POOL) -> Instruction:
        return rn.update_price_instruction(
            program_id=PROGRAM,
            pool=pool,
            authority=signer or self.authority.pubkey(),
            new_base_price=price,
        )

    def current(self) -> rn.ReincarnationPool:
        data = self.data(POOL)
        assert data is not None
        return rn.decode_reincarnation_pool(data)


def genesis_pool_for(authority: Pubkey, mint: Pubkey) -> rn.ReincarnationPool:
    return genesis_pool(
        authority=authority, mcc_mint=mint, mcd_mint=Pubkey.new_unique(), now=NOW - 3600
    )


@pytest.fixture
def chain() -> PoolChain:
    return PoolChain()


# ---------------------------------------------------------------- facts page values


def test_discriminators_and_pda_match_the_facts_page() -> None:
    sha = hashlib.sha256
    assert sha(b"global:update_price").digest()[:8] == rn.UPDATE_PRICE_DISCRIMINATOR
    assert rn.UPDATE_PRICE_DISCRIMINATOR.hex() == "3d22759b4b227bd0"
    assert rn.POOL_DISCRIMINATOR.hex() == "8b0733331e05a697"
    assert cluster.anchor_discriminator("account", "ReincarnationPool") == rn.POOL_DISCRIMINATOR
    assert cluster.anchor_discriminator("event", "PriceUpdated") == rn.PRICE_UPDATED_EVENT
    mainnet = Pubkey.from_string("REn8oKyydvjRsistZ2cVi6tksPubvR3bEuLdVTyGknb")
    assert str(rn.reincarnation_pool_address(mainnet)) == (
        "H3azAs4vdPKa1zVJ74dkGyUtNzpobE8fDKAn4BmZ26it"
    )
    assert Pubkey.find_program_address([b"reincarnation_pool_v2"], mainnet)[1] == 255


def test_update_price_instruction_has_the_exact_bytes() -> None:
    authority, pool = Pubkey.new_unique(), Pubkey.new_unique()
    ix = rn.update_price_instruction(
        program_id=PROGRAM, pool=pool, authority=authority, new_base_price=10_500_000
    )
    assert ix.program_id == PROGRAM
    assert bytes(ix.data) == bytes.fromhex("3d22759b4b227bd0") + (10_500_000).to_bytes(8, "little")
    assert len(ix.data) == 16
    assert ix.accounts == [
        AccountMeta(authority, is_signer=True, is_writable=False),
        AccountMeta(pool, is_signer=False, is_writable=True),
    ]
    with pytest.raises(ValueError):
        rn.update_price_instruction(
            program_id=PROGRAM, pool=pool, authority=authority, new_base_price=1 << 64
        )


def test_layout_with_a_22_byte_name_has_the_hard_coded_offsets(chain: PoolChain) -> None:
    data = chain.data(POOL)
    assert data is not None and len(data) == rn.POOL_SPACE == 566
    assert len(chain.pool.name.encode()) == 22
    # The offsets fix_pool_data & co. hard-code on mainnet (n = 22).
    assert data[34:66] == bytes(chain.authority.pubkey())
    assert struct.unpack_from("<QQq", data, 322) == (7_000_000, 450, NOW - 3600)
    assert data[346] == 0  # paused
    assert struct.unpack_from("<Q", data, 347)[0] == 1_000_000_000_000  # daily_limit
    assert data[467] == chain.pool.bump == 255
    assert data[468:] == bytes(566 - 468)
    assert rn.decode_reincarnation_pool(data) == chain.pool
    marked = dataclasses.replace(chain.pool, reserved=b"\x07" * 32)
    encoded = rn.encode_reincarnation_pool(marked)
    assert encoded[468:500] == b"\x07" * 32 and rn.decode_reincarnation_pool(encoded) == marked


def test_decode_refuses_foreign_data() -> None:
    with pytest.raises(ValueError):
        rn.decode_reincarnation_pool(bytes(600))
    good = rn.encode_reincarnation_pool(genesis_pool_for(Pubkey.new_unique(), Pubkey.new_unique()))
    with pytest.raises(ValueError):
        rn.decode_reincarnation_pool(good[:200])
    with pytest.raises(ValueError):
        rn.decode_reincarnation_pool(good[:12] + b"\xff" * 22 + good[34:])  # not UTF-8


def test_buyback_price_is_the_on_chain_formula() -> None:
    pool = dataclasses.replace(
        genesis_pool_for(Pubkey.new_unique(), Pubkey.new_unique()),
        base_price=10_000_000,
        premium_bps=500,
    )
    assert pool.buyback_price == 10_500_000
    assert dataclasses.replace(pool, base_price=333).buyback_price == 333 + 16


# ----------------------------------------------------------------------- update_price


def test_authority_updates_the_price(chain: PoolChain) -> None:
    before = chain.current()
    chain.set_time(NOW + 42)
    meta = chain.ok(chain.ix(12_345_678), chain.authority)
    after = chain.current()
    assert (after.base_price, after.price_updated_at) == (12_345_678, NOW + 42)
    # Nothing else moved: premium_bps is never changed by update_price.
    assert dataclasses.replace(after, base_price=before.base_price, price_updated_at=0) == (
        dataclasses.replace(before, price_updated_at=0)
    )
    assert after.premium_bps == 450 and after.buyback_price == 12_345_678 + 555_555
    # The PriceUpdated event, as Anchor's emit! logs it.
    events = [
        rn.decode_price_updated_event(base64.b64decode(line.split(": ", 1)[1]))
        for line in meta.logs()
        if line.startswith("Program data: ")
    ]
    assert events == [(7_000_000, 12_345_678, chain.authority.pubkey(), NOW + 42)]


@pytest.mark.parametrize("name", ["", "pool", "x" * 32, "Pool réincarnation ✓"])
def test_offsets_follow_the_name_length(name: str) -> None:
    chain = PoolChain(name)
    chain.ok(chain.ix(rn.MAX_BASE_PRICE), chain.authority)
    after = chain.current()
    assert after.name == name
    assert after.base_price == rn.MAX_BASE_PRICE and after.price_updated_at == NOW
    assert after.premium_bps == 450 and after.authority == chain.authority.pubkey()
    assert dataclasses.replace(after, base_price=7_000_000, price_updated_at=NOW - 3600) == (
        chain.pool
    )


def test_price_bounds(chain: PoolChain) -> None:
    assert chain.refused(chain.ix(rn.MIN_BASE_PRICE - 1), chain.authority) == E.PRICE_BELOW_MINIMUM
    assert chain.refused(chain.ix(0), chain.authority) == E.PRICE_BELOW_MINIMUM
    assert chain.refused(chain.ix(rn.MAX_BASE_PRICE + 1), chain.authority) == (
        E.PRICE_EXCEEDS_MAXIMUM
    )
    assert chain.refused(chain.ix(2**64 - 1), chain.authority) == E.PRICE_EXCEEDS_MAXIMUM
    assert chain.current() == chain.pool
    chain.ok(chain.ix(rn.MIN_BASE_PRICE), chain.authority)
    assert chain.current().base_price == rn.MIN_BASE_PRICE


def test_only_the_pool_authority_may_update(chain: PoolChain) -> None:
    intruder = chain.funded()
    assert chain.refused(chain.ix(9_000_000, intruder.pubkey()), intruder) == E.UNAUTHORIZED
    assert chain.current() == chain.pool


def test_authority_must_sign(chain: PoolChain) -> None:
    ix = chain.ix(9_000_000)
    ix.accounts = [AccountMeta(chain.authority.pubkey(), False, False), ix.accounts[1]]
    assert chain.refused(ix, chain.payer) == A.ACCOUNT_NOT_SIGNER
    assert chain.current() == chain.pool


def test_pool_must_be_the_v2_pda(chain: PoolChain) -> None:
    elsewhere = Pubkey.new_unique()
    chain.put(elsewhere, rn.encode_reincarnation_pool(chain.pool), PROGRAM)
    assert chain.refused(chain.ix(9_000_000, pool=elsewhere), chain.authority) == (
        A.CONSTRAINT_SEEDS
    )
    # The docs' seed (without _v2) is not the pool either.
    docs_pda = Pubkey.find_program_address([b"reincarnation_pool"], PROGRAM)[0]
    chain.put(docs_pda, rn.encode_reincarnation_pool(chain.pool), PROGRAM)
    assert chain.refused(chain.ix(9_000_000, pool=docs_pda), chain.authority) == (
        A.CONSTRAINT_SEEDS
    )


def test_pool_must_belong_to_the_program(chain: PoolChain) -> None:
    chain.put(POOL, rn.encode_reincarnation_pool(chain.pool), Pubkey.new_unique())
    assert chain.refused(chain.ix(9_000_000), chain.authority) == A.ACCOUNT_OWNED_BY_WRONG_PROGRAM
    empty = PoolChain()
    empty.put(POOL, b"", Pubkey.default(), lamports=0)  # no pool at all
    assert empty.refused(empty.ix(9_000_000), empty.authority) == A.ACCOUNT_NOT_INITIALIZED


def test_pool_must_be_a_reincarnation_pool(chain: PoolChain) -> None:
    data = rn.encode_reincarnation_pool(chain.pool)
    chain.put(POOL, b"\x01" + data[1:], PROGRAM)
    assert chain.refused(chain.ix(9_000_000), chain.authority) == (A.ACCOUNT_DISCRIMINATOR_MISMATCH)
    chain.put(POOL, data[:5], PROGRAM)
    assert chain.refused(chain.ix(9_000_000), chain.authority) == (
        A.ACCOUNT_DISCRIMINATOR_NOT_FOUND
    )
    chain.put(POOL, data[:300], PROGRAM)
    assert chain.refused(chain.ix(9_000_000), chain.authority) == A.ACCOUNT_DID_NOT_DESERIALIZE


def test_pool_must_be_writable(chain: PoolChain) -> None:
    ix = chain.ix(9_000_000)
    ix.accounts = [ix.accounts[0], AccountMeta(POOL, False, False)]
    assert chain.refused(ix, chain.authority) == A.CONSTRAINT_MUT


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", A.INSTRUCTION_MISSING),
        (bytes.fromhex("3d22759b4b227b"), A.INSTRUCTION_MISSING),
        (bytes.fromhex("3d22759b4b227bd0") + b"\x01\x02", A.INSTRUCTION_DID_NOT_DESERIALIZE),
        (bytes(16), A.INSTRUCTION_FALLBACK_NOT_FOUND),
    ],
)
def test_malformed_instructions_are_refused(chain: PoolChain, data: bytes, code: int) -> None:
    ix = chain.ix(9_000_000)
    assert chain.refused(Instruction(PROGRAM, data, ix.accounts), chain.authority) == code


def test_missing_accounts_are_refused(chain: PoolChain) -> None:
    ix = chain.ix(9_000_000)
    ix.accounts = ix.accounts[:1]
    assert chain.refused(ix, chain.authority) == A.ACCOUNT_NOT_ENOUGH_KEYS
