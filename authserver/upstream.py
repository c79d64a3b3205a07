"""Sign-in through an upstream OpenID Connect provider (issue 44, item 5).

The gateway is the provider's OAuth client (settings ``UPSTREAM_OIDC_*``): the authorization-
code flow with PKCE (S256), ``state`` and ``nonce``; the ID token is verified against the
provider's JWKS (RS256/ES256, its issuer, our client id as audience, the nonce, the times).
A person is linked to a local account by (issuer, subject), made just in time on their first
sign-in: a username from ``preferred_username`` (made unique), no password, and their e-mail
only when the provider says ``email_verified`` is true (otherwise an address of their own at
``upstream.invalid`` stands in, which no mail reaches). A verified e-mail that a local account
already has is not taken over: that person signs in with their password.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

import httpx
from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from authserver.store import Store, UserInfo
from core.config import Settings
from db.models import User
from db.models.factors import UpstreamIdentity

SCOPE = "openid profile email"
ALGORITHMS = ["RS256", "ES256"]
LEEWAY = 60
_NAME = re.compile(r"[^a-zA-Z0-9_.-]+")


class UpstreamError(Exception):
    """The provider's answer cannot sign anyone in (said on the page, never a 500): 502 the
    provider is unreachable or refused, 401 its ID token is not valid, 409 the e-mail is taken."""

    def __init__(self, message: str, status: int = 502) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Provider:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str


def configured(settings: Settings) -> bool:
    return bool(settings.upstream_oidc_discovery_url and settings.upstream_oidc_client_id)


def redirect_uri(settings: Settings) -> str:
    return settings.auth_url.rstrip("/") + "/upstream/callback"


class Upstream:
    """The provider's discovery document and keys, fetched once and kept (the keys again when
    an ID token names a key id they lack: the provider rotated)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._provider: Provider | None = None
        self._keys: KeySet | None = None

    async def _get(self, url: str) -> dict[str, Any]:
        try:
            async with httpx.AsyncClient(timeout=10) as http:
                resp = await http.get(url)
            resp.raise_for_status()
            body: dict[str, Any] = resp.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise UpstreamError(f"The identity provider is unreachable ({url})") from exc
        return body

    async def provider(self) -> Provider:
        if self._provider is None:
            doc = await self._get(self.settings.upstream_oidc_discovery_url)
            try:
                self._provider = Provider(
                    doc["issuer"], doc["authorization_endpoint"], doc["token_endpoint"],
                    doc["jwks_uri"],
                )  # fmt: skip
            except KeyError as exc:
                raise UpstreamError(f"The provider's discovery lacks {exc}") from exc
        return self._provider

    async def _keyset(self, kid: str | None) -> KeySet:
        known = self._keys is not None and (kid is None or self._keys.get_by_kid(kid))
        if not known:
            jwks = await self._get((await self.provider()).jwks_uri)
            self._keys = KeySet.import_key_set(jwks)  # type: ignore[arg-type]
        assert self._keys is not None
        return self._keys

    async def exchange(self, code: str, verifier: str) -> dict[str, Any]:
        """The provider's token answer for ``code`` (client_secret_basic, with PKCE)."""
        provider = await self.provider()
        form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
                "redirect_uri": redirect_uri(self.settings)}  # fmt: skip
        auth = (self.settings.upstream_oidc_client_id, self.settings.upstream_oidc_client_secret)
        try:
            async with httpx.AsyncClient(timeout=10) as http:
                resp = await http.post(provider.token_endpoint, data=form, auth=auth)
        except httpx.HTTPError as exc:
            raise UpstreamError("The identity provider is unreachable") from exc
        if resp.status_code != 200:
            raise UpstreamError(f"The identity provider refused the code: {resp.text[:200]}")
        body: dict[str, Any] = resp.json()
        return body

    async def verify(self, id_token: str, nonce: str) -> dict[str, Any]:
        """The claims of a valid ID token of this provider, for us, made for this sign-in."""
        provider = await self.provider()
        try:
            header = jws.extract_compact(id_token.encode()).headers()  # picks the key only
            keys = await self._keyset(header.get("kid"))
            token = jwt.decode(id_token, keys, algorithms=ALGORITHMS)
            jwt.JWTClaimsRegistry(
                leeway=LEEWAY,
                iss={"essential": True, "value": provider.issuer},
                aud={"essential": True, "value": self.settings.upstream_oidc_client_id},
                sub={"essential": True},
                exp={"essential": True},
                nonce={"essential": True, "value": nonce},
            ).validate(token.claims)
        except (JoseError, ValueError) as exc:
            raise UpstreamError(
                f"The identity provider's ID token is not valid ({exc})", 401
            ) from exc
        return dict(token.claims)


def link(store: Store, issuer: str, claims: dict[str, Any]) -> UserInfo:
    """The local account of (issuer, sub): the one linked before, or a new one (just in time).
    Raises UpstreamError when the verified e-mail belongs to another local account."""
    subject = str(claims["sub"])
    verified = claims.get("email_verified") is True and isinstance(claims.get("email"), str)
    with store.session() as s, s.begin():
        found = s.scalar(
            select(UpstreamIdentity.user_uid).where(
                UpstreamIdentity.issuer == issuer, UpstreamIdentity.subject == subject
            )
        )
        if found is not None:
            row = s.get(User, found)
            assert row is not None  # the link cascades with the user
            if verified and row.email.endswith("@upstream.invalid"):
                taken = s.scalar(select(User.uid).where(User.email == claims["email"]))
                row.email = claims["email"] if taken is None else row.email
            return UserInfo(row.uid, row.username, row.email, row.role, row.display_name)
        uid = f"u_{secrets.token_hex(8)}"
        email = claims["email"] if verified else f"{uid}@upstream.invalid"
        if verified and s.scalar(select(User.uid).where(User.email == email)) is not None:
            raise UpstreamError(
                "An account with this e-mail exists already: sign in with its password", 409
            )
        name = claims.get("preferred_username") or claims.get("name") or "user"
        username = _NAME.sub("-", str(name))[:80].strip("-") or "user"
        if s.scalar(select(User.uid).where(User.username == username)) is not None:
            username = f"{username}-{secrets.token_hex(3)}"
        display = str(claims.get("name") or username)[:50]
        s.add(User(uid=uid, username=username, email=email, password_hash=None, role="user",
                   display_name=display))  # fmt: skip
        s.flush()
        s.execute(
            insert(UpstreamIdentity)
            .values(issuer=issuer, subject=subject, user_uid=uid)
            .on_conflict_do_nothing()
        )
        return UserInfo(uid, username, email, "user", display, auth_time=int(time.time()))
