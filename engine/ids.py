"""Workflow ids of engine records: derived from the record id, so a retried start (the API
after its commit, or the recovery sweep) can never run a second workflow for one record."""

from __future__ import annotations


def transfer_workflow_id(transfer_id: str) -> str:
    return f"transfer-{transfer_id}"


def transfer_retry_workflow_id(transfer_id: str, attempt: str) -> str:
    """An operator's restart of a transfer whose workflow is gone (``attempt``: a fresh token,
    so each deliberate restart is a run of its own; the workflow itself is idempotent)."""
    return f"{transfer_workflow_id(transfer_id)}-retry-{attempt}"


def lock_workflow_id(lock_id: str) -> str:
    return f"funds-lock-{lock_id}"
