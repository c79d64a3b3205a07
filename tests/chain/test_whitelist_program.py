"""The MCD whitelist program, run for real: the committed .so in LiteSVM (the Agave SVM
in-process), driven by signed transactions built with chain.whitelist."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.litesvm import LiteSVM
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import CreateAccountParams, create_account
from solders.sysvar import CLOCK, RENT
from solders.transaction import VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata, TransactionMetadata
from solders.transaction_status import InstructionErrorCustom, TransactionErrorInstructionError

from chain import whitelist as wl
from chain.program.sbf_link import LinkError, link
from chain.whitelist import Status, WhitelistError

PROGRAM_DIR = Path(wl.__file__).parent / "program"
SOL = 1_000_000_000
PROJECT = 4242


class Chain:
    def __init__(self) -> None:
        self.svm = LiteSVM()
        self.program = Keypair().pubkey()
        self.svm.add_program(self.program, wl.program_bytes())
        self.authority = self.funded()

    def funded(self) -> Keypair:
        kp = Keypair()
        self.svm.airdrop(kp.pubkey(), 10 * SOL)
        return kp

    def send(
        self, ix: Instruction, *signers: Keypair
    ) -> TransactionMetadata | FailedTransactionMetadata:
        msg = MessageV0.try_compile(signers[0].pubkey(), [ix], [], self.svm.latest_blockhash())
        result = self.svm.send_transaction(VersionedTransaction(msg, list(signers)))
        self.svm.expire_blockhash()  # identical retries must be new transactions
        return result

    def ok(self, ix: Instruction, *signers: Keypair) -> None:
        result = self.send(ix, *signers)
        assert isinstance(result, TransactionMetadata), result

    def refused(self, ix: Instruction, *signers: Keypair) -> int:
        """The custom error code of the (first) instruction's refusal."""
        result = self.send(ix, *signers)
        assert isinstance(result, FailedTransactionMetadata), result
        err = result.err()
        assert isinstance(err, TransactionErrorInstructionError), err
        assert isinstance(err.err, InstructionErrorCustom), err
        return err.err.code

    def balance(self, key: Pubkey) -> int:
        return self.svm.get_balance(key) or 0

    def entry(self, project_id: int = PROJECT) -> wl.WhitelistEntry | None:
        account = self.svm.get_account(wl.find_whitelist_pda(self.program, project_id)[0])
        if account is None or account.lamports == 0:
            return None
        assert account.owner == self.program
        return wl.decode_entry(bytes(account.data))

    def add(self, project_id: int = PROJECT, signer: Keypair | None = None) -> Pubkey:
        signer = signer or self.authority
        wallet = Keypair().pubkey()
        self.ok(wl.add_ix(self.program, signer.pubkey(), project_id, wallet), signer)
        return wallet


@pytest.fixture
def chain() -> Chain:
    return Chain()


def test_add_creates_a_rent_exempt_entry_owned_by_the_program(chain: Chain) -> None:
    before = chain.balance(chain.authority.pubkey())
    wallet = chain.add()
    pda, bump = wl.find_whitelist_pda(chain.program, PROJECT)
    account = chain.svm.get_account(pda)
    assert account is not None
    assert account.owner == chain.program
    assert len(account.data) == wl.ENTRY_SIZE
    assert account.lamports == chain.svm.minimum_balance_for_rent_exemption(wl.ENTRY_SIZE)
    assert chain.entry() == wl.WhitelistEntry(
        version=1,
        status=Status.ACTIVE,
        bump=bump,
        project_id=PROJECT,
        wallet=wallet,
        authority=chain.authority.pubkey(),
    )
    # The authority paid the rent (plus the fee).
    assert chain.balance(chain.authority.pubkey()) == before - account.lamports - 5000


def test_project_ids_are_full_u64_little_endian(chain: Chain) -> None:
    for project_id in (0, 1, 2**64 - 1):
        chain.add(project_id)
        entry = chain.entry(project_id)
        assert entry is not None and entry.project_id == project_id


def test_suspend_then_activate(chain: Chain) -> None:
    chain.add()
    chain.ok(wl.set_status_ix(chain.program, chain.authority.pubkey(), PROJECT, 2), chain.authority)
    entry = chain.entry()
    assert entry is not None and entry.status is Status.SUSPENDED and not entry.active
    chain.ok(wl.set_status_ix(chain.program, chain.authority.pubkey(), PROJECT, 1), chain.authority)
    entry = chain.entry()
    assert entry is not None and entry.active


def test_remove_refunds_the_rent_and_frees_the_project_id(chain: Chain) -> None:
    chain.add()
    pda = wl.find_whitelist_pda(chain.program, PROJECT)[0]
    rent = chain.balance(pda)
    before = chain.balance(chain.authority.pubkey())
    chain.ok(wl.remove_ix(chain.program, chain.authority.pubkey(), PROJECT), chain.authority)
    assert chain.balance(chain.authority.pubkey()) == before + rent - 5000
    account = chain.svm.get_account(pda)
    assert account is None or (account.lamports == 0 and not account.data)
    assert chain.entry() is None
    # Removed entries can be re-added (the address is free again).
    wallet = chain.add()
    entry = chain.entry()
    assert entry is not None and entry.wallet == wallet and entry.active


def test_add_twice_is_refused_even_for_another_signer(chain: Chain) -> None:
    wallet = chain.add()
    other = chain.funded()
    for signer in (chain.authority, other):
        ix = wl.add_ix(chain.program, signer.pubkey(), PROJECT, Keypair().pubkey())
        assert chain.refused(ix, signer) == WhitelistError.ALREADY_EXISTS
    entry = chain.entry()
    assert entry is not None and entry.wallet == wallet
    assert entry.authority == chain.authority.pubkey()


def test_prefunded_pda_counts_as_taken(chain: Chain) -> None:
    pda = wl.find_whitelist_pda(chain.program, PROJECT)[0]
    chain.svm.airdrop(pda, SOL)
    ix = wl.add_ix(chain.program, chain.authority.pubkey(), PROJECT, Keypair().pubkey())
    assert chain.refused(ix, chain.authority) == WhitelistError.ALREADY_EXISTS


def test_wrong_pda_is_refused(chain: Chain) -> None:
    auth = chain.authority.pubkey()
    wallet = Keypair().pubkey()
    other_pda, other_bump = wl.find_whitelist_pda(chain.program, PROJECT + 1)
    ix = wl.add_ix(chain.program, auth, PROJECT, wallet, pda=other_pda, bump=other_bump)
    assert chain.refused(ix, chain.authority) == WhitelistError.INVALID_PDA
    # A random address as the entry.
    ix = wl.add_ix(chain.program, auth, PROJECT, wallet, pda=Keypair().pubkey())
    assert chain.refused(ix, chain.authority) == WhitelistError.INVALID_PDA
    assert chain.entry() is None and chain.entry(PROJECT + 1) is None


def test_non_canonical_bump_is_refused(chain: Chain) -> None:
    """Only the canonical bump is accepted, so a project id maps to exactly one entry."""
    _, canonical = wl.find_whitelist_pda(chain.program, PROJECT)
    seed = struct.pack("<Q", PROJECT)
    for bump in range(canonical - 1, -1, -1):
        try:
            seeds = [wl.SEED_PREFIX, seed, bytes([bump])]
            pda = Pubkey.create_program_address(seeds, chain.program)
        except Exception:  # on the curve: not a PDA, try the next bump
            continue
        break
    else:
        pytest.skip("no second valid bump for this program id")
    ix = wl.add_ix(
        chain.program, chain.authority.pubkey(), PROJECT, Keypair().pubkey(), pda=pda, bump=bump
    )
    assert chain.refused(ix, chain.authority) == WhitelistError.INVALID_PDA


def test_bad_status_is_refused(chain: Chain) -> None:
    chain.add()
    for status in (0, 3, 255):
        ix = wl.set_status_ix(chain.program, chain.authority.pubkey(), PROJECT, status)
        assert chain.refused(ix, chain.authority) == WhitelistError.BAD_STATUS
    entry = chain.entry()
    assert entry is not None and entry.active


def test_only_the_authority_may_set_status(chain: Chain) -> None:
    chain.add()
    intruder = chain.funded()
    ix = wl.set_status_ix(chain.program, intruder.pubkey(), PROJECT, 2)
    assert chain.refused(ix, intruder) == WhitelistError.NOT_AUTHORITY
    entry = chain.entry()
    assert entry is not None and entry.active


def test_only_the_authority_may_remove(chain: Chain) -> None:
    chain.add()
    intruder = chain.funded()
    ix = wl.remove_ix(chain.program, intruder.pubkey(), PROJECT)
    assert chain.refused(ix, intruder) == WhitelistError.NOT_AUTHORITY
    assert chain.entry() is not None


def test_authority_must_sign(chain: Chain) -> None:
    chain.add()
    payer = chain.funded()
    pda = wl.find_whitelist_pda(chain.program, PROJECT)[0]
    unsigned = Instruction(
        chain.program,
        bytes([wl.TAG_SET_STATUS, 2]),
        [
            AccountMeta(chain.authority.pubkey(), is_signer=False, is_writable=False),
            AccountMeta(pda, is_signer=False, is_writable=True),
        ],
    )
    assert chain.refused(unsigned, payer) == WhitelistError.MISSING_SIGNER
    add = wl.add_ix(chain.program, chain.authority.pubkey(), PROJECT + 1, Keypair().pubkey())
    add.accounts = [
        AccountMeta(chain.authority.pubkey(), is_signer=False, is_writable=True),
        *add.accounts[1:],
    ]
    assert chain.refused(add, payer) == WhitelistError.MISSING_SIGNER


def test_entry_must_belong_to_the_program(chain: Chain) -> None:
    # Never added: the PDA is a plain system account.
    chain.svm.airdrop(wl.find_whitelist_pda(chain.program, PROJECT)[0], SOL)
    ix = wl.set_status_ix(chain.program, chain.authority.pubkey(), PROJECT, 2)
    assert chain.refused(ix, chain.authority) == WhitelistError.NOT_OWNED
    ix = wl.remove_ix(chain.program, chain.authority.pubkey(), PROJECT)
    assert chain.refused(ix, chain.authority) == WhitelistError.NOT_OWNED


def test_system_program_is_checked(chain: Chain) -> None:
    ix = wl.add_ix(chain.program, chain.authority.pubkey(), PROJECT, Keypair().pubkey())
    ix.accounts = [*ix.accounts[:2], AccountMeta(chain.program, False, False)]
    assert chain.refused(ix, chain.authority) == WhitelistError.WRONG_SYSTEM_PROGRAM


@pytest.mark.parametrize("data", [b"", b"\x07", b"\x00\x01", b"\x01", b"\x01\x01\x01", b"\x02\x00"])
def test_malformed_instructions_are_refused(chain: Chain, data: bytes) -> None:
    chain.add()
    pda = wl.find_whitelist_pda(chain.program, PROJECT)[0]
    ix = Instruction(
        chain.program,
        data,
        [
            AccountMeta(chain.authority.pubkey(), is_signer=True, is_writable=True),
            AccountMeta(pda, is_signer=False, is_writable=True),
        ],
    )
    assert chain.refused(ix, chain.authority) == WhitelistError.INVALID_INSTRUCTION


def test_missing_accounts_are_refused(chain: Chain) -> None:
    ix = wl.add_ix(chain.program, chain.authority.pubkey(), PROJECT, Keypair().pubkey())
    ix.accounts = ix.accounts[:2]
    assert chain.refused(ix, chain.authority) == WhitelistError.NOT_ENOUGH_ACCOUNTS


def test_every_error_code_has_a_message() -> None:
    assert set(wl.ERRORS) == {int(e) for e in WhitelistError}
    assert "authority" in wl.error_message(WhitelistError.NOT_AUTHORITY)
    assert "unknown" in wl.error_message(999)


def test_decode_entry_refuses_foreign_data() -> None:
    with pytest.raises(ValueError):
        wl.decode_entry(b"\x01" * 10)
    with pytest.raises(ValueError):
        wl.decode_entry(b"\x02" + bytes(79))


def test_committed_program_is_an_sbpf_v0_elf() -> None:
    elf = wl.program_bytes()
    e_type, e_machine = struct.unpack_from("<HH", elf, 16)
    (e_flags,) = struct.unpack_from("<I", elf, 48)
    assert elf[:4] == b"\x7fELF" and (e_type, e_machine, e_flags) == (3, 247, 0)


def test_program_passes_the_upgradeable_loaders_deployment_checks() -> None:
    """Deploy through BPFLoaderUpgradeable like a real cluster would: that path runs the
    strict ELF checks and the verifier that add_program skips, so the .so is deployable."""
    loader = Pubkey.from_string("BPFLoaderUpgradeab1e11111111111111111111111")
    svm = LiteSVM()
    payer, buffer, program = Keypair(), Keypair(), Keypair()
    svm.airdrop(payer.pubkey(), 100 * SOL)
    elf = wl.program_bytes()

    def ok(ixs: list[Instruction], *signers: Keypair) -> None:
        msg = MessageV0.try_compile(payer.pubkey(), ixs, [], svm.latest_blockhash())
        result = svm.send_transaction(VersionedTransaction(msg, [payer, *signers]))
        assert isinstance(result, TransactionMetadata), result

    def create(account: Keypair, space: int) -> Instruction:
        lamports = svm.minimum_balance_for_rent_exemption(space)
        params = CreateAccountParams(
            from_pubkey=payer.pubkey(),
            to_pubkey=account.pubkey(),
            lamports=lamports,
            space=space,
            owner=loader,
        )
        return create_account(params)

    # Loader instructions are bincode: u32 tag, then fields (Write: u32 offset, u64 len, bytes).
    buf_meta = AccountMeta(buffer.pubkey(), is_signer=False, is_writable=True)
    init = Instruction(
        loader, struct.pack("<I", 0), [buf_meta, AccountMeta(payer.pubkey(), False, False)]
    )
    ok([create(buffer, 37 + len(elf)), init], buffer)
    for offset in range(0, len(elf), 900):
        chunk = elf[offset : offset + 900]
        data = struct.pack("<IIQ", 1, offset, len(chunk)) + chunk
        ok([Instruction(loader, data, [buf_meta, AccountMeta(payer.pubkey(), True, False)])])
    programdata = Pubkey.find_program_address([bytes(program.pubkey())], loader)[0]
    deploy = Instruction(
        loader,
        struct.pack("<IQ", 2, len(elf)),
        [
            AccountMeta(payer.pubkey(), True, True),
            AccountMeta(programdata, False, True),
            AccountMeta(program.pubkey(), False, True),
            buf_meta,
            AccountMeta(RENT, False, False),
            AccountMeta(CLOCK, False, False),
            AccountMeta(wl.SYSTEM_PROGRAM_ID, False, False),
            AccountMeta(payer.pubkey(), True, False),
        ],
    )
    ok([create(program, 36), deploy], program)
    svm.warp_to_slot(2)  # deployed programs become visible from the next slot
    svm.expire_blockhash()
    ok([wl.add_ix(program.pubkey(), payer.pubkey(), PROJECT, Keypair().pubkey())])


# --- build reproducibility (needs Debian's clang; CI installs it) --------------------------

needs_clang = pytest.mark.skipif(shutil.which("clang") is None, reason="clang not installed")


@needs_clang
def test_committed_so_is_reproduced_byte_for_byte() -> None:
    result = subprocess.run(
        ["make", "-s", "-C", str(PROGRAM_DIR), "check", f"PYTHON={sys.executable}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _compile(tmp_path: Path, source: str) -> bytes:
    src = tmp_path / "t.c"
    src.write_text(source)
    obj = tmp_path / "t.o"
    flags = ["-target", "bpfel", "-mcpu=v2", "-O2", "-fno-builtin", "-ffreestanding"]
    subprocess.run(["clang", *flags, "-c", str(src), "-o", str(obj)], check=True)
    return obj.read_bytes()


@needs_clang
def test_linker_refuses_writable_globals(tmp_path: Path) -> None:
    obj = _compile(tmp_path, "unsigned long n;\nunsigned long entrypoint(void) { return ++n; }\n")
    with pytest.raises(LinkError, match="writable"):
        link(obj)


@needs_clang
def test_linker_refuses_calls_to_non_syscalls(tmp_path: Path) -> None:
    source = (
        "void *memcpy(void *, const void *, unsigned long);\n"
        "unsigned long entrypoint(char *in) { memcpy(in, in + 64, 300); return 0; }\n"
    )
    obj = _compile(tmp_path, source)
    with pytest.raises(LinkError, match="not a syscall"):
        link(obj)


def test_program_id_is_configurable_for_a_real_cluster(tmp_path: Path) -> None:
    from chain.keys import load_or_create_keys
    from chain.whitelist import program_id

    keys = load_or_create_keys(tmp_path / "keys")
    assert program_id(keys) == keys.whitelist_program.pubkey()
    elsewhere = str(Pubkey.new_unique())
    assert str(program_id(keys, elsewhere)) == elsewhere
