"""The view a re-sign or a cancel decides on: the finalized height, then signature statuses from
a node that has seen that height. Behind a load balancer the two reads may reach different
nodes; a lagging node does not know a signature that landed after its slot, and trusting its
"not found" could re-sign a write that already landed (two transfers) or cancel a transfer that
went through. Pure logic: the transport is a stand-in that answers as two such nodes would."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from chain.answers import SignatureStatus
from chain.errors import ChainUnavailable
from chain.reads import ChainReads

LANDED = {"slot": 120, "confirmations": None, "err": None, "confirmationStatus": "finalized"}


class TwoNodes:
    """getEpochInfo from a node at finalized slot 100 (height 98); getSignatureStatuses from a
    node whose context is ``status_slot``."""

    def __init__(self, status_slot: int) -> None:
        self.status_slot = status_slot

    async def call(self, method: str, params: Sequence[Any] = ()) -> Any:
        if method == "getEpochInfo":
            return {"blockHeight": 98, "absoluteSlot": 100}
        assert method == "getSignatureStatuses"
        signatures, config = params
        assert config == {"searchTransactionHistory": True}  # old attempts are looked up too
        value = [LANDED if self.status_slot >= 120 else None for _ in signatures]
        return {"context": {"slot": self.status_slot}, "value": value}


def reads(status_slot: int) -> ChainReads:
    rpc: Any = TwoNodes(status_slot)
    return ChainReads(rpc, "finalized", poll_interval=0.01)


SIGNATURE = "5" * 88


async def test_a_status_node_behind_the_finalized_slot_is_not_trusted() -> None:
    with pytest.raises(ChainUnavailable, match="behind the finalized slot 100"):
        await reads(status_slot=90).chain_view([SIGNATURE])


async def test_a_status_node_at_or_past_the_finalized_slot_is_trusted() -> None:
    height, statuses = await reads(status_slot=130).chain_view([SIGNATURE])
    assert height == 98 and statuses == [SignatureStatus(120, None, None, "finalized")]
    height, statuses = await reads(status_slot=100).chain_view([SIGNATURE])
    assert height == 98 and statuses == [None]  # seen the finalized slot: "not found" holds
