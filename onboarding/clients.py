"""Every project gets its OAuth client (decisions.md): created at approval or registration,
shown with the keys, its redirect URIs set by the project. Without one, no user could ever
authorize a project approved through the API. Flush-only, like every service."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from access.scopes import USER_SCOPES
from core.security import hash_api_secret, previous_secret_until
from db.models import Project
from db.models.access import OAuthClient

MAX_REDIRECT_URIS = 10
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")


def check_redirect_uris(uris: Iterable[str]) -> list[str]:
    """Absolute https URLs (http only for localhost), no fragment or credentials; at most 10.
    Raises ValueError naming the first bad one."""
    checked: list[str] = []
    for uri in uris:
        if not isinstance(uri, str) or len(uri) > 500:
            raise ValueError("a redirect URI is at most 500 characters")
        try:
            parts = urlsplit(uri)
        except ValueError as exc:
            raise ValueError(f"{uri[:80]!r} is not a URL") from exc
        host = (parts.hostname or "").lower()
        local = host in _LOCAL_HOSTS
        if (
            not host
            or parts.scheme not in ("https", "http")
            or (parts.scheme == "http" and not local)
        ):
            raise ValueError(f"{uri[:80]!r} must be an absolute https URL (http only on localhost)")
        if parts.fragment or parts.username or parts.password:
            raise ValueError(f"{uri[:80]!r} may not carry a fragment or credentials")
        if uri not in checked:
            checked.append(uri)
    if len(checked) > MAX_REDIRECT_URIS:
        raise ValueError(f"at most {MAX_REDIRECT_URIS} redirect URIs")
    return checked


async def project_client(session: AsyncSession, project_id: int) -> OAuthClient | None:
    """The project's own (non-first-party) client, the oldest if it has several."""
    found: OAuthClient | None = await session.scalar(
        select(OAuthClient)
        .where(OAuthClient.project_id == project_id, OAuthClient.first_party.is_(False))
        .order_by(OAuthClient.created_at)
        .limit(1)
    )
    return found


async def ensure_project_client(
    session: AsyncSession, project: Project, redirect_uris: list[str] | None = None
) -> OAuthClient:
    """The project's OAuth client, created once: public (authorization code + PKCE, so there
    is no second secret to show), offering the user scopes and the project's own scopes."""
    client = await project_client(session, project.project_id)
    if client is not None:
        return client
    client = public_client(
        f"cl_{secrets.token_hex(8)}",
        project.project_id,
        f"{project.name}"[:100],
        list(redirect_uris or []),
        [*USER_SCOPES, *(project.allowed_scopes or [])],
    )
    session.add(client)
    await session.flush()
    return client


def public_client(
    client_id: str,
    project_id: int | None,
    name: str,
    redirect_uris: list[str],
    scopes: list[str],
    *,
    first_party: bool = False,
) -> OAuthClient:
    """A public OAuth client: authorization code + PKCE (no secret to keep), JWT access tokens."""
    return OAuthClient(
        client_id=client_id,
        project_id=project_id,
        name=name,
        client_secret_hash=None,
        redirect_uris=redirect_uris,
        allowed_scopes=scopes,
        grant_types=["authorization_code", "refresh_token"],
        access_token_format="jwt",
        first_party=first_party,
    )


@dataclass(frozen=True)
class RolledClientSecret:
    client: OAuthClient
    client_secret: str  # in clear: shown once, by the caller
    previous_expires_at: datetime | None


def roll_client_secret(client: OAuthClient, expire_previous_in_seconds: int) -> RolledClientSecret:
    """A new client secret (flush is the caller's): the current one keeps authenticating for
    ``expire_previous_in_seconds``. A public client gets its first secret this way and becomes
    confidential (it must then authenticate at the token endpoint)."""
    secret = "cs_" + secrets.token_urlsafe(32)
    expires = previous_secret_until(
        expire_previous_in_seconds, client.client_secret_hash is not None
    )
    if expires is not None:
        client.previous_client_secret_hash = client.client_secret_hash
    else:
        client.previous_client_secret_hash = None
    client.previous_secret_expires_at = expires
    client.client_secret_hash = hash_api_secret(secret)
    return RolledClientSecret(client, secret, expires)
