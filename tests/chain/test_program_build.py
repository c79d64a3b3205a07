"""Our on-chain programs as build artefacts: every committed .so is a deployable SBPFv0 ELF
and is what its C source builds to, byte for byte, with Debian's clang.

clang is REQUIRED here (no skip): CI installs it (.ci/run), and a machine without it must fail
loudly rather than silently stop checking that the binaries match their sources."""

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

from devchain.program.sbf_link import LinkError, link

PROGRAM_DIR = Path(__file__).resolve().parents[2] / "devchain" / "program"
PROGRAMS = ("mcd_token", "reincarnation")
SOL = 1_000_000_000


def _clang() -> str:
    clang = shutil.which("clang")
    assert clang is not None, "clang is required to check the programs (apt-get install clang)"
    return clang


@pytest.mark.parametrize("name", PROGRAMS)
def test_committed_program_is_an_sbpf_v0_elf(name: str) -> None:
    elf = (PROGRAM_DIR / f"{name}.so").read_bytes()
    e_type, e_machine = struct.unpack_from("<HH", elf, 16)
    (e_flags,) = struct.unpack_from("<I", elf, 48)
    assert elf[:4] == b"\x7fELF" and (e_type, e_machine, e_flags) == (3, 247, 0)


def test_every_c_source_has_its_committed_program() -> None:
    sources = {p.stem for p in PROGRAM_DIR.glob("*.c")}
    assert sources == set(PROGRAMS)
    assert {p.stem for p in PROGRAM_DIR.glob("*.so")} == set(PROGRAMS)


def test_committed_programs_are_reproduced_byte_for_byte() -> None:
    _clang()
    result = subprocess.run(
        ["make", "-s", "-C", str(PROGRAM_DIR), "check", f"PYTHON={sys.executable}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for name in PROGRAMS:
        assert f"{name}.so is reproducible" in result.stdout


def test_check_fails_without_the_compiler() -> None:
    result = subprocess.run(
        ["make", "-s", "-C", str(PROGRAM_DIR), "check", "CLANG=clang-that-does-not-exist"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0 and "not found" in result.stderr


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_passes_the_upgradeable_loaders_deployment_checks(name: str) -> None:
    """Deploy through BPFLoaderUpgradeable like a real cluster would: that path runs the
    strict ELF checks and the verifier that add_program skips, so the .so is deployable. The
    deployed program then answers (an unknown instruction: Anchor's 101)."""
    loader = Pubkey.from_string("BPFLoaderUpgradeab1e11111111111111111111111")
    svm = LiteSVM()
    payer, buffer, program = Keypair(), Keypair(), Keypair()
    svm.airdrop(payer.pubkey(), 100 * SOL)
    elf = (PROGRAM_DIR / f"{name}.so").read_bytes()

    def send(ixs: list[Instruction], *signers: Keypair) -> object:
        msg = MessageV0.try_compile(payer.pubkey(), ixs, [], svm.latest_blockhash())
        return svm.send_transaction(VersionedTransaction(msg, [payer, *signers]))

    def ok(ixs: list[Instruction], *signers: Keypair) -> None:
        result = send(ixs, *signers)
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
            AccountMeta(Pubkey.default(), False, False),
            AccountMeta(payer.pubkey(), True, False),
        ],
    )
    ok([create(program, 36), deploy], program)
    svm.warp_to_slot(2)  # deployed programs become visible from the next slot
    svm.expire_blockhash()
    result = send([Instruction(program.pubkey(), bytes(8), [])])
    assert isinstance(result, FailedTransactionMetadata)
    err = result.err()
    assert isinstance(err, TransactionErrorInstructionError)
    assert isinstance(err.err, InstructionErrorCustom) and err.err.code == 101


def _compile(tmp_path: Path, source: str) -> bytes:
    src = tmp_path / "t.c"
    src.write_text(source)
    obj = tmp_path / "t.o"
    flags = ["-target", "bpfel", "-mcpu=v2", "-O2", "-fno-builtin", "-ffreestanding"]
    subprocess.run([_clang(), *flags, "-c", str(src), "-o", str(obj)], check=True)
    return obj.read_bytes()


def test_linker_refuses_writable_globals(tmp_path: Path) -> None:
    obj = _compile(tmp_path, "unsigned long n;\nunsigned long entrypoint(void) { return ++n; }\n")
    with pytest.raises(LinkError, match="writable"):
        link(obj)


def test_linker_refuses_calls_to_non_syscalls(tmp_path: Path) -> None:
    source = (
        "void *memcpy(void *, const void *, unsigned long);\n"
        "unsigned long entrypoint(char *in) { memcpy(in, in + 64, 300); return 0; }\n"
    )
    obj = _compile(tmp_path, source)
    with pytest.raises(LinkError, match="not a syscall"):
        link(obj)
