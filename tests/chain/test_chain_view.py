"""The view a re-sign or a cancel decides on: the finalized height, then signature statuses from
a node that has seen that height. Behind a load balancer the two reads may reach different
nodes; a lagging node does not know a signature that landed after its slot, and trusting its
"not found" could re-sign a write that already landed (two transfers) or cancel a transfer that
went through. Pure logic: the client is a stand-in that answers as two such nodes would."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from chain.errors import ChainUnavailable
from chain.reads import ChainReads

LANDED = SimpleNamespace(slot=120, err=None, confirmation_status="finalized")


class TwoNodes:
    """getEpochInfo from a node at finalized slot 100 (height 98); getSignatureStatuses from a
    node whose context is ``status_slot``."""

    def __init__(self, status_slot: int) -> None:
        self.status_slot = status_slot

    async def get_epoch_info(self, commitment: Any = None) -> Any:
        return SimpleNamespace(value=SimpleNamespace(block_height=98, absolute_slot=100))

    async def get_signature_statuses(
        self, signatures: Any, search_transaction_history: bool
    ) -> Any:
        assert search_transaction_history  # old attempts are looked up too
        value = [LANDED if self.status_slot >= 120 else None for _ in signatures]
        return SimpleNamespace(context=SimpleNamespace(slot=self.status_slot), value=value)


def reads(status_slot: int) -> ChainReads:
    client: Any = TwoNodes(status_slot)
    return ChainReads(client, "finalized", rpc_timeout=1.0, poll_interval=0.01)


SIGNATURE = "5" * 88


async def test_a_status_node_behind_the_finalized_slot_is_not_trusted() -> None:
    with pytest.raises(ChainUnavailable, match="behind the finalized slot 100"):
        await reads(status_slot=90).chain_view([SIGNATURE])


async def test_a_status_node_at_or_past_the_finalized_slot_is_trusted() -> None:
    height, statuses = await reads(status_slot=130).chain_view([SIGNATURE])
    assert height == 98 and statuses == [LANDED]
    height, statuses = await reads(status_slot=100).chain_view([SIGNATURE])
    assert height == 98 and statuses == [None]  # seen the finalized slot: "not found" holds
