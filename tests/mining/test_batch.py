"""Batches after the set-based rewrite: every item still gets its own status, events, ledger
credit and limit usage; the daily limit accepts exactly the items that fit; mints are packed
into transactions by their signed size."""

from __future__ import annotations

import itertools
import uuid
from collections import Counter
from typing import Any

import httpx
from solana.rpc.async_api import AsyncClient
from solders.signature import Signature
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from core.config import Settings
from core.money import to_base_units
from db.models import Event
from db.models.chain import ChainTransaction
from db.models.engine import LimitUsage
from db.models.ledger import LedgerEntry
from ledger.service import Ledger
from mining.mints import TX_SIZE_LIMIT, MintItem, chunks_of
from tests.factories import ProjectCreds, World
from tests.mining.test_mining import DATA, activity, now_iso, setup, submit, wait_status
from tests.webhooks.support import Receiver, project_headers

MCD = 10**9


async def batch(client: httpx.AsyncClient, creds: ProjectCreds, items: list[Any]) -> Any:
    r = await client.post(
        "/v1/mining/batch-submit",
        json={"activities": items, "idempotency_key": uuid.uuid4().hex},
        headers=project_headers(creds),
    )
    assert r.status_code == 200, r.text
    return r.json()


async def mining_usage(sessions: async_sessionmaker[AsyncSession], project_id: int) -> int:
    async with sessions() as s:
        used = await s.scalars(
            select(LimitUsage.used).where(
                LimitUsage.project_id == project_id,
                LimitUsage.currency == "MCD",
                LimitUsage.operation == "mining",
            )
        )
        return sum(used)


async def test_mixed_batch_each_item_its_own_status_events_and_credit(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds, uid = await setup(client, world, receiver)
    other = await world.user()
    await world.consent(other.uid, creds.project_id)
    stranger = await world.user()

    # An activity confirmed before the batch: its proof is consumed, its key taken.
    first = activity(uid, creds.secret, data=DATA | {"n": "first"})
    r = await submit(client, creds, first)
    assert r.status_code == 202, r.text
    first_id = r.json()["data"]["id"]
    assert (await wait_status(client, creds, first_id, "confirmed", "rejected"))[
        "status"
    ] == "confirmed"

    a = activity(uid, creds.secret, data={"trade_volume_usdc": 1000})  # 2 MCD
    b = activity(other.uid, creds.secret, data={"trade_volume_usdc": 2000})  # 3 MCD
    items = [
        a,
        b,
        activity(uid, creds.secret, timestamp=now_iso(-7200)),  # stale: rejected later
        first | {"idempotency_key": uuid.uuid4().hex},  # replays a consumed proof
        a | {"idempotency_key": uuid.uuid4().hex},  # a's proof twice in one batch
        b | {"activity_data": DATA},  # b's key twice in one batch
        first,  # the same request as before: 200, its activity
        first | {"activity_data": DATA | {"n": "other"}},  # its key, another request
        activity(stranger.uid, creds.secret),  # no consent
        activity(uid, creds.secret, data={"trade_volume_usdc": 2_000_000}),  # 2001 MCD
        {"user_uid": uid, "idempotency_key": "incomplete"},
    ]
    body = await batch(client, creds, items)
    results = [res["attributes"] for res in body["data"]]
    assert [res["status"] for res in results] == [202] * 5 + [409, 200, 409, 403, 422, 422]
    assert body["meta"]["accepted"] == 5 and body["meta"]["refused"] == 6
    assert [res["idempotency_key"] for res in results[:10]] == [
        i["idempotency_key"] for i in items[:10]
    ]
    assert results[6]["activity"]["id"] == first_id
    slugs = [res["error"]["type"].rsplit("/", 1)[1] for res in results[5:] if res.get("error")]
    assert slugs == [
        "idempotency-key-reused",
        "idempotency-key-reused",
        "user-not-authorized-for-project",
        "amount-limit-exceeded",
        "validation-error",
    ]
    assert results[9]["error"]["limit"] == "1000"
    # Counted at acceptance: the five accepted items (and the first activity).
    accepted = [to_base_units(r["activity"]["attributes"]["mcd_estimated"], 9) for r in results[:5]]
    assert accepted == [2 * MCD, 3 * MCD, 3_045_000_000, 3_045_000_000, 2 * MCD]
    assert await mining_usage(session_maker, creds.project_id) == 3045 * MCD // 1000 + sum(accepted)

    ids = [res["activity"]["id"] for res in results[:5]]
    finals = [await wait_status(client, creds, i, "confirmed", "rejected", "failed") for i in ids]
    status = [f["status"] for f in finals]
    assert status[1] == "confirmed" and status[2:4] == ["rejected", "rejected"]
    assert finals[2]["reason"].startswith("stale_timestamp")
    assert finals[3]["reason"].startswith("proof_replayed")
    # Of the two activities with a's proof exactly one is rewarded, the other is a replay.
    assert sorted([status[0], status[4]]) == ["confirmed", "rejected"]
    loser = finals[0] if status[0] == "rejected" else finals[4]
    assert loser["reason"].startswith("proof_replayed")
    confirmed = {ids[n]: finals[n] for n in range(5) if status[n] == "confirmed"}
    for f in confirmed.values():
        assert [h["status"] for h in f["history"]] == [
            "pending_verification",
            "verified",
            "pending_onchain",
            "confirmed",
        ]
        assert f["tx_signature"] and f["block_height"]
    for f in finals:
        if f["status"] == "rejected":
            assert [h["status"] for h in f["history"]] == ["pending_verification", "rejected"]

    # One verified and one confirmed event per rewarded activity, none for the rejected.
    async with session_maker() as s:
        events = list(await s.scalars(select(Event).where(Event.project_id == creds.project_id)))
    per_item = Counter((e.type, e.data["activity_id"]) for e in events)
    expected = {first_id, *confirmed}
    assert set(per_item.values()) == {1}
    assert {i for t, i in per_item if t == "mining.activity.verified"} == expected
    assert {i for t, i in per_item if t == "mining.reward.confirmed"} == expected
    rewards = {e.data["activity_id"]: e.data for e in events if e.type == "mining.reward.confirmed"}
    for activity_id, f in confirmed.items():
        assert rewards[activity_id]["mcd_amount"] == f["mcd_estimated"]
        assert rewards[activity_id]["tx_signature"] == f["tx_signature"]

    # The ledger: one credit entry per rewarded activity; each balance is their sum.
    async with session_maker() as s:
        entries = list(
            await s.scalars(select(LedgerEntry).where(LedgerEntry.user_uid.in_([uid, other.uid])))
        )
        balances = {u: (await Ledger(s).balances(u, "MCD")).balance for u in (uid, other.uid)}
    assert Counter(e.reference for e in entries) == Counter(f"mining:{i}" for i in expected)
    assert all(e.kind == "credit" and e.d_balance == e.amount for e in entries)
    assert balances[uid] == 3_045_000_000 + 2 * MCD
    assert balances[other.uid] == 3 * MCD
    # The rejected gave their amounts back: usage is what was rewarded.
    assert await mining_usage(session_maker, creds.project_id) == 3_045_000_000 + 5 * MCD

    # Webhooks: the receiver heard each confirmed reward once.
    def heard() -> list[str]:
        return [
            g.json["data"]["activity_id"]
            for g in receiver.received
            if g.json["type"] == "mining.reward.confirmed"
        ]

    await receiver.wait_for(6, 30)  # 3 verified + 3 confirmed
    assert sorted(heard()) == sorted(expected)


async def test_a_batch_crossing_the_daily_limit_accepts_exactly_what_fits(
    client: httpx.AsyncClient,
    world: World,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds = await world.project(limits={"mining": {"MCD": {"per_day": "10"}}})
    user = await world.user()
    await world.consent(user.uid, creds.project_id)

    serial = itertools.count()

    def earning(mcd: int) -> dict[str, Any]:  # reward = 1 + volume / 1000 MCD; proofs differ
        data = {"trade_volume_usdc": (mcd - 1) * 1000, "n": next(serial)}
        return activity(user.uid, creds.secret, data=data)

    body = await batch(client, creds, [earning(4), earning(4), earning(4), earning(1)])
    results = [res["attributes"] for res in body["data"]]
    ids = [res["activity"]["id"] for res in results if res["activity"]]
    assert [res["status"] for res in results] == [202, 202, 422, 202]
    assert results[2]["error"]["type"].endswith("/daily-limit-exceeded")
    assert results[2]["error"]["limit"] == "10"
    assert await mining_usage(session_maker, creds.project_id) == 9 * MCD

    body = await batch(client, creds, [earning(1), earning(1)])
    assert [res["attributes"]["status"] for res in body["data"]] == [202, 422]
    ids.append(body["data"][0]["attributes"]["activity"]["id"])
    assert await mining_usage(session_maker, creds.project_id) == 10 * MCD
    r = await submit(client, creds, earning(1))
    assert r.status_code == 422 and r.json()["type"].endswith("/daily-limit-exceeded")

    for activity_id in ids:
        final = await wait_status(client, creds, activity_id, "confirmed", "rejected", "failed")
        assert final["status"] == "confirmed"
    assert await mining_usage(session_maker, creds.project_id) == 10 * MCD


async def test_mints_to_many_users_are_packed_by_transaction_size(
    client: httpx.AsyncClient,
    world: World,
    worker: str,
    worker_settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds = await world.project()
    users = [await world.user() for _ in range(25)]
    for u in users:
        await world.consent(u.uid, creds.project_id)
    body = await batch(client, creds, [activity(u.uid, creds.secret) for u in users])
    ids = [res["attributes"]["activity"]["id"] for res in body["data"]]
    finals = [await wait_status(client, creds, i, "confirmed", "rejected", "failed") for i in ids]
    assert {f["status"] for f in finals} == {"confirmed"}
    per_tx = Counter(f["tx_signature"] for f in finals)
    # 25 custody accounts do not fit one transaction, but more than the old 15 per transaction.
    assert len(per_tx) == 2 and max(per_tx.values()) > 15
    async with session_maker() as s:
        sent = list(
            await s.scalars(
                select(ChainTransaction.tx_bytes).where(
                    ChainTransaction.signature.in_(list(per_tx))
                )
            )
        )
    assert len(sent) == 2 and all(len(tx) <= TX_SIZE_LIMIT for tx in sent)
    async with AsyncClient(worker_settings.solana_rpc_url) as rpc:
        statuses = await rpc.get_signature_statuses(
            [Signature.from_string(sig) for sig in per_tx], search_transaction_history=True
        )
    for status in statuses.value:
        assert status is not None and status.err is None
    async with session_maker() as s:
        for u in users:
            assert (await Ledger(s).balances(u.uid, "MCD")).balance == 3_045_000_000


def test_chunks_are_deterministic_and_cut_where_the_next_mint_does_not_fit() -> None:
    items = [MintItem(f"act_{n:03d}", f"u_{n % 3}", MCD) for n in reversed(range(40))]
    packed = chunks_of(items, "mining:wf", lambda chunk: len({i.user_uid for i in chunk}) <= 2)
    assert [len(chunk) for _, chunk in packed] == [2] * 20  # users 0,1 | 2,0 | 1,2 | ...
    assert [key for key, _ in packed][:2] == ["mining:wf:0", "mining:wf:1"]
    assert [i.activity_id for i in packed[0][1]] == ["act_000", "act_001"]
    by_count = chunks_of(items, "mining:wf", lambda chunk: len(chunk) <= 15)
    assert [(key, len(chunk)) for key, chunk in by_count] == [
        ("mining:wf:0", 15),
        ("mining:wf:1", 15),
        ("mining:wf:2", 10),
    ]
    one = chunks_of(items[:1], "mining:act_039", lambda chunk: True)
    assert one == [("mining:act_039", items[:1])]
    assert chunks_of(list(reversed(items)), "mining:wf", lambda chunk: len(chunk) <= 15) == by_count
