"""What every console page shares: rendering, failures as HTML, the signed-in administrator,
the CSRF check of every form, and paging. The console's routers use ``ConsoleRoute``."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from math import ceil
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from fastapi.templating import Jinja2Templates
from redis.exceptions import RedisError
from sqlalchemy import Select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from api.auth.principal import UserPrincipal
from api.console.session import ConsoleSession, read_session, session_ended
from chain.errors import ChainUnavailable
from core.config import Settings
from core.errors import DomainError, NotFound
from db.models import User
from db.paging import page_of

log = logging.getLogger("mccgw.console")
T = TypeVar("T")

PER_PAGE = 20
templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))


class LoginRequired(Exception):
    pass


class Forbidden(Exception):
    pass


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
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


def problem_page(request: Request, status: int, title: str, detail: str) -> HTMLResponse:
    # A polled fragment gets the fragment of the problem, a page the whole page.
    name = "_problem.html" if request.headers.get("x-console-fragment") else "problem.html"
    return render(request, name, status_code=status, title=title, detail=detail)


class ConsoleRoute(APIRoute):
    """Renders every failure as an HTML page: sign-in redirect, 403, the problem's title and
    detail; an unexpected error is logged and shown without internals."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except LoginRequired:
                if request.headers.get("x-console-fragment"):  # a poll: stop it, say why
                    return render(
                        request, "_problem.html", status_code=401, title="Signed out",
                        detail="Your console session has ended; reload the page to sign in.",
                    )  # fmt: skip
                target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                if request.method != "GET":
                    target = "/console"
                return RedirectResponse(f"/console/login?{urlencode({'next': target})}", 303)
            except Forbidden:
                return render(request, "forbidden.html", status_code=403, session=None)
            except DomainError as exc:
                return problem_page(request, exc.status, exc.title, exc.detail)
            except RequestValidationError as exc:
                detail = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors()
                )
                return problem_page(request, 422, "Validation error", detail)
            except ChainUnavailable:
                log.warning("console page: the chain RPC is unavailable", exc_info=True)
                return problem_page(
                    request, 503, "Service unavailable",
                    "The chain RPC is unavailable right now; try again shortly.",
                )  # fmt: skip
            except (DBAPIError, RedisError):
                log.exception("console page: a backing service failed")
                return problem_page(
                    request, 503, "Service unavailable",
                    "The database or Redis is unreachable right now; try again shortly.",
                )  # fmt: skip
            except Exception:
                log.exception("console page failed")
                return problem_page(
                    request, 500, "Internal error", "The console could not complete this page."
                )

        return run


def console_router() -> APIRouter:
    return APIRouter(prefix="/console", include_in_schema=False, route_class=ConsoleRoute)


def sessions(request: Request) -> Any:
    return request.app.state.session_maker()


async def admin(request: Request, session: AsyncSession) -> tuple[ConsoleSession, UserPrincipal]:
    """The signed-in administrator; the role is read afresh on every request."""
    settings: Settings = request.app.state.settings
    console = read_session(request, settings)
    if console is None or await session_ended(request.app.state.redis, console):
        raise LoginRequired
    user = await session.get(User, console.uid)
    if user is None or user.role != "admin" or user.disabled_at is not None:
        raise Forbidden
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


async def post(
    request: Request, session: AsyncSession
) -> tuple[ConsoleSession, UserPrincipal, dict[str, str]]:
    """Every POST: a signed-in administrator and the session's CSRF token in the form."""
    console, principal = await admin(request, session)
    form = await _form(request)
    if not console.csrf_ok(form.get("csrf_token")):
        raise DomainError(
            "The form's CSRF token is missing or does not match your session; reload the page",
            status=403,
            slug="csrf-failed",
            title="CSRF check failed",
        )
    return console, principal, form


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


async def paged(
    session: AsyncSession, statement: Select[Any], order: list[Any], page: int, request: Request
) -> Paged:
    """One console page (PER_PAGE rows) of a listing of the services (onboarding.queries,
    engine.operators)."""
    window = _Window(max(1, page))
    rows, total = await page_of(session, statement, order, window)
    return Paged(rows, total, window.page, request)


@dataclass(frozen=True)
class _Window:
    page: int
    per_page: int = PER_PAGE

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page


async def list_page(
    request: Request,
    template: str,
    statement: Select[Any],
    order: list[Any],
    page: int,
    more: Callable[[AsyncSession, Paged], Awaitable[dict[str, Any]]] | None = None,
    **context: Any,
) -> Response:
    """A listing page of an administrator: one page of ``statement`` (and what ``more`` reads
    for its rows, in the same session) rendered with ``context``."""
    async with sessions(request) as session:
        await admin(request, session)
        rows = await paged(session, statement, order, page, request)
        if more is not None:
            context |= await more(session, rows)
    return render(request, template, paged=rows, **context)


def status_listing(
    router: APIRouter,
    path: str,
    template: str,
    query: Callable[[str, str], Select[Any]],
    statuses: Sequence[str],
    default: str,
    order: list[Any],
    more: Callable[[AsyncSession, Paged], Awaitable[dict[str, Any]]] | None = None,
    **context: Any,
) -> None:
    """Adds GET ``path``: a listing filtered by status (one of ``statuses``, ``default`` when
    not given, anything else lists all) and by a search text ``q``; ``query(status, q)`` gives
    its statement."""

    async def listing(
        request: Request, status: str = default, q: str = "", page: int = 1
    ) -> Response:
        statement = query(status if status in statuses else "all", q)
        return await list_page(
            request, template, statement, order, page, more,
            status=status, q=q, statuses=statuses, **context,
        )  # fmt: skip

    name = template.removesuffix(".html") + "_page"  # the names the routes had as functions
    router.add_api_route(path, listing, methods=["GET"], name=name)


async def detail(
    request: Request,
    model: type[T],
    key: Any,
    missing: str,
    **reads: Callable[[AsyncSession, Any], Awaitable[Any]],
) -> tuple[T, dict[str, Any]]:
    """The row a detail page shows, for a signed-in administrator (NotFound: ``missing``), and
    what each of ``reads`` reads for the same key in the same session, by name."""
    async with sessions(request) as session:
        await admin(request, session)
        row = await session.get(model, key)
        if row is None:
            raise NotFound(missing)
        return row, {name: await read(session, key) for name, read in reads.items()}
