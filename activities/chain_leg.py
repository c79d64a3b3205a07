"""How a chain leg's failures reach Temporal, written once for the activities that settle a
record on chain (a transfer's, a withdrawal's): a record that does not exist and an op key
reused for other instructions are final; a receipt not readable yet is retried; a receipt that
does not match what was booked stops the record for an operator (money moved, but not as
recorded: it stays ``pending_onchain``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from temporalio.exceptions import ApplicationError

from chain.errors import ChainWriteConflict, ReceiptMismatch, ReceiptUnavailable


@contextmanager
def chain_leg(what: str, missing: type[Exception]) -> Iterator[None]:
    """Map the leg's errors; ``missing``: the service's "no such record" (for ``what``), whose
    name is the ApplicationError's type the workflow checks."""
    try:
        yield
    except missing as exc:
        raise ApplicationError(
            f"{what} not found", type=missing.__name__, non_retryable=True
        ) from exc
    except ChainWriteConflict as exc:
        raise ApplicationError(str(exc), type="ChainWriteConflict", non_retryable=True) from exc
    except ReceiptUnavailable as exc:
        raise ApplicationError(str(exc), type="ReceiptUnavailable") from exc
    except ReceiptMismatch as exc:
        raise ApplicationError(str(exc), type="ReceiptMismatch", non_retryable=True) from exc
