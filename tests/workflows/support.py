"""Orchestration tests: the real workflows on the session's real Temporal server, with their
activities replaced by plain functions registered under the same activity names.

A fresh task queue per test keeps one test's workers away from another's workflows.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from worker import WORKFLOW_RUNNER, WORKFLOWS


@asynccontextmanager
async def workflows_with(client: Client, *activities: Callable[..., Any]) -> AsyncIterator[str]:
    """A worker for every workflow of the product and the given stand-in activities; yields
    its task queue."""
    queue = f"wf-{uuid.uuid4().hex[:10]}"
    async with Worker(
        client,
        task_queue=queue,
        workflows=list(WORKFLOWS),
        activities=list(activities),
        workflow_runner=WORKFLOW_RUNNER,
    ):
        yield queue


def workflow_id(kind: str) -> str:
    return f"test-{kind}-{uuid.uuid4().hex[:10]}"


def retryable(kind: str = "Unavailable") -> ApplicationError:
    """What an activity raises for a passing trouble (an outage): Temporal retries it."""
    return ApplicationError(f"{kind} (test)", type=kind)


def rejection(kind: str) -> ApplicationError:
    """What an activity raises for a business rejection: never retried."""
    return ApplicationError(f"{kind} (test)", type=kind, non_retryable=True)


def failure_chain(err: WorkflowFailureError) -> list[BaseException]:
    """The workflow failure's causes, outermost first."""
    chain: list[BaseException] = []
    cause = err.__cause__
    while cause is not None:
        chain.append(cause)
        cause = cause.__cause__
    return chain


def error_types(err: WorkflowFailureError) -> list[str | None]:
    return [c.type for c in failure_chain(err) if isinstance(c, ApplicationError)]
