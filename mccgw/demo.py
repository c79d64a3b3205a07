"""The demo made whole before ``mccgw dev`` says ready (issue 34):

1. the demo project's approval runs: the same ApprovalWorkflow the approve call and the console
   start (it whitelists the project on chain and marks its application approved); on a first
   start its one-time api_secret is then taken the way the approve call hands it out;
2. the oracle's first close runs (the workflow the 4-hourly schedule starts), so
   ``GET /v1/mcc/price`` carries its ``update_price`` signature at once;
3. the demo users' deposits are credited (alice's balance is not 0 when the banner shows).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import select
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy

from core.config import Settings
from core.workflow_ids import ORACLE_WORKFLOW_ID, approval_workflow_id
from db.models import Project
from db.models.onboarding import McdWhitelistEntry
from db.models.tokens import Deposit, PriceClose
from db.session import create_db_engine, create_session_maker
from mccgw.devphases import NO_PHASES, Phases
from onboarding import applications, queries
from workflows.approval import ApprovalInput, ApprovalWorkflow
from workflows.tokens import OracleInput, OracleWorkflow

T = TypeVar("T")


@dataclass
class DemoState:
    whitelist_pda: str | None
    whitelist_tx: str | None
    price_signature: str | None
    credited: int


async def complete_demo(
    settings: Settings,
    demo: dict[str, Any],
    wanted: list[tuple[str, str]],
    faucet: str | None,
    within: float = 90.0,
    phases: Phases = NO_PHASES,
) -> tuple[dict[str, Any], DemoState]:
    """Run the demo project's approval and the oracle's first close, then wait until every
    ``wanted`` (uid, currency) deposit from ``faucet`` is credited. Returns demo.json's new
    content (the api_secret filled in on a first start) and what was checked."""
    client = await Client.connect(settings.temporal_address, namespace=settings.temporal_namespace)
    engine = create_db_engine(settings)
    sessions = create_session_maker(engine)
    deadline = time.monotonic() + within
    try:
        project = demo["projects"][0]
        application_id = project.get("application_id")
        left = max(1.0, deadline - time.monotonic())
        # The three are independent: the approval's chain write, the oracle's and the deposit
        # watcher's credits proceed at once (one finality wait instead of three in a row).
        oracle = await client.start_workflow(
            OracleWorkflow.run,
            OracleInput(note="mccgw dev start"),
            id=ORACLE_WORKFLOW_ID,  # the schedule's: one start-up close, however many starts
            task_queue=settings.task_queue,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        )
        waits: list[Any] = [
            _timed(phases, "oracle's first close on chain", oracle.result()),
            _timed(
                phases,
                "demo deposits credited (deposit watcher)",
                _wait_credited(sessions, wanted, faucet, deadline),
            ),
        ]
        if application_id:
            async with sessions() as session:
                app = await queries.application(session, uuid.UUID(application_id))
                whitelist, reviewer = app.whitelist_status, app.reviewed_by
            if whitelist == "pending":
                handle = await client.start_workflow(
                    ApprovalWorkflow.run,
                    ApprovalInput(application_id, reviewer or "mccgw-dev"),
                    id=approval_workflow_id(application_id),
                    task_queue=settings.task_queue,
                    id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                )
                waits.append(_timed(phases, "demo project approval (whitelist)", handle.result()))
        async with asyncio.timeout(left):
            done = await asyncio.gather(*waits)
        credited = int(done[1])
        if application_id and not project.get("api_secret"):
            async with sessions() as session:
                _, secret = await applications.take_secret(
                    session,
                    uuid.UUID(application_id),
                    {settings.master_key_id: settings.master_key},
                )
                await session.commit()
            project = {**project, "api_secret": secret}
            demo = {**demo, "projects": [project, *demo["projects"][1:]]}
        async with sessions() as session:
            entry = await session.scalar(
                select(McdWhitelistEntry)
                .join(Project, Project.project_id == McdWhitelistEntry.project_id)
                .where(Project.project_id == int(project["project_id"]))
            )
            price = await session.scalar(
                select(PriceClose.onchain_signature)
                .where(PriceClose.onchain_signature.is_not(None))
                .order_by(PriceClose.close_at.desc())
                .limit(1)
            )
        state = DemoState(
            entry.pda_address if entry else None,
            entry.add_tx if entry else None,
            price,
            credited,
        )
    finally:
        await engine.dispose()
    return demo, state


async def _timed(phases: Phases, name: str, work: Awaitable[T]) -> T:
    with phases(name):
        return await work


async def _wait_credited(
    sessions: Any, wanted: list[tuple[str, str]], faucet: str | None, deadline: float
) -> int:
    """Wait until each (uid, currency) has a credited deposit (from ``faucet`` when known)."""
    while True:
        async with sessions() as session:
            statement = select(Deposit.user_uid, Deposit.currency).where(
                Deposit.outcome == "credited"
            )
            if faucet:
                statement = statement.where(Deposit.sender == faucet)
            have = {(uid, cur) for uid, cur in (await session.execute(statement)).all()}
        missing = [pair for pair in wanted if pair not in have]
        if not missing:
            return len(wanted)
        if time.monotonic() > deadline:
            raise RuntimeError(f"the demo deposits were not credited in time: {missing}")
        await asyncio.sleep(0.5)
