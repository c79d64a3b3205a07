"""The authorization server: authlib's AuthorizationServer wired to our store and keys."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import redis
from authlib.oauth2.rfc6749 import AuthorizationServer, OAuth2Request
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7662 import IntrospectionEndpoint
from sqlalchemy import Engine

from access import revocation
from access.scopes import PROJECT_SCOPES, USER_SCOPES
from authserver.grants import (
    AccessTokenGenerator,
    AuthorizationCodeGrant,
    OpenIDCode,
    RefreshTokenGrant,
    S256CodeChallenge,
)
from authserver.keys import SigningKeys
from authserver.models import Client, Token
from authserver.store import Store
from core.config import Settings

GATEWAY_CLIENT_ID = "mccgw-gateway"
# The gateway's first-party client: the operator console signs administrators in with it.
CONSOLE_CLIENT_ID = "mccgw-console"
CONSOLE_SCOPES = ["openid", "profile"]
ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]


@dataclass(frozen=True)
class GatewayCredentials:
    client_id: str
    client_secret: str


def gateway_credentials(settings: Settings) -> GatewayCredentials:
    """The resource server's own introspection credentials, derived from the secret key."""
    secret = hmac.new(settings.secret_key.encode(), b"introspection", hashlib.sha256)
    return GatewayCredentials(GATEWAY_CLIENT_ID, secret.hexdigest())


def console_credentials(settings: Settings) -> GatewayCredentials:
    """The console's client credentials (confidential, PKCE too), derived from the secret key."""
    secret = hmac.new(settings.secret_key.encode(), b"console-client", hashlib.sha256)
    return GatewayCredentials(CONSOLE_CLIENT_ID, secret.hexdigest())


def console_redirect_uri(settings: Settings) -> str:
    return settings.base_url.rstrip("/") + "/console/callback"


def register_console_client(store: Store, settings: Settings) -> None:
    """Create or refresh the console's first-party client row (its redirect follows BASE_URL)."""
    credentials = console_credentials(settings)
    store.ensure_first_party_client(
        credentials.client_id,
        name="mccgw operator console",
        secret_hash=_sha(credentials.client_secret),
        redirect_uris=[console_redirect_uri(settings)],
        scopes=CONSOLE_SCOPES,
    )


class _StoredTokens:
    """What introspection and revocation share: the client authentication they accept and
    how they find the token they are asked about (in the store)."""

    CLIENT_AUTH_METHODS = ENDPOINT_AUTH_METHODS
    server: AuthServer

    def query_token(self, token_string: str, token_type_hint: str | None) -> Token | None:
        found = self.server.store.find_token(token_string, token_type_hint)
        return Token(*found) if found else None


class _Introspection(_StoredTokens, IntrospectionEndpoint):
    def check_permission(self, token: Token, client: Client, request: Any) -> bool:
        # The gateway introspects any token; a client only its own.
        return client.get_client_id() == GATEWAY_CLIENT_ID or token.check_client(client)

    def introspect_token(self, token: Token) -> dict[str, Any]:
        row = token.row
        user = self.server.store.user_by_uid(row.user_uid)
        found = self.server.store.client(row.client_id)
        expires = row.access_expires_at if token.kind == "access_token" else row.refresh_expires_at
        return {
            "active": user is not None,
            "token_type": token.kind,
            "scope": row.scope,
            "client_id": row.client_id,
            "sub": row.user_uid,
            "role": user.role if user else None,
            "project_id": str(found[0].project_id)
            if found and found[0].project_id is not None
            else None,
            "first_party": bool(found and found[0].first_party),
            "iss": self.server.issuer,
            "aud": self.server.audience,
            "exp": int(expires.timestamp()) if expires else None,
            "iat": int(row.issued_at.timestamp()),
            "auth_time": row.auth_time,
            "amr": row.amr,
            "jti": row.jti or str(row.id),
        }


class _Revocation(_StoredTokens, RevocationEndpoint):
    def revoke_token(self, token: Token, request: Any) -> None:
        self.server.store.revoke(token.row.id, token.kind)


class AuthServer(AuthorizationServer):
    def __init__(self, settings: Settings, engine: Engine) -> None:
        # Users grant projects their project scopes too (funds:manage, ...) on the consent page.
        super().__init__(scopes_supported=[*USER_SCOPES, *PROJECT_SCOPES])
        self.settings = settings
        self.issuer = settings.auth_url.rstrip("/")
        # Access tokens are for this API: its base URL is the audience.
        self.audience = settings.base_url.rstrip("/")
        self.engine = engine
        self.store = Store(engine, on_revoked=self._publish_revoked)
        self._redis = redis.Redis.from_url(settings.redis_url)  # sync: the AS runs in threads
        self.keys = SigningKeys(self.store, settings)
        self._gateway = gateway_credentials(settings)
        self.register_token_generator("default", AccessTokenGenerator(self))
        self.register_grant(
            AuthorizationCodeGrant, [S256CodeChallenge(required=True), OpenIDCode(self)]
        )
        self.register_grant(RefreshTokenGrant)
        self.register_endpoint(_Introspection)
        self.register_endpoint(_Revocation)

    def close(self) -> None:
        self._redis.close()

    def _publish_revoked(self, tokens: list[revocation.RevokedToken]) -> None:
        """Revoked access tokens stop working at once, not at their expiry."""
        revocation.publish(self._redis, tokens)

    def query_client(self, client_id: str) -> Client | None:
        if client_id == self._gateway.client_id:
            return Client(
                client_id, 0, "mccgw", "gateway", _sha(self._gateway.client_secret), [], [], []
            )
        found = self.store.client(client_id)
        return Client.from_row(*found) if found else None

    def save_token(self, token: dict[str, Any], request: Any) -> None:
        access = token["access_token"]
        previous: Token | None = getattr(request, "refresh_token", None)
        self.store.save_token(
            client_id=request.client.get_client_id(),
            uid=request.user.uid,
            scope=token.get("scope", ""),
            access_token=access,
            jti=_jti(access),
            expires_in=int(token.get("expires_in", 3600)),
            refresh_token=token.get("refresh_token"),
            family_id=previous.row.family_id if previous is not None else None,
            auth_time=request.user.auth_time,
            amr=list(request.user.amr) or None,
        )

    def create_oauth2_request(self, request: OAuth2Request) -> OAuth2Request:
        return request  # already adapted by authserver.adapter

    def create_json_request(self, request: Any) -> Any:
        return request

    def handle_response(self, status: int, body: Any, headers: Any) -> tuple[int, Any, Any]:
        return status, body, headers  # turned into a Starlette response by the route

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        pass


def _sha(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _jti(access_token: str) -> str | None:
    """The jti of a JWT access token (read without verification: we just signed it)."""
    import base64
    import json

    parts = access_token.split(".")
    if len(parts) != 3:
        return None
    padded = parts[1] + "=" * (-len(parts[1]) % 4)
    claims = json.loads(base64.urlsafe_b64decode(padded))
    jti = claims.get("jti")
    return str(jti) if jti else None
