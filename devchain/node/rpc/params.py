"""Parameter parsing shared by the method families, with the RPC's invalid-params (-32602)
answers: positional arguments, config objects, keys, signatures, slots and commitments."""

from __future__ import annotations

from typing import Any

from solders.pubkey import Pubkey
from solders.signature import Signature

from devchain.node.rpc.dispatch import Params, invalid
from devchain.node.svm import Commitment


def arg(params: Params, i: int) -> Any:
    if i >= len(params):
        raise invalid(f"missing parameter #{i}")
    return params[i]


def config(params: Params, i: int) -> dict[str, Any]:
    cfg = params[i] if i < len(params) else None
    if cfg is None:
        return {}
    if not isinstance(cfg, dict):
        raise invalid(f"parameter #{i} must be a config object")
    return cfg


def pubkey(value: Any) -> Pubkey:
    if not isinstance(value, str):
        raise invalid("Invalid param: expected a base58 public key string")
    try:
        return Pubkey.from_string(value)
    except ValueError as exc:
        raise invalid(f"Invalid param: {exc}") from exc


def signature(value: Any) -> str:
    if not isinstance(value, str):
        raise invalid("Invalid param: expected a signature string")
    try:
        return str(Signature.from_string(value))
    except ValueError as exc:
        raise invalid(f"Invalid param: {exc}") from exc


def slot_arg(params: Params, i: int, name: str) -> int:
    value = arg(params, i)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise invalid(f"{name} must be a non-negative integer")
    return value


def start_and_limit(params: Params, most: int, too_many: str) -> tuple[int, int]:
    """A range's ``start_slot`` and ``limit`` (``getBlocksWithLimit``, ``getSlotLeaders``),
    the limit at most ``most`` (else ``too_many``, as the validator words it)."""
    start = slot_arg(params, 0, "start_slot")
    limit = slot_arg(params, 1, "limit")
    if limit > most:
        raise invalid(f"{too_many}; max {most}")
    return start, limit


def commitment(cfg: dict[str, Any]) -> Commitment:
    try:
        return Commitment.parse(cfg.get("commitment"))
    except ValueError as exc:
        raise invalid(f"Invalid commitment: {cfg.get('commitment')!r}") from exc


def at_least_confirmed(cfg: dict[str, Any]) -> Commitment:
    c = commitment(cfg)
    if c is Commitment.PROCESSED:
        raise invalid("Method does not support commitment below `confirmed`")
    return c
