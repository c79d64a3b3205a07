"""Bodies of the onboarding routes (applications, projects, whitelist, OAuth clients): each
resource's attributes are built by their model (``of``), which is what the OpenAPI document
shows; the field order is the wire order."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, create_model

from access.ratelimit import TIER_LIMITS
from api.envelope import Meta
from api.typed import Attributes, Shape
from chain import whitelist as wl
from core.time import iso
from db.models import Project
from db.models.access import OAuthClient
from db.models.onboarding import McdWhitelistEntry, ProjectApplication, ProjectStatusRecord
from onboarding.registration import Registered


class ApplicationAttributes(Attributes):
    application_id: str
    project_name: str
    project_description: str | None
    developer_uid: str
    developer_email: str | None = Field(
        description="On the developer routes only with the `email` scope (admins always see it)"
    )
    company_name: str | None
    website_url: str | None
    mcc_wallet_address: str | None
    mcd_wallet_address: str
    status: str
    reviewed_by: str | None
    reviewed_at: str | None
    rejection_reason: str | None
    project_id: int | None
    api_key: str | None
    whitelist_pda: str | None
    whitelist_bump: int | None
    whitelist_tx: str | None
    created_at: str
    updated_at: str
    whitelist_status: Literal["pending", "active", "suspended", "removed", "failed"] | None = Field(
        None,
        description="An approved project's on-chain whitelist entry: `pending` while it is "
        "written (the keys work already), then `active` with `whitelist_tx` (`suspended`, "
        "`removed` as administrators change it); `failed`: the program refused it",
    )

    @classmethod
    def of(cls, row: ProjectApplication) -> Self:
        """Every stored field a client may see (never the secret nor its hash)."""
        return cls.of_row(row, application_id=str(row.id))


class OAuthClientAttributes(Attributes):
    oauth_client_id: str
    redirect_uris: list[str]
    scopes: list[str]
    client_type: str

    @classmethod
    def of(cls, client: OAuthClient) -> Self:
        return cls(**_client_fields(client))


def _client_fields(client: OAuthClient) -> dict[str, Any]:
    return {
        "oauth_client_id": client.client_id,
        "redirect_uris": list(client.redirect_uris),
        "scopes": list(client.allowed_scopes),
        "client_type": "public" if client.client_secret_hash is None else "confidential",
    }


class ApprovedApplicationAttributes(ApplicationAttributes):
    """The approve answer: the application, its api_secret (shown once) and OAuth client."""

    api_secret: str
    oauth_client_id: str | None = None
    redirect_uris: list[str] | None = None
    scopes: list[str] | None = None
    client_type: str | None = None

    @classmethod
    def approved(cls, row: ProjectApplication, secret: str, client: OAuthClient | None) -> Self:
        fields = ApplicationAttributes.of(row).model_dump() | {"api_secret": secret}
        return cls(**fields, **(_client_fields(client) if client is not None else {}))


class RegisteredProjectAttributes(Attributes):
    project_id: str
    name: str
    description: str | None
    webhook_url: str | None
    allowed_scopes: list[str]
    rate_limit_tier: str
    status: str
    api_key: str
    api_secret: str
    created_at: str
    oauth_client_id: str
    redirect_uris: list[str]
    scopes: list[str]
    client_type: str
    webhook_endpoint_id: str | None = None
    webhook_secret: str | None = Field(
        None, description="With webhook_url: the endpoint's signing secret, shown once"
    )

    @classmethod
    def of(cls, done: Registered) -> Self:
        project, credentials = done.project, done.credentials
        return cls.of_row(
            project,
            project_id=str(project.project_id),
            api_key=credentials.api_key,
            api_secret=credentials.api_secret,
            **_client_fields(done.client),
        )


class StatusRecordAttributes(Attributes):
    project_id: str
    from_status: str | None
    status: str
    reason: str | None
    changed_by: str | None
    created_at: str

    @classmethod
    def of(cls, record: ProjectStatusRecord) -> Self:
        return cls.of_row(record, project_id=str(record.project_id))


class _CurrentStatus(Attributes):
    """A project's status at the top of an answer, as the spec has it: reason, changed_by and
    created_at are those of the change that set it."""

    project_id: str
    name: str
    status: str
    reason: str | None
    changed_by: str | None
    created_at: str


class StatusChangeAttributes(_CurrentStatus):
    """The admin's status change: the spec's fields at the top (reason, changed_by and
    created_at of this change), and the change record itself."""

    updated_at: str
    change: StatusRecordAttributes

    @classmethod
    def of(cls, project: Project, record: ProjectStatusRecord) -> Self:
        change = StatusRecordAttributes.of(record)
        return cls.of_row(
            project,
            project_id=str(project.project_id),
            change=change,
            **_current_change(project, record),
        )


class ProjectStatusAttributes(_CurrentStatus):
    """A project's status; reason, changed_by and created_at are those of the change that set
    it (its registration or approval when it never changed)."""

    suspended: bool
    allows: list[str]
    updated_at: str
    history: list[StatusRecordAttributes]

    @classmethod
    def of(cls, project: Project, allows: list[str], history: list[ProjectStatusRecord]) -> Self:
        shown = [StatusRecordAttributes.of(r) for r in history]
        return cls.of_row(
            project,
            project_id=str(project.project_id),
            allows=allows,
            history=shown,
            **_current_change(project, history[0] if history else None),
        )


def _current_change(project: Project, latest: ProjectStatusRecord | None) -> dict[str, Any]:
    """The spec's top-level fields of a status answer: the reason, author and time of the
    change that set the current status (the project's creation when none is recorded)."""
    if latest is None or latest.status != project.status:
        return {"reason": None, "changed_by": None, "created_at": iso(project.created_at)}
    return {
        "reason": latest.reason,
        "changed_by": latest.changed_by,
        "created_at": iso(latest.created_at),
    }


class WhitelistEntryAttributes(Attributes):
    project_id: int
    project_name: str
    wallet_address: str
    pda_address: str
    pda_bump: int
    status: str
    created_by: str | None
    add_tx: str | None
    last_tx: str | None
    remove_tx: str | None
    pending_action: str | None
    created_at: str
    updated_at: str
    onchain: dict[str, Any] | None

    @classmethod
    def of(cls, row: McdWhitelistEntry, onchain: wl.WhitelistEntry | None = None) -> Self:
        """The stored entry, plus ``onchain``: the McdWhitelist account's fields as the program
        holds them (None when the chain has no entry, e.g. after removal)."""
        return cls.of_row(row, onchain=wl.entry_fields(onchain) if onchain is not None else None)


# The status answer: the same fields, status and updated_at first (their order on the wire).
_LEADING = ("status", "updated_at")
WhitelistStatusAttributes = create_model(
    "WhitelistStatusAttributes",
    __base__=Attributes,
    **{name: (WhitelistEntryAttributes.model_fields[name].annotation, ...) for name in _LEADING},
    **{
        name: (field.annotation, ...)
        for name, field in WhitelistEntryAttributes.model_fields.items()
        if name not in _LEADING
    },
)  # type: ignore[call-overload]


class WhitelistRemoved(Shape):
    message: str
    project_id: int
    remove_tx: str | None


class WhitelistRemovedBody(Shape):
    data: WhitelistRemoved
    meta: Meta


class AdminProjectAttributes(Attributes):
    """A project as an administrator sees it (never its secret nor the secret's hash)."""

    project_id: str
    name: str
    description: str | None
    status: str
    suspended: bool
    owner_uid: str | None
    allowed_scopes: list[str]
    rate_limit_tier: str
    rate_limit_per_minute: int
    limits: dict[str, Any]
    ip_allowlist: list[str]
    webhook_url: str | None
    api_key: str | None
    mcd_wallet_address: str | None
    previous_secret_expires_at: str | None
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, project: Project) -> Self:
        tier = project.rate_limit_tier
        return cls.of_row(
            project,
            project_id=str(project.project_id),
            allowed_scopes=list(project.allowed_scopes or []),
            rate_limit_per_minute=TIER_LIMITS.get(tier, TIER_LIMITS["free"]),
            limits=dict(project.limits or {}),
            ip_allowlist=list(project.ip_allowlist or []),
        )


class ApiSecretAttributes(Attributes):
    """The answer of a roll: the new api_secret, shown once."""

    project_id: str
    api_key: str | None
    api_secret: str
    previous_expires_at: str | None
    rolled_at: str
