"""Reconciliation: every custody account's finalized on-chain balance against the ledger.

Reports drift (rows in ``reconciliation_drifts`` and Prometheus gauges); never moves money.
An account with a transfer or a withdrawal in flight (``pending_onchain``), whose ledger row
changed while the chain was read, or whose history the deposit watcher is still catching up
(its watch row not ``ready``: tokens/deposit_catch_up.py) is skipped this run: the chain
legitimately leads the ledger there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import Gauge
from sqlalchemy import delete, insert, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.gateway import ChainGateway
from db.models.engine import ReconciliationDrift

DRIFT_ACCOUNTS = Gauge(
    "mccgw_reconciliation_drift_accounts", "Custody accounts whose chain and ledger differ"
)
DRIFT_UNITS = Gauge(
    "mccgw_reconciliation_drift_base_units",
    "Sum of |chain - ledger| over drifting custody accounts",
    ["currency"],
)


@dataclass
class ReconcileSummary:
    run_id: str
    checked: int = 0
    skipped: int = 0
    drifts: list[dict[str, object]] = field(default_factory=list)


Key = tuple[str, str]


# The ledger's balances and the accounts whose chain may lead their ledger (a transfer or a
# withdrawal being written, a history still caught up), as plain rows of ONE statement (one
# snapshot of the database, and one round trip instead of four ORM queries: issue 43).
_SNAPSHOT = text(
    """
SELECT 'balance' AS kind, user_uid, currency, balance FROM ledger_accounts
UNION ALL SELECT 'transfer', from_uid, currency, NULL FROM transfers
    WHERE status = 'pending_onchain'
UNION ALL SELECT 'transfer', to_uid, currency, NULL FROM transfers
    WHERE status = 'pending_onchain'
UNION ALL SELECT 'withdrawal', user_uid, currency, NULL FROM withdrawals
    WHERE status = 'pending_onchain'
UNION ALL SELECT 'catching_up', user_uid, currency, NULL FROM custody_watch WHERE NOT ready
"""
)


async def _snapshot(session: AsyncSession) -> tuple[dict[Key, int], set[Key]]:
    accounts: dict[Key, int] = {}
    in_flight: set[Key] = set()
    for kind, uid, cur, balance in (await session.execute(_SNAPSHOT)).all():
        if kind == "balance":
            accounts[(uid, cur)] = balance
        else:
            # A withdrawal being written leaves custody before the ledger books it.
            in_flight.add((uid, cur))
    return accounts, in_flight


async def reconcile(
    sessions: async_sessionmaker[AsyncSession],
    gateway: ChainGateway,
    run_id: str,
) -> ReconcileSummary:
    summary = ReconcileSummary(run_id)
    async with sessions() as session:
        before, flight_before = await _snapshot(session)
    keys = sorted(before)
    addresses = [gateway.custody_address(uid, cur) for uid, cur in keys]
    chain = await gateway.token_amounts(addresses, "finalized")
    async with sessions() as session:
        after, flight_after = await _snapshot(session)
        # A retried run replaces its own rows instead of adding more.
        await session.execute(
            delete(ReconciliationDrift).where(ReconciliationDrift.run_id == run_id)
        )
        units: dict[str, int] = {"MCC": 0, "MCD": 0}
        for key, address, on_chain in zip(keys, addresses, chain, strict=True):
            ledger = before[key]
            if key in flight_before or key in flight_after or after.get(key) != ledger:
                summary.skipped += 1
                continue
            summary.checked += 1
            if on_chain == ledger:
                continue
            uid, cur = key
            drift = {
                "user_uid": uid,
                "currency": cur,
                "address": str(address),
                "chain_balance": on_chain,
                "ledger_balance": ledger,
                "drift": on_chain - ledger,
            }
            summary.drifts.append(drift)
            units[cur] = units.get(cur, 0) + abs(on_chain - ledger)
            await session.execute(insert(ReconciliationDrift).values(run_id=run_id, **drift))
        await session.commit()
    DRIFT_ACCOUNTS.set(len(summary.drifts))
    for cur, total in units.items():
        DRIFT_UNITS.labels(currency=cur).set(total)
    return summary
