"""The scope vocabulary of the spec and the one place that decides whether a scope is held."""

from __future__ import annotations

from collections.abc import Iterable

USER_SCOPES: dict[str, str] = {
    "openid": "OpenID Connect base",
    "profile": "Basic user info (counts as user:read)",
    "email": "User e-mail",
    "mcc:read": "MCC balance and transactions",
    "mcd:read": "MCD balance, transactions, rewards",
    "user:read": "Read user info",
    "user:write": "Update display_name and avatar",
    "org:read": "Organization info and tech-tree user data",
    "mining:read": "Mining records and statistics",
    "mcc:read:public": "Public reads of an address",
    "user:read:public": "Public reads of a user",
    "mcc:admin": "Set the administrator price",
    "funds:withdraw": "Withdraw your MCC and MCD to your own wallet (its address in your profile)",
}

PROJECT_SCOPES: dict[str, str] = {
    "mining:write": "Submit mining activity",
    "mining:read": "Read mining activity",
    "funds:manage": "Lock and unlock user funds",
    "funds:transfer": "Transfer within the project",
    "funds:read": "Read locked funds",
    "transfer:write": "Request and cancel transfers",
    "transfer:read": "Read transfers",
    "auction:manage": "Manage auctions",
}

# The project scopes that see a user's money: a project whose consent holds none of them (a
# sign-in with `openid`, a game storing attributes) hears nothing of the user's deposits.
FUNDS_SCOPES = frozenset(
    {
        "funds:read", "funds:manage", "funds:transfer", "transfer:read", "transfer:write",
        "funds:withdraw",
    }
)  # fmt: skip

# A held scope also grants these (spec: `profile` counts as `user:read`).
_IMPLIES: dict[str, frozenset[str]] = {
    "profile": frozenset({"user:read", "user:read:public"}),
    "user:read": frozenset({"user:read:public"}),
    "mcc:read": frozenset({"mcc:read:public"}),
}


def expand(scopes: Iterable[str]) -> frozenset[str]:
    held = set(scopes)
    for scope in list(held):
        held |= _IMPLIES.get(scope, frozenset())
    return frozenset(held)


def missing_scope(held: frozenset[str], required: Iterable[str], *, admin: bool) -> str | None:
    """The first required scope not held, or None. Role ``admin`` passes every check."""
    if admin:
        return None
    for scope in required:
        if scope not in held:
            return scope
    return None
