"""Deposits, the rule: outside SPL transfers into custody accounts, and what each is booked as.

Where an outside wallet sends a user's tokens is the user's custody token account
(``deposit_address``); such an account is watched once it has a ledger row or a balance request
registered it (``register``, ``watch_ledger_accounts``). The follower (tokens/deposit_watch.py)
finds the transactions that touch a watched account on chain; here each is classified once
(``db.models.tokens.DEPOSIT_OUTCOMES``) and booked once:

- one the gateway signed is the engine's own movement (booked by its settlement): skipped;
- a failed one moved nothing: ``ignored_failed``;
- a change of another mint than the account's own: ``ignored_wrong_mint``;
- an increase of the account's own mint: ``credited`` to the ledger and announced as
  ``funds.deposited`` to the projects the user let see their funds;
- a decrease: ``unexplained_outflow`` (nothing booked: reconciliation reports it).

The unique (signature, address) constraint makes a transaction booked twice a no-op, so
nothing is ever credited twice. ``book`` only flushes: the follower commits it together with
its cursor.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from solders.pubkey import Pubkey
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from access.consent import authorized_projects
from access.scopes import FUNDS_SCOPES
from chain.blocks import BlockTx
from chain.custody import custody_address
from chain.decimals import TokenDecimals
from chain.errors import ChainUnavailable
from chain.gateway import ChainGateway
from chain.keys import ChainKeys
from chain.tx_store import known_signatures
from core.metrics import DEPOSITS_CREDITED
from db.models.tokens import CustodyWatch, Deposit
from events.outbox import emit_many
from ledger.queries import accounts_without
from ledger.service import Ledger

log = logging.getLogger("mccgw.tokens.deposits")


@dataclass
class ScanSummary:
    accounts: int = 0
    created: int = 0
    credited: int = 0
    ignored: int = 0
    outflows: int = 0
    blocks: int = 0  # blocks examined by this pass
    own: int = 0  # transactions in those blocks this process sent itself, left unread
    cursor: int = 0  # the last slot fully examined after this pass
    deposits: list[dict[str, Any]] = field(default_factory=list)


# (keys, configured mint, token program, uid, currency) -> (keys, address, owner). The
# derivation (two public keys derived from their secrets, a hash, a curve check) was 10 % of a
# balance read's CPU. The keys object is held in the value, so its id cannot be reused while
# the entry lives; a mint configured later is part of the key. Bounded: cleared whole when full.
_ADDRESSES: dict[tuple[int, Pubkey | None, Pubkey, str, str], tuple[ChainKeys, str, str]] = {}
_MAX_ADDRESSES = 100_000


def deposit_address(keys: ChainKeys, uid: str, currency: str) -> tuple[str, str]:
    """(custody token account, its owner): where an outside wallet sends the user's tokens.
    Raises ChainUnavailable until the process has read which token program owns the mint
    (``ChainGateway.load_token_decimals``): with any other program it is another account."""
    if currency.upper() not in keys.programs:
        raise ChainUnavailable(
            f"the {currency} mint's token program is not read from the chain yet"
        )
    key = (id(keys), keys.mints.get(currency.upper()), keys.token_program(currency), uid, currency)
    found = _ADDRESSES.get(key)
    if found is None or found[0] is not keys:
        if len(_ADDRESSES) >= _MAX_ADDRESSES:
            _ADDRESSES.clear()
        address = str(custody_address(keys, uid, currency))
        found = _ADDRESSES[key] = (keys, address, str(keys.custody_authority.pubkey()))
    return found[1], found[2]


async def register(session: AsyncSession, gateway: ChainGateway, uid: str, currency: str) -> None:
    """Watch this user's custody account from now on (idempotent; flushes, caller commits).

    The address depends on the token program that owns the mint, which a process knows only
    once it has read the mints: they are read first (once per process), so no row is ever
    derived with a program merely assumed. A row stored with another address for the same
    user and currency (derived before the program was known, by an earlier release) is
    replaced, and caught up anew."""
    await gateway.load_token_decimals()  # the mints' programs (raises while unknown)
    address, _ = deposit_address(gateway.keys, uid, currency)
    row = insert(CustodyWatch).values(address=address, user_uid=uid, currency=currency)
    await session.execute(
        row.on_conflict_do_update(
            constraint="uq_custody_watch_user_uid",
            set_={
                "address": row.excluded.address, "ready": False, "watched_from": None,
                "last_signature": None, "scanned_at": None,
            },
            where=CustodyWatch.address != row.excluded.address,
        )
    )  # fmt: skip


async def watch_ledger_accounts(session: AsyncSession, gateway: ChainGateway) -> None:
    """Every account with a ledger row is watched (flushes, caller commits)."""
    for uid, currency in await accounts_without(
        session, CustodyWatch.user_uid, CustodyWatch.currency
    ):
        await register(session, gateway, uid, currency)


@dataclass(frozen=True)
class Watched:
    address: str
    user_uid: str
    currency: str


def classify(
    tx: BlockTx, slot: int, block_time: datetime | None, account: Watched, mint: str
) -> dict[str, Any] | None:
    """The deposits row one transaction makes for one watched account (None: nothing to
    record). The gateway's own transactions are left out by ``book``."""
    base = {
        "signature": tx.signature,
        "address": account.address,
        "user_uid": account.user_uid,
        "currency": account.currency,
        "slot": slot,
        "block_time": block_time,
    }
    if tx.err is not None:
        return {**base, "outcome": "ignored_failed", "amount": 0, "err": tx.err}
    mine = [c for c in tx.token_changes if c.account == account.address]
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
        receivers = [c for c in tx.token_changes if c.post > c.pre and c.account != account.address]
        to = receivers[0].owner if receivers else None
        return {**base, "outcome": "unexplained_outflow", "amount": -delta, "mint": mint,
                "sender": to}  # fmt: skip
    senders = [c for c in tx.token_changes if c.post < c.pre and c.mint == mint]
    sender = senders[0].owner if senders else None
    return {**base, "outcome": "credited", "amount": delta, "mint": mint, "sender": sender}


async def book(
    session: AsyncSession,
    records: list[dict[str, Any]],
    summary: ScanSummary,
    decimals: TokenDecimals,
) -> None:
    """Each record's deposits row, once, and what its outcome books (flushes; the caller
    commits). The gateway's own transactions are left to their settlement."""
    ours = await known_signatures(session, sorted({r["signature"] for r in records}))
    for record in records:
        if record["signature"] in ours:
            continue  # the engine's own movement, booked by its settlement
        inserted = (
            await session.execute(
                insert(Deposit)
                .values(**record)
                .on_conflict_do_nothing(constraint="uq_deposits_signature")
                .returning(Deposit.id)
            )
        ).scalar_one_or_none()
        if inserted is not None:
            await _book(session, inserted, record, summary, decimals)


async def _book(
    session: AsyncSession,
    deposit_id: int,
    record: dict[str, Any],
    summary: ScanSummary,
    decimals: TokenDecimals,
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
    DEPOSITS_CREDITED.labels(currency).inc()
    data = {
        "deposit_id": str(deposit_id),
        "user_uid": uid,
        "currency": currency,
        "amount": decimals.format(amount, currency),
        "deposit_address": record["address"],
        "sender": record.get("sender"),
        "tx_signature": record["signature"],
        "slot": record["slot"],
    }
    # Only projects the user let see their funds hear of it (issue 31, L3).
    projects = sorted(await authorized_projects(session, uid, FUNDS_SCOPES))
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
