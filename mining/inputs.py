"""What a project submits: one mining activity with its proof. The class names are the OpenAPI
schema names the SDK is generated from, so they keep "Activity" (a wire name)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, StrictInt, StrictStr, ValidationError

from mining.errors import InvalidSubmission

MAX_BATCH = 100


class ProofIn(BaseModel):
    type: Literal["hmac-sha256", "ed25519"]
    hash: str = Field(pattern=r"^[0-9a-fA-F]{64}$", description="hex SHA-256 of the canonical form")
    signature: str = Field(min_length=1, max_length=300)
    timestamp: StrictInt | StrictStr = Field(description="ISO 8601 or Unix seconds")


class ActivityIn(BaseModel):
    user_uid: str = Field(min_length=1, max_length=100)
    activity_type: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$", examples=["trade"])
    activity_data: dict[str, Any] = Field(
        examples=[{"trade_volume_usdc": 1500, "trade_count": 12, "profit_usdc": 42.5}]
    )
    proof: ProofIn
    idempotency_key: str | None = Field(
        None, description="Required unless the Idempotency-Key header is sent"
    )


class BatchIn(BaseModel):
    activities: list[dict[str, Any]] = Field(
        min_length=1,
        max_length=MAX_BATCH,
        description="Mining activities, each with its own idempotency_key",
    )
    idempotency_key: str | None = Field(None, description="The key of the batch request itself")


def validated(raw: Any) -> ActivityIn:
    """One batch item, checked as the single route checks its body (plus its own key)."""
    if not isinstance(raw, dict):
        raise InvalidSubmission("Each activity must be an object")
    try:
        item = ActivityIn.model_validate(raw)
    except ValidationError as exc:
        fields = [
            {"field": ".".join(str(p) for p in e["loc"]) or "body", "message": e["msg"]}
            for e in exc.errors()
        ]
        summary = "; ".join(f"{f['field']}: {f['message']}" for f in fields[:5])
        raise InvalidSubmission(f"Invalid activity: {summary}", errors=fields) from exc
    if not item.idempotency_key or not 1 <= len(item.idempotency_key) <= 255:
        raise InvalidSubmission(
            "Each activity needs its own idempotency_key (1-255 characters)",
            errors=[{"field": "idempotency_key", "message": "required"}],
        )
    return item
