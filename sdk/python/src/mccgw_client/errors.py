"""Typed exceptions: one class per problem slug of the gateway, plus a generic fallback.

Every problem (RFC 7807 ``application/problem+json``) becomes a :class:`ProblemError` subclass
chosen by the slug at the end of its ``type``; the instance carries ``slug``, ``status``,
``title``, ``detail``, the whole ``body``, the response ``headers`` and ``request_id``::

    try:
        client.post("/v1/funds/lock", json={...})
    except InsufficientFunds as exc:
        print(exc.detail, exc.body)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar


class MccgwError(Exception):
    """Base of every error this client raises."""


class TransportError(MccgwError):
    """No answer: the connection failed or timed out (after any retries that were safe)."""


class ProblemError(MccgwError):
    """A problem answer from the gateway. Unknown slugs are raised as this class itself."""

    slug_name: ClassVar[str | None] = None

    def __init__(
        self,
        status: int,
        slug: str,
        title: str,
        detail: str,
        body: Mapping[str, Any],
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {slug}: {detail}")
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.body: dict[str, Any] = dict(body)
        self.headers: dict[str, str] = dict(headers or {})

    @property
    def request_id(self) -> str | None:
        return self.headers.get("x-request-id")

    @property
    def errors(self) -> list[dict[str, Any]]:
        """Field errors (``validation-error``): ``[{field, message}]``."""
        found = self.body.get("errors")
        return list(found) if isinstance(found, list) else []

    @property
    def retry_after(self) -> float | None:
        """Seconds to wait, from ``Retry-After`` or the body's ``retry_after``."""
        for raw in (self.headers.get("retry-after"), self.body.get("retry_after")):
            try:
                if raw is not None:
                    return float(raw)
            except (TypeError, ValueError):
                continue
        return None


class MalformedRequest(ProblemError):
    """400: body not valid JSON (``malformed-request``)"""

    slug_name = "malformed-request"


class PayloadTooLarge(ProblemError):
    """413 (``payload-too-large``)"""

    slug_name = "payload-too-large"


class UnsupportedMediaType(ProblemError):
    """415 (``unsupported-media-type``)"""

    slug_name = "unsupported-media-type"


class Unauthorized(ProblemError):
    """401: no or bad credentials (``unauthorized``)"""

    slug_name = "unauthorized"


class UnknownProject(ProblemError):
    """401: X-Project-ID unknown (``unknown-project``)"""

    slug_name = "unknown-project"


class InvalidApiKey(ProblemError):
    """401: wrong X-API-Key (``invalid-api-key``)"""

    slug_name = "invalid-api-key"


class InvalidSignature(ProblemError):
    """401: wrong or replayed signature (``invalid-signature``)"""

    slug_name = "invalid-signature"


class StaleTimestamp(ProblemError):
    """401: X-Timestamp off by > 300 s (``stale-timestamp``)"""

    slug_name = "stale-timestamp"


class InsufficientScope(ProblemError):
    """403: scope missing (``insufficient-scope``)"""

    slug_name = "insufficient-scope"


class UserNotAuthorizedForProject(ProblemError):
    """403: the user has not authorized the project (``user-not-authorized-for-project``)"""

    slug_name = "user-not-authorized-for-project"


class AdminRequired(ProblemError):
    """403: admin route (``admin-required``)"""

    slug_name = "admin-required"


class FirstPartyRequired(ProblemError):
    """403: not the gateway's own sign-in (``first-party-required``)"""

    slug_name = "first-party-required"


class FreshSignInRequired(ProblemError):
    """401: the route asks for a recent sign-in with the gateway's own client: sign in again,
    then repeat the call (``fresh-sign-in-required``)"""

    slug_name = "fresh-sign-in-required"


class WrongPassword(ProblemError):
    """422: the password that confirms an account change is not right (``wrong-password``)"""

    slug_name = "wrong-password"


class AccountExists(ProblemError):
    """409: the username or e-mail already has an account (``account-exists``)"""

    slug_name = "account-exists"


class InvalidEmail(ProblemError):
    """422: not an e-mail address (``invalid-email``)"""

    slug_name = "invalid-email"


class WeakPassword(ProblemError):
    """422: the password is too short, too common or names the account (``weak-password``)"""

    slug_name = "weak-password"


class BalancesNotZero(ProblemError):
    """409: an account with a balance left cannot be deleted: withdraw it first; ``balances``
    lists what is left (``balances-not-zero``)"""

    slug_name = "balances-not-zero"


class IpNotAllowed(ProblemError):
    """403: outside the IP allow-list (``ip-not-allowed``)"""

    slug_name = "ip-not-allowed"


class ProjectSuspended(ProblemError):
    """403: project suspended (``project-suspended``)"""

    slug_name = "project-suspended"


class Forbidden(ProblemError):
    """403 (``forbidden``)"""

    slug_name = "forbidden"


class NotFound(ProblemError):
    """404: no such record or route (``not-found``)"""

    slug_name = "not-found"


class MethodNotAllowed(ProblemError):
    """405 (``method-not-allowed``)"""

    slug_name = "method-not-allowed"


class IdempotencyKeyReused(ProblemError):
    """409: same key, different request (``idempotency-key-reused``)"""

    slug_name = "idempotency-key-reused"


class IdempotencyKeyInUse(ProblemError):
    """409: the first request is still running (``idempotency-key-in-use``)"""

    slug_name = "idempotency-key-in-use"


class InvalidState(ProblemError):
    """409: the state forbids this (``invalid-state``)"""

    slug_name = "invalid-state"


class PendingApplicationExists(ProblemError):
    """409: one open application (``pending-application-exists``)"""

    slug_name = "pending-application-exists"


class ProjectExists(ProblemError):
    """409: project already registered (``project-exists``)"""

    slug_name = "project-exists"


class ApprovalFailed(ProblemError):
    """409: the chain refused approval (``approval-failed``; not sent since API 1.1.0, whose
    approval answers with the keys and shows a refusal as ``whitelist_status: failed``)"""

    slug_name = "approval-failed"


class NotAMember(ProblemError):
    """409: the caller is in no station (``not-a-member``)"""

    slug_name = "not-a-member"


class UnitExists(ProblemError):
    """409: a unit with that type and id exists with other attributes (``unit-exists``)"""

    slug_name = "unit-exists"


class UnitFull(ProblemError):
    """409: the parent holds its maximum of units (``unit-full``)"""

    slug_name = "unit-full"


class StationFull(ProblemError):
    """409: the station holds its 1,000 members (``station-full``)"""

    slug_name = "station-full"


class InvalidParent(ProblemError):
    """422: the parent is missing or of the wrong type (``invalid-parent``)"""

    slug_name = "invalid-parent"


class InvalidUnit(ProblemError):
    """422: members are placed in stations only (``invalid-unit``)"""

    slug_name = "invalid-unit"


class KpiDayOutOfOrder(ProblemError):
    """409: the daily KPI job runs days in order (``kpi-day-out-of-order``)"""

    slug_name = "kpi-day-out-of-order"


class ValidationError(ProblemError):
    """422: see .errors (``validation-error``)"""

    slug_name = "validation-error"


class InvalidAmount(ProblemError):
    """422: malformed amount (``invalid-amount``)"""

    slug_name = "invalid-amount"


class InsufficientFunds(ProblemError):
    """422 (``insufficient-funds``)"""

    slug_name = "insufficient-funds"


class AmountLimitExceeded(ProblemError):
    """422 (``amount-limit-exceeded``)"""

    slug_name = "amount-limit-exceeded"


class DailyLimitExceeded(ProblemError):
    """422 (``daily-limit-exceeded``)"""

    slug_name = "daily-limit-exceeded"


class AmountBelowMinimum(ProblemError):
    """422: a withdrawal below the minimum, see .body["minimum"] (``amount-below-minimum``)"""

    slug_name = "amount-below-minimum"


class WalletAddressRequired(ProblemError):
    """422: set the profile's wallet_address before withdrawing (``wallet-address-required``)"""

    slug_name = "wallet-address-required"


class SelfApproval(ProblemError):
    """403: an administrator cannot decide on their own withdrawal (``self-approval``)"""

    slug_name = "self-approval"


class AlreadyDecided(ProblemError):
    """409: this administrator decided on the withdrawal already (``already-decided``)"""

    slug_name = "already-decided"


class RateLimitExceeded(ProblemError):
    """429: see .retry_after (``rate-limit-exceeded``)"""

    slug_name = "rate-limit-exceeded"


class InternalError(ProblemError):
    """500 (``internal-error``)"""

    slug_name = "internal-error"


class ServiceUnavailable(ProblemError):
    """503: retry later (``service-unavailable``)"""

    slug_name = "service-unavailable"


PROBLEM_CLASSES: dict[str, type[ProblemError]] = {
    cls.slug_name: cls
    for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, ProblemError) and cls.slug_name
}


def slug_of(body: Mapping[str, Any], status: int) -> str:
    """The slug of a problem body (``type`` ends in it), of a legacy ``{error, message, code}``
    body, or ``http-<status>`` when the body says nothing."""
    type_ = body.get("type")
    if isinstance(type_, str) and type_ and type_ != "about:blank":
        return type_.rstrip("/").rsplit("/", 1)[-1]
    legacy = body.get("error")
    if isinstance(legacy, str) and legacy:
        return legacy
    return f"http-{status}"


def problem_from(
    status: int, body: Mapping[str, Any] | None, headers: Mapping[str, str] | None = None
) -> ProblemError:
    """The typed exception for an error answer."""
    data = dict(body or {})
    slug = slug_of(data, status)
    title = str(data.get("title") or slug.replace("-", " ").capitalize())
    detail = str(data.get("detail") or data.get("message") or title)
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    cls = PROBLEM_CLASSES.get(slug, ProblemError)
    return cls(status, slug, title, detail, data, lowered)
