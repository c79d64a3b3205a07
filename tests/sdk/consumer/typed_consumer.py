"""A consumer of the Python SDK, as a project's server would write it: `mypy --strict` checks it
(tests/sdk/test_resources.py), so the resource methods' keywords and results are typed."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from mccgw_client import AdminClient, AsyncClient, BearerAuth, Client, HmacAuth, models
from mccgw_client.errors import InsufficientFunds, NotFound, ProblemError


def settle_auction(gw: Client, bidder: str, seller: str) -> str:
    try:
        lock: models.TypedResourceLockAttributes = gw.funds.lock(
            user_uid=bidder,
            currency="MCC",
            amount="25",
            reason="bid on auction 42",
            reference_id="auction-42",
            expires_at=datetime.now(UTC) + timedelta(hours=1),
        )
    except InsufficientFunds as exc:
        return f"refused: {exc.detail} ({exc.body.get('available_balance')})"
    status: str = lock.attributes.status
    transfer = gw.transfers.request(
        transfer_type="auction_settlement",
        from_uid=bidder,
        to_uid=seller,
        currency="MCC",
        amount="25",
        reference={"auction_id": "42", "lock_id": lock.id},
    )
    for page in gw.funds.locked(bidder, per_page=50):
        for held in page.data:
            print(held.id, held.attributes.amount, page.meta.total)
    try:
        gw.webhooks.retrieve("wh_missing")
    except NotFound:
        pass
    except ProblemError as exc:
        print(exc.slug, exc.status)
    return f"{status} {transfer.id} {transfer.attributes.status}"


def approve(admin: AdminClient, application_id: str) -> str | None:
    answer = admin.projects.approve(application_id).attributes
    if isinstance(answer, models.ApprovedApplicationAttributes):  # 200 (202: before 1.1.0)
        return answer.api_secret
    return None


async def report(gw: AsyncClient, uid: str) -> int:
    attribute = await gw.users.attributes.report(
        uid, attribute_key="level", attribute_value={"rank": "gold"}
    )
    pages = [page async for page in gw.webhooks.list(per_page=10)]
    print(attribute.attributes)
    return len(pages)


if __name__ == "__main__":
    base = "http://127.0.0.1:8000"
    print(settle_auction(Client(base, HmacAuth(1, "sk_...")), "u_alice", "u_bob"))
    print(approve(AdminClient(base, BearerAuth("token")), "app_1"))
    print(asyncio.run(report(AsyncClient(base, HmacAuth(1, "sk_...")), "u_alice")))
