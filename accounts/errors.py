"""The accounts' refusals (RFC 7807 through core.errors)."""

from __future__ import annotations

from core.errors import DomainError


class AccountRefused(DomainError):
    """A business refusal of an account operation; nothing was written."""

    status, slug = 422, "account-refused"


class WeakPassword(AccountRefused):
    slug = "weak-password"


class AccountExists(AccountRefused):
    status, slug = 409, "account-exists"


class SignupClosed(AccountRefused):
    status, slug = 403, "signup-closed"


class LinkInvalid(AccountRefused):
    """A link that is forged, expired, already used or for another purpose."""

    status, slug = 400, "invalid-link"


class BalancesNotZero(AccountRefused):
    status, slug = 409, "balances-not-zero"


class UnknownUser(AccountRefused):
    status, slug = 404, "not-found"
