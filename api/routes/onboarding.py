"""Project onboarding: developers apply (ID token), administrators review.

Mounted twice: under ``/v1`` and under ``/api/open`` (spec: the deployment exposes the
application and admin endpoints under both prefixes).

Approval and the one-time secret (docs/onboarding.md): the approve call generates the api_key
and api_secret, keeps only the secret's hash and an AES-GCM copy, creates the project, marks
the application ``approved`` with its whitelist entry ``pending`` and commits; then it starts
``ApprovalWorkflow`` (id from the application id), which writes the entry on chain, waits for it
a few seconds at most, and answers 200 with the project, its keys and the whitelist's state as
it is then (``pending``, or ``active`` with its transaction); ``GET`` shows it afterwards. The
secret is handed out exactly once (the first 200), then its copy on the application is erased.
"""

from __future__ import annotations

import logging
import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, field_validator
from temporalio.client import WorkflowFailureError

from access.scopes import PROJECT_SCOPES
from api.auth.principal import UserPrincipal
from api.callers import ADMIN_PROBLEMS, AdminCaller, Developer, actor_of
from api.deps import SessionDep, SettingsDep
from api.envelope import PageQuery, meta, page, resource, single
from api.openapi import problems
from api.schemas.onboarding import ApplicationAttributes, ApprovedApplicationAttributes
from api.starts import finished, start_approval
from api.typed import Many, One
from chain import whitelist as wl
from core.errors import ServiceUnavailable
from db.models.onboarding import ProjectApplication
from db.paging import page_of
from events.audit import audit_action
from onboarding import applications, queries
from onboarding.applications import check_wallet
from onboarding.clients import project_client

# How long an approve call waits for the on-chain whitelist entry before answering with it still
# ``pending`` (app.state ``approval_wait_seconds`` overrides).
APPROVAL_WAIT_SECONDS = 5.0


log = logging.getLogger("mccgw.api.onboarding")

_DEV_PROBLEMS = problems(429, s401="Missing or invalid ID token (`unauthorized`)")

router = APIRouter(tags=["onboarding"])


class ApplicationIn(BaseModel):
    """A developer's application for a project (developer_uid/email come from the token)."""

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "project_name": "Moon Auctions",
                    "project_description": "Auctions of territory NFTs",
                    "company_name": "Moon Ltd",
                    "website_url": "https://moon.example",
                    "mcd_wallet_address": "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
                    "mcc_wallet_address": None,
                }
            ]
        }
    }

    project_name: str = Field(min_length=3, max_length=100)
    project_description: str | None = Field(None, max_length=5000)
    company_name: str | None = Field(None, max_length=100)
    website_url: str | None = Field(None, max_length=255)
    mcd_wallet_address: str = Field(description="Base58 chain address (32 bytes), required")
    mcc_wallet_address: str | None = Field(None, description="Base58 chain address, optional")

    @field_validator("project_name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not 3 <= len(value.strip()) <= 100:
            raise ValueError("project_name must be 3-100 characters")
        return value.strip()

    @field_validator("mcd_wallet_address")
    @classmethod
    def _mcd(cls, value: str) -> str:
        return check_wallet(value)

    @field_validator("mcc_wallet_address")
    @classmethod
    def _mcc(cls, value: str | None) -> str | None:
        return None if value is None else check_wallet(value)


class ApproveIn(BaseModel):
    """Optional: the project scopes the approved project gets (default: every one) and its
    rate-limit tier (default ``free``)."""

    allowed_scopes: list[str] | None = Field(None, max_length=20, examples=[["funds:read"]])
    rate_limit_tier: Literal["free", "standard", "enterprise"] = "free"

    @field_validator("allowed_scopes")
    @classmethod
    def _known_scopes(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        unknown = sorted(set(value) - set(PROJECT_SCOPES))
        if unknown:
            raise ValueError(f"unknown project scopes: {', '.join(unknown)}")
        return sorted(set(value))


class RejectIn(BaseModel):
    reason: str = Field(min_length=1, max_length=2000, examples=["Incomplete company details"])


def _as_application(row: ProjectApplication) -> dict[str, Any]:
    return resource("project_application", row.id, ApplicationAttributes.of(row))


def _developers(row: ProjectApplication, user: UserPrincipal) -> dict[str, Any]:
    """An application as its developer's token may see it: the e-mail only with the `email`
    scope (an ID token of a project's app signed in with `openid` shows that app nothing)."""
    attributes = ApplicationAttributes.of(row)
    if "email" not in user.scopes and not user.is_admin:
        attributes = attributes.model_copy(update={"developer_email": None})
    return resource("project_application", row.id, attributes)


@router.post(
    "/projects/apply",
    status_code=201,
    response_model=One[ApplicationAttributes],
    responses=_DEV_PROBLEMS
    | problems(
        s409="The caller already has a pending application (`pending-application-exists`)",
        s422="Invalid field (`validation-error`), e.g. a wallet address "
        "that is not Base58 of 32 bytes",
    ),
)
async def apply(payload: ApplicationIn, user: Developer, session: SessionDep) -> Any:
    """Apply for a project (developer ID token); one pending application per developer."""
    row = await applications.apply(session, user.uid, payload.model_dump())
    await session.commit()
    return JSONResponse({"data": _developers(row, user), "meta": meta()}, 201)


@router.get(
    "/projects/applications", response_model=Many[ApplicationAttributes], responses=_DEV_PROBLEMS
)
async def my_applications(
    user: Developer, session: SessionDep, paging: PageQuery
) -> dict[str, Any]:
    """The caller's applications, newest first (developer ID token)."""
    statement = queries.applications(developer_uid=user.uid)
    rows, total = await page_of(session, statement, queries.NEWEST_APPLICATIONS_FIRST, paging)
    return page([_developers(r, user) for r in rows], total, paging)


@router.get(
    "/projects/applications/{application_id}",
    response_model=One[ApplicationAttributes],
    responses=_DEV_PROBLEMS | problems(subject="application of the caller"),
)
async def my_application(
    application_id: uuid.UUID, user: Developer, session: SessionDep
) -> dict[str, Any]:
    """One of the caller's applications (developer ID token)."""
    row = await queries.application(session, application_id, developer_uid=user.uid)
    return {"data": _developers(row, user), "meta": meta()}


@router.get(
    "/admin/projects/applications",
    response_model=Many[ApplicationAttributes],
    responses=ADMIN_PROBLEMS,
)
async def list_applications(
    admin: AdminCaller,
    session: SessionDep,
    paging: PageQuery,
    status: Literal["pending", "approving", "approved", "rejected", "suspended", "all"] = "all",
) -> dict[str, Any]:
    """Applications for review, filtered by status (administrator)."""
    rows, total = await page_of(
        session,
        queries.applications(status),
        queries.NEWEST_APPLICATIONS_FIRST,
        paging,
    )
    return page([_as_application(r) for r in rows], total, paging)


@router.post(
    "/admin/projects/applications/{application_id}/approve",
    response_model=One[ApprovedApplicationAttributes],
    responses={
        **ADMIN_PROBLEMS,
        **problems(
            subject="application",
            s409="Not approvable (`invalid-state`): rejected, or approved and its secret "
            "already shown",
            s503="A backing service is unavailable (`service-unavailable`); the workflow "
            "service being down is not one: the recovery sweep writes the whitelist entry",
        ),
        202: {
            "model": One[ApplicationAttributes],
            "description": "Not sent since 1.1.0 (the answer is always 200 with the keys); "
            "listed for the 1.x clients that handle it",
        },
    },
)
async def approve(
    application_id: uuid.UUID,
    admin: AdminCaller,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    payload: Annotated[ApproveIn | None, Body()] = None,
) -> Any:
    """Approve: create the project, its api_key and one-time api_secret, whitelist it on chain.

    Always 200 with the approved project and its keys, however long the chain takes: the
    on-chain whitelist entry follows in `whitelist_status` (`pending`, then `active` with its
    `whitelist_tx`; `GET` the application to follow it). The secret is shown by this answer
    only; approving again is 409. The answer carries the project's OAuth client id
    (`oauth_client_id`, a public client: authorization code + PKCE); the project sets its
    redirect URIs with `PUT /v1/projects/oauth-client`. `allowed_scopes` in the body limits its
    project scopes."""
    body = payload or ApproveIn()
    scopes = body.allowed_scopes
    approval = await applications.begin_approval(
        session, application_id, admin.uid, settings.master_key, settings.master_key_id,
        wl.program_id(settings), scopes, body.rate_limit_tier,
    )  # fmt: skip
    row = approval.application
    if approval.approved_now:
        audit_action(
            session, actor_of(request, admin.uid), "admin.applications.approve", row.project_id,
            None, {"application_id": str(application_id), **body.model_dump()},
            {"status": row.status, "whitelist_status": row.whitelist_status},
        )  # fmt: skip
    await session.commit()
    if row.whitelist_status == "pending":
        await _await_whitelist(request, str(application_id), admin.uid, scopes)
    return await _deliver(session, settings.master_key_id, settings.master_key, application_id)


async def _await_whitelist(
    request: Request, application_id: str, admin_uid: str, scopes: list[str] | None
) -> None:
    """Start (or join) the approval's whitelist write and give it a few seconds, so that the
    usual answer already shows the entry active; the answer never waits for it longer."""
    wait = float(getattr(request.app.state, "approval_wait_seconds", APPROVAL_WAIT_SECONDS))
    handle = await start_approval(request, application_id, admin_uid, scopes)
    if handle is None:
        return
    try:
        await finished(handle, wait)
    except (WorkflowFailureError, ServiceUnavailable):  # refused: "failed", kept on the row
        log.warning("the whitelist entry of application %s is not written", application_id)


async def _deliver(
    session: SessionDep, key_id: str, master_key: str, application_id: uuid.UUID
) -> Any:
    """Hand out the secret exactly once (row locked; its encrypted copy erased)."""
    row, secret = await applications.take_secret(session, application_id, {key_id: master_key})
    await session.commit()
    await session.refresh(row)
    client = None if row.project_id is None else await project_client(session, row.project_id)
    attributes = ApprovedApplicationAttributes.approved(row, secret, client)
    return JSONResponse(single("project_application", row.id, attributes))


@router.post(
    "/admin/projects/applications/{application_id}/reject",
    response_model=One[ApplicationAttributes],
    responses=ADMIN_PROBLEMS
    | problems(
        subject="application",
        s409="Only a pending application can be rejected (`invalid-state`)",
    ),
)
async def reject(
    application_id: uuid.UUID,
    payload: RejectIn,
    admin: AdminCaller,
    request: Request,
    session: SessionDep,
) -> dict[str, Any]:
    """Reject a pending application with a reason (administrator)."""
    row = await applications.reject(session, application_id, payload.reason, admin.uid)
    audit_action(
        session, actor_of(request, admin.uid), "admin.applications.reject", None, None,
        {"application_id": str(application_id), "reason": payload.reason}, {"status": row.status},
    )  # fmt: skip
    await session.commit()
    await session.refresh(row)
    return single("project_application", row.id, ApplicationAttributes.of(row))
