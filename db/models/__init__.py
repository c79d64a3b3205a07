"""Every ORM model, imported here so Alembic's autogenerate and metadata see them all."""

import db.models.engine  # noqa: F401  (transaction engine: transfers, limits, drifts)
from db.base import Base
from db.models import (
    access,  # noqa: F401  (access tables: auth server, audit, idempotency)
    accounts,  # noqa: F401  (account links, sign-up invitations)
    factors,  # noqa: F401  (second factors, recovery codes, upstream identities)
    onboarding,  # noqa: F401  (applications, whitelist, status history)
    organizations,  # noqa: F401  (units, memberships, station KPIs)
    tokens,  # noqa: F401  (deposits, custody watch, price closes, admin prices)
    withdrawals,  # noqa: F401  (withdrawals, their decisions and history, the breaker)
)
from db.models.chain import ChainTransaction, ChainTxAttempt
from db.models.events import Event
from db.models.identity import Project, User
from db.models.ledger import Hold, LedgerAccount, LedgerEntry
from db.models.mining import MiningProof, MiningSubmission
from db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookEndpoint

__all__ = [
    "Base",
    "ChainTransaction",
    "ChainTxAttempt",
    "Event",
    "Hold",
    "LedgerAccount",
    "LedgerEntry",
    "MiningProof",
    "MiningSubmission",
    "Project",
    "User",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
]
