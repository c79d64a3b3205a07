"""Independent verification of a mining activity's proof (never trusting the project).

Checks, in order; the first failure is the rejection reason (a stable code + detail):

1. ``proof_hash_mismatch``: ``proof.hash`` must equal SHA-256 of the canonical form.
2. ``invalid_signature``: ``proof.signature`` over the ASCII bytes of the hex hash:
   - ``hmac-sha256``: lowercase hex HMAC-SHA256 keyed with the project's api secret
     (``sha256=`` prefix allowed);
   - ``ed25519``: base58 Ed25519 signature by the user's wallet (``users.wallet_address``);
     ``no_wallet`` when the user has none.
3. ``stale_timestamp``: ``proof.timestamp`` within MINING_PROOF_MAX_AGE_SECONDS (600) before
   and MINING_PROOF_MAX_SKEW_SECONDS (60) after the submission time.
4. ``out_of_bounds``: the numbers of activity_data (mining.reward.bounds_problem).
5. ``proof_replayed``: a proof hash can be consumed once (checked by the caller against the
   ``mining_proofs`` unique key, after these checks pass).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from solders.pubkey import Pubkey
from solders.signature import Signature

from core.config import Settings
from mining.canonical import proof_hash
from mining.reward import bounds_problem

PROOF_TYPES = ("hmac-sha256", "ed25519")


@dataclass(frozen=True)
class Rejection:
    code: str
    detail: str

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"


@dataclass(frozen=True)
class ProofWindow:
    """How far before (``max_age``) or after (``max_skew``) the submission a proof's timestamp
    may be, in seconds (settings MINING_PROOF_MAX_AGE_SECONDS, MINING_PROOF_MAX_SKEW_SECONDS)."""

    max_age: float = 600.0
    max_skew: float = 60.0

    @classmethod
    def of(cls, settings: Settings) -> ProofWindow:
        return cls(settings.mining_proof_max_age_seconds, settings.mining_proof_max_skew_seconds)


def parse_timestamp(value: Any) -> datetime | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    return None


def _hmac_ok(secret: str, digest: str, signature: str) -> bool:
    given = signature.removeprefix("sha256=").lower()
    expected = hmac.new(secret.encode(), digest.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, given)


def _ed25519_ok(wallet: str, digest: str, signature: str) -> bool:
    try:
        return Signature.from_string(signature).verify(Pubkey.from_string(wallet), digest.encode())
    except (ValueError, TypeError):
        return False


def verify_proof(
    *,
    canonical: str,
    proof: dict[str, Any],
    activity_data: dict[str, Any],
    submitted_at: datetime,
    project_secret: str | None,
    wallet: str | None,
    window: ProofWindow,
) -> Rejection | None:
    """None when the proof holds (except the replay check), else why not."""
    digest = proof_hash(canonical)
    given = str(proof.get("hash", "")).lower()
    if not hmac.compare_digest(digest, given):
        return Rejection("proof_hash_mismatch", "proof.hash is not SHA-256 of the activity")
    kind, signature = proof.get("type"), str(proof.get("signature", ""))
    if kind == "hmac-sha256":
        if project_secret is None or not _hmac_ok(project_secret, digest, signature):
            return Rejection("invalid_signature", "the HMAC does not verify with the project key")
    elif kind == "ed25519":
        if not wallet:
            return Rejection("no_wallet", "the user has no wallet to verify an ed25519 proof")
        if not _ed25519_ok(wallet, digest, signature):
            return Rejection("invalid_signature", "the signature is not by the user's wallet")
    else:
        return Rejection("invalid_signature", f"proof.type must be one of {PROOF_TYPES}")
    stamp = parse_timestamp(proof.get("timestamp"))
    max_age, max_skew = window.max_age, window.max_skew
    if stamp is None:
        return Rejection("stale_timestamp", "proof.timestamp is not a timestamp")
    age = (submitted_at - stamp).total_seconds()
    if age > max_age or age < -max_skew:
        return Rejection(
            "stale_timestamp",
            f"proof.timestamp is {age:.0f} s from submission (allowed -{max_skew:g}..{max_age:g})",
        )
    if problem := bounds_problem(activity_data):
        return Rejection("out_of_bounds", problem)
    return None
