"""The project every write bench drives: an API key, its users, and those of them who
authorized it (an admin consent), as the API would find them."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from typing import Any

from activities.deps import WorkerDeps
from core.config import Settings
from core.security import encrypt_secret, hash_api_secret, new_api_key
from db.models import Project, User
from db.models.access import OAuthConsent
from devchain.funding import fund_user


@dataclass(frozen=True)
class BenchProject:
    project_id: int
    secret: str  # the API secret (also the HMAC key of mining proofs)

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Project-ID": str(self.project_id), "X-API-Key": self.secret}


async def bench_project(
    sessions: Any,
    settings: Settings,
    *,
    name: str,
    scopes: list[str],
    users: list[str],
    consenting: list[str],
    limits: dict[str, Any] | None = None,
) -> BenchProject:
    """Create the project (enterprise tier, no IP allow-list), ``users``, and a consent to
    ``scopes`` from each of ``consenting``."""
    secret = "sk_" + secrets.token_hex(32)
    async with sessions() as s:
        project = Project(
            name=name, allowed_scopes=scopes, rate_limit_tier="enterprise", ip_allowlist=[],
            limits=limits or {}, api_key=new_api_key(), api_secret_hash=hash_api_secret(secret),
            api_secret_encrypted=encrypt_secret(
                secret, settings.master_key, settings.master_key_id
            ),
        )  # fmt: skip
        s.add(project)
        for uid in users:
            s.add(User(uid=uid, username=uid, email=f"{uid}@bench.local", role="user"))
        await s.flush()
        for uid in consenting:
            s.add(
                OAuthConsent(
                    user_uid=uid, project_id=project.project_id, scopes=scopes, source="admin"
                )
            )
        await s.commit()
        return BenchProject(project.project_id, secret)


async def funded_on_chain(
    deps: WorkerDeps, senders: list[str], amount: int, receivers: list[str]
) -> None:
    """Real MCC in each sender's custody account (minted on the chain and booked), and the
    receivers' MCC custody accounts opened, all at once."""
    await asyncio.gather(
        *(
            fund_user(deps.gateway, deps.sessions, uid=u, currency="MCC", amount=amount,
                      op_key=f"bench-fund:{u}")
            for u in senders
        ),
        *(deps.gateway.ensure_custody_account(u, "MCC") for u in receivers),
    )  # fmt: skip
