"""Sending a withdrawal on chain, exactly once: the claim (``pending -> pending_onchain``,
committed before anything is signed, so a cancel can no longer win), the gateway's write to the
user's wallet (its associated token account created in the same transaction if missing) under
the withdrawal's one op key, finality, the receipt (the custody account -amount, the wallet's
account +amount, from the transaction's own balances) and the booking: the ledger debited and
the hold released in one transaction with the state and the event.

Idempotent and resumable from the records by any worker: the claim is a conditional UPDATE, the
write's instructions are rebuilt from the withdrawal's row (the same bytes' payload under the
same op key, which the gateway sends at most once), and the booking is conditional on
``pending_onchain``. A write that failed moved nothing (a transaction is atomic): the withdrawal
fails and its hold is released.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from solders.pubkey import Pubkey
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.custody import WalletTransfer
from chain.gateway import ChainGateway, ChainWrite
from db.models.withdrawals import Withdrawal
from engine import withdrawals

log = logging.getLogger(__name__)


class WithdrawalNotFound(Exception):
    pass


@dataclass(frozen=True)
class Sent:
    """Where a withdrawal stands after the chain leg (``pending`` if it still waits after all;
    ``pending_onchain`` is never returned: the leg raises until the write is final)."""

    status: str
    signature: str | None = None
    slot: int | None = None
    block_height: int | None = None
    error: str | None = None

    @classmethod
    def of(cls, w: Withdrawal) -> Sent:
        return cls(w.status, w.signature, w.slot, w.block_height, w.failure_reason)


class WithdrawalSender:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        gateway: ChainGateway,
        *,
        await_timeout: float = 20.0,
    ) -> None:
        self._sessions = sessions
        self._gateway = gateway
        self._await_timeout = await_timeout

    async def send(self, withdrawal_id: str) -> Sent:
        """Drive a withdrawal that waits for nothing to a final state; safe to call again
        after any failure or crash. Raises WithdrawalNotFound, or chain/database errors to
        retry (``ChainTimeout`` while the write is not final yet)."""
        decimals = await self._gateway.load_token_decimals()
        async with self._sessions() as session:
            w = await withdrawals.claim(session, withdrawal_id, datetime.now(UTC))
            await session.commit()
        if w is None:
            raise WithdrawalNotFound(withdrawal_id)
        if w.status != "pending_onchain":
            return Sent.of(w)  # still waiting, or ended (a cancel won, or booked before)
        assert w.op_key is not None
        owner = Pubkey.from_string(w.wallet_address)
        await self._gateway.ensure_custody_account(w.user_uid, w.currency)
        transfer = WalletTransfer(w.currency, w.user_uid, owner, w.amount)
        write = await self._gateway.submit_to_wallet(w.op_key, transfer)
        if not write.final:
            just_sent = write.status == "sent" and write.send_count == 1
            write = await self._gateway.await_final(
                w.op_key, self._await_timeout, just_sent=just_sent
            )
        if write.succeeded:
            return await self._book(w, write)
        reason = f"chain rejected: {write.err}"
        async with self._sessions() as session:
            ended = await withdrawals.end(
                session, w.id, "failed", reason, decimals, from_statuses=("pending_onchain",)
            )
            await session.commit()
        log.warning("withdrawal %s failed on chain: %s", w.id, write.err)
        return Sent.of(ended) if ended is not None else await self._recorded(w.id)

    async def _book(self, w: Withdrawal, write: ChainWrite) -> Sent:
        assert write.signature is not None
        source = str(self._gateway.custody_address(w.user_uid, w.currency))
        # The transaction's own balance changes must be exactly this withdrawal.
        await self._gateway.receipt(write.signature, {source: -w.amount, w.destination: w.amount})
        async with self._sessions() as session:
            await withdrawals.complete(
                session,
                w.id,
                signature=write.signature,
                slot=write.slot,
                block_height=write.block_height,
                decimals=self._gateway.token_decimals(),
            )
            await session.commit()
        log.info("withdrawal %s finalized: %s", w.id, write.signature)
        return await self._recorded(w.id)

    async def _recorded(self, withdrawal_id: str) -> Sent:
        async with self._sessions() as session:
            w = await session.get(Withdrawal, withdrawal_id)
        if w is None:
            raise WithdrawalNotFound(withdrawal_id)
        return Sent.of(w)
