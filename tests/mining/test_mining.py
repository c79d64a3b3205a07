"""Mining end to end: submission -> independent verification -> MCD minted on chain ->
confirmed webhook with the real transaction; rejections with reasons; batches; reads."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from solders.signature import Signature
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from core.config import Settings
from db.models import User
from db.models.access import AuditLog, OAuthClient
from ledger.service import Ledger
from tests.factories import ProjectCreds, World
from tests.webhooks.support import Receiver, eventually, project_headers, verify_signature

HOOK_SECRET = "whsec_mining_0123456789abcdef"
DATA = {"trade_volume_usdc": 1500, "trade_count": 12, "profit_usdc": 42.5}
EXPECTED_MCD = "3.045"  # 1 + 1500*0.001 + 12*0.01 + 42.5*0.01 (docs/mining.md)


def now_iso(delta: float = 0) -> str:
    moment = datetime.now(UTC) + timedelta(seconds=delta)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def activity(
    uid: str,
    secret: str,
    *,
    data: dict[str, Any] | None = None,
    timestamp: str | int | None = None,
    key: str | None = None,
    signer: Keypair | None = None,
) -> dict[str, Any]:
    """Built the way a project would, independently of the mining package."""
    data = DATA if data is None else data
    timestamp = now_iso() if timestamp is None else timestamp
    canonical = json.dumps(
        {"activity_data": data, "activity_type": "trade", "timestamp": timestamp, "user_uid": uid},
        separators=(",", ":"),
        sort_keys=True,
        ensure_ascii=False,
    )
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    if signer is not None:
        proof = {"type": "ed25519", "signature": str(signer.sign_message(digest.encode()))}
    else:
        signature = hmac.new(secret.encode(), digest.encode(), hashlib.sha256).hexdigest()
        proof = {"type": "hmac-sha256", "signature": signature}
    return {
        "user_uid": uid,
        "activity_type": "trade",
        "activity_data": data,
        "proof": {**proof, "hash": digest, "timestamp": timestamp},
        "idempotency_key": key or uuid.uuid4().hex,
    }


async def setup(
    client: httpx.AsyncClient, world: World, receiver: Receiver | None = None
) -> tuple[ProjectCreds, str]:
    creds = await world.project()
    user = await world.user()
    await world.consent(user.uid, creds.project_id)
    if receiver is not None:
        r = await client.post(
            "/v1/webhooks/register",
            json={
                "url": receiver.url,
                "events": ["mining.activity.verified", "mining.reward.confirmed"],
                "secret": HOOK_SECRET,
                "idempotency_key": uuid.uuid4().hex,
            },
            headers=project_headers(creds),
        )
        assert r.status_code == 201, r.text
    return creds, user.uid


async def user_token(world: World, creds: ProjectCreds, uid: str, scope: str) -> str:
    client_id = f"cl_{uuid.uuid4().hex[:12]}"
    async with world.sessions() as s:
        s.add(
            OAuthClient(
                client_id=client_id,
                project_id=creds.project_id,
                name="Mining reader",
                client_secret_hash=None,
                redirect_uris=["http://localhost:3000/callback"],
                allowed_scopes=scope.split(),
                grant_types=["authorization_code"],
                access_token_format="jwt",
            )
        )
        await s.commit()
    return await world.token(uid, scope, client_id=client_id)


async def submit(client: httpx.AsyncClient, creds: ProjectCreds, body: dict[str, Any]) -> Any:
    return await client.post(
        "/v1/mining/submit-activity", json=body, headers=project_headers(creds)
    )


async def status_of(client: httpx.AsyncClient, creds: ProjectCreds, activity_id: str) -> Any:
    r = await client.get(f"/v1/mining/activity/{activity_id}", headers=project_headers(creds))
    assert r.status_code == 200, r.text
    return r.json()["data"]["attributes"]


async def wait_status(
    client: httpx.AsyncClient, creds: ProjectCreds, activity_id: str, *final: str
) -> Any:
    async def probe() -> Any:
        attrs = await status_of(client, creds, activity_id)
        return attrs if attrs["status"] in final else None

    return await eventually(probe, 30)


async def test_submission_is_minted_confirmed_and_webhooked(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    worker: str,
    worker_settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds, uid = await setup(client, world, receiver)
    r = await submit(client, creds, activity(uid, creds.secret))
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["data"]["type"] == "mining_activity"
    attrs = body["data"]["attributes"]
    assert attrs["status"] == "pending_verification" and attrs["mcd_estimated"] == EXPECTED_MCD
    assert body["meta"]["webhook_url"] == receiver.url and body["meta"]["webhook_note"]
    activity_id = body["data"]["id"]

    got = await receiver.wait_for(2, 30)
    by_type = {g.json["type"]: g for g in got}
    for g in got:
        assert verify_signature(HOOK_SECRET, g.body, g.headers["X-Service-Signature"])
    verified = by_type["mining.activity.verified"].json["data"]
    assert verified["activity_id"] == activity_id and verified["user_uid"] == uid
    confirmed = by_type["mining.reward.confirmed"].json["data"]
    assert set(confirmed) == {
        "activity_id",
        "user_uid",
        "mcd_amount",
        "tx_signature",
        "block_height",
    }
    assert confirmed["activity_id"] == activity_id and confirmed["mcd_amount"] == EXPECTED_MCD
    assert isinstance(confirmed["block_height"], int) and confirmed["block_height"] > 0

    rpc_url, _ = worker_settings.solana_rpc_url, None
    async with AsyncClient(rpc_url) as rpc:
        statuses = await rpc.get_signature_statuses(
            [Signature.from_string(confirmed["tx_signature"])], search_transaction_history=True
        )
    status = statuses.value[0]
    assert status is not None and status.err is None
    assert str(status.confirmation_status).lower().endswith("finalized")

    final = await status_of(client, creds, activity_id)
    assert final["status"] == "confirmed" and final["tx_signature"] == confirmed["tx_signature"]
    assert final["block_height"] == confirmed["block_height"]
    assert [h["status"] for h in final["history"]] == [
        "pending_verification",
        "verified",
        "pending_onchain",
        "confirmed",
    ]
    async with session_maker() as session:
        balance = await Ledger(session).balances(uid, "MCD")
    assert balance.balance == 3_045_000_000

    # Replaying the request answers the same; reusing the proof under a new key is rejected.
    again = await client.post(
        "/v1/mining/submit-activity",
        content=r.request.content,
        headers={**project_headers(creds), "Content-Type": "application/json"},
    )
    assert again.status_code == 202 and again.headers["Idempotent-Replayed"] == "true"
    replay = json.loads(r.request.content) | {"idempotency_key": uuid.uuid4().hex}
    r2 = await submit(client, creds, replay)
    assert r2.status_code == 202
    rejected = await wait_status(client, creds, r2.json()["data"]["id"], "rejected", "confirmed")
    assert rejected["status"] == "rejected" and rejected["reason"].startswith("proof_replayed")
    # Each call's audit row reached its final state with its submission (it was pending).
    async with session_maker() as session:
        outcomes = {
            a.idempotency_key: a.status
            for a in await session.scalars(
                select(AuditLog).where(AuditLog.operation == "mining.submit")
            )
        }
    first_key = json.loads(r.request.content)["idempotency_key"]
    assert outcomes[first_key] == "success"
    assert outcomes[replay["idempotency_key"]] == "failed"  # its submission was rejected

    # Reads: project records, the user's daily rewards, the legacy history.
    records = await client.get("/v1/mining/records", headers=project_headers(creds))
    assert records.status_code == 200, records.text
    [record] = records.json()["data"]
    assert record["id"] == activity_id and record["attributes"]["mcd_amount"] == EXPECTED_MCD
    token = await user_token(world, creds, uid, "openid mcd:read mining:read")
    auth = {"Authorization": f"Bearer {token}"}
    mine = await client.get("/v1/mining/records", headers=auth)
    assert mine.status_code == 200 and mine.json()["meta"]["total"] == 1
    rewards = await client.get("/v1/mcd/rewards", headers=auth)
    assert rewards.status_code == 200, rewards.text
    [day] = rewards.json()["data"]
    assert day["attributes"]["amount"] == EXPECTED_MCD and day["attributes"]["activities"] == 1
    legacy = await client.get("/mcc/mining/history", headers=auth, params={"limit": 500})
    assert legacy.status_code == 200, legacy.text
    history = legacy.json()
    assert history["total"] == 1
    assert history["records"][0]["amount"] == 3.045
    assert history["records"][0]["status"] == "confirmed"
    # An offset past any row (even past PostgreSQL's bigint) is an empty page, not a 500.
    for offset in (1, 198380406780979806208):
        past = await client.get("/mcc/mining/history", headers=auth, params={"offset": offset})
        assert past.status_code == 200, past.text
        assert past.json()["total"] == 1 and past.json()["records"] == []
    assert (await client.get("/mcc/mining/history")).json()["error"] == "unauthorized"


async def test_ed25519_proof_by_the_users_wallet(
    client: httpx.AsyncClient,
    world: World,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds, uid = await setup(client, world)
    wallet = Keypair()
    async with session_maker() as session:
        await session.execute(
            update(User).where(User.uid == uid).values(wallet_address=str(wallet.pubkey()))
        )
        await session.commit()
    good = await submit(client, creds, activity(uid, creds.secret, signer=wallet))
    bad = await submit(client, creds, activity(uid, creds.secret, signer=Keypair()))
    ok = await wait_status(client, creds, good.json()["data"]["id"], "confirmed", "rejected")
    assert ok["status"] == "confirmed", ok
    no = await wait_status(client, creds, bad.json()["data"]["id"], "confirmed", "rejected")
    assert no["status"] == "rejected" and no["reason"].startswith("invalid_signature")


async def test_bad_proofs_are_rejected_with_reasons(
    client: httpx.AsyncClient, world: World, worker: str
) -> None:
    creds, uid = await setup(client, world)
    wrong_hash = activity(uid, creds.secret)
    wrong_hash["activity_data"] = {**DATA, "trade_volume_usdc": 99_999}  # claims more
    cases = {
        "proof_hash_mismatch": wrong_hash,
        "invalid_signature": activity(uid, "sk_not_the_project_secret"),
        "stale_timestamp": activity(uid, creds.secret, timestamp=now_iso(-3600)),
        "out_of_bounds": activity(uid, creds.secret, data={"trade_count": -5}),
    }
    ids = {}
    for reason, body in cases.items():
        r = await submit(client, creds, body)
        assert r.status_code == 202, r.text
        ids[reason] = r.json()["data"]["id"]
    for reason, activity_id in ids.items():
        attrs = await wait_status(client, creds, activity_id, "rejected", "confirmed")
        assert attrs["status"] == "rejected" and attrs["reason"].startswith(reason), attrs


async def test_invalid_requests_and_limits(
    client: httpx.AsyncClient, world: World, worker: str
) -> None:
    creds, uid = await setup(client, world)
    r = await submit(client, creds, {"user_uid": uid, "idempotency_key": "x"})
    assert r.status_code == 422 and r.json()["type"].endswith("/validation-error")
    stranger = await world.user()
    r = await submit(client, creds, activity(stranger.uid, creds.secret))
    assert r.status_code == 403 and r.json()["type"].endswith("/user-not-authorized-for-project")
    huge = activity(uid, creds.secret, data={"trade_volume_usdc": 2_000_000})  # 2001 MCD
    r = await submit(client, creds, huge)
    assert r.status_code == 422 and r.json()["type"].endswith("/amount-limit-exceeded")
    big = {"trade_volume_usdc": 900_000}  # 901 MCD each; the 12th crosses 10000 MCD/day
    for n in range(12):
        r = await submit(client, creds, activity(uid, creds.secret, data=big | {"n": n}))
        if n < 11:
            assert r.status_code == 202, r.text
    assert r.status_code == 422 and r.json()["type"].endswith("/daily-limit-exceeded")
    other = await world.project()
    r = await client.get("/v1/mining/activity/act_nope", headers=project_headers(other))
    assert r.status_code == 404


async def test_batch_submit_each_item_its_own_result(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    worker: str,
    worker_settings: Settings,
) -> None:
    creds, uid = await setup(client, world, receiver)
    users = [uid]
    for _ in range(2):
        u = await world.user()
        await world.consent(u.uid, creds.project_id)
        users.append(u.uid)
    items = [activity(users[n % 3], creds.secret, data=DATA | {"n": n}) for n in range(20)]
    items.append(activity(uid, creds.secret, timestamp=now_iso(-7200)))  # rejected later
    items.append({"user_uid": uid})  # invalid now
    items.append(items[0] | {})  # same key twice in one batch
    body = {"activities": items, "idempotency_key": uuid.uuid4().hex}
    r = await client.post("/v1/mining/batch-submit", json=body, headers=project_headers(creds))
    assert r.status_code == 200, r.text
    results = r.json()["data"]
    assert [res["attributes"]["status"] for res in results] == [202] * 21 + [422, 409]
    meta = r.json()["meta"]
    assert meta["accepted"] == 21 and meta["refused"] == 2
    # The batch is one page: its real counts, not an empty list's.
    assert (meta["total"], meta["page"], meta["per_page"]) == (23, 1, 23)
    ids = [res["attributes"]["activity"]["id"] for res in results[:21]]
    assert results[21]["attributes"]["error"]["type"].endswith("/validation-error")

    finals = [await wait_status(client, creds, i, "confirmed", "rejected", "failed") for i in ids]
    assert [f["status"] for f in finals] == ["confirmed"] * 20 + ["rejected"]
    # The batch's audit row reached its final state with its submissions (it was pending).
    async with world.sessions() as session:
        audit = (
            await session.scalars(
                select(AuditLog).where(AuditLog.idempotency_key == body["idempotency_key"])
            )
        ).one()
    assert (audit.operation, audit.status) == ("mining.batch_submit", "success")
    signatures = {f["tx_signature"] for f in finals[:20]}
    assert len(signatures) == 1  # 20 mints to 3 users fit one transaction (packed by size)
    confirmed = await receiver.wait_for(40, 30)  # 20 verified + 20 confirmed
    rewards = [g.json for g in confirmed if g.json["type"] == "mining.reward.confirmed"]
    assert sorted(e["data"]["activity_id"] for e in rewards) == sorted(ids[:20])

    # Each item keeps its own idempotency: resubmitting one alone replays its activity.
    again = await client.post(
        "/v1/mining/batch-submit",
        json={"activities": [items[3]], "idempotency_key": uuid.uuid4().hex},
        headers=project_headers(creds),
    )
    [res] = again.json()["data"]
    assert res["attributes"]["status"] == 200
    assert res["attributes"]["activity"]["id"] == ids[3]
    assert res["attributes"]["activity"]["attributes"]["status"] == "confirmed"
    r = await submit(client, creds, items[4])
    assert r.status_code == 409
