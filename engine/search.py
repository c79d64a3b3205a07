"""Typed search attributes every engine workflow carries, so operators can filter in the
Temporal UI/CLI (e.g. ``Operation = 'transfer' AND Status = 'pending_onchain'``)."""

from __future__ import annotations

from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

PROJECT_ID = SearchAttributeKey.for_keyword("ProjectId")
USER_UID = SearchAttributeKey.for_keyword("UserUid")
OPERATION = SearchAttributeKey.for_keyword("Operation")
STATUS = SearchAttributeKey.for_keyword("Status")
CURRENCY = SearchAttributeKey.for_keyword("Currency")


def attributes(
    *, project_id: int | str, user_uid: str, operation: str, status: str, currency: str
) -> TypedSearchAttributes:
    return TypedSearchAttributes(
        [
            SearchAttributePair(PROJECT_ID, str(project_id)),
            SearchAttributePair(USER_UID, user_uid),
            SearchAttributePair(OPERATION, operation),
            SearchAttributePair(STATUS, status),
            SearchAttributePair(CURRENCY, currency),
        ]
    )
