"""Python client of the mccgw open API gateway.

    from mccgw_client import Client, HmacAuth

    with Client("http://127.0.0.1:8000", HmacAuth(project_id, api_secret)) as gw:
        lock = gw.funds.lock(user_uid=uid, currency="MCC", amount="25", reason="bid", ...)
        lock.id, lock.attributes.status  # typed (mccgw_client.models)

See sdk/python/README.md.
"""

from . import errors, models, operations, resources
from ._calls import DeprecatedOperationWarning
from ._operation import Operation
from .auth import ApiKeyAuth, BearerAuth, Credentials, HmacAuth
from .client import (
    AdminClient,
    AsyncAdminClient,
    AsyncClient,
    Client,
    Page,
    Response,
    RetryPolicy,
    new_idempotency_key,
)
from .errors import MccgwError, ProblemError, TransportError
from .signing import body_signature, canonical_json, request_signature, signing_message
from .webhooks import (
    InvalidWebhookSignature,
    StaleWebhook,
    WebhookEvent,
    WebhookVerificationError,
    verify_webhook,
    webhook_signature,
)

__version__ = "0.1.0"
__all__ = [
    "AdminClient",
    "ApiKeyAuth",
    "AsyncAdminClient",
    "AsyncClient",
    "BearerAuth",
    "Client",
    "Credentials",
    "DeprecatedOperationWarning",
    "HmacAuth",
    "InvalidWebhookSignature",
    "MccgwError",
    "Operation",
    "Page",
    "ProblemError",
    "Response",
    "RetryPolicy",
    "StaleWebhook",
    "TransportError",
    "WebhookEvent",
    "WebhookVerificationError",
    "body_signature",
    "canonical_json",
    "errors",
    "models",
    "new_idempotency_key",
    "operations",
    "request_signature",
    "resources",
    "signing_message",
    "verify_webhook",
    "webhook_signature",
]
