"""The operator console at /console: server-rendered pages for administrators.

Sign-in is the authorization-code flow with PKCE against our own authorization server, with
the gateway's first-party client ``mccgw-console``; only users whose role is ``admin`` enter,
and the role is read again from the database on every request. Every action calls the same
functions as the admin API (onboarding.applications, api.routes.admin_whitelist.change_entry,
api.routes.admin_transfers.retry/cancel, onboarding.status.change_status), so the rules and
the audit are the API's. Errors are shown as the problem's title and detail, never a trace.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
import time
import uuid
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime, timedelta
from math import ceil
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

import httpx
from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from fastapi.templating import Jinja2Templates
from redis.exceptions import RedisError
from solana.rpc.commitment import Commitment
from solders.signature import Signature
from sqlalchemy import Select, func, or_, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from api.auth.deps import principal_from_claims
from api.auth.principal import UserPrincipal
from api.auth.tokens import AuthServerUnavailable, InvalidToken
from api.auth.wiring import auth_in_process
from api.console.session import (
    LOGIN_COOKIE,
    LOGIN_TTL,
    SESSION_COOKIE,
    ConsoleSession,
    clear_cookie,
    read_session,
    set_cookie,
    unseal,
)
from api.routes import admin_transfers, admin_whitelist
from api.routes.funds import decimals
from api.routes.onboarding import start_approval
from authserver.server import CONSOLE_SCOPES, console_credentials, console_redirect_uri
from chain.errors import UnknownChainWrite
from core.config import Settings
from core.errors import DomainError, NotFound
from core.money import to_decimal_string
from db.models import Project, User
from db.models.engine import ReconciliationDrift, Transfer
from db.models.onboarding import McdWhitelistEntry, ProjectApplication
from engine import transfers
from onboarding import applications
from onboarding import status as machine
from workflows.approval import workflow_id as approval_workflow_id

log = logging.getLogger("mccgw.console")

PER_PAGE = 20
templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))


class _LoginRequired(Exception):
    pass


class _Forbidden(Exception):
    pass


def _page_html(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    settings: Settings = request.app.state.settings
    context.setdefault("session", getattr(request.state, "console_session", None))
    context |= {
        "request": request,
        "temporal_ui": settings.temporal_ui_url.rstrip("/"),
        "namespace": settings.temporal_namespace,
        "rpc_url": settings.solana_rpc_url,
        "explorer_url": settings.explorer_url.rstrip("/"),
    }
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def _problem_page(request: Request, status: int, title: str, detail: str) -> HTMLResponse:
    if request.headers.get("x-console-fragment"):
        return _page_html(request, "_problem.html", status_code=status, title=title, detail=detail)
    return _page_html(request, "problem.html", status_code=status, title=title, detail=detail)


class ConsoleRoute(APIRoute):
    """Renders every failure as an HTML page: sign-in redirect, 403, the problem's title and
    detail; an unexpected error is logged and shown without internals."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except _LoginRequired:
                if request.headers.get("x-console-fragment"):  # a poll: stop it, say why
                    return _page_html(
                        request, "_problem.html", status_code=401, title="Signed out",
                        detail="Your console session has ended; reload the page to sign in.",
                    )  # fmt: skip
                target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                if request.method != "GET":
                    target = "/console"
                return RedirectResponse(f"/console/login?{urlencode({'next': target})}", 303)
            except _Forbidden:
                return _page_html(request, "forbidden.html", status_code=403, session=None)
            except DomainError as exc:
                return _problem_page(request, exc.status, exc.title, exc.detail)
            except RequestValidationError as exc:
                detail = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors()
                )
                return _problem_page(request, 422, "Validation error", detail)
            except (DBAPIError, RedisError):
                log.exception("console page: a backing service failed")
                return _problem_page(
                    request, 503, "Service unavailable",
                    "The database or Redis is unreachable right now; try again shortly.",
                )  # fmt: skip
            except Exception:
                log.exception("console page failed")
                return _problem_page(
                    request, 500, "Internal error", "The console could not complete this page."
                )

        return run


router = APIRouter(prefix="/console", include_in_schema=False, route_class=ConsoleRoute)


# -- session, admin check, CSRF -------------------------------------------------------------


async def _admin(request: Request, session: AsyncSession) -> tuple[ConsoleSession, UserPrincipal]:
    settings: Settings = request.app.state.settings
    console = read_session(request, settings)
    if console is None:
        raise _LoginRequired
    user = await session.get(User, console.uid)
    if user is None or user.role != "admin":  # the role is read afresh on every request
        raise _Forbidden
    request.state.console_session = console
    principal = UserPrincipal(
        uid=user.uid, role=user.role, scopes=frozenset(), client_id=None, first_party=True
    )
    request.state.principal = principal
    return console, principal


async def _form(request: Request) -> dict[str, str]:
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        raise DomainError("Forms are sent url-encoded", status=415, slug="unsupported-media-type")
    body = (await request.body()).decode("utf-8", errors="replace")
    return dict(parse_qsl(body, keep_blank_values=True))


async def _post(
    request: Request, session: AsyncSession
) -> tuple[ConsoleSession, UserPrincipal, dict[str, str]]:
    """Every POST: a signed-in administrator and the session's CSRF token in the form."""
    console, admin = await _admin(request, session)
    form = await _form(request)
    if not console.csrf_ok(form.get("csrf_token")):
        raise DomainError(
            "The form's CSRF token is missing or does not match your session; reload the page",
            status=403,
            slug="csrf-failed",
            title="CSRF check failed",
        )
    return console, admin, form


def _sessions(request: Request) -> Any:
    return request.app.state.session_maker()


# -- sign-in -----------------------------------------------------------------------------------


def _safe_next(value: str | None) -> str:
    if value and value.startswith("/console") and not value.startswith("//"):
        return value
    return "/console/applications"


@router.get("/login")
async def login(request: Request, next: str | None = None) -> Response:
    """Start the authorization-code flow (PKCE S256) with the console's first-party client."""
    settings: Settings = request.app.state.settings
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    state = secrets.token_urlsafe(24)
    query = urlencode(
        {
            "response_type": "code",
            "client_id": console_credentials(settings).client_id,
            "redirect_uri": console_redirect_uri(settings),
            "scope": " ".join(CONSOLE_SCOPES),
            "state": state,
            "code_challenge": challenge.decode().rstrip("="),
            "code_challenge_method": "S256",
        }
    )
    response = RedirectResponse(f"{settings.auth_url.rstrip('/')}/oauth/authorize?{query}", 303)
    payload = {"state": state, "verifier": verifier, "next": _safe_next(next)}
    set_cookie(response, settings, LOGIN_COOKIE, payload | {"exp": time.time() + LOGIN_TTL})
    return response


async def _exchange(request: Request, code: str, verifier: str) -> dict[str, Any]:
    settings: Settings = request.app.state.settings
    credentials = console_credentials(settings)
    transport = httpx.ASGITransport(app=request.app) if auth_in_process(settings) else None
    async with httpx.AsyncClient(transport=transport, timeout=10) as http:
        try:
            resp = await http.post(
                f"{settings.auth_url.rstrip('/')}/oauth/token",
                data={
                    "grant_type": "authorization_code",
                    "code": code,
                    "redirect_uri": console_redirect_uri(settings),
                    "code_verifier": verifier,
                    "client_id": credentials.client_id,
                    "client_secret": credentials.client_secret,
                },
            )
        except httpx.HTTPError as exc:
            raise DomainError(
                "The authorization server is unreachable", status=503, slug="service-unavailable"
            ) from exc
    if resp.status_code != 200:
        raise DomainError(
            f"The authorization server refused the sign-in: {resp.text[:200]}",
            status=401,
            slug="unauthorized",
            title="Sign-in failed",
        )
    body: dict[str, Any] = resp.json()
    return body


@router.get("/callback")
async def callback(
    request: Request,
    code: str | None = None,
    state: str | None = None,
    error: str | None = None,
) -> Response:
    """OAuth redirect target: check state, exchange the code, admit administrators only."""
    settings: Settings = request.app.state.settings
    pending = unseal(settings, LOGIN_COOKIE, request.cookies.get(LOGIN_COOKIE))
    if error:
        raise DomainError(f"The sign-in was not completed ({error})", status=401,
                           slug="unauthorized", title="Sign-in failed")  # fmt: skip
    if pending is None or not state or not secrets.compare_digest(str(pending["state"]), state):
        raise DomainError(
            "The sign-in expired or did not start here; sign in again",
            status=400, slug="bad-request", title="Sign-in failed",
        )  # fmt: skip
    if not code:
        raise DomainError("No authorization code", status=400, slug="bad-request")
    tokens = await _exchange(request, code, str(pending["verifier"]))
    try:
        claims = await request.app.state.token_verifier.access_token(tokens["access_token"])
    except (InvalidToken, AuthServerUnavailable, KeyError) as exc:
        raise DomainError("The access token could not be verified", status=401,
                           slug="unauthorized", title="Sign-in failed") from exc  # fmt: skip
    principal = principal_from_claims(claims)
    async with _sessions(request) as session:
        user = await session.get(User, principal.uid)
    if user is None or user.role != "admin":
        response: Response = _page_html(request, "forbidden.html", status_code=403, session=None)
        clear_cookie(response, settings, LOGIN_COOKIE)
        return response
    exp = min(float(claims.get("exp", time.time() + 3600)), time.time() + 8 * 3600)
    console = ConsoleSession.new(user.uid, user.username, exp)
    response = RedirectResponse(_safe_next(str(pending.get("next"))), 303)
    set_cookie(response, settings, SESSION_COOKIE, console.payload())
    clear_cookie(response, settings, LOGIN_COOKIE)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    """Sign out (CSRF-checked)."""
    async with _sessions(request) as session:
        await _post(request, session)
    response = RedirectResponse("/console/signed-out", 303)
    clear_cookie(response, request.app.state.settings, SESSION_COOKIE)
    return response


@router.get("/signed-out")
async def signed_out(request: Request) -> Response:
    return _page_html(request, "signed_out.html", session=None)


@router.get("")
@router.get("/")
async def home(request: Request) -> Response:
    return RedirectResponse("/console/applications", 303)


# -- paging --------------------------------------------------------------------------------


class Paged:
    def __init__(self, rows: Sequence[Any], total: int, page: int, request: Request) -> None:
        self.rows = rows
        self.total = total
        self.page = page
        self.pages = max(1, ceil(total / PER_PAGE))
        self._request = request

    def link(self, page: int) -> str:
        params = dict(self._request.query_params) | {"page": str(page)}
        return f"{self._request.url.path}?{urlencode(params)}"


async def _paged(
    session: AsyncSession, statement: Select[Any], order: Any, page: int, request: Request
) -> Paged:
    page = max(1, page)
    total = await session.scalar(select(func.count()).select_from(statement.subquery())) or 0
    rows = await session.scalars(
        statement.order_by(*order).offset((page - 1) * PER_PAGE).limit(PER_PAGE)
    )
    return Paged(list(rows), total, page, request)


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


# -- applications --------------------------------------------------------------------------

APPLICATION_STATUSES = ("pending", "approving", "approved", "rejected", "suspended", "all")


@router.get("/applications")
async def applications_page(
    request: Request, status: str = "pending", q: str = "", page: int = 1
) -> Response:
    """Applications, filterable by status and by project name / developer e-mail."""
    async with _sessions(request) as session:
        await _admin(request, session)
        statement = select(ProjectApplication)
        if status in APPLICATION_STATUSES and status != "all":
            statement = statement.where(ProjectApplication.status == status)
        if q.strip():
            pattern = _like(q.strip())
            statement = statement.where(
                or_(
                    ProjectApplication.project_name.ilike(pattern),
                    ProjectApplication.developer_email.ilike(pattern),
                )
            )
        paged = await _paged(
            session, statement, [ProjectApplication.created_at.desc()], page, request
        )
    return _page_html(
        request, "applications.html", paged=paged, status=status, q=q,
        statuses=APPLICATION_STATUSES, approval_workflow_id=approval_workflow_id,
    )  # fmt: skip


async def _application(session: AsyncSession, application_id: uuid.UUID) -> ProjectApplication:
    row = await session.get(ProjectApplication, application_id, populate_existing=True)
    if row is None:
        raise NotFound(f"Application {application_id} does not exist")
    return row


@router.get("/applications/{application_id}")
async def application_page(request: Request, application_id: uuid.UUID) -> Response:
    async with _sessions(request) as session:
        await _admin(request, session)
        row = await _application(session, application_id)
    return _page_html(
        request, "application.html", app=row, workflow_id=approval_workflow_id(str(row.id))
    )


@router.get("/applications/{application_id}/progress")
async def application_progress(request: Request, application_id: uuid.UUID) -> Response:
    """The approval's progress fragment (polled by the page until the approval is done)."""
    async with _sessions(request) as session:
        await _admin(request, session)
        row = await _application(session, application_id)
    return _page_html(
        request, "_progress.html", app=row, workflow_id=approval_workflow_id(str(row.id))
    )


@router.post("/applications/{application_id}/approve")
async def application_approve(request: Request, application_id: uuid.UUID) -> Response:
    """Mark approving with new credentials (the API's service), start ApprovalWorkflow; the
    page then polls the progress fragment while the chain finalizes the whitelist entry."""
    settings: Settings = request.app.state.settings
    async with _sessions(request) as session:
        _, admin, _ = await _post(request, session)
        row = await applications.begin_approval(
            session, application_id, admin.uid, settings.master_key, settings.master_key_id
        )
        status = row.status
        await session.commit()
    if status == "approving":
        await start_approval(request, str(application_id), admin.uid)
    return RedirectResponse(f"/console/applications/{application_id}", 303)


@router.post("/applications/{application_id}/secret")
async def application_secret(request: Request, application_id: uuid.UUID) -> Response:
    """Show the one-time api_secret of an approved application (then it is gone)."""
    settings: Settings = request.app.state.settings
    async with _sessions(request) as session:
        await _post(request, session)
        row, secret = await applications.take_secret(
            session, application_id, {settings.master_key_id: settings.master_key}
        )
        await session.commit()
        await session.refresh(row)
    response = _page_html(
        request, "secret.html", app=row, secret=secret,
        workflow_id=approval_workflow_id(str(row.id)),
    )  # fmt: skip
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/applications/{application_id}/reject")
async def application_reject(request: Request, application_id: uuid.UUID) -> Response:
    async with _sessions(request) as session:
        _, admin, form = await _post(request, session)
        reason = form.get("reason", "").strip()
        if not 1 <= len(reason) <= 2000:
            raise DomainError(
                "A reason of 1-2000 characters is required", status=422,
                slug="validation-error", title="Validation error",
            )  # fmt: skip
        await applications.reject(session, application_id, reason, admin.uid)
        await session.commit()
    return RedirectResponse(f"/console/applications/{application_id}", 303)


# -- whitelist -----------------------------------------------------------------------------

WHITELIST_STATUSES = ("current", "active", "suspended", "removed", "all")


@router.get("/whitelist")
async def whitelist_page(
    request: Request, status: str = "current", q: str = "", page: int = 1
) -> Response:
    async with _sessions(request) as session:
        await _admin(request, session)
        statement = select(McdWhitelistEntry)
        if status == "current":
            statement = statement.where(McdWhitelistEntry.status != "removed")
        elif status in WHITELIST_STATUSES and status != "all":
            statement = statement.where(McdWhitelistEntry.status == status)
        if q.strip():
            statement = statement.where(
                or_(
                    McdWhitelistEntry.project_name.ilike(_like(q.strip())),
                    McdWhitelistEntry.wallet_address == q.strip(),
                )
            )
        paged = await _paged(session, statement, [McdWhitelistEntry.project_id], page, request)
        approvals = {
            pid: approval_workflow_id(str(aid))
            for aid, pid in (
                await session.execute(
                    select(ProjectApplication.id, ProjectApplication.project_id).where(
                        ProjectApplication.project_id.in_([e.project_id for e in paged.rows])
                    )
                )
            ).all()
        }
    return _page_html(
        request, "whitelist.html", paged=paged, status=status, q=q,
        statuses=WHITELIST_STATUSES, approvals=approvals,
    )  # fmt: skip


@router.post("/whitelist/{project_id}/{action}")
async def whitelist_action(request: Request, project_id: int, action: str) -> Response:
    """suspend | activate | remove, through the admin API's own function (chain first)."""
    if action not in ("suspend", "activate", "remove"):
        raise NotFound(f"Unknown whitelist action {action}")
    async with _sessions(request) as session:
        await _post(request, session)
    await admin_whitelist.change_entry(request, project_id, action)
    return RedirectResponse("/console/whitelist?status=all", 303)


@router.get("/chain/tx/{signature}")
async def chain_tx(request: Request, signature: str) -> Response:
    """The transaction as the RPC node reports it (getTransaction, finalized if it is)."""
    async with _sessions(request) as session:
        await _admin(request, session)
    try:
        parsed = Signature.from_string(signature)
    except ValueError as exc:
        raise DomainError("Not a transaction signature", status=422,
                           slug="validation-error") from exc  # fmt: skip
    client = request.app.state.solana
    try:
        statuses = await client.get_signature_statuses([parsed], search_transaction_history=True)
        tx = await client.get_transaction(
            parsed, commitment=Commitment("confirmed"), max_supported_transaction_version=0
        )
    except Exception as exc:
        raise DomainError(f"The chain RPC is unreachable ({type(exc).__name__})",
                           status=503, slug="service-unavailable") from exc  # fmt: skip
    status = statuses.value[0]
    return _page_html(
        request, "tx.html", signature=signature,
        status=status.to_json() if status is not None else None,
        tx=tx.value.to_json() if tx.value is not None else None,
    )  # fmt: skip


# -- transfers -----------------------------------------------------------------------------

TRANSFER_VIEWS = ("stuck", "failed", "cancelled", "pending", "pending_onchain", "completed", "all")


@router.get("/transfers")
async def transfers_page(
    request: Request,
    view: str = "stuck",
    older_than: int = 120,
    q: str = "",
    page: int = 1,
) -> Response:
    """Stuck (operators.stuck's rule: pending/pending_onchain older than the threshold), failed
    and cancelled transfers; filter by id, user or project."""
    older_than = max(0, min(older_than, 30 * 86400))
    async with _sessions(request) as session:
        await _admin(request, session)
        statement = select(Transfer)
        if view == "stuck":
            cutoff = datetime.now(UTC) - timedelta(seconds=older_than)
            statement = statement.where(
                or_(
                    (Transfer.status == "pending_onchain") & (Transfer.onchain_at < cutoff),
                    (Transfer.status == "pending") & (Transfer.created_at < cutoff),
                )
            )
        elif view in TRANSFER_VIEWS and view != "all":
            statement = statement.where(Transfer.status == view)
        if q.strip():
            term = q.strip()
            clauses: list[Any] = [
                Transfer.id == term,
                Transfer.from_uid == term,
                Transfer.to_uid == term,
            ]
            if term.isdigit():
                clauses.append(Transfer.project_id == int(term))
            statement = statement.where(or_(*clauses))
        paged = await _paged(session, statement, [Transfer.created_at.desc()], page, request)
    return _page_html(
        request, "transfers.html", paged=paged, view=view, views=TRANSFER_VIEWS,
        older_than=older_than, q=q, amount=lambda t: to_decimal_string(t.amount, decimals(request)),
    )  # fmt: skip


@router.get("/transfers/{transfer_id}")
async def transfer_page(request: Request, transfer_id: str) -> Response:
    async with _sessions(request) as session:
        await _admin(request, session)
        transfer = await session.get(Transfer, transfer_id)
        if transfer is None:
            raise NotFound(f"Transfer {transfer_id} not found")
        history = await transfers.history(session, transfer_id)
    write = None
    if transfer.op_key is not None:
        try:
            write = await request.app.state.gateway.get_write(transfer.op_key)
        except UnknownChainWrite:
            write = None
    return _page_html(
        request, "transfer.html", t=transfer, history=history, write=write,
        amount=to_decimal_string(transfer.amount, decimals(request)),
        actionable=transfer.status in ("pending", "pending_onchain"),
    )  # fmt: skip


@router.post("/transfers/{transfer_id}/retry")
async def transfer_retry(request: Request, transfer_id: str) -> Response:
    async with _sessions(request) as session:
        _, admin, form = await _post(request, session)
        reason = form.get("reason", "").strip()[:200] or "operator action (console)"
        gateway = request.app.state.gateway
        await admin_transfers.retry(request, session, gateway, admin, transfer_id, reason)
    return RedirectResponse(f"/console/transfers/{quote(transfer_id)}?done=retry", 303)


@router.post("/transfers/{transfer_id}/cancel")
async def transfer_cancel(request: Request, transfer_id: str) -> Response:
    async with _sessions(request) as session:
        _, admin, form = await _post(request, session)
        reason = form.get("reason", "").strip()[:200] or "operator action (console)"
        gateway = request.app.state.gateway
        await admin_transfers.cancel(request, session, gateway, admin, transfer_id, reason)
    return RedirectResponse(f"/console/transfers/{quote(transfer_id)}?done=cancel", 303)


# -- reconciliation --------------------------------------------------------------------------


@router.get("/drifts")
async def drifts_page(
    request: Request, run_id: str = "", currency: str = "", q: str = "", page: int = 1
) -> Response:
    async with _sessions(request) as session:
        await _admin(request, session)
        statement = select(ReconciliationDrift)
        if run_id.strip():
            statement = statement.where(ReconciliationDrift.run_id == run_id.strip())
        if currency in ("MCC", "MCD"):
            statement = statement.where(ReconciliationDrift.currency == currency)
        if q.strip():
            statement = statement.where(ReconciliationDrift.user_uid == q.strip())
        paged = await _paged(session, statement, [ReconciliationDrift.id.desc()], page, request)
    return _page_html(
        request, "drifts.html", paged=paged, run_id=run_id, currency=currency, q=q,
        units=lambda v: to_decimal_string(v, decimals(request)),
    )  # fmt: skip


# -- projects --------------------------------------------------------------------------------

PROJECT_STATUSES = ("all", "active", "maintenance", "testing", "discontinued", "deleted")


@router.get("/projects")
async def projects_page(
    request: Request, status: str = "all", q: str = "", page: int = 1
) -> Response:
    async with _sessions(request) as session:
        await _admin(request, session)
        statement = select(Project)
        if status in PROJECT_STATUSES and status != "all":
            statement = statement.where(Project.status == status)
        if q.strip():
            term = q.strip()
            clauses: list[Any] = [Project.name.ilike(_like(term))]
            if term.isdigit():
                clauses.append(Project.project_id == int(term))
            statement = statement.where(or_(*clauses))
        paged = await _paged(session, statement, [Project.project_id], page, request)
    return _page_html(
        request, "projects.html", paged=paged, status=status, q=q, statuses=PROJECT_STATUSES
    )


@router.get("/projects/{project_id}")
async def project_page(request: Request, project_id: int) -> Response:
    async with _sessions(request) as session:
        await _admin(request, session)
        project = await session.get(Project, project_id)
        if project is None:
            raise NotFound(f"Project {project_id} does not exist")
        history = await machine.history(session, project_id)
        application = await session.scalar(
            select(ProjectApplication).where(ProjectApplication.project_id == project_id)
        )
    return _page_html(
        request, "project.html", project=project, history=history,
        targets=sorted(machine.TRANSITIONS.get(project.status, ())),
        approval=approval_workflow_id(str(application.id)) if application else None,
    )  # fmt: skip


@router.post("/projects/{project_id}/status")
async def project_status(request: Request, project_id: int) -> Response:
    """The status machine of the admin API (onboarding.status.change_status)."""
    async with _sessions(request) as session:
        _, admin, form = await _post(request, session)
        target = form.get("status", "")
        reason = form.get("reason", "").strip()[:2000] or None
        await machine.change_status(session, project_id, target, reason=reason,
                                    changed_by=admin.uid)  # fmt: skip
        await session.commit()
    return RedirectResponse(f"/console/projects/{project_id}", 303)
