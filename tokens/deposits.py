"""Deposits: outside SPL transfers into custody accounts, found on chain and credited once.

A pass (``scan``) follows every watched custody account (``custody_watch``):

1. Accounts with a ledger row are watched automatically; a balance request registers the
   caller's accounts too. A watched account missing on chain is created (a gateway write), so
   the deposit address shown to a user can always receive.
2. ``getSignaturesForAddress`` at ``finalized`` with ``until`` = the last signature examined
   returns only what is new, newest first; it is handled oldest first.
3. Each signature is classified (see ``DEPOSIT_OUTCOMES``): a transaction the gateway signed is
   the engine's own movement (already booked by its settlement) and is skipped; a failed one
   moved nothing and is recorded as ``ignored_failed``; otherwise the custody account's own
   token balance change in the transaction (``getTransaction``: pre/post token balances)
   decides: an increase of the account's mint is ``credited``; a decrease is an
   ``unexplained_outflow`` (nothing booked: reconciliation reports the account as drift); a
   change of another mint is ``ignored_wrong_mint``; no change is skipped.
4. The row, the ledger credit, the ``funds.deposited`` events (one per project the user has
   authorized) and the account's cursor are committed in ONE transaction; the unique
   (signature, address) constraint makes a second pass over the same signature a no-op, so a
   watcher run twice, or killed between two steps, credits exactly once.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Commitment
from solders.pubkey import Pubkey
from solders.signature import Signature
from sqlalchemy import select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.custody import custody_address
from chain.gateway import ChainGateway, _token_changes
from chain.keys import ChainKeys
from core.money import to_decimal_string
from db.models.access import OAuthConsent
from db.models.chain import ChainTransaction, ChainTxAttempt
from db.models.tokens import CustodyWatch, Deposit
from events.outbox import emit_many
from ledger.service import Ledger

log = logging.getLogger("mccgw.tokens.deposits")

_PAGE = 1000  # getSignaturesForAddress returns at most 1000 per call
_MAX_PER_ACCOUNT = 5000  # per pass; the rest waits for the next pass (the cursor is durable)


@dataclass
class ScanSummary:
    accounts: int = 0
    created: int = 0
    credited: int = 0
    ignored: int = 0
    outflows: int = 0
    deposits: list[dict[str, Any]] = field(default_factory=list)


async def decimals_of(gateway: ChainGateway, currency: str) -> int:
    """The decimals of the currency's mint, as read from the chain (once per process)."""
    return (await gateway.load_token_decimals()).of(currency)


# (keys, configured mint, token program, uid, currency) -> (keys, address, owner). The
# derivation (two public keys derived from their secrets, a hash, a curve check) was 10 % of a
# balance read's CPU. The keys object is held in the value, so its id cannot be reused while
# the entry lives; a mint configured later is part of the key. Bounded: cleared whole when full.
_ADDRESSES: dict[tuple[int, Pubkey | None, Pubkey, str, str], tuple[ChainKeys, str, str]] = {}
_MAX_ADDRESSES = 100_000


def deposit_address(keys: ChainKeys, uid: str, currency: str) -> tuple[str, str]:
    """(custody token account, its owner): where an outside wallet sends the user's tokens."""
    key = (id(keys), keys.mints.get(currency.upper()), keys.token_program(currency), uid, currency)
    found = _ADDRESSES.get(key)
    if found is None or found[0] is not keys:
        if len(_ADDRESSES) >= _MAX_ADDRESSES:
            _ADDRESSES.clear()
        address = str(custody_address(keys, uid, currency))
        found = _ADDRESSES[key] = (keys, address, str(keys.custody_authority.pubkey()))
    return found[1], found[2]


async def register(session: AsyncSession, keys: ChainKeys, uid: str, currency: str) -> None:
    """Watch this user's custody account from now on (idempotent; flushes, caller commits)."""
    address, _ = deposit_address(keys, uid, currency)
    await session.execute(
        insert(CustodyWatch)
        .values(address=address, user_uid=uid, currency=currency)
        .on_conflict_do_nothing()
    )


async def _watch_ledger_accounts(session: AsyncSession, keys: ChainKeys) -> None:
    rows = (
        await session.execute(
            text(
                "SELECT a.user_uid, a.currency FROM ledger_accounts a WHERE NOT EXISTS ("
                "SELECT 1 FROM custody_watch w WHERE w.user_uid = a.user_uid "
                "AND w.currency = a.currency)"
            )
        )
    ).all()
    for uid, currency in rows:
        await register(session, keys, uid, currency)


class DepositScanner:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        gateway: ChainGateway,
        client: AsyncClient,
    ) -> None:
        self.sessions = sessions
        self.gateway = gateway
        self.client = client
        self.keys = gateway.keys

    async def scan(self, only: set[tuple[str, str]] | None = None) -> ScanSummary:
        """One pass over the watched accounts (or just ``only``: (uid, currency) pairs)."""
        summary = ScanSummary()
        async with self.sessions() as session:
            await _watch_ledger_accounts(session, self.keys)
            await session.commit()
            watched = list((await session.scalars(select(CustodyWatch))).all())
        for row in watched:
            if only is not None and (row.user_uid, row.currency) not in only:
                continue
            summary.accounts += 1
            if not row.ready:
                await self.gateway.ensure_custody_account(row.user_uid, row.currency)
                async with self.sessions() as session:
                    await session.execute(
                        update(CustodyWatch)
                        .where(CustodyWatch.address == row.address)
                        .values(ready=True)
                    )
                    await session.commit()
                summary.created += 1
            await self._scan_account(row, summary)
        return summary

    async def _new_signatures(self, address: str, until: str | None) -> list[Any]:
        """Finalized signatures after ``until``, oldest first."""
        out: list[Any] = []
        before: Signature | None = None
        while len(out) < _MAX_PER_ACCOUNT:
            resp = await self.client.get_signatures_for_address(
                Pubkey.from_string(address),
                before=before,
                until=Signature.from_string(until) if until else None,
                limit=_PAGE,
                commitment=Commitment("finalized"),
            )
            page = list(resp.value)
            out += page
            if len(page) < _PAGE:
                break
            before = page[-1].signature
        out.reverse()
        if len(out) > _MAX_PER_ACCOUNT:
            out = out[:_MAX_PER_ACCOUNT]  # the oldest first; the cursor resumes after them
        return out

    async def _gateway_signatures(self, signatures: list[str]) -> set[str]:
        if not signatures:
            return set()
        async with self.sessions() as session:
            attempts = await session.scalars(
                select(ChainTxAttempt.signature).where(ChainTxAttempt.signature.in_(signatures))
            )
            current = await session.scalars(
                select(ChainTransaction.signature).where(ChainTransaction.signature.in_(signatures))
            )
            return set(attempts.all()) | set(current.all())

    async def _scan_account(self, row: CustodyWatch, summary: ScanSummary) -> None:
        entries = await self._new_signatures(row.address, row.last_signature)
        if not entries:
            return
        ours = await self._gateway_signatures([str(e.signature) for e in entries])
        mint = str(self.keys.mint_for(row.currency))
        for entry in entries:
            sig = str(entry.signature)
            if sig in ours:
                continue  # the engine's own movement, booked by its settlement
            record = await self._classify(row, entry, mint)
            if record is not None:
                await self._commit(row, sig, record, summary)
        # The cursor moves past everything examined in one statement (records committed their
        # own position as they went, so a crash in between only repeats idempotent work).
        last = str(entries[-1].signature)
        if row.last_signature != last:
            await self._commit(row, last, None, summary)

    async def _classify(self, row: CustodyWatch, entry: Any, mint: str) -> dict[str, Any] | None:
        sig = str(entry.signature)
        block_time = (
            datetime.fromtimestamp(entry.block_time, UTC) if entry.block_time is not None else None
        )
        base = {
            "signature": sig,
            "address": row.address,
            "user_uid": row.user_uid,
            "currency": row.currency,
            "slot": int(entry.slot),
            "block_time": block_time,
        }
        if entry.err is not None:
            err = json.loads(entry.to_json()).get("err")
            return {**base, "outcome": "ignored_failed", "amount": 0, "err": err}
        tx = await self.client.get_transaction(
            entry.signature, "json", Commitment("finalized"), max_supported_transaction_version=0
        )
        if tx.value is None:
            raise RuntimeError(f"finalized transaction {sig} not returned by the node")
        body: dict[str, Any] = json.loads(tx.value.to_json())
        meta = (body.get("transaction") or {}).get("meta") or body.get("meta") or {}
        if meta.get("err") is not None:
            return {**base, "outcome": "ignored_failed", "amount": 0, "err": meta.get("err")}
        changes = _token_changes(body, meta)
        mine = [c for c in changes if c.account == row.address]
        if not mine:
            return None
        change = mine[0]
        delta = change.post - change.pre
        if change.mint != mint:
            return {
                **base, "outcome": "ignored_wrong_mint", "amount": abs(delta), "mint": change.mint,
            }  # fmt: skip
        if delta == 0:
            return None
        if delta < 0:
            receivers = [c for c in changes if c.post > c.pre and c.account != row.address]
            to = receivers[0].owner if receivers else None
            return {**base, "outcome": "unexplained_outflow", "amount": -delta, "mint": mint,
                    "sender": to}  # fmt: skip
        senders = [c for c in changes if c.post < c.pre and c.mint == mint]
        sender = senders[0].owner if senders else None
        return {**base, "outcome": "credited", "amount": delta, "mint": mint, "sender": sender}

    async def _commit(
        self, row: CustodyWatch, sig: str, record: dict[str, Any] | None, summary: ScanSummary
    ) -> None:
        async with self.sessions() as session:
            if record is not None:
                inserted = (
                    await session.execute(
                        insert(Deposit)
                        .values(**record)
                        .on_conflict_do_nothing(constraint="uq_deposits_signature")
                        .returning(Deposit.id)
                    )
                ).scalar_one_or_none()
                if inserted is not None:
                    await self._book(session, inserted, record, summary)
            await session.execute(
                update(CustodyWatch)
                .where(CustodyWatch.address == row.address)
                .values(last_signature=sig, scanned_at=datetime.now(UTC))
            )
            await session.commit()
        row.last_signature = sig

    async def _book(
        self, session: AsyncSession, deposit_id: int, record: dict[str, Any], summary: ScanSummary
    ) -> None:
        outcome = record["outcome"]
        if outcome == "unexplained_outflow":
            summary.outflows += 1
            log.error(
                "tokens left custody account %s in %s, not signed by the gateway",
                record["address"], record["signature"],
            )  # fmt: skip
            return
        if outcome != "credited":
            summary.ignored += 1
            log.info("deposit scan: %s %s on %s", outcome, record["signature"], record["address"])
            return
        uid, currency, amount = record["user_uid"], record["currency"], record["amount"]
        await Ledger(session).credit(uid, currency, amount, f"deposit:{record['signature']}")
        data = {
            "deposit_id": str(deposit_id),
            "user_uid": uid,
            "currency": currency,
            "amount": to_decimal_string(amount, await decimals_of(self.gateway, currency)),
            "deposit_address": record["address"],
            "sender": record.get("sender"),
            "tx_signature": record["signature"],
            "slot": record["slot"],
        }
        projects = (
            await session.scalars(
                select(OAuthConsent.project_id)
                .where(OAuthConsent.user_uid == uid, OAuthConsent.revoked_at.is_(None))
                .distinct()
            )
        ).all()
        await emit_many(
            session,
            [
                {
                    "id": "evt_dep_"
                    + hashlib.sha256(
                        f"{record['signature']}:{record['address']}:{p}".encode()
                    ).hexdigest()[:40],
                    "project_id": p,
                    "type": "funds.deposited",
                    "data": data,
                }
                for p in projects
            ],
        )
        summary.credited += 1
        summary.deposits.append(data)
