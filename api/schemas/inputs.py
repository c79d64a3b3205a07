"""Request field types that several routes' bodies share, each rule written once: how long a
rolled secret's predecessor keeps working (api_secret, OAuth client secret, webhook signing
secret: core.security), and a project client's OAuth redirect URIs (onboarding.clients)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from core.security import DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS
from onboarding.clients import MAX_REDIRECT_URIS, check_redirect_uris

__all__ = ["DEFAULT_OVERLAP_SECONDS", "ExpirePrevious", "RedirectUris"]

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
