"""authlib's client and token protocols over our rows."""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass

from authlib.oauth2.rfc6749 import ClientMixin, TokenMixin, scope_to_list

from authserver.store import now, sha256
from db.models.access import OAuthAuthorizationCode, OAuthClient, OAuthToken

CONFIDENTIAL_METHODS = ("client_secret_basic", "client_secret_post")


@dataclass
class Client(ClientMixin):
    client_id: str
    project_id: int | None  # None: a first-party client of the gateway (no consent recorded)
    project_name: str
    name: str
    secret_hash: str | None
    redirect_uris: list[str]
    scopes: list[str]
    grant_types: list[str]
    token_format: str = "jwt"
    # The gateway's own client: only its tokens carry the admin role's power.
    first_party: bool = False
    # A rolled secret (POST /v1/projects/oauth-client/secret/roll) works until this Unix time.
    previous_secret_hash: str | None = None
    previous_until: float = 0.0

    @classmethod
    def from_row(cls, row: OAuthClient, project_name: str) -> Client:
        return cls(
            row.client_id,
            row.project_id,
            project_name,
            row.name,
            row.client_secret_hash,
            list(row.redirect_uris),
            list(row.allowed_scopes),
            list(row.grant_types),
            row.access_token_format,
            bool(row.first_party),
            row.previous_client_secret_hash,
            row.previous_secret_expires_at.timestamp() if row.previous_secret_expires_at else 0.0,
        )

    @property
    def is_public(self) -> bool:
        return self.secret_hash is None

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str | None:
        return self.redirect_uris[0] if self.redirect_uris else None

    def get_allowed_scope(self, scope: str | None) -> str:
        if not scope:
            return ""
        return " ".join(s for s in scope_to_list(scope) if s in self.scopes)

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in self.redirect_uris

    def check_client_secret(self, client_secret: str) -> bool:
        if self.secret_hash is None:
            return False
        digest = sha256(client_secret)
        if hmac.compare_digest(digest, self.secret_hash):
            return True
        return (
            self.previous_secret_hash is not None
            and self.previous_until > time.time()
            and hmac.compare_digest(digest, self.previous_secret_hash)
        )

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        # Public clients authenticate with "none" (PKCE protects the code); others with a secret.
        return method == "none" if self.is_public else method in CONFIDENTIAL_METHODS

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code" and "authorization_code" in self.grant_types

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in self.grant_types


@dataclass
class AuthorizationCode:
    row: OAuthAuthorizationCode

    def get_redirect_uri(self) -> str | None:
        return self.row.redirect_uri

    def get_scope(self) -> str:
        return self.row.scope

    def get_nonce(self) -> str | None:
        return self.row.nonce

    def get_auth_time(self) -> int:
        return self.row.auth_time

    def get_acr(self) -> None:
        return None

    def get_amr(self) -> list[str]:
        return list(self.row.amr or ["pwd"])  # how the user signed in for this code

    @property
    def code_challenge(self) -> str | None:
        return self.row.code_challenge

    @property
    def code_challenge_method(self) -> str | None:
        return self.row.code_challenge_method


@dataclass
class Token(TokenMixin):
    row: OAuthToken
    kind: str  # "access_token" | "refresh_token"

    def check_client(self, client: Client) -> bool:
        return client.get_client_id() == self.row.client_id

    def get_scope(self) -> str:
        return self.row.scope

    def _expires_at(self) -> float:
        expires = (
            self.row.access_expires_at
            if self.kind == "access_token"
            else self.row.refresh_expires_at
        )
        return expires.timestamp() if expires else 0.0

    def get_expires_in(self) -> int:
        return max(0, int(self._expires_at() - time.time()))

    def is_expired(self) -> bool:
        return self._expires_at() <= now().timestamp()

    def is_revoked(self) -> bool:
        if self.row.revoked_at is not None:
            return True
        if self.kind == "access_token":
            return self.row.access_revoked_at is not None
        return self.row.rotated_at is not None
