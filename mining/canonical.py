"""The canonical form of a mining activity, which the proof hash covers.

    canonical = compact, key-sorted JSON (UTF-8, non-ASCII not escaped) of
                {"activity_data", "activity_type", "timestamp", "user_uid"}
    proof.hash = lowercase hex SHA-256 of canonical

``timestamp`` is ``proof.timestamp`` exactly as sent (ISO 8601 string or Unix seconds), and
``activity_data`` is the object as parsed from the request JSON, re-serialized (so ``1.50``
becomes ``1.5``; send numbers in their shortest form). This is the same serialization as the
HMAC request signature (docs/access.md): ``json.dumps(v, separators=(",", ":"),
sort_keys=True, ensure_ascii=False)``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_activity(
    user_uid: str, activity_type: str, activity_data: dict[str, Any], timestamp: str | int
) -> str:
    return json.dumps(
        {
            "user_uid": user_uid,
            "activity_type": activity_type,
            "activity_data": activity_data,
            "timestamp": timestamp,
        },
        separators=(",", ":"),
        sort_keys=True,
        ensure_ascii=False,
    )


def proof_hash(canonical: str) -> str:
    return hashlib.sha256(canonical.encode()).hexdigest()
