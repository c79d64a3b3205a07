"""Signing a chain write: the gateway's keypairs as one signer, the fee payer first.

What it signs is recorded before it is ever sent (``chain/writes.py``); a re-sign keeps the
recorded transaction's compiled instructions and accounts and changes only the blockhash.
"""

from __future__ import annotations

from collections.abc import Sequence

from solders.hash import Hash
from solders.instruction import CompiledInstruction, Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from chain.errors import MissingSigner
from chain.write_record import Signed


class Signer:
    def __init__(self, fee_payer: Pubkey, keypairs: Sequence[Keypair]) -> None:
        self._fee_payer = fee_payer
        self._keypairs: dict[Pubkey, Keypair] = {kp.pubkey(): kp for kp in keypairs}

    def sign(self, instructions: Sequence[Instruction], blockhash: Hash, last_valid: int) -> Signed:
        """``instructions`` in one transaction, paid by the fee payer, valid until the block
        height ``last_valid``."""
        message = Message.new_with_blockhash(list(instructions), self._fee_payer, blockhash)
        return self._signed(message, blockhash, last_valid)

    def resign(
        self,
        tx_bytes: bytes,
        blockhash: Hash,
        last_valid: int,
        compiled: Sequence[CompiledInstruction] | None = None,
    ) -> Signed:
        """The transaction ``tx_bytes`` again, with a fresh blockhash (a new signature); with
        ``compiled``, those instructions over the same accounts (a raised compute-unit price:
        ``chain/fees.py`` ``with_price``)."""
        old = VersionedTransaction.from_bytes(tx_bytes).message
        header = old.header
        message = Message.new_with_compiled_instructions(
            header.num_required_signatures,
            header.num_readonly_signed_accounts,
            header.num_readonly_unsigned_accounts,
            old.account_keys,
            blockhash,
            list(compiled) if compiled is not None else old.instructions,
        )
        return self._signed(message, blockhash, last_valid)

    def _signed(self, message: Message, blockhash: Hash, last_valid: int) -> Signed:
        needed = message.account_keys[: message.header.num_required_signatures]
        missing = [str(k) for k in needed if k not in self._keypairs]
        if missing:
            raise MissingSigner(f"no keypair for required signer(s) {missing}")
        tx = VersionedTransaction(message, [self._keypairs[k] for k in needed])
        return Signed(str(tx.signatures[0]), str(blockhash), last_valid, bytes(tx))
