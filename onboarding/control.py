"""An administrator's control of a live project (issue 34), flush-only like every service:
its rate-limit tier, amount limits and IP allow-list, and the rotation of its api_secret.

Every change writes one audit row (actor ``user:<admin uid>``, the reason, the values before
and after). Shared by the admin API (api/routes/admin_projects.py) and the console.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from core.errors import DomainError, NotFound
from core.money import InvalidAmount, to_base_units
from core.security import (
    MAX_OVERLAP_SECONDS,
    encrypt_secret,
    hash_api_secret,
    new_api_secret,
    previous_secret_until,
)
from core.time import iso
from db.models import Project
from db.models.identity import RATE_LIMIT_TIERS
from events.audit import Actor, audit_action

# The operations and currencies projects.limits may override (engine.limits.DEFAULT_LIMITS).
LIMIT_OPERATIONS = ("fund_lock", "transfer", "mining")
LIMIT_CURRENCIES = ("MCC", "MCD")
LIMIT_FIELDS = ("per_operation", "per_day")
MAX_ALLOWLIST = 50


class ProjectNotFound(NotFound):
    pass


def check_limits(value: dict[str, Any]) -> dict[str, Any]:
    """``{"transfer": {"MCC": {"per_operation": "100", "per_day": "1000"}}}``: known
    operations, currencies and fields, each a non-negative decimal string (ValueError)."""
    checked: dict[str, Any] = {}
    for operation, currencies in value.items():
        if operation not in LIMIT_OPERATIONS:
            raise ValueError(f"unknown operation {operation!r} (one of {LIMIT_OPERATIONS})")
        if not isinstance(currencies, dict):
            raise ValueError(f"limits.{operation} must be an object of currencies")
        for currency, fields in currencies.items():
            if currency not in LIMIT_CURRENCIES:
                raise ValueError(f"unknown currency {currency!r} (one of {LIMIT_CURRENCIES})")
            if not isinstance(fields, dict) or not fields:
                raise ValueError(f"limits.{operation}.{currency} must name per_operation/per_day")
            for name, amount in fields.items():
                if name not in LIMIT_FIELDS:
                    raise ValueError(f"unknown limit {name!r} (one of {LIMIT_FIELDS})")
                try:
                    # 9 decimals: the finest either mint has; only the form is checked here.
                    to_base_units(str(amount), 9, allow_zero=True)
                except InvalidAmount as exc:
                    raise ValueError(
                        f"limits.{operation}.{currency}.{name} must be a decimal string"
                    ) from exc
            checked.setdefault(operation, {})[currency] = {k: str(v) for k, v in fields.items()}
    return checked


def check_allowlist(value: list[str]) -> list[str]:
    """CIDR blocks (a bare address is its own /32 or /128), normalised; ValueError names the
    first bad one. Empty: calls from any address."""
    if len(value) > MAX_ALLOWLIST:
        raise ValueError(f"at most {MAX_ALLOWLIST} entries")
    checked: list[str] = []
    for entry in value:
        try:
            network = str(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError as exc:
            raise ValueError(f"{entry[:60]!r} is not an IP address or CIDR block") from exc
        if network not in checked:
            checked.append(network)
    return checked


def projects(status: str | None = None, tier: str | None = None) -> Select[Any]:
    statement = select(Project)
    if status is not None:
        statement = statement.where(Project.status == status)
    if tier is not None:
        statement = statement.where(Project.rate_limit_tier == tier)
    return statement


NEWEST_FIRST = [Project.created_at.desc(), Project.project_id.desc()]


async def get(session: AsyncSession, project_id: int, *, lock: bool = False) -> Project:
    project = await session.get(Project, project_id, with_for_update=lock)
    if project is None:
        raise ProjectNotFound(f"Project {project_id} does not exist")
    return project


def settings_of(project: Project) -> dict[str, Any]:
    """What an administrator controls (and the audit row records before and after)."""
    return {
        "rate_limit_tier": project.rate_limit_tier,
        "limits": dict(project.limits or {}),
        "ip_allowlist": list(project.ip_allowlist or []),
    }


async def change_settings(
    session: AsyncSession,
    project_id: int,
    changes: dict[str, Any],
    *,
    reason: str | None,
    actor: Actor,
) -> Project:
    """Apply ``changes`` (any of rate_limit_tier, limits, ip_allowlist; already checked) to the
    project (row locked) and audit them with the reason."""
    project = await get(session, project_id, lock=True)
    before = settings_of(project)
    if "rate_limit_tier" in changes:
        tier = changes["rate_limit_tier"]
        if tier not in RATE_LIMIT_TIERS:
            raise DomainError(f"Unknown tier {tier}", status=422, slug="validation-error")
        project.rate_limit_tier = tier
    if "limits" in changes:
        project.limits = check_limits(changes["limits"] or {})
    if "ip_allowlist" in changes:
        project.ip_allowlist = check_allowlist(changes["ip_allowlist"] or [])
    await session.flush()
    await session.refresh(project)
    after = settings_of(project)
    audit_action(
        session,
        actor,
        "admin.projects.update",
        project_id,
        None,
        {"changes": changes, "reason": reason, "before": before},
        {"after": after},
    )
    await session.flush()
    return project


@dataclass(frozen=True)
class Rolled:
    project: Project
    api_secret: str  # in clear: shown once, by the caller
    previous_expires_at: datetime | None


async def roll_api_secret(
    session: AsyncSession,
    project_id: int,
    expire_previous_in_seconds: int,
    *,
    actor: Actor,
    master_key: str,
    master_key_id: str,
    reason: str | None = None,
) -> Rolled:
    """A new api_secret (Stripe's roll): the current one keeps working for
    ``expire_previous_in_seconds`` (0: stops now), then answers 401. A secret rolled before
    and still in its overlap is replaced by this one's: only one previous secret works."""
    if not 0 <= expire_previous_in_seconds <= MAX_OVERLAP_SECONDS:
        raise DomainError(
            f"expire_previous_in_seconds must be 0..{MAX_OVERLAP_SECONDS}",
            status=422,
            slug="validation-error",
        )
    project = await get(session, project_id, lock=True)
    secret = new_api_secret()
    expires = previous_secret_until(expire_previous_in_seconds, bool(project.api_secret_hash))
    if expires is not None:
        project.previous_api_secret_hash = project.api_secret_hash
        project.previous_api_secret_encrypted = project.api_secret_encrypted
    else:
        project.previous_api_secret_hash = None
        project.previous_api_secret_encrypted = None
    project.previous_secret_expires_at = expires
    project.api_secret_hash = hash_api_secret(secret)
    project.api_secret_encrypted = encrypt_secret(secret, master_key, master_key_id)
    await session.flush()
    await session.refresh(project)
    audit_action(
        session,
        actor,
        "projects.api_secret.roll",
        project_id,
        None,
        {
            "expire_previous_in_seconds": expire_previous_in_seconds,
            "reason": reason,
            "by": actor.role,
        },
        {"previous_expires_at": iso(expires) if expires else None},
    )
    await session.flush()
    return Rolled(project, secret, expires)


def ensure_owner_or_admin(project: Project, uid: str, is_admin: bool) -> None:
    """The project's owner (the developer whose application made it) or an administrator."""
    if is_admin or (project.owner_uid is not None and project.owner_uid == uid):
        return
    raise DomainError(
        f"Only the owner of project {project.project_id} or an administrator may do this",
        status=403,
        slug="forbidden",
    )
