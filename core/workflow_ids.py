"""Every workflow id the gateway makes, in one place.

Each id is derived from what its workflow drives (a record's id, a request's idempotency key, a
task queue), never drawn at random: a retried start (the API's after its commit, the recovery
sweep's, a second worker's) then joins the workflow that runs instead of starting a second one.
The scheduled workflows have fixed ids (Temporal appends the time of each run).
"""

from __future__ import annotations

import hashlib

# -- records ---------------------------------------------------------------------------


def transfer_workflow_id(transfer_id: str) -> str:
    return f"transfer-{transfer_id}"


def transfer_retry_workflow_id(transfer_id: str, attempt: str) -> str:
    """An operator's restart of a transfer whose workflow is gone (``attempt``: a fresh token,
    so each deliberate restart is a run of its own; the workflow itself is idempotent)."""
    return f"{transfer_workflow_id(transfer_id)}-retry-{attempt}"


def withdrawal_workflow_id(withdrawal_id: str) -> str:
    return f"withdrawal-{withdrawal_id}"


def withdrawal_retry_workflow_id(withdrawal_id: str, attempt: str) -> str:
    """An operator's restart of a withdrawal whose workflow is gone (as for a transfer)."""
    return f"{withdrawal_workflow_id(withdrawal_id)}-retry-{attempt}"


def lock_workflow_id(lock_id: str) -> str:
    return f"funds-lock-{lock_id}"


def approval_workflow_id(application_id: str) -> str:
    """The approval of one application (a second approve joins it)."""
    return f"project-approval-{application_id}"


def whitelist_change_workflow_id(op_key: str) -> str:
    """The whitelist change ``op_key`` (the API's start and the recovery sweep's derive the same
    one, so a change never runs twice at once)."""
    return f"whitelist-change-{op_key}"


# -- requests --------------------------------------------------------------------------

# A mining submission's workflow is keyed by its request (one submission, or a batch of them).
MINING_PREFIX = "mining"
MINING_BATCH_PREFIX = "mining-batch"


def request_workflow_id(prefix: str, scope: str, key: str) -> str:
    """The workflow of one idempotent request, per (scope, key): a duplicate can never start
    a second one (api.idempotency.WriteContext.workflow_id)."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"{prefix}-{scope.replace(':', '')}-{digest}"


def is_mining_batch(workflow_id: str) -> bool:
    return workflow_id.startswith(f"{MINING_BATCH_PREFIX}-")


# -- one per task queue ----------------------------------------------------------------


def pump_workflow_id(task_queue: str) -> str:
    """The webhook delivery pump of ``task_queue``."""
    return f"webhook-pump-{task_queue}"


# -- scheduled (workflows.schedules) ---------------------------------------------------

RECONCILE_WORKFLOW_ID = "mccgw-reconcile"
RECOVERY_WORKFLOW_ID = "mccgw-recover"
HOUSEKEEPING_WORKFLOW_ID = "mccgw-housekeeping"
DAILY_KPI_WORKFLOW_ID = "mccgw-daily-kpi"
DEPOSIT_SCAN_WORKFLOW_ID = "mccgw-deposit-scan"
ORACLE_WORKFLOW_ID = "mccgw-oracle"
ORACLE_SAMPLE_WORKFLOW_ID = "mccgw-oracle-sample"
