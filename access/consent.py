"""The consent rule, written once: a project may act on a user only while the user's consent to
it is active (not revoked) and lists the scope the act needs (decisions.md). A consent lists
project scopes (``funds:manage``, ``funds:transfer``, ``transfer:write``, ``mining:write``,
...); consent to ``openid`` or ``profile`` alone grants nothing over funds.

Every caller asks here: the API's write routes (``is_user_authorized``, behind
``api.auth.consent.require_user_authorized``), the set-based readers (``consent_clause`` in an
ORM query, ``consent_exists_sql`` in a hand-written statement such as mining's single-submission
CTE), ``authorized_projects`` for "which projects may see/hear this about the user", and a
withdrawal (``forget``) that drops this process's cached grant.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache
from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, exists, select
from sqlalchemy.dialects.postgresql.base import PGDialect
from sqlalchemy.ext.asyncio import AsyncSession

from db.models.access import OAuthConsent
from db.notify import NotifyCache, consent_key

# Answers are remembered in-process (a DB round trip saved per write) and dropped the moment
# the consent changes: a trigger on ``oauth_consents`` (migration 0022) names
# ``consent:<project_id>:<uid>`` at commit, and the process's one listener (db.notify, attached
# by the API's start-up) evicts it, so a withdrawn consent stops the project on the next
# request on every process. A process without a listener caches nothing.
CONSENT_CACHE_SECONDS = 300.0
GRANTS: NotifyCache[frozenset[str] | None] = NotifyCache(None, CONSENT_CACHE_SECONDS)


def consent_clause(project_id: Any, uid: Any, scope: str | None = None) -> ColumnElement[bool]:
    """The rule as a WHERE clause on ``oauth_consents``: ``uid``'s active consent to
    ``project_id``, holding ``scope`` (any scope when None). ``project_id`` and ``uid`` are a
    value, a collection of values (any of them), a SQL expression, or None (any)."""
    conditions: list[ColumnElement[bool]] = [OAuthConsent.revoked_at.is_(None)]
    for column, value in ((OAuthConsent.project_id, project_id), (OAuthConsent.user_uid, uid)):
        if value is None:
            continue
        if isinstance(value, Collection) and not isinstance(value, str):
            conditions.append(column.in_(sorted(value)))
        else:
            conditions.append(column == value)
    if scope is not None:
        conditions.append(OAuthConsent.scopes.contains([scope]))
    return and_(*conditions)


@cache
def consent_exists_sql(
    scope: str, project_param: str = "project_id", uid_param: str = "uid"
) -> str:
    """The rule as SQL text for hand-written statements: ``EXISTS (...)`` over the named bind
    parameters ``:project_param`` and ``:uid_param`` (the scope is a literal). Compiled from
    ``consent_clause``, so the two cannot drift apart."""
    clause = exists().where(consent_clause(bindparam(project_param), bindparam(uid_param), scope))
    # The base dialect: no driver casts on the parameters (``:uid``, not ``:uid::VARCHAR``).
    compiled = clause.compile(dialect=PGDialect(paramstyle="named"))
    sql = str(compiled)
    for name, value in compiled.params.items():
        if name in (project_param, uid_param):
            continue
        literal = "ARRAY[" + ", ".join(_quote(v) for v in value) + "]::varchar[]"
        sql = sql.replace(f":{name}", literal)
    return sql


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def forget(project_id: int, uid: str) -> None:
    """Drop this process's cached grant before its notification arrives (the withdrawing
    request's own process sees it without waiting for the commit's NOTIFY)."""
    GRANTS.evict(consent_key(project_id, uid))


async def granted_scopes(session: AsyncSession, project_id: int, uid: str) -> frozenset[str] | None:
    """The scopes ``uid`` granted ``project_id`` (None: no active consent)."""

    async def load() -> frozenset[str] | None:
        found = await session.scalar(
            select(OAuthConsent.scopes).where(consent_clause(project_id, uid))
        )
        return None if found is None else frozenset(found)

    return await GRANTS.get(consent_key(project_id, uid), load)


async def is_user_authorized(
    session: AsyncSession, project_id: int, uid: str, scope: str | None = None
) -> bool:
    """Whether ``uid`` granted ``project_id`` an active consent (holding ``scope``)."""
    scopes = await granted_scopes(session, project_id, uid)
    return scopes is not None and (scope is None or scope in scopes)


async def authorized_users(
    session: AsyncSession, project_id: int, uids: Collection[str], scope: str
) -> set[str]:
    """The users among ``uids`` who granted ``project_id`` ``scope`` (one statement)."""
    if not uids:
        return set()
    found = await session.scalars(
        select(OAuthConsent.user_uid).where(consent_clause(project_id, set(uids), scope))
    )
    return set(found)


async def authorized_projects(
    session: AsyncSession, uid: str, scopes: Collection[str] | None = None
) -> set[int]:
    """The projects ``uid`` has an active consent with (holding any of ``scopes``, when given)."""
    query = select(OAuthConsent.project_id).where(consent_clause(None, uid))
    if scopes is not None:
        query = query.where(OAuthConsent.scopes.overlap(sorted(scopes)))
    return set(await session.scalars(query.distinct()))
