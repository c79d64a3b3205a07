"""Set-based, flush-only writes for a batch of mining activities: a few statements for the
whole batch instead of several per activity. Each keeps the invariant of its per-item
counterpart (named in its docstring); the caller commits, once.

The batch forms of a ledger move and of an event are ``ledger.service.Ledger.apply_many`` and
``events.outbox.emit_many``, shared with the transfer engine.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from db.base import table_of
from db.models.mining import MiningProof
from engine import limits


async def claim_proofs(session: AsyncSession, claims: Sequence[tuple[str, str]]) -> set[str]:
    """Consume proof hashes for activities: ``claims`` is ``[(proof_hash, activity_id)]`` in
    priority order. Returns the activity ids that own their proof (a proof is consumed once:
    ``mining_proofs`` primary key; an earlier claimant, committed or earlier in the list,
    wins). Idempotent: an activity that already owns its proof owns it again."""
    if not claims:
        return set()
    first: dict[str, str] = {}
    for digest, activity_id in claims:
        first.setdefault(digest, activity_id)
    await session.execute(
        insert(table_of(MiningProof)).on_conflict_do_nothing(index_elements=["proof_hash"]),
        [{"proof_hash": d, "activity_id": a} for d, a in first.items()],
    )
    found = await session.execute(
        select(MiningProof.proof_hash, MiningProof.activity_id).where(
            MiningProof.proof_hash.in_(list(first))
        )
    )
    owners = {digest: owner for digest, owner in found}
    return {activity_id for digest, activity_id in claims if owners.get(digest) == activity_id}


async def release_counted(
    session: AsyncSession, counted: Sequence[tuple[int, date, int]], currency: str = "MCD"
) -> None:
    """Give back mining limit usage, ``counted`` = ``[(project_id, reward_day, amount)]``: one
    ``engine.limits.release`` per project and day, in one order."""
    sums: dict[tuple[int, date], int] = defaultdict(int)
    for project_id, day, amount in counted:
        sums[(project_id, day)] += amount
    for (project_id, day), amount in sorted(sums.items()):
        if amount > 0:
            await limits.release(
                session,
                project_id=project_id,
                currency=currency,
                operation="mining",
                amount=amount,
                day=day,
            )
