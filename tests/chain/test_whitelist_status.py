"""The MCD Token whitelist in LiteSVM: status updates, removal, malformed input, and the
client-side decoding and settings."""

from __future__ import annotations

import struct

import pytest
from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from chain import whitelist as wl
from chain.anchor import AnchorError as A
from chain.whitelist import Status
from chain.whitelist import WhitelistError as E
from tests.chain.svm_util import NOW
from tests.chain.whitelist_support import (
    CONFIG,
    PROGRAM,
    PROJECT,
    WlChain,
    chain_fixture,  # noqa: F401  (fixtures)
)

# ------------------------------------------------------------ update_whitelist_status


def test_suspend_then_activate(chain: WlChain) -> None:
    chain.add()
    chain.set_time(NOW + 60)
    chain.ok(chain.status_ix(Status.SUSPENDED), chain.authority)
    entry = chain.entry()
    assert entry is not None and entry.status is Status.SUSPENDED and not entry.active
    assert (entry.registered_at, entry.updated_at) == (NOW, NOW + 60)
    chain.set_time(NOW + 120)
    chain.ok(chain.status_ix(Status.ACTIVE), chain.authority)
    entry = chain.entry()
    assert entry is not None and entry.active and entry.updated_at == NOW + 120


def test_bad_status_is_refused(chain: WlChain) -> None:
    chain.add()
    for status in (2, 3, 255):
        assert chain.refused(chain.status_ix(status), chain.authority) == E.INVALID_STATUS
    entry = chain.entry()
    assert entry is not None and entry.active


def test_status_of_another_projects_entry_is_refused(chain: WlChain) -> None:
    chain.add(PROJECT + 1)
    ix = chain.status_ix(1, pda=chain.pda(PROJECT + 1))  # args say PROJECT, account is +1
    assert chain.refused(ix, chain.authority) == A.CONSTRAINT_SEEDS


def test_entry_must_belong_to_the_program(chain: WlChain) -> None:
    assert chain.refused(chain.status_ix(1), chain.authority) == A.ACCOUNT_NOT_INITIALIZED
    assert chain.refused(chain.remove_ix(), chain.authority) == A.ACCOUNT_NOT_INITIALIZED
    chain.add()
    data = chain.svm.get_account(chain.pda())
    assert data is not None
    chain.put(chain.pda(), bytes(data.data), Pubkey.new_unique())
    assert chain.refused(chain.status_ix(1), chain.authority) == A.ACCOUNT_OWNED_BY_WRONG_PROGRAM
    assert chain.refused(chain.remove_ix(), chain.authority) == A.ACCOUNT_OWNED_BY_WRONG_PROGRAM


def test_entry_must_be_an_mcd_whitelist(chain: WlChain) -> None:
    chain.put(chain.pda(), bytes(8) + bytes(122), PROGRAM)
    assert chain.refused(chain.status_ix(1), chain.authority) == A.ACCOUNT_DISCRIMINATOR_MISMATCH
    chain.put(chain.pda(), wl.ENTRY_DISCRIMINATOR + bytes(50), PROGRAM)
    assert chain.refused(chain.status_ix(1), chain.authority) == A.ACCOUNT_DID_NOT_DESERIALIZE


def test_config_must_be_a_migrated_mcd_config(chain: WlChain) -> None:
    data = wl.encode_config(chain.config)
    chain.put(CONFIG, data[:193], PROGRAM)  # McdConfigV1, before migrate_config
    assert chain.refused(chain.add_ix(), chain.authority) == A.ACCOUNT_DID_NOT_DESERIALIZE
    chain.put(CONFIG, bytes(209), PROGRAM)
    assert chain.refused(chain.add_ix(), chain.authority) == A.ACCOUNT_DISCRIMINATOR_MISMATCH


# ------------------------------------------------------------------ remove_from_whitelist


def test_remove_closes_the_entry_and_refunds_the_rent(chain: WlChain) -> None:
    chain.add()
    rent = chain.balance(chain.pda())
    before = chain.balance(chain.authority.pubkey())
    chain.ok(chain.remove_ix(), chain.authority)
    assert chain.balance(chain.authority.pubkey()) == before + rent - 5000
    account = chain.svm.get_account(chain.pda())
    assert account is None or (account.lamports == 0 and not account.data)
    assert chain.entry() is None
    wallet = chain.add()  # the project id can be whitelisted again
    entry = chain.entry()
    assert entry is not None and entry.wallet == wallet and entry.active


def test_system_program_is_checked(chain: WlChain) -> None:
    add = chain.add_ix()
    add.accounts = [*add.accounts[:4], AccountMeta(PROGRAM, False, False)]
    assert chain.refused(add, chain.authority) == A.INVALID_PROGRAM_ID
    chain.add()
    remove = chain.remove_ix()
    remove.accounts = [*remove.accounts[:3], AccountMeta(PROGRAM, False, False)]
    assert chain.refused(remove, chain.authority) == A.INVALID_PROGRAM_ID


# --------------------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", A.INSTRUCTION_MISSING),
        (bytes.fromhex("9dd33436905105"), A.INSTRUCTION_MISSING),
        (bytes(8), A.INSTRUCTION_FALLBACK_NOT_FOUND),
        (bytes.fromhex("9dd3343690510537") + bytes(11), A.INSTRUCTION_DID_NOT_DESERIALIZE),
        (
            bytes.fromhex("9dd3343690510537") + struct.pack("<QI", PROJECT, 10) + b"short",
            A.INSTRUCTION_DID_NOT_DESERIALIZE,
        ),
        (
            bytes.fromhex("9dd3343690510537") + struct.pack("<QI", PROJECT, 2) + b"\xc3\x28",
            A.INSTRUCTION_DID_NOT_DESERIALIZE,
        ),
        (
            bytes.fromhex("9dd3343690510537") + struct.pack("<QI", PROJECT, 3) + b"\xed\xa0\x80",
            A.INSTRUCTION_DID_NOT_DESERIALIZE,
        ),
        (bytes.fromhex("ccc40cba81d2c4ca") + bytes(8), A.INSTRUCTION_DID_NOT_DESERIALIZE),
        (bytes.fromhex("0790d8eff3ecc1eb") + bytes(7), A.INSTRUCTION_DID_NOT_DESERIALIZE),
    ],
)
def test_malformed_instructions_are_refused(chain: WlChain, data: bytes, code: int) -> None:
    accounts = chain.add_ix().accounts
    assert chain.refused(Instruction(PROGRAM, data, accounts), chain.authority) == code


def test_missing_accounts_are_refused(chain: WlChain) -> None:
    add = chain.add_ix()
    add.accounts = add.accounts[:4]
    assert chain.refused(add, chain.authority) == A.ACCOUNT_NOT_ENOUGH_KEYS
    remove = chain.remove_ix()
    remove.accounts = remove.accounts[:3]
    assert chain.refused(remove, chain.authority) == A.ACCOUNT_NOT_ENOUGH_KEYS


def test_every_error_code_has_a_message() -> None:
    assert set(wl.ERRORS) == {int(e) for e in (*A, *E)}
    assert "authority" in wl.error_message(E.UNAUTHORIZED)
    assert "unknown" in wl.error_message(999)


def test_decode_entry_refuses_foreign_data() -> None:
    with pytest.raises(ValueError):
        wl.decode_entry(b"\x01" * 10)
    with pytest.raises(ValueError):
        wl.decode_entry(bytes(130))
    with pytest.raises(ValueError):  # status 2 is no status
        wl.decode_entry(wl.ENTRY_DISCRIMINATOR + bytes(112) + b"\x02" + bytes(9))


def test_program_id_and_config_are_settings() -> None:
    from core.config import Settings

    default = Settings(environment="test")
    assert wl.program_id(default) == PROGRAM and wl.config_address(default) == CONFIG
    devnet = "J9UwVmFEr7ujLcp19T8nqpDnpBLcDzpL4cpwh5TMSd36"
    moved = Settings(environment="test", mcd_token_program_id=devnet)
    assert str(wl.program_id(moved)) == devnet
    assert wl.config_address(moved) == wl.find_config_pda(Pubkey.from_string(devnet))[0]
    pinned = str(Pubkey.new_unique())
    assert str(wl.config_address(Settings(environment="test", mcd_config_address=pinned))) == (
        pinned
    )
