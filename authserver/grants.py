"""Grants and token generation, as authlib subclasses (no hand-rolled OAuth)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from authlib.common.security import generate_token
from authlib.oauth2.rfc6749 import InvalidRequestError, grants
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc9068 import JWTBearerTokenGenerator
from authlib.oidc.core import UserInfo as OidcUserInfo
from authlib.oidc.core.grants import OpenIDCode as _OpenIDCode
from joserfc.jwk import KeySet

from authserver.models import AuthorizationCode, Client, Token
from authserver.store import UserInfo

if TYPE_CHECKING:
    from authserver.server import AuthServer

ACCESS_TOKEN_TTL = 3600  # spec: 1 hour
TOKEN_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]


class S256CodeChallenge(CodeChallenge):
    """PKCE with S256 only; a public client without it is refused at the authorize step."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        data = grant.request.payload.data
        client: Client = grant.request.client
        if client.is_public and not data.get("code_challenge"):
            raise InvalidRequestError("Public clients must use PKCE (code_challenge, S256)")
        if data.get("code_challenge") and data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("code_challenge_method must be S256")
        super().validate_code_challenge(grant, redirect_uri)


class AuthorizationCodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = TOKEN_AUTH_METHODS
    server: AuthServer

    def save_authorization_code(self, code: str, request: Any) -> None:
        data = request.payload.data
        self.server.store.save_code(
            code,
            {
                "client_id": request.client.get_client_id(),
                "user_uid": request.user.uid,
                "redirect_uri": request.payload.redirect_uri,
                "scope": request.scope or "",
                "nonce": data.get("nonce"),
                "code_challenge": data.get("code_challenge"),
                "code_challenge_method": data.get("code_challenge_method"),
                "amr": list(request.user.amr) or ["pwd"],
            },
        )

    def query_authorization_code(self, code: str, client: Client) -> AuthorizationCode | None:
        row = self.server.store.take_code(code, client.get_client_id())
        return AuthorizationCode(row) if row else None

    def delete_authorization_code(self, authorization_code: AuthorizationCode) -> None:
        pass  # already deleted when it was taken (single use even under a race)

    def authenticate_user(self, authorization_code: AuthorizationCode) -> UserInfo | None:
        user = self.server.store.user_by_uid(authorization_code.row.user_uid)
        # The user signed in (with their password, and maybe a second factor: amr) when this
        # code was made.
        code = authorization_code
        return user and replace(user, auth_time=code.get_auth_time(), amr=tuple(code.get_amr()))


class RefreshTokenGrant(grants.RefreshTokenGrant):
    """Rotation with reuse detection: a rotated token presented again revokes its family."""

    TOKEN_ENDPOINT_AUTH_METHODS = TOKEN_AUTH_METHODS
    INCLUDE_NEW_REFRESH_TOKEN = True
    server: AuthServer

    def authenticate_refresh_token(self, refresh_token: str) -> Token | None:
        # The client is authenticated before this (authlib): only its own token is rotated.
        client = self.request.client
        client_id = client.get_client_id() if client is not None else None
        row, _reused = self.server.store.rotate_refresh(refresh_token, client_id)
        return Token(row, "refresh_token") if row else None

    def authenticate_user(self, refresh_token: Token) -> UserInfo | None:
        user = self.server.store.user_by_uid(refresh_token.row.user_uid)
        # A refresh is no sign-in: the new access token keeps the grant's ``auth_time``.
        row = refresh_token.row
        return user and replace(user, auth_time=row.auth_time, amr=tuple(row.amr or ()))

    def revoke_old_credential(self, refresh_token: Token) -> None:
        pass  # marked rotated atomically in authenticate_refresh_token


class OpenIDCode(_OpenIDCode):
    """ID tokens for the `openid` scope (the legacy routes take them as bearer)."""

    def __init__(self, server: AuthServer) -> None:
        super().__init__(require_nonce=False)
        self.server = server

    def exists_nonce(self, nonce: str, request: Any) -> bool:
        return self.server.store.nonce_exists(request.payload.client_id, nonce)

    def resolve_client_private_key(self, client: Client) -> KeySet:
        return self.server.keys.signing_keyset()

    def get_client_algorithm(self, client: Client) -> str:
        return "RS256"

    def get_encode_header(self, client: Client) -> dict[str, str]:
        return {"alg": "RS256"}

    def get_client_claims(self, client: Client) -> dict[str, Any]:
        """The audience is the client; the API reads whose client it is from the token itself
        (access.callers): a project's (``project_id``), or the gateway's own (``first_party``),
        the only kind the developer routes take."""
        claims: dict[str, Any] = {"iss": self.server.issuer, "aud": [client.get_client_id()]}
        claims["project_id"] = "" if client.project_id is None else str(client.project_id)
        if client.first_party:
            claims["first_party"] = True
        return claims

    def generate_user_info(self, user: UserInfo, scope: str) -> OidcUserInfo:
        info = OidcUserInfo(sub=user.uid, role=user.role)
        if "profile" in scope.split():
            info["preferred_username"] = user.username
            info["name"] = user.display_name or user.username
        if "email" in scope.split():
            info["email"] = user.email
        return info


class AccessTokenGenerator(JWTBearerTokenGenerator):
    """RFC 9068 JWT access tokens (RS256, kid header) with role and project claims; clients
    configured for opaque tokens get a random string checked by introspection instead."""

    def __init__(self, server: AuthServer) -> None:
        super().__init__(
            issuer=server.issuer,
            alg="RS256",
            refresh_token_generator=lambda *a, **kw: generate_token(48),
            expires_generator=lambda client, grant_type: ACCESS_TOKEN_TTL,
        )
        self.server = server

    def get_jwks(self) -> KeySet:
        return self.server.keys.signing_keyset()

    def get_audiences(self, client: Client, user: UserInfo, scope: str) -> str:
        return self.server.audience

    def get_auth_time(self, user: UserInfo | None) -> int | None:
        """When the user signed in for this grant (RFC 9068 ``auth_time``): what a fresh
        sign-in is judged by (access/fresh.py)."""
        return user.auth_time if user is not None else None

    def get_extra_claims(
        self, client: Client, grant_type: str, user: UserInfo, scope: str
    ) -> dict[str, Any]:
        project = "" if client.project_id is None else str(client.project_id)
        claims: dict[str, Any] = {"role": user.role if user else "user", "project_id": project}
        if client.first_party:  # admin power rides only on the gateway's own client
            claims["first_party"] = True
        return claims

    def get_amr(self, user: UserInfo) -> list[str] | None:
        """How the user signed in (RFC 8176): pwd, and otp/mfa after a second factor; the
        console admits administrators only with one (api/console/signin.py)."""
        if user is None or user.auth_time is None:
            return None
        return list(user.amr) or ["pwd"]

    def access_token_generator(
        self, client: Client, grant_type: str, user: UserInfo, scope: str
    ) -> str:
        if client.token_format == "opaque":
            return str(generate_token(48))
        return str(super().access_token_generator(client, grant_type, user, scope))
