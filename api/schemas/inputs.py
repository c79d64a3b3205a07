"""Request field types that several routes' bodies share, each rule written once: how long a
rolled secret's predecessor keeps working (api_secret, OAuth client secret, webhook signing
secret: core.security), the body of a keyed secret roll, and a project client's OAuth redirect
URIs (onboarding.clients)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from api.idempotency import IdempotencyKey
from core.security import DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS
from onboarding.clients import MAX_REDIRECT_URIS, check_redirect_uris

__all__ = ["DEFAULT_OVERLAP_SECONDS", "ExpirePrevious", "KeyedSecretRoll", "RedirectUris"]

ExpirePrevious = Annotated[
    int,
    Field(
        ge=0,
        le=MAX_OVERLAP_SECONDS,
        description="How long the current secret keeps working (0: stops now; at most 7 days)",
    ),
]

RedirectUris = Annotated[
    list[str], Field(max_length=MAX_REDIRECT_URIS), AfterValidator(check_redirect_uris)
]


# The body of a secret roll under an idempotency key (webhook signing secret, OAuth client
# secret). Each route subclasses it under its own name, so the OpenAPI schemas and the SDK
# models keep their public names (a subclass declares no docstring: none is inherited into
# the schema).
class KeyedSecretRoll(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expire_previous_in_seconds: ExpirePrevious = DEFAULT_OVERLAP_SECONDS
    idempotency_key: IdempotencyKey = None
