"""Who is calling: a user (bearer token) or a project (project credentials)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class UserPrincipal:
    uid: str
    role: str
    scopes: frozenset[str]
    client_id: str | None = None
    project_id: int | None = None
    token_id: str | None = None
    # Issued to the gateway's own (first-party) client; a project's client never is.
    first_party: bool = False
    # When the person signed in for this token's grant (Unix seconds; the ``auth_time`` claim,
    # kept through refreshes); None when the token does not say.
    auth_time: int | None = None
    id_token: bool = False  # an OIDC ID token (the legacy and developer routes take them)

    @property
    def is_admin(self) -> bool:
        """Admin power needs the admin role *and* a token of the gateway's own client: an
        admin who signs in to a project's app hands that project no admin credential."""
        return self.role == "admin" and self.first_party

    @property
    def rate_key(self) -> str:
        """The user's idempotency scope (a user's keys are theirs, whatever the client)."""
        return f"u:{self.uid}"

    @property
    def budget_key(self) -> str:
        """The rate-limit window this token spends: the user's at this client, so no client
        spends what the user has at another, nor the user's own first-party budget (their
        consent management among it)."""
        return f"u:{self.uid}:{'first-party' if self.first_party else self.client_id or '-'}"


@dataclass(frozen=True, slots=True)
class ProjectPrincipal:
    project_id: int
    name: str
    scopes: frozenset[str]
    rate_limit_tier: str
    # "api-key" | "hmac" | "body-signature"
    method: str
    ip_allowlist: tuple[str, ...] = field(default=())

    @property
    def rate_key(self) -> str:
        return f"p:{self.project_id}"

    @property
    def budget_key(self) -> str:
        return self.rate_key


Principal = UserPrincipal | ProjectPrincipal
