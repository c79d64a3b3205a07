"""The MCD Token whitelist, run for real: the committed mcd_token.so in LiteSVM at the mainnet
program id, driven by instructions built with chain.whitelist, checked byte for byte against
the facts page (ecosystem-programs.md 2.6, 3.1, 3.3)."""

from __future__ import annotations

import hashlib
import struct

import pytest
from solders.instruction import AccountMeta
from solders.pubkey import Pubkey

from chain import whitelist as wl
from chain.anchor import AnchorError as A
from chain.whitelist import Status
from chain.whitelist import WhitelistError as E
from devchain.node.ecosystem import genesis_mcd_config
from tests.chain.svm_util import NOW, SOL
from tests.chain.whitelist_support import (
    CONFIG,
    NAME,
    PROGRAM,
    PROJECT,
    WlChain,
    chain_fixture,  # noqa: F401  (fixtures)
)

# ---------------------------------------------------------------- facts page values


def test_discriminators_and_pdas_match_the_facts_page() -> None:
    def sha(text: str) -> bytes:
        return hashlib.sha256(text.encode()).digest()[:8]

    assert sha("global:add_to_whitelist") == wl.ADD_DISCRIMINATOR
    assert wl.ADD_DISCRIMINATOR.hex() == "9dd3343690510537"
    assert wl.UPDATE_STATUS_DISCRIMINATOR.hex() == "ccc40cba81d2c4ca"
    assert sha("global:update_whitelist_status") == wl.UPDATE_STATUS_DISCRIMINATOR
    assert wl.REMOVE_DISCRIMINATOR.hex() == "0790d8eff3ecc1eb"
    assert sha("global:remove_from_whitelist") == wl.REMOVE_DISCRIMINATOR
    assert sha("account:McdWhitelist") == wl.ENTRY_DISCRIMINATOR
    assert sha("account:McdConfig") == wl.CONFIG_DISCRIMINATOR
    assert str(PROGRAM) == "McDVieuEFv5ucnM3C7p8wsT6LY8BAipKDrTG9HjAu3R"
    assert (str(CONFIG), wl.find_config_pda(PROGRAM)[1]) == (
        "9ru4MVNzxHM7ADgSTSYZaRNJ7JVS2mT3QXg9tZri7mYp",
        254,
    )
    assert tuple(map(str, wl.find_whitelist_pda(PROGRAM, 1))) == (
        "4Ch4RXdjUf5Mjw2L9R9zemCTRwTk1iE8rySrYq8rnnB7",
        "252",
    )


def test_gateway_instructions_have_the_exact_bytes() -> None:
    auth, wallet = Pubkey.new_unique(), Pubkey.new_unique()
    pda = wl.find_whitelist_pda(PROGRAM, 7)[0]
    system = Pubkey.default()

    add = wl.add_ix(PROGRAM, auth, CONFIG, 7, "Moon", wallet)
    assert bytes(add.data) == (
        bytes.fromhex("9dd3343690510537") + struct.pack("<QI", 7, 4) + b"Moon"
    )
    assert add.accounts == [
        AccountMeta(auth, is_signer=True, is_writable=True),
        AccountMeta(CONFIG, is_signer=False, is_writable=False),
        AccountMeta(pda, is_signer=False, is_writable=True),
        AccountMeta(wallet, is_signer=False, is_writable=False),
        AccountMeta(system, is_signer=False, is_writable=False),
    ]

    status = wl.set_status_ix(PROGRAM, auth, CONFIG, 7, Status.SUSPENDED)
    assert bytes(status.data) == bytes.fromhex("ccc40cba81d2c4ca") + struct.pack("<QB", 7, 1)
    assert len(status.data) == 17
    assert status.accounts == [
        AccountMeta(auth, is_signer=True, is_writable=True),
        AccountMeta(CONFIG, is_signer=False, is_writable=False),
        AccountMeta(pda, is_signer=False, is_writable=True),
    ]

    remove = wl.remove_ix(PROGRAM, auth, CONFIG, 7)
    assert bytes(remove.data) == bytes.fromhex("0790d8eff3ecc1eb") + struct.pack("<Q", 7)
    assert remove.accounts == [
        AccountMeta(auth, is_signer=True, is_writable=True),
        AccountMeta(CONFIG, is_signer=False, is_writable=False),
        AccountMeta(pda, is_signer=False, is_writable=True),
        AccountMeta(system, is_signer=False, is_writable=False),
    ]
    for ix in (add, status, remove):
        assert ix.program_id == PROGRAM


def test_chain_project_name_fits_64_bytes_at_a_character() -> None:
    assert wl.chain_project_name("Moon") == "Moon"
    assert wl.chain_project_name("x" * 100) == "x" * 64
    cut = wl.chain_project_name("é" * 40)  # 80 bytes: 32 characters fit
    assert cut == "é" * 32 and len(cut.encode()) == 64


def test_config_round_trip_and_v1_is_refused() -> None:
    config = genesis_mcd_config(authority=Pubkey.new_unique(), mcd_mint=Pubkey.new_unique(), now=5)
    data = wl.encode_config(config)
    assert len(data) == 209 and data[208] == 254 and data[8:40] == bytes(config.authority)
    assert wl.decode_config(data) == config
    with pytest.raises(ValueError):
        wl.decode_config(data[:193])


# ----------------------------------------------------------------------- add_to_whitelist


def test_add_writes_the_real_layout(chain: WlChain) -> None:
    before = chain.balance(chain.authority.pubkey())
    wallet = chain.add()
    pda, bump = wl.find_whitelist_pda(PROGRAM, PROJECT)
    account = chain.svm.get_account(pda)
    assert account is not None and account.owner == PROGRAM
    rent = chain.svm.minimum_balance_for_rent_exemption(130)
    assert account.lamports == rent
    data = bytes(account.data)
    assert len(data) == 130
    assert data[0:8] == bytes.fromhex("e4c816307de99739")
    assert data[8:16] == struct.pack("<Q", PROJECT)
    assert data[16:48] == bytes(wallet)
    assert data[48:112] == NAME.encode().ljust(64, b"\0")
    assert struct.unpack_from("<q", data, 112)[0] == NOW  # registered_at
    assert data[120] == 0  # status ACTIVE
    assert struct.unpack_from("<q", data, 121)[0] == NOW  # updated_at
    assert data[129] == bump
    assert chain.entry() == wl.WhitelistEntry(
        project_id=PROJECT,
        wallet=wallet,
        project_name=NAME,
        registered_at=NOW,
        status=Status.ACTIVE,
        updated_at=NOW,
        bump=bump,
    )
    assert chain.balance(chain.authority.pubkey()) == before - rent - 5000  # rent + fee


@pytest.mark.parametrize("name", ["", "x" * 64, "Projet été ✓", "é" * 32])
def test_names_up_to_64_bytes(chain: WlChain, name: str) -> None:
    chain.add(name=name)
    entry = chain.entry()
    assert entry is not None and entry.project_name == name


def test_name_over_64_bytes_is_refused(chain: WlChain) -> None:
    assert chain.refused(chain.add_ix(name="x" * 65), chain.authority) == E.PROJECT_NAME_TOO_LONG
    assert chain.refused(chain.add_ix(name="é" * 33), chain.authority) == E.PROJECT_NAME_TOO_LONG
    assert chain.entry() is None


def test_project_ids_are_full_u64_little_endian(chain: WlChain) -> None:
    for project_id in (0, 1, 2**64 - 1):
        chain.add(project_id)
        entry = chain.entry(project_id)
        assert entry is not None and entry.project_id == project_id


def test_double_add_is_refused(chain: WlChain) -> None:
    wallet = chain.add()
    assert chain.refused(chain.add_ix(), chain.authority) == E.ALREADY_IN_USE
    entry = chain.entry()
    assert entry is not None and entry.wallet == wallet


def test_prefunded_pda_cannot_block_a_project(chain: WlChain) -> None:
    """Sending lamports to a future project's address first does not stop the add (Anchor's
    init tops up, allocates and assigns), so nobody can squat an id that way either."""
    for project_id, lamports in ((PROJECT, 1000), (PROJECT + 1, 5 * SOL)):
        chain.svm.airdrop(chain.pda(project_id), lamports)
        chain.add(project_id)
        account = chain.svm.get_account(chain.pda(project_id))
        assert account is not None and account.owner == PROGRAM and len(account.data) == 130
        rent = chain.svm.minimum_balance_for_rent_exemption(130)
        assert account.lamports == max(lamports, rent)
        assert chain.entry(project_id) is not None


def test_wrong_pda_is_refused(chain: WlChain) -> None:
    other = chain.pda(PROJECT + 1)
    assert chain.refused(chain.add_ix(pda=other), chain.authority) == A.CONSTRAINT_SEEDS
    assert chain.refused(chain.add_ix(pda=Pubkey.new_unique()), chain.authority) == (
        A.CONSTRAINT_SEEDS
    )
    assert chain.entry() is None and chain.entry(PROJECT + 1) is None


def test_non_canonical_bump_is_refused(chain: WlChain) -> None:
    """Only the canonical bump: a project id has exactly one possible entry."""
    _, canonical = wl.find_whitelist_pda(PROGRAM, PROJECT)
    seed = struct.pack("<Q", PROJECT)
    for bump in range(canonical - 1, -1, -1):
        try:
            pda = Pubkey.create_program_address([wl.SEED_PREFIX, seed, bytes([bump])], PROGRAM)
        except Exception:  # on the curve: not a PDA, try the next bump
            continue
        break
    else:
        raise AssertionError("no second valid bump")
    assert chain.refused(chain.add_ix(pda=pda), chain.authority) == A.CONSTRAINT_SEEDS


# ------------------------------------------------------- only the config authority writes


def test_no_other_signer_can_create_change_or_remove_an_entry(chain: WlChain) -> None:
    """Squatting is impossible: a stranger cannot create an entry for a future project id, nor
    change or remove an existing one, even when paying and signing everything itself."""
    stranger = chain.funded()
    me = stranger.pubkey()
    assert chain.refused(chain.add_ix(PROJECT + 5, signer=me), stranger) == E.UNAUTHORIZED
    assert chain.entry(PROJECT + 5) is None
    chain.add()
    assert chain.refused(chain.status_ix(1, signer=me), stranger) == E.UNAUTHORIZED
    assert chain.refused(chain.remove_ix(signer=me), stranger) == E.UNAUTHORIZED
    entry = chain.entry()
    assert entry is not None and entry.active
    # Nor with a config of its own: it is not the program's mcd_config PDA / account.
    fake = wl.encode_config(genesis_mcd_config(authority=me, mcd_mint=Pubkey.new_unique(), now=NOW))
    fake_at_random = Pubkey.new_unique()
    chain.put(fake_at_random, fake, PROGRAM)  # cannot even exist on a real chain
    ix = chain.add_ix(PROJECT + 6, signer=me, config=fake_at_random)
    assert chain.refused(ix, stranger) == A.CONSTRAINT_SEEDS
    foreign = Pubkey.new_unique()
    chain.put(foreign, fake, Pubkey.new_unique())  # owned by the stranger's own program
    ix = chain.add_ix(PROJECT + 6, signer=me, config=foreign)
    assert chain.refused(ix, stranger) == A.ACCOUNT_OWNED_BY_WRONG_PROGRAM
    assert chain.entry(PROJECT + 6) is None


def test_authority_must_sign(chain: WlChain) -> None:
    payer = chain.funded()
    add = chain.add_ix()
    add.accounts = [AccountMeta(chain.authority.pubkey(), False, True), *add.accounts[1:]]
    assert chain.refused(add, payer) == A.ACCOUNT_NOT_SIGNER
    chain.add()
    status = chain.status_ix(1)
    status.accounts = [AccountMeta(chain.authority.pubkey(), False, True), *status.accounts[1:]]
    assert chain.refused(status, payer) == A.ACCOUNT_NOT_SIGNER


def test_writable_accounts_are_checked(chain: WlChain) -> None:
    add = chain.add_ix()
    add.accounts = [add.accounts[0], add.accounts[1], AccountMeta(chain.pda(), False, False),
                    *add.accounts[3:]]  # fmt: skip
    assert chain.refused(add, chain.authority) == A.CONSTRAINT_MUT
    chain.add()
    status = chain.status_ix(1)
    status.accounts = [AccountMeta(chain.authority.pubkey(), True, False), *status.accounts[1:]]
    payer = chain.funded()  # the fee payer is always writable: another one pays
    assert chain.refused(status, payer, chain.authority) == A.CONSTRAINT_MUT
