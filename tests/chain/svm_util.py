"""Run one of our programs for real in LiteSVM (the Agave SVM in-process): signed
transactions in, custom error codes and account bytes out."""

from __future__ import annotations

from solders.account import Account
from solders.clock import Clock
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.litesvm import LiteSVM
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata, TransactionMetadata
from solders.transaction_status import InstructionErrorCustom, TransactionErrorInstructionError

SOL = 1_000_000_000
NOW = 1_790_000_000  # the clock every test runs at (unix seconds)


class Svm:
    def __init__(self, programs: dict[Pubkey, bytes]) -> None:
        self.svm = LiteSVM()
        for program, elf in programs.items():
            self.svm.add_program(program, elf)
        self.set_time(NOW)

    def set_time(self, unix_timestamp: int) -> None:
        self.svm.set_clock(Clock(1, 0, 0, 0, unix_timestamp))

    def funded(self) -> Keypair:
        kp = Keypair()
        self.svm.airdrop(kp.pubkey(), 10 * SOL)
        return kp

    def put(self, key: Pubkey, data: bytes, owner: Pubkey, lamports: int | None = None) -> None:
        if lamports is None:
            lamports = self.svm.minimum_balance_for_rent_exemption(len(data))
        self.svm.set_account(key, Account(lamports, data, owner, False, 0))

    def data(self, key: Pubkey) -> bytes | None:
        account = self.svm.get_account(key)
        if account is None or account.lamports == 0:
            return None
        return bytes(account.data)

    def balance(self, key: Pubkey) -> int:
        return self.svm.get_balance(key) or 0

    def send(
        self, ix: Instruction, *signers: Keypair
    ) -> TransactionMetadata | FailedTransactionMetadata:
        msg = MessageV0.try_compile(signers[0].pubkey(), [ix], [], self.svm.latest_blockhash())
        result = self.svm.send_transaction(VersionedTransaction(msg, list(signers)))
        self.svm.expire_blockhash()  # identical retries must be new transactions
        return result

    def ok(self, ix: Instruction, *signers: Keypair) -> TransactionMetadata:
        result = self.send(ix, *signers)
        assert isinstance(result, TransactionMetadata), result
        return result

    def refused(self, ix: Instruction, *signers: Keypair) -> int:
        """The custom error code of the instruction's refusal."""
        result = self.send(ix, *signers)
        assert isinstance(result, FailedTransactionMetadata), result
        err = result.err()
        assert isinstance(err, TransactionErrorInstructionError), err
        assert isinstance(err.err, InstructionErrorCustom), err
        return err.err.code


def decompile(tx_bytes: bytes) -> tuple[Pubkey, list[Instruction]]:
    """(fee payer, instructions with their signer/writable flags) of a signed transaction, as
    the chain reads it: to compare what the gateway recorded and sent with the facts page. The
    compute budget every write carries is left out (tests/chain/test_write_fees.py has it)."""
    from solders.instruction import AccountMeta
    from solders.transaction import VersionedTransaction

    from chain.fees import COMPUTE_BUDGET

    message = VersionedTransaction.from_bytes(tx_bytes).message
    keys = list(message.account_keys)
    header = message.header
    signed = header.num_required_signatures

    def writable(i: int) -> bool:
        if i < signed:
            return i < signed - header.num_readonly_signed_accounts
        return i < len(keys) - header.num_readonly_unsigned_accounts

    out = [
        Instruction(
            keys[ix.program_id_index],
            bytes(ix.data),
            [AccountMeta(keys[i], i < signed, writable(i)) for i in bytes(ix.accounts)],
        )
        for ix in message.instructions
        if keys[ix.program_id_index] != COMPUTE_BUDGET  # every write's budget (chain/fees.py)
    ]
    return keys[0], out
