"""Typed bodies of the onboarding routes (applications, projects, whitelist, OAuth clients):
the OpenAPI document shows each success body exactly; the field order is the wire order."""

from __future__ import annotations

from typing import Any

from pydantic import create_model

from api.envelope import Meta
from api.typed import Shape


class ApplicationAttributes(Shape):
    application_id: str
    project_name: str
    project_description: str | None
    developer_uid: str
    developer_email: str
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


class OAuthClientAttributes(Shape):
    oauth_client_id: str
    redirect_uris: list[str]
    scopes: list[str]
    client_type: str


class ApprovedApplicationAttributes(ApplicationAttributes):
    """The approve answer: the application, its api_secret (shown once) and OAuth client."""

    api_secret: str
    oauth_client_id: str | None = None
    redirect_uris: list[str] | None = None
    scopes: list[str] | None = None
    client_type: str | None = None


class RegisteredProjectAttributes(Shape):
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


class StatusRecordAttributes(Shape):
    project_id: str
    from_status: str | None
    status: str
    reason: str | None
    changed_by: str | None
    created_at: str


class StatusChangeAttributes(Shape):
    project_id: str
    name: str
    status: str
    updated_at: str
    change: StatusRecordAttributes


class ProjectStatusAttributes(Shape):
    project_id: str
    name: str
    status: str
    suspended: bool
    allows: list[str]
    updated_at: str
    history: list[StatusRecordAttributes]


class WhitelistEntryAttributes(Shape):
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


# The status answer: the same fields, status and updated_at first (their order on the wire).
_LEADING = ("status", "updated_at")
WhitelistStatusAttributes = create_model(
    "WhitelistStatusAttributes",
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
