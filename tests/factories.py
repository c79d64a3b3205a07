"""Test data factories shared by every test package: users, projects with real credentials,
OAuth clients, consent grants and access tokens, written to the real database."""

from __future__ import annotations

import asyncio
import functools
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyotp
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from authserver.factors import Factors, new_totp
from authserver.issue import issue_token
from core.config import Settings
from core.security import encrypt_secret, hash_api_secret, hash_password, new_api_key
from db.models import Project, User
from db.models.access import OAuthClient, OAuthConsent
from mccgw.seed import PROJECT_SCOPES

PASSWORD = "correct horse battery"
REDIRECT = "http://localhost:3000/callback"
# What a test OAuth client may grant unless told otherwise.
CLIENT_SCOPES = [
    "openid",
    "profile",
    "email",
    "user:read",
    "user:write",
    "mcc:read",
    *PROJECT_SCOPES,
]


@functools.cache
def password_hash() -> str:
    """PASSWORD's scrypt hash, made once by the product's own ``hash_password`` (about 0.1 s a
    call, on the test loop) and given to every test user: each sign-in still checks it with
    the real scrypt. That salts differ per hash is tested in tests/test_security.py."""
    return hash_password(PASSWORD)


@dataclass
class ProjectCreds:
    project_id: int
    api_key: str
    secret: str


@dataclass
class World:
    sessions: async_sessionmaker[AsyncSession]
    settings: Settings
    app: FastAPI

    async def user(self, role: str = "user") -> User:
        name = f"{role}_{secrets.token_hex(4)}"
        user = User(
            uid=f"u_{secrets.token_hex(6)}",
            username=name,
            email=f"{name}@test.local",
            password_hash=password_hash(),
            role=role,
            display_name=name,
        )
        async with self.sessions() as s:
            s.add(user)
            await s.commit()
        return user

    async def project(self, **overrides: Any) -> ProjectCreds:
        secret = "sk_" + secrets.token_hex(32)
        values: dict[str, Any] = {
            "name": f"proj-{secrets.token_hex(3)}",
            "allowed_scopes": PROJECT_SCOPES,
            "rate_limit_tier": "standard",
            "ip_allowlist": [],
            "limits": {},
            "api_key": new_api_key(),
            "api_secret_hash": hash_api_secret(secret),
            "api_secret_encrypted": encrypt_secret(
                secret, self.settings.master_key, self.settings.master_key_id
            ),
        }
        values.update(overrides)
        project = Project(**values)
        async with self.sessions() as s:
            s.add(project)
            await s.commit()
        return ProjectCreds(project.project_id, str(project.api_key), secret)

    async def oauth_client(
        self,
        project_id: int | None,
        *,
        public: bool = False,
        token_format: str = "jwt",
        first_party: bool = False,
        allowed_scopes: Sequence[str] | None = None,
    ) -> tuple[str, str | None]:
        """A client of the project (None: of no project, as the gateway's own first-party
        clients are); ``allowed_scopes`` defaults to CLIENT_SCOPES."""
        client_id = f"cl_{secrets.token_hex(6)}"
        secret = None if public else secrets.token_urlsafe(24)
        scopes = list(CLIENT_SCOPES if allowed_scopes is None else allowed_scopes)
        async with self.sessions() as s:
            s.add(
                OAuthClient(
                    client_id=client_id,
                    project_id=project_id,
                    name="Test client",
                    client_secret_hash=hash_api_secret(secret) if secret else None,
                    redirect_uris=[REDIRECT],
                    allowed_scopes=scopes,
                    grant_types=["authorization_code", "refresh_token"],
                    access_token_format=token_format,
                    first_party=first_party,
                )
            )  # fmt: skip
            await s.commit()
        return client_id, secret

    async def consent(self, uid: str, project_id: int, scopes: list[str] | None = None) -> None:
        """The user authorized the project: by default for every project scope (pass
        ``scopes`` to grant fewer; consent is per scope)."""
        granted = ["profile", *PROJECT_SCOPES] if scopes is None else scopes
        async with self.sessions() as s:
            s.add(OAuthConsent(user_uid=uid, project_id=project_id, scopes=granted, source="admin"))
            await s.commit()

    async def token(
        self, uid: str, scope: str, client_id: str | None = None, auth_time: int | None = None
    ) -> str:
        """An access token with exactly ``scope``; by default through a first-party (gateway
        console) client allowed that scope (the only kind on which an admin's role counts).
        Pass a project's client_id otherwise; ``auth_time``: when the user signed in (Unix
        seconds; now by default)."""
        if client_id is None:
            project = await self.project()
            allowed = dict.fromkeys([*CLIENT_SCOPES, *scope.split()])  # ordered, no repeats
            client_id, _ = await self.oauth_client(
                project.project_id, first_party=True, allowed_scopes=list(allowed)
            )
        server = self.app.state.auth_server
        issued = await asyncio.to_thread(
            issue_token, server, user=uid, scope=scope, client_id=client_id, auth_time=auth_time
        )
        return str(issued["access_token"])

    async def totp(self, uid: str) -> tuple[str, list[str]]:
        """Enrol an authenticator for the user, as /auth/account/totp does: (its secret, the
        recovery codes). The enrolment spent the previous time step's code, so
        ``totp_code(secret)`` (now) and ``totp_code(secret, 1)`` are still good once each."""
        factors = Factors(self.app.state.auth_server.store, self.settings)
        secret = new_totp(uid).secret
        first = totp_code(secret, -1)
        codes = await asyncio.to_thread(factors.confirm_totp, uid, secret, first)
        assert codes is not None
        return secret, codes


def totp_code(secret: str, steps: int = 0) -> str:
    """The authenticator's code ``steps`` time steps from now (RFC 6238, 30 s)."""
    return str(pyotp.TOTP(secret).at(int(time.time()) + 30 * steps))


async def clear_rate_windows(redis: Redis) -> None:
    """Empty every rate window: all test calls share 127.0.0.1, so tests would otherwise
    spend one another's budget."""
    keys = [k async for k in redis.scan_iter("rl:*")]
    if keys:
        await redis.delete(*keys)
