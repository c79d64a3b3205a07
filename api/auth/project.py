"""Project authentication: ``X-API-Key``, the HMAC ``X-Signature`` form, or
``X-Project-Signature`` (HMAC of the raw body, write routes only); then suspension, IP
allow-list, rate limit and scopes."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import time
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from access.ratelimit import TIER_LIMITS, client_ip
from access.scopes import missing_scope
from api.auth.principal import ProjectPrincipal
from api.auth.signature import SIGNATURE_WINDOW, matches, sign, signing_message
from api.ratelimit import enforce, enforce_ip
from core.config import Settings
from core.errors import DomainError
from core.security import decrypt_secret
from db.models import Project
from db.notify import NotifyCache, NotifyListener, project_key
from onboarding.status import Capability, ensure_allows

# Project statuses in which the project may still call (discontinued/deleted may not).
CALLABLE_STATUSES = ("active", "maintenance", "testing")
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
# Writes that need one of these scopes move money or mint: "transactional calls", which a
# project's status must allow (docs/onboarding.md: not in maintenance).
TRANSACT_SCOPES = frozenset({"funds:manage", "funds:transfer", "transfer:write", "mining:write"})
# An X-Project-Signature binds no time: its body's idempotency_key may be used once, and the
# signature is remembered this long (well past the 24 h idempotency window).
BODY_SIGNATURE_MEMORY = 7 * 24 * 3600
# Project rows are cached in-process (a DB round trip saved per call) and evicted the moment
# the row changes: a trigger on ``projects`` (migration 0018) NOTIFYs every API process at
# commit, whatever wrote it; the process's one listener (db.notify, ``app.state.notify``)
# evicts it. While the LISTEN connection is down nothing is cached. This bound is a second line
# of defence only.
PROJECT_CACHE_SECONDS = 300.0


@dataclass(frozen=True, slots=True)
class ProjectRecord:
    project_id: int
    name: str
    status: str
    suspended: bool
    allowed_scopes: tuple[str, ...]
    rate_limit_tier: str
    ip_allowlist: tuple[str, ...]
    api_secret_hash: str | None
    api_secret_encrypted: str | None
    # A rolled secret (onboarding.control.roll_api_secret) works until this Unix time.
    previous_hash: str | None = None
    previous_encrypted: str | None = None
    previous_until: float = 0.0

    @classmethod
    def of(cls, p: Project) -> ProjectRecord:
        return cls(
            p.project_id,
            p.name,
            p.status,
            p.suspended,
            tuple(p.allowed_scopes or ()),
            p.rate_limit_tier,
            tuple(p.ip_allowlist or ()),
            p.api_secret_hash,
            p.api_secret_encrypted,
            p.previous_api_secret_hash,
            p.previous_api_secret_encrypted,
            p.previous_secret_expires_at.timestamp() if p.previous_secret_expires_at else 0.0,
        )

    def previous_valid(self) -> bool:
        return self.previous_until > time.time()


def _refuse(detail: str, slug: str, status: int = 401) -> DomainError:
    return DomainError(detail, status=status, slug=slug)


def _is_json(request: Request) -> bool:
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


async def parsed_body(request: Request) -> Any | None:
    """The JSON body of a write (None when empty); anything else is never parsed: a body of
    another (or no) media type is a 415, malformed or too deeply nested JSON a 400. The guard
    has capped and checked it already; this is the second line."""
    if request.method not in WRITE_METHODS:
        return None  # the guard refuses a body on a read; none is ever read here
    raw = await request.body()
    if not raw.strip():
        return None
    if not _is_json(request):
        raise DomainError(
            "Only a JSON body is signed; send Content-Type: application/json",
            status=415,
            slug="unsupported-media-type",
        )
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise DomainError(
            "The request body is not valid JSON", status=400, slug="malformed-request"
        ) from exc


def request_target(request: Request) -> str:
    raw = request.scope.get("raw_path")
    path = raw.decode("latin-1") if raw else request.url.path
    query = request.scope.get("query_string", b"").decode("latin-1")
    return path + (f"?{query}" if query else "")


class ProjectAuthenticator:
    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        redis: Redis,
        listener: NotifyListener | None = None,
    ) -> None:
        """``listener``: the process's shared one (without it, the cache listens on its own)."""
        self._keys = {settings.master_key_id: settings.master_key}
        self._sessions = sessions
        self._redis = redis
        dsn = None if listener is not None else settings.database_url_plain
        self.cache: NotifyCache[ProjectRecord | None] = NotifyCache(dsn, PROJECT_CACHE_SECONDS)
        if listener is not None:
            listener.attach(self.cache)
        self.cache_seconds = PROJECT_CACHE_SECONDS

    async def start(self) -> None:
        """Listen for project changes, when listening on its own (nothing is cached until the
        listener runs)."""
        await self.cache.start(ready_timeout=5.0)

    async def stop(self) -> None:
        await self.cache.stop()

    async def _project(self, project_id: int) -> ProjectRecord | None:
        async def load() -> ProjectRecord | None:
            async with self._sessions() as session:
                row = await session.get(Project, project_id)
                return ProjectRecord.of(row) if row is not None else None

        return await self.cache.get(project_key(project_id), load, max_age=self.cache_seconds)

    async def authenticate(self, request: Request, required: list[str]) -> ProjectPrincipal:
        try:
            project, method = await self._verify(request)
        except DomainError:
            await enforce_ip(request)  # failed attempts count against the caller's IP
            raise
        if project.suspended or project.status not in CALLABLE_STATUSES:
            raise _refuse(f"Project {project.project_id} is suspended", "project-suspended", 403)
        ip = client_ip(request.scope)
        if project.ip_allowlist and not _ip_allowed(ip, list(project.ip_allowlist)):
            raise _refuse(
                f"Calls from {ip} are not allowed for this project", "ip-not-allowed", 403
            )
        principal = ProjectPrincipal(
            project_id=project.project_id,
            name=project.name,
            scopes=frozenset(project.allowed_scopes),
            rate_limit_tier=project.rate_limit_tier,
            method=method,
            ip_allowlist=project.ip_allowlist,
        )
        await enforce(request, principal.rate_key, TIER_LIMITS.get(project.rate_limit_tier, 100))
        if scope := missing_scope(principal.scopes, required, admin=False):
            raise _refuse(f"This call needs the project scope {scope}", "insufficient-scope", 403)
        if request.method in WRITE_METHODS and TRANSACT_SCOPES.intersection(required):
            ensure_allows(project.project_id, project.status, Capability.TRANSACT)
        return principal

    async def _verify(self, request: Request) -> tuple[ProjectRecord, str]:
        headers = request.headers
        raw_id = headers.get("x-project-id", "").strip()
        if not _digits(raw_id) or len(raw_id) > 18:  # BIGINT range
            raise _refuse("X-Project-ID is missing or not a project id", "unknown-project")
        project = await self._project(int(raw_id))
        if project is None:
            raise _refuse(f"Unknown project {raw_id}", "unknown-project")

        if signature := headers.get("x-signature"):
            await self._check_hmac(request, project, signature)
            return project, "hmac"
        if api_key := headers.get("x-api-key"):
            digest = hashlib.sha256(api_key.encode()).hexdigest()
            if not _hash_matches(digest, project.api_secret_hash) and not (
                project.previous_valid() and _hash_matches(digest, project.previous_hash)
            ):
                raise _refuse("The API key is wrong", "invalid-api-key")
            return project, "api-key"
        if (body_sig := headers.get("x-project-signature")) and request.method in WRITE_METHODS:
            await self._check_body_signature(request, project, body_sig)
            return project, "body-signature"
        raise _refuse(
            "Send X-API-Key, or X-Timestamp with X-Signature (see docs/access.md)", "unauthorized"
        )

    def _secrets(self, project: ProjectRecord) -> list[str]:
        """The signing secret, and a rolled one still in its overlap."""
        if not project.api_secret_encrypted:
            raise _refuse("This project has no signing secret", "invalid-signature")
        found = [decrypt_secret(project.api_secret_encrypted, self._keys)]
        if project.previous_encrypted and project.previous_valid():
            found.append(decrypt_secret(project.previous_encrypted, self._keys))
        return found

    @staticmethod
    def _timestamp(request: Request) -> str:
        raw_ts = request.headers.get("x-timestamp", "").strip()
        if not _digits(raw_ts) or len(raw_ts) > 12:
            raise _refuse("X-Timestamp must be Unix seconds", "stale-timestamp")
        skew = abs(time.time() - int(raw_ts))
        if skew > SIGNATURE_WINDOW:
            raise _refuse(
                f"X-Timestamp is {int(skew)} s from server time (limit {SIGNATURE_WINDOW} s)",
                "stale-timestamp",
            )
        return raw_ts

    @staticmethod
    def _header_key_covered(request: Request, body: Any) -> None:
        """The Idempotency-Key header lies outside every signature: on a signed request it is
        accepted only when the signed body carries the same idempotency_key."""
        header = request.headers.get("idempotency-key")
        if header is None:
            return
        if not isinstance(body, dict) or body.get("idempotency_key") != header:
            raise _refuse(
                "On a signed request the Idempotency-Key header is not covered by the signature; "
                "put idempotency_key in the signed body",
                "invalid-signature",
            )

    async def _check_hmac(self, request: Request, project: ProjectRecord, signature: str) -> None:
        raw_ts = self._timestamp(request)
        body = await parsed_body(request)
        message = signing_message(request.method, request_target(request), raw_ts, body)
        expected = _matching(self._secrets(project), message, signature)
        if expected is None:
            raise _refuse("X-Signature does not match the request", "invalid-signature")
        if request.method not in WRITE_METHODS:
            return  # a read may be repeated (a client polling twice a second is no replay)
        self._header_key_covered(request, body)
        # A write's signature is usable once within its window (SET NX EX: atomic across
        # processes), keyed by the signature's bytes whatever its spelling.
        replay_key = f"sig:{project.project_id}:{expected}"
        if not await self._redis.set(replay_key, b"1", nx=True, ex=2 * SIGNATURE_WINDOW):
            raise _refuse("This signature was already used (replayed request)", "invalid-signature")

    async def _check_body_signature(
        self, request: Request, project: ProjectRecord, signature: str
    ) -> None:
        """X-Project-Signature (HMAC of the raw body) binds neither time, method nor path: it
        needs X-Timestamp, and a body whose own idempotency_key was never used before."""
        if _matching(self._secrets(project), await request.body(), signature) is None:
            raise _refuse("X-Project-Signature does not match the body", "invalid-signature")
        self._timestamp(request)
        body = await parsed_body(request)
        key = body.get("idempotency_key") if isinstance(body, dict) else None
        if not isinstance(key, str) or not key:
            raise _refuse(
                "X-Project-Signature needs idempotency_key in the signed body "
                "(or use the X-Signature form)",
                "invalid-signature",
            )
        self._header_key_covered(request, body)
        digest = hashlib.sha256(key.encode()).hexdigest()
        used = f"bsig:{project.project_id}:{digest}"
        if not await self._redis.set(used, b"1", nx=True, ex=BODY_SIGNATURE_MEMORY):
            raise _refuse(
                "This idempotency_key was already used with X-Project-Signature (replayed request)",
                "invalid-signature",
            )


def _digits(raw: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes '²' (a header byte 0xB2 read as latin-1),
    which ``int`` refuses (issue 38, L1: that was an unauthenticated 500)."""
    return raw.isascii() and raw.isdecimal()


def _hash_matches(digest: str, stored: str | None) -> bool:
    return stored is not None and hmac.compare_digest(digest, stored)


def _matching(secrets: list[str], message: str | bytes, signature: str) -> str | None:
    """The expected signature under the first of ``secrets`` that ``signature`` matches."""
    for secret in secrets:
        expected = sign(secret, message)
        if matches(expected, signature):
            return expected
    return None


def _ip_allowed(ip: str, allowlist: list[str]) -> bool:
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    for cidr in allowlist:
        try:
            if address in ipaddress.ip_network(cidr, strict=False):
                return True
        except ValueError:
            continue  # a malformed entry never matches
    return False
