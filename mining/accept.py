"""Accepting mining submissions (single and batch), flush-only: validation, consent, the reward
and the MCD limits, idempotency keys. A handful of statements for a whole batch, whatever its
length; each item gets its own outcome. The caller commits once, then starts the workflow."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from redis.asyncio import Redis
from sqlalchemy import TextClause, bindparam, select, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from access.consent import authorized_users, consent_exists_sql
from core.errors import DomainError
from core.time import iso
from db.base import table_of
from db.models.mining import MiningSubmission
from engine import limits
from mining.canonical import canonical_activity
from mining.errors import KeyReused, UserNotAuthorized, limit_refused
from mining.inputs import ActivityIn, validated
from mining.reward import RewardFormula, reward_units
from organizations.bonus import multipliers
from webhooks.endpoints import outcome_url, outcome_url_sql

# The event whose endpoint an accepted submission's answer names (``webhook_url``).
OUTCOME_EVENT = "mining.reward.confirmed"


@dataclass
class Candidate:
    """One submission that passed validation, to be accepted under ``key``."""

    index: int
    raw: dict[str, Any]
    item: ActivityIn
    key: str


@dataclass
class ItemOutcome:
    """A batch item: ``submission`` with ``status`` 202 (new) or 200 (this key's earlier
    submission), or ``error`` (nothing of it written)."""

    index: int
    key: Any
    status: int
    submission: MiningSubmission | None = None
    error: DomainError | None = None


class Acceptor:
    """The acceptance of one request's submissions for one project."""

    def __init__(
        self,
        session: AsyncSession,
        redis: Redis,
        *,
        project_id: int,
        decimals: int,
        formula: RewardFormula,
    ) -> None:
        self.session, self.redis = session, redis
        self.project_id, self.decimals, self.formula = project_id, decimals, formula

    async def submit_one(
        self, raw: dict[str, Any], item: ActivityIn, key: str, workflow_id: str
    ) -> tuple[MiningSubmission, str | None]:
        """One submission under the request's key, or the refusal raised; with the URL of the
        project's first active endpoint for ``mining.reward.confirmed`` (None: none).

        The checks and their order are ``accept_many``'s for one item (a known key, then the
        consent, the per-operation and the daily limit). One statement reads the key, the
        consent and the webhook and inserts the row only when the key is new and the consent
        given (the reward is computed first, from the cached limits and bonus); the day's usage
        is counted at the commit point, sent with the COMMIT (``limits.count_last``), and a
        count that does not fit refuses the whole request."""
        uid, project_id, decimals = item.user_uid, self.project_id, self.decimals
        now = datetime.now(UTC)
        day = limits.utc_day(now)
        checked = await limits.project_limits(self.session, project_id, "mining", "MCD", decimals)
        bonus = (await multipliers(self.session, self.redis, [uid]))[uid]
        amount = reward_units(item.activity_data, bonus, decimals, self.formula)
        charge = limits.Charge(project_id, "MCD", "mining", amount, decimals)
        facts = {"project_id": project_id, "key": key, "uid": uid}
        if amount > checked.per_operation:  # rare: the refusals before it come first
            known, authorized, _ = (await self.session.execute(_FACTS, facts)).one()
            _refuse_key_or_consent(known, authorized, uid, project_id)
            try:  # the engine's own check, for its message (reads only)
                await limits.check_operation(self.session, charge)
            except limits.LimitExceeded as exc:
                raise limit_refused(exc) from None
        row = _new_row(Candidate(0, raw, item, key), project_id, amount, day, workflow_id, now)
        params = {f"m_{c}": getattr(row, c) for c in _COLUMNS} | facts
        result = (await self.session.execute(_ACCEPT_ONE, params)).one()
        known, authorized, webhook_url, inserted = result
        _refuse_key_or_consent(known, authorized, uid, project_id)
        if not inserted:  # a concurrent request beat us to the key
            raise KeyReused()

        # The project's day row is shared by all its accepts: counted with the commit (db.last).
        limits.count_last(self.session, charge, checked, day, limit_refused)
        return row, webhook_url

    async def outcome_url(self) -> str | None:
        """Where this project's submissions' outcome is sent (None: no endpoint subscribes);
        ``submit_one`` reads the same in its one statement."""
        return await outcome_url(self.session, self.project_id, OUTCOME_EVENT)

    async def submit_batch(self, raws: list[Any], workflow_id: str) -> list[ItemOutcome]:
        """Every item its own outcome, in request order; a known key with the same submission
        answers its earlier record (200), with another one ``idempotency-key-reused``."""
        results: dict[int, ItemOutcome] = {}
        candidates: list[Candidate] = []
        seen: set[str] = set()
        for index, raw in enumerate(raws):
            key = raw.get("idempotency_key") if isinstance(raw, dict) else None
            try:
                item = validated(raw)
                assert item.idempotency_key is not None
                if item.idempotency_key in seen:
                    raise KeyReused()
                seen.add(item.idempotency_key)
                candidates.append(Candidate(index, raw, item, item.idempotency_key))
            except DomainError as exc:
                results[index] = ItemOutcome(index, key, exc.status, error=exc)
        known = await self.existing([c.key for c in candidates])
        fresh: list[Candidate] = []
        for c in candidates:
            existing = known.get(c.key)
            if existing is None:
                fresh.append(c)
            elif _same(existing, c):
                results[c.index] = ItemOutcome(c.index, c.key, 200, submission=existing)
            else:
                results[c.index] = ItemOutcome(c.index, c.key, 409, error=KeyReused())
        keys = {c.index: c.key for c in fresh}
        for index, outcome in (await self.accept_many(fresh, workflow_id)).items():
            if isinstance(outcome, DomainError):
                results[index] = ItemOutcome(index, keys[index], outcome.status, error=outcome)
            else:
                results[index] = ItemOutcome(index, keys[index], 202, submission=outcome)
        return [results[index] for index in sorted(results)]

    async def existing(self, keys: list[str]) -> dict[str, MiningSubmission]:
        if not keys:
            return {}
        rows = await self.session.scalars(
            select(MiningSubmission).where(
                MiningSubmission.project_id == self.project_id,
                MiningSubmission.idempotency_key.in_(keys),
            )
        )
        return {row.idempotency_key: row for row in rows}

    async def accept_many(
        self, candidates: list[Candidate], workflow_id: str
    ) -> dict[int, MiningSubmission | DomainError]:
        """Check consent and limits and record the submissions: each candidate gets the
        recorded row, or the problem that refused it (nothing of it written)."""
        outcome: dict[int, MiningSubmission | DomainError] = {}
        if not candidates:
            return outcome
        session, project_id, decimals = self.session, self.project_id, self.decimals
        authorized = await authorized_users(
            session, project_id, {c.item.user_uid for c in candidates}, "mining:write"
        )
        now = datetime.now(UTC)
        day = limits.utc_day(now)
        checked = await limits.project_limits(session, project_id, "mining", "MCD", decimals)
        # Each user's tech-tree bonus, cached in Redis by the daily job (one round trip).
        bonuses = await multipliers(session, self.redis, [c.item.user_uid for c in candidates])
        priced: list[tuple[Candidate, int]] = []
        for c in candidates:
            if c.item.user_uid not in authorized:
                outcome[c.index] = UserNotAuthorized(c.item.user_uid, project_id)
                continue
            multiplier = bonuses[c.item.user_uid]
            amount = reward_units(c.item.activity_data, multiplier, decimals, self.formula)
            if amount > checked.per_operation:
                try:  # the engine's own check, for its message (reads only; rare)
                    charge = limits.Charge(project_id, "MCD", "mining", amount, decimals)
                    await limits.check_operation(session, charge)
                except limits.LimitExceeded as exc:
                    outcome[c.index] = limit_refused(exc)
                    continue
            priced.append((c, amount))
        counted = await self._count_usage([amount for _, amount in priced], day, checked)
        rows: list[MiningSubmission] = []
        for (c, amount), refused in zip(priced, counted, strict=True):
            if refused is not None:
                outcome[c.index] = limit_refused(refused)
                continue
            rows.append(_new_row(c, project_id, amount, day, workflow_id, now))
            outcome[c.index] = rows[-1]
        lost = await self._insert(rows, day)
        for index, done in list(outcome.items()):
            if isinstance(done, MiningSubmission) and done.id in lost:
                outcome[index] = KeyReused()
        return outcome

    async def _count_usage(
        self, amounts: list[int], day: date, checked: limits.Limits
    ) -> list[limits.LimitExceeded | None]:
        """Count each amount against the project's mining day, in order; None = counted.

        The whole batch is one conditional UPDATE when it fits; only a batch that would cross
        the daily limit is counted item by item, so exactly the items that fit are accepted."""
        if not amounts:
            return []

        async def count(amount: int) -> None:
            charge = limits.Charge(self.project_id, "MCD", "mining", amount, self.decimals)
            await limits.consume(self.session, charge, day=day, checked=checked)

        try:
            await count(sum(amounts))
            return [None] * len(amounts)
        except limits.DailyLimitExceeded:
            pass  # nothing was counted: count item by item
        outcome: list[limits.LimitExceeded | None] = []
        for amount in amounts:
            try:
                await count(amount)
                outcome.append(None)
            except limits.LimitExceeded as exc:
                outcome.append(exc)
        return outcome

    async def _insert(self, rows: list[MiningSubmission], day: date) -> set[str]:
        """Insert the rows in one statement; the ids a concurrent request beat to their key
        (not inserted, their counted amount given back)."""
        if not rows:
            return set()
        # insertmanyvalues with a parameter list: the same SQL for every batch of a size,
        # compiled once.
        table = table_of(MiningSubmission)
        inserted = set(
            await self.session.scalars(
                insert(table)
                .on_conflict_do_nothing(index_elements=["project_id", "idempotency_key"])
                .returning(table.c.id),
                [{col.key: getattr(row, col.key) for col in table.columns} for row in rows],
            )
        )
        lost = [row for row in rows if row.id not in inserted]
        if lost:
            await limits.release(
                self.session, project_id=self.project_id, currency="MCD", operation="mining",
                amount=sum(row.mcd_amount for row in lost), day=day,
            )  # fmt: skip
        return {row.id for row in lost}


# A single submission's reads: is the key known, did the user grant this project
# mining:write, and where is the outcome sent (the response's meta).
_FACTS_SQL = f"""
SELECT
    EXISTS (
        SELECT 1 FROM mining_activities
        WHERE project_id = :project_id AND idempotency_key = :key
    ) AS known,
    {consent_exists_sql("mining:write")} AS authorized,
    {outcome_url_sql(OUTCOME_EVENT)} AS webhook_url
"""
_FACTS = text(_FACTS_SQL)

_COLUMNS = tuple(c.key for c in table_of(MiningSubmission).columns)


def _accept_one_statement() -> TextClause:
    """Built once: the facts, then the row inserted only for a new key with consent; answers
    (known, authorized, webhook_url, inserted)."""
    table = table_of(MiningSubmission)
    dialect = postgresql.dialect()
    # Cast to the unbounded type: an over-long value still fails on the column.
    casts = {c.key: re.sub(r"\(\d+\)", "", c.type.compile(dialect=dialect)) for c in table.c}
    values = ", ".join(f"CAST(:m_{c} AS {casts[c]})" for c in _COLUMNS)
    sql = f"""
WITH facts AS (
    SELECT *, NOT known AND authorized AS ok FROM ({_FACTS_SQL}) AS f
),
inserted AS (
    INSERT INTO {table.name} ({", ".join(_COLUMNS)})
    SELECT {values} FROM facts WHERE facts.ok
    ON CONFLICT (project_id, idempotency_key) DO NOTHING
    RETURNING id
)
SELECT known, authorized, webhook_url, EXISTS (SELECT 1 FROM inserted)
FROM facts
"""
    return text(sql).bindparams(*(bindparam(f"m_{c}", type_=table.c[c].type) for c in _COLUMNS))


_ACCEPT_ONE = _accept_one_statement()


def _refuse_key_or_consent(known: bool, authorized: bool, uid: str, project_id: int) -> None:
    if known:
        raise KeyReused()
    if not authorized:
        raise UserNotAuthorized(uid, project_id)


def _new_row(
    c: Candidate, project_id: int, amount: int, day: date, workflow_id: str, now: datetime
) -> MiningSubmission:
    proof = c.raw["proof"]
    return MiningSubmission(
        id=f"act_{uuid.uuid4().hex[:24]}",
        project_id=project_id,
        user_uid=c.item.user_uid,
        activity_type=c.item.activity_type,
        activity_data=c.raw["activity_data"],
        proof={k: proof[k] for k in ("type", "hash", "signature", "timestamp")},
        canonical=canonical_activity(
            c.item.user_uid, c.item.activity_type, c.raw["activity_data"], proof["timestamp"]
        ),
        idempotency_key=c.key,
        status="pending_verification",
        mcd_amount=amount,
        reward_day=day,
        workflow_id=workflow_id,
        history=[{"status": "pending_verification", "at": iso(now)}],
        created_at=now,
        updated_at=now,
        op_key=None,
        tx_signature=None,
        block_height=None,
        reason=None,
        confirmed_at=None,
    )


def _same(existing: MiningSubmission, c: Candidate) -> bool:
    """Is ``c`` the request that recorded ``existing`` (same canonical form and signature)?"""
    canonical = canonical_activity(
        c.item.user_uid, c.item.activity_type, c.raw["activity_data"], c.raw["proof"]["timestamp"]
    )
    return existing.canonical == canonical and existing.proof.get("signature") == (
        c.item.proof.signature
    )
