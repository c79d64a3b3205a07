"""The chain gateway: the only writer on chain, exactly once per caller-chosen op_key.

``ChainGateway`` is the one object callers hold; its parts live by job:

- ``chain/reads.py``: balances, mint info, account reads, signature statuses, history;
- ``chain/writes.py``: the exactly-once write protocol (sign, record before the first send,
  re-check status before re-sending, re-sign only after the blockhash expired);
- ``chain/write_record.py``: ``ChainWrite``, the snapshot of one write record;
- ``chain/custody_writes.py``: mint decimals, custody accounts, custody transfers and mints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import cluster
from chain.custody_writes import PACKET_DATA_SIZE, CustodyWrites
from chain.keys import ChainKeys
from chain.transactions import ChainTx, TokenBalanceChange
from chain.write_record import FINAL_STATUSES, ChainWrite
from chain.writes import MAX_STATUS_BATCH
from core.config import Settings

__all__ = [
    "FINAL_STATUSES",
    "MAX_STATUS_BATCH",
    "PACKET_DATA_SIZE",
    "ChainGateway",
    "ChainTx",
    "ChainWrite",
    "TokenBalanceChange",
]


class ChainGateway(CustodyWrites):
    def __init__(
        self,
        settings: Settings,
        client: AsyncClient,
        keys: ChainKeys,
        sessions: async_sessionmaker[AsyncSession],
        *,
        rpc_timeout: float = 10.0,
        resend_interval: float = 2.0,
        poll_interval: float = 0.2,
        max_poll_interval: float = 2.0,  # accepted for callers that pass it; the watcher polls
        simulate: bool = True,
        extra_signers: Sequence[Keypair] = (),
    ) -> None:
        # The MCC/MCD mints are settings (chain/cluster.py): custody follows the cluster's.
        mints = {c: cluster.mint(settings, c, keys) for c in ("MCC", "MCD")}
        # Its own programs map: filled from this cluster's mints (load_token_decimals).
        keys = replace(keys, mints={c: m for c, m in mints.items() if m is not None}, programs={})
        super().__init__(
            client,
            keys,
            sessions,
            settings.chain_commitment,
            rpc_timeout=rpc_timeout,
            poll_interval=poll_interval,
            resend_interval=resend_interval,
            simulate=simulate,
            signers=(
                keys.fee_payer,
                keys.mint_authority,
                keys.custody_authority,
                keys.whitelist_authority,
                keys.price_authority,
                *extra_signers,
            ),
        )
        self._settings = settings

    @property
    def keys(self) -> ChainKeys:
        return self._keys

    @property
    def settings(self) -> Settings:
        return self._settings
