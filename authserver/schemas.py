"""The OpenAPI shapes of the authorization server's answers (RFC 6749, 7009, 7517, 7662, OIDC
discovery). Its errors are OAuth error bodies (``{error, error_description}``), not RFC 7807
problems: OAuth clients parse them by those standards. HTML pages are declared as such."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class OAuthError(BaseModel):
    """RFC 6749 section 5.2 error response."""

    error: str
    error_description: str | None = None


class Jwks(BaseModel):
    keys: list[dict[str, Any]]


class OpenIdConfiguration(BaseModel):
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    introspection_endpoint: str
    revocation_endpoint: str
    jwks_uri: str
    response_types_supported: list[str]
    grant_types_supported: list[str]
    subject_types_supported: list[str]
    id_token_signing_alg_values_supported: list[str]
    scopes_supported: list[str]
    token_endpoint_auth_methods_supported: list[str]
    code_challenge_methods_supported: list[str]
    claims_supported: list[str]


class TokenResponse(BaseModel):
    access_token: str
    token_type: str
    expires_in: int
    scope: str | None = None
    refresh_token: str | None = None
    id_token: str | None = None


class Introspection(BaseModel):
    """RFC 7662: ``active`` always; the rest only for an active token."""

    model_config = ConfigDict(extra="allow")

    active: bool
    scope: str | None = None
    client_id: str | None = None
    username: str | None = None
    token_type: str | None = None
    exp: int | None = None
    iat: int | None = None
    sub: str | None = None
    aud: str | list[str] | None = None
    iss: str | None = None


class Revocation(BaseModel):
    """RFC 7009: an empty JSON object whether or not the token existed."""

    model_config = ConfigDict(extra="forbid")


def oauth_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {
        s: {"model": OAuthError, "description": "OAuth error (RFC 6749 section 5.2)"}
        for s in statuses
    }


def html_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {
        s: {
            "description": "An HTML error page",
            "content": {"text/html": {"schema": {"type": "string"}}},
        }
        for s in statuses
    }


def form_body(required: list[str], optional: list[str]) -> dict[str, Any]:
    """``openapi_extra`` of an endpoint that reads an OAuth form (RFC 6749 section 4.1.3, RFC
    7662, RFC 7009): its fields, all strings; the client authenticates with them
    (``client_id``, ``client_secret``) or with HTTP Basic."""
    fields: dict[str, Any] = {name: {"type": "string"} for name in [*required, *optional]}
    for name in required:
        fields[name]["description"] = "Always sent (the RFC requires it)"
    # Not a JSON-schema ``required`` list: the 1.0.0 document left these bodies undocumented,
    # and a schema-level requirement added later reads as a breaking change to the contract
    # check (docs/versioning.md), although the server always required these fields.
    schema = {"type": "object", "properties": fields}
    content = {"application/x-www-form-urlencoded": {"schema": schema}}
    return {"requestBody": {"required": True, "content": content}}


CLIENT_FIELDS = ["client_id", "client_secret"]
TOKEN_FORM = form_body(
    ["grant_type"],
    ["code", "redirect_uri", "code_verifier", "refresh_token", "scope", *CLIENT_FIELDS],
)
TOKEN_QUERY_FORM = form_body(["token"], ["token_type_hint", *CLIENT_FIELDS])
