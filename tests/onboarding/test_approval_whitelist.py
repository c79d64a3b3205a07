"""Approval through ApprovalWorkflow, the on-chain whitelist kept in step with the database
after every admin action, and a suspended project refused."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from solders.instruction import AccountMeta
from solders.pubkey import Pubkey
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio.testing import WorkflowEnvironment

from chain import whitelist as wl
from core.config import Settings
from core.embedded import free_port
from db.models import Project
from db.models.chain import ChainTransaction
from db.models.onboarding import McdWhitelistEntry, ProjectApplication
from onboarding.whitelist import WhitelistChain
from tests.chain.svm_util import decompile
from tests.factories import World
from tests.onboarding.conftest import WALLET, Actors, application_body
from tests.stack import running_worker


async def _apply(client: httpx.AsyncClient, dev: dict[str, str]) -> str:
    resp = await client.post("/v1/projects/apply", json=application_body(), headers=dev)
    assert resp.status_code == 201, resp.text
    return str(resp.json()["data"]["id"])


async def _whitelisted(
    client: httpx.AsyncClient, app_id: str, dev: dict[str, str], within: float = 60.0
) -> dict[str, Any]:
    """The application as its developer reads it, once its whitelist entry is active."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        read = await client.get(f"/v1/projects/applications/{app_id}", headers=dev)
        attributes: dict[str, Any] = read.json()["data"]["attributes"]
        if attributes["whitelist_status"] != "pending" or loop.time() > deadline:
            return attributes
        await asyncio.sleep(0.2)


async def _db_entry(
    sessions: async_sessionmaker[AsyncSession], project_id: int
) -> McdWhitelistEntry:
    async with sessions() as s:
        entry = await s.scalar(
            select(McdWhitelistEntry).where(McdWhitelistEntry.project_id == project_id)
        )
        assert entry is not None
        return entry


async def _assert_in_step(
    chain: WhitelistChain, sessions: async_sessionmaker[AsyncSession], project_id: int
) -> None:
    """The on-chain account (getAccountInfo + decode_entry) matches the stored entry."""
    entry = await _db_entry(sessions, project_id)
    onchain = await chain.entry(project_id)
    if entry.status == "removed":
        assert onchain is None
        return
    assert onchain is not None
    assert onchain.project_id == project_id
    assert str(onchain.wallet) == entry.wallet_address
    assert onchain.bump == entry.pda_bump
    assert str(chain.pda(project_id)[0]) == entry.pda_address
    assert onchain.project_name == wl.chain_project_name(entry.project_name)
    assert 0 < onchain.registered_at <= onchain.updated_at
    expected = wl.Status.ACTIVE if entry.status == "active" else wl.Status.SUSPENDED
    assert onchain.status is expected
    async with sessions() as s:
        project = await s.get(Project, project_id)
        assert project is not None and project.suspended is (entry.status != "active")


async def _tx_bytes(sessions: async_sessionmaker[AsyncSession], op_key: str) -> bytes:
    async with sessions() as s:
        row = await s.scalar(select(ChainTransaction).where(ChainTransaction.op_key == op_key))
        assert row is not None
        return bytes(row.tx_bytes)


async def _project_call(client: httpx.AsyncClient, project_id: int, secret: str) -> httpx.Response:
    return await client.post(
        "/v1/users/batch/attributes",
        json={"uids": ["nobody"]},
        headers={"X-Project-ID": str(project_id), "X-API-Key": secret},
    )


async def test_approve_then_whitelist_admin(
    client: httpx.AsyncClient,
    actors: Actors,
    worker: str,
    chain: WhitelistChain,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    admin = await actors.admin()
    user, dev = await actors.developer()
    app_id = await _apply(client, dev)

    resp = await client.post(
        f"/v1/admin/projects/applications/{app_id}/approve",
        headers=admin,
        json={"allowed_scopes": ["funds:manage", "funds:read"]},
    )
    assert resp.status_code == 200, resp.text
    attrs = resp.json()["data"]["attributes"]
    assert attrs["status"] == "approved"
    project_id = attrs["project_id"]
    assert isinstance(project_id, int)
    assert attrs["api_key"].startswith("pk_") and attrs["api_secret"].startswith("sk_")
    # Security item 9: the project's OAuth client comes with the keys; scopes as chosen.
    assert attrs["oauth_client_id"].startswith("cl_") and attrs["redirect_uris"] == []
    assert "funds:manage" in attrs["scopes"] and "mining:write" not in attrs["scopes"]
    assert attrs["whitelist_pda"] == str(chain.pda(project_id)[0])
    assert attrs["whitelist_bump"] == chain.pda(project_id)[1]
    # The entry is written by then as a rule (the call waits a few seconds for it); if not,
    # the application shows it once it is.
    assert attrs["whitelist_status"] in ("pending", "active")
    read = await _whitelisted(client, app_id, dev)
    assert read["whitelist_status"] == "active" and read["whitelist_tx"]
    assert attrs["whitelist_tx"] in (None, read["whitelist_tx"])
    secret = attrs["api_secret"]

    # The secret is shown once: approving again is refused, reads never show it.
    again = await client.post(f"/v1/admin/projects/applications/{app_id}/approve", headers=admin)
    assert again.status_code == 409
    assert again.json()["type"].endswith("/errors/invalid-state")
    mine = (await client.get(f"/v1/projects/applications/{app_id}", headers=dev)).json()
    assert "api_secret" not in mine["data"]["attributes"]
    assert mine["data"]["attributes"]["api_key"] == attrs["api_key"]
    async with session_maker() as s:
        row = await s.get(ProjectApplication, uuid.UUID(app_id))
        assert row is not None and row.api_secret_encrypted is None
        project = await s.get(Project, project_id)
        assert project is not None and project.owner_uid == user.uid
        assert project.api_key == attrs["api_key"]

    # The new credentials work.
    ok = await _project_call(client, project_id, secret)
    assert ok.status_code == 200, ok.text

    listed = await client.get("/v1/admin/mcd/whitelist", params={"per_page": 100}, headers=admin)
    item = next(i for i in listed.json()["data"] if i["attributes"]["project_id"] == project_id)
    assert item["type"] == "mcd_whitelist_entry"
    assert item["attributes"]["status"] == "active"
    assert item["attributes"]["wallet_address"] == WALLET
    # The McdWhitelist account's fields, decoded from the chain.
    decoded = item["attributes"]["onchain"]
    assert decoded["project_id"] == project_id and decoded["wallet_address"] == WALLET
    assert decoded["status"] == "active" and decoded["bump"] == chain.pda(project_id)[1]
    assert decoded["project_name"] == wl.chain_project_name(application_body()["project_name"])
    await _assert_in_step(chain, session_maker, project_id)
    # The transaction the gateway sent: exactly add_to_whitelist, as the MCD Token takes it.
    _, [sent] = decompile(await _tx_bytes(session_maker, f"whitelist:add:{app_id}"))
    name = b"Moon Auctions"
    assert bytes(sent.data) == (
        bytes.fromhex("9dd3343690510537")
        + project_id.to_bytes(8, "little")
        + len(name).to_bytes(4, "little")
        + name
    )
    assert sent.program_id == Pubkey.from_string("McDVieuEFv5ucnM3C7p8wsT6LY8BAipKDrTG9HjAu3R")
    assert sent.accounts == [
        AccountMeta(chain.authority, is_signer=True, is_writable=True),
        AccountMeta(chain.config, is_signer=False, is_writable=False),
        AccountMeta(chain.pda(project_id)[0], is_signer=False, is_writable=True),
        AccountMeta(Pubkey.from_string(WALLET), is_signer=False, is_writable=False),
        AccountMeta(Pubkey.default(), is_signer=False, is_writable=False),
    ]

    url = f"/v1/admin/mcd/whitelist/{project_id}/status"
    signatures = set()
    for target in ("suspended", "active", "suspended"):
        resp = await client.put(url, json={"status": target}, headers=admin)
        assert resp.status_code == 200, resp.text
        body = resp.json()["data"]["attributes"]
        assert body["status"] == target and body["updated_at"]
        assert body["onchain"]["status"] == target
        signatures.add(body["last_tx"])
        await _assert_in_step(chain, session_maker, project_id)
        refused = await _project_call(client, project_id, secret)
        if target == "suspended":
            assert refused.status_code == 403
            assert refused.json()["type"].endswith("/errors/project-suspended")
        else:
            assert refused.status_code == 200
    assert len(signatures) == 3  # suspend, activate, suspend: three distinct chain writes
    _, [suspend] = decompile(await _tx_bytes(session_maker, f"whitelist:{project_id}:suspend:1"))
    assert bytes(suspend.data) == (
        bytes.fromhex("ccc40cba81d2c4ca") + project_id.to_bytes(8, "little") + b"\x01"
    )
    assert [(m.pubkey, m.is_signer, m.is_writable) for m in suspend.accounts] == [
        (chain.authority, True, True),
        (chain.config, False, False),
        (chain.pda(project_id)[0], False, True),
    ]
    # Same status again: nothing to do, no new write.
    same = await client.put(url, json={"status": "suspended"}, headers=admin)
    assert same.json()["data"]["attributes"]["last_tx"] in signatures
    bad = await client.put(url, json={"status": "removed"}, headers=admin)
    assert bad.status_code == 422
    async with session_maker() as s:
        keys = await s.scalars(
            select(ChainTransaction.op_key).where(
                ChainTransaction.op_key.like(f"whitelist:{project_id}:%")
            )
        )
        assert sorted(keys) == sorted(
            [
                f"whitelist:{project_id}:suspend:1",
                f"whitelist:{project_id}:activate:2",
                f"whitelist:{project_id}:suspend:3",
            ]
        )

    removed = await client.delete(f"/api/open/admin/mcd/whitelist/{project_id}", headers=admin)
    assert removed.status_code == 200, removed.text
    data = removed.json()["data"]
    assert data["remove_tx"] and "removed" in data["message"]
    await _assert_in_step(chain, session_maker, project_id)
    after = await client.put(url, json={"status": "active"}, headers=admin)
    assert after.status_code == 409
    current = await client.get("/v1/admin/mcd/whitelist", params={"per_page": 100}, headers=admin)
    assert project_id not in [i["attributes"]["project_id"] for i in current.json()["data"]]
    unknown = await client.delete("/v1/admin/mcd/whitelist/987654321", headers=admin)
    assert unknown.status_code == 404


async def test_approval_answers_with_the_keys_however_long_the_whitelist_takes(
    app: FastAPI,
    client: httpx.AsyncClient,
    actors: Actors,
    world: World,
    temporal_env: WorkflowEnvironment,
    worker_settings: Settings,
    chain_node: tuple[str, Path],
    session_maker: async_sessionmaker[AsyncSession],
    tmp_path: Path,
) -> None:
    """The worker's chain is down at approval and stays down longer than the 20 s the approve
    call once waited before answering 202: the call answers 200 with the approved project and
    its keys at once (they work), the whitelist entry ``pending``; once a node answers on that
    port the entry becomes ``active`` with its transaction, and everything exists once."""
    from devchain.node.process import start_node

    _, keys_dir = chain_node
    port = free_port()
    rpc_url = f"http://127.0.0.1:{port}"
    settings = worker_settings.model_copy(update={"solana_rpc_url": rpc_url})
    queue = f"onboarding-down-{uuid.uuid4().hex[:8]}"
    admin = await actors.admin()
    user, dev = await actors.developer()
    app_id = await _apply(client, dev)
    approve_url = f"/v1/admin/projects/applications/{app_id}/approve"

    saved_queue = app.state.task_queue
    app.state.task_queue = queue
    node = None
    loop = asyncio.get_running_loop()
    try:
        async with running_worker(temporal_env.client, settings, queue) as deps:
            asked = loop.time()
            first = await client.post(approve_url, headers=admin)
            answered_in = loop.time() - asked
            assert first.status_code == 200, first.text
            attrs = first.json()["data"]["attributes"]
            assert attrs["status"] == "approved" and attrs["api_secret"].startswith("sk_")
            assert attrs["api_key"].startswith("pk_") and attrs["oauth_client_id"]
            project_id = attrs["project_id"]
            chain = WhitelistChain.of(deps.gateway, settings)
            assert attrs["whitelist_status"] == "pending" and attrs["whitelist_tx"] is None
            assert attrs["whitelist_pda"] == str(chain.pda(project_id)[0])
            assert answered_in < 15, answered_in  # the call's own short wait, not the chain's
            # The keys work while the entry is still being written; shown once.
            assert (await _project_call(client, project_id, attrs["api_secret"])).status_code == 200
            assert (await client.post(approve_url, headers=admin)).status_code == 409

            # Still down past the old 20 s: the application shows the entry pending.
            await asyncio.sleep(max(0.0, 21 - (loop.time() - asked)))
            read = await client.get(f"/v1/projects/applications/{app_id}", headers=dev)
            pending = read.json()["data"]["attributes"]
            assert (pending["whitelist_status"], pending["whitelist_tx"]) == ("pending", None)
            assert "api_secret" not in pending

            node = start_node(data_dir=tmp_path / "chain", keys_dir=keys_dir, port=port, slot_ms=20)
            done = await _whitelisted(client, app_id, dev)
            assert done["whitelist_status"] == "active" and done["whitelist_tx"]

            async with session_maker() as s:
                projects = await s.scalar(
                    select(func.count()).select_from(Project).where(Project.owner_uid == user.uid)
                )
                entries = await s.scalar(
                    select(func.count())
                    .select_from(McdWhitelistEntry)
                    .where(McdWhitelistEntry.project_id == project_id)
                )
                writes = await s.scalar(
                    select(func.count())
                    .select_from(ChainTransaction)
                    .where(ChainTransaction.op_key == f"whitelist:add:{app_id}")
                )
                project = await s.get(Project, project_id)
            assert (projects, entries, writes) == (1, 1, 1)
            assert project is not None and project.api_key == attrs["api_key"]
            await _assert_in_step(chain, session_maker, project_id)
    finally:
        app.state.task_queue = saved_queue
        if node is not None:
            node.stop()
    await asyncio.sleep(0)
