"""Errors of the chain: of the one transport (``chain/rpc.py``, its error map), the gateway and
the readers.

Callers (Temporal activities) decide on retries by class: ``ChainUnavailable`` is transient,
``ChainRejected`` is terminal for that op_key, the rest are programming or data errors. The API
answers ``ChainUnavailable`` with one 503 problem (``api/errors.py``).
"""

from __future__ import annotations


class ChainError(Exception):
    """Base class of every chain gateway error."""


class ChainUnavailable(ChainError):
    """The RPC node is down, slow or unhealthy. Retryable: the write records stay consistent."""


class ChainRateLimited(ChainUnavailable):
    """The RPC provider refused the request for its rate (HTTP 429). Retryable, not before
    ``retry_after`` seconds when the provider said (``Retry-After``; None when it did not)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ChainTimeout(ChainUnavailable):
    """A write did not reach the target commitment in time. Retryable: call await_final again."""


class ChainRpcError(ChainError):
    """The node answered a request with a JSON-RPC error (bad params, unsupported method...)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class AlreadyProcessed(ChainRpcError):
    """A send answered "This transaction has already been processed" (-32002, a preflight):
    the same signed bytes landed before. Not a failure: the signature's status decides."""


class BlockhashNotFound(ChainRpcError):
    """A send answered "Blockhash not found" (-32002, a preflight): the transaction's blockhash
    expired, or the answering node is behind and does not know it yet. Not a failure: the
    write protocol re-sends the same bytes while the finalized height allows, and re-signs only
    once it is past ``lastValidBlockHeight`` (docs/chain.md)."""


class ChainRejected(ChainError):
    """The transaction failed on chain (or in simulation before any send). Terminal."""

    def __init__(self, op_key: str, err: object, signature: str | None = None) -> None:
        super().__init__(f"chain write {op_key!r} failed: {err}")
        self.op_key = op_key
        self.err = err
        self.signature = signature


class InsufficientChainFunds(ChainRejected):
    """Rejected because a token account or the fee payer lacks funds."""


class ChainWriteConflict(ChainError):
    """The op_key is already used by a write with different instructions."""


class UnknownChainWrite(ChainError):
    """No write is recorded under this op_key."""


class WriteLanded(ChainError):
    """A signature of the write landed: it cannot be abandoned."""

    def __init__(self, op_key: str, status: str) -> None:
        super().__init__(f"chain write {op_key!r} landed on chain ({status})")
        self.status = status


class StillLandable(ChainError):
    """The write may still land: the finalized block height has not passed its
    lastValidBlockHeight yet."""

    def __init__(self, op_key: str, height: int, last_valid: int) -> None:
        super().__init__(
            f"chain write {op_key!r} can still land until block height {last_valid} is "
            f"finalized (now {height})"
        )
        self.height = height
        self.last_valid = last_valid


class MissingSigner(ChainError):
    """A transaction needs a signature from a key this gateway does not hold."""


class ReceiptMismatch(ChainError):
    """A finalized transaction did not move the expected token amounts. Terminal."""


class ReceiptUnavailable(ChainUnavailable):
    """The node could not return the transaction (yet). Retryable."""
