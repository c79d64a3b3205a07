"""The one way from a route to a workflow: every start goes through ``_start``, on the one task
queue of ``app.state.task_queue`` (``Settings.task_queue``; tests point it at their own), and
is counted in ``WORKFLOW_STARTS``.

Two kinds of caller:
- a write whose record is durable once committed (a transfer, a fund lock, a mining
  submission) starts its workflow AFTER the commit and never fails its answer over it:
  ``start_soon`` (in the background) or ``start`` (awaited; False when Temporal refused). If
  the start never happens, the recovery sweep (engine.recovery) starts the workflow by the same
  derived id with the same input.
- a call that waits for its workflow's result (a whitelist change) starts or joins the run by
  id (``start_or_join``) and answers 503 while Temporal is unreachable; an approval, durable
  once committed, waits a little for its whitelist write and answers without it if need be
  (``start_approval``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from temporalio.client import Client, WorkflowHandle
from temporalio.common import TypedSearchAttributes, WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from api.after_commit import after_commit
from api.metrics import WORKFLOW_STARTS
from core.errors import ServiceUnavailable
from core.workflow_ids import approval_workflow_id, lock_workflow_id
from workflows.approval import ApprovalInput, ApprovalWorkflow
from workflows.funds import FundLockWorkflow
from workflows.pump import ensure_pump

log = logging.getLogger("mccgw.api.starts")


def task_queue(app: FastAPI) -> str:
    """The task queue the API starts workflows on (the worker polls the same setting)."""
    return str(app.state.task_queue)


async def _start(
    request: Request, run: Any, arg: Any, workflow_id: str, **options: Any
) -> WorkflowHandle[Any, Any]:
    client: Client = request.app.state.temporal
    handle = await client.start_workflow(
        run, arg, id=workflow_id, task_queue=task_queue(request.app), **options
    )
    WORKFLOW_STARTS.labels(workflow=run.__qualname__.split(".")[0]).inc()
    return handle


async def start(
    request: Request,
    run: Any,
    arg: Any,
    *,
    workflow_id: str,
    attributes: TypedSearchAttributes | None = None,
    allow_retry_after_failure: bool = False,
) -> bool:
    """Start idempotently by id, after the record committed: an existing run with this id (a
    retried request, or the sweep was first) is kept. A failure is logged, not raised: False.

    Why after the commit: starting inside the transaction held the account and limit rows
    locked across a Temporal round trip, serialising a project's requests."""
    policy = (
        WorkflowIDReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY
        if allow_retry_after_failure
        else WorkflowIDReusePolicy.REJECT_DUPLICATE
    )
    options: dict[str, Any] = {"id_reuse_policy": policy}
    if attributes is not None:
        options["search_attributes"] = attributes
    try:
        await _start(request, run, arg, workflow_id, **options)
    except WorkflowAlreadyStartedError:
        return True
    except Exception as exc:
        log.warning("could not start %s (the recovery sweep will): %r", workflow_id, exc)
        return False
    return True


def start_soon(
    request: Request,
    started: Awaitable[bool],
    what: str,
    then: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Run ``started`` (a ``start(...)``) after the answer, without holding it up
    (api.after_commit); ``then`` runs once the start was tried (e.g. a signal to a related
    workflow)."""

    async def work() -> None:
        await started
        if then is not None:
            await then()

    after_commit(request).run_soon(work(), what)


async def start_or_join(
    request: Request, run: Any, arg: Any, workflow_id: str
) -> WorkflowHandle[Any, Any]:
    """Start (or join: same id) a workflow the caller waits for; 503 while Temporal is down."""
    try:
        return await _start(
            request, run, arg, workflow_id, id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING
        )
    except RPCError as exc:
        raise temporal_down() from exc


def temporal_down() -> ServiceUnavailable:
    return ServiceUnavailable("The workflow service is unreachable", headers={"Retry-After": "5"})


async def finished(handle: WorkflowHandle[Any, Any], wait: float) -> bool:
    """Wait up to ``wait`` seconds for the workflow; False if it is still running. Its
    failure (WorkflowFailureError) is the caller's to render."""
    try:
        await asyncio.wait_for(handle.result(), wait)
    except TimeoutError:
        return False
    except RPCError as exc:
        raise temporal_down() from exc
    return True


async def start_approval(
    request: Request, application_id: str, admin_uid: str, scopes: list[str] | None = None
) -> WorkflowHandle[Any, Any] | None:
    """Start (or join) the approval workflow of an approved application, which writes its
    whitelist entry on chain (the admin API and the operator console). The approval is durable
    once committed: with Temporal unreachable this is logged and None is returned, and the
    recovery sweep starts the workflow by the same id later."""
    arg = ApprovalInput(application_id, admin_uid, scopes)
    try:
        return await start_or_join(
            request, ApprovalWorkflow.run, arg, approval_workflow_id(application_id)
        )
    except ServiceUnavailable:
        log.warning("could not start the approval of %s (the recovery sweep will)", application_id)
        return None


async def signal_lock(request: Request, lock_id: str, resolution: str) -> None:
    """Best effort: the lock's timer would find the hold resolved anyway."""
    client: Client = request.app.state.temporal
    try:
        handle = client.get_workflow_handle(lock_workflow_id(lock_id))
        await handle.signal(FundLockWorkflow.resolved, resolution)
    except Exception as exc:
        log.info("could not signal lock %s (%r); its timer will find it resolved", lock_id, exc)


async def ensure_webhook_pump(request: Request) -> None:
    """Make sure deliveries flow; a Temporal hiccup must not fail the caller's write."""
    try:
        await ensure_pump(request.app.state.temporal, task_queue(request.app))
    except Exception:
        log.warning("could not ensure the webhook pump is running", exc_info=True)
