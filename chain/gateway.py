"""The chain gateway: the only writer on chain, exactly once per caller-chosen op_key.

``ChainGateway`` is the one object callers hold, and its methods are their one door to the
chain: it is composed of three parts, each built alone and handed what it needs, and names
every public method of each; no caller reaches a part.

- ``chain/reads.py``: balances, mint info, account reads, signature statuses, transactions
  (receipts, the console's view), over the process's one transport (``chain/rpc.py``);
- ``chain/writes.py``: the exactly-once write protocol (sign, record before the first send,
  re-check status before re-sending, re-sign only after the blockhash expired) and the one
  rule of "can this write still land?" (``abandon``, for operator cancels): it decides;
- ``chain/write_record.py``: ``WriteRecord``, the one owner of a write's row and attempts (it
  moves as ``writes`` decides), and ``ChainWrite``, the snapshot callers see; the queries
  that find records are ``chain/tx_store.py``'s, signing is ``chain/signing.py``'s;
- ``chain/custody_writes.py``: mint decimals, custody accounts, custody transfers and mints,
  and transfers out of custody to a user's own wallet (withdrawals).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from solders.keypair import Keypair
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import cluster, tx_store
from chain.custody_writes import PACKET_DATA_SIZE, CustodyWrites
from chain.fees import FeeOracle, FeePolicy
from chain.keys import ChainKeys
from chain.reads import ChainReads
from chain.rpc import ChainRpc
from chain.transactions import ChainTx, TokenBalanceChange
from chain.write_record import FINAL_STATUSES, ChainWrite
from chain.writes import MAX_STATUS_BATCH, ChainWrites
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


class ChainGateway:
    """The chain's one door for callers: every public read and write is named here, by the part
    that answers it; the parts themselves are private (``docs/chain.md``, "One door")."""

    def __init__(
        self,
        settings: Settings,
        rpc: ChainRpc,
        keys: ChainKeys,
        sessions: async_sessionmaker[AsyncSession],
        *,
        resend_interval: float = 2.0,
        poll_interval: float = 0.2,
        simulate: bool = True,
        extra_signers: Sequence[Keypair] = (),
    ) -> None:
        # The MCC/MCD mints are settings (chain/cluster.py): custody follows the cluster's.
        mints = {c: cluster.mint(settings, c, keys) for c in ("MCC", "MCD")}
        # Its own programs map: filled from this cluster's mints (load_token_decimals).
        keys = replace(keys, mints={c: m for c, m in mints.items() if m is not None}, programs={})
        self._settings = settings
        self._keys = keys
        self._rpc = rpc
        reads = ChainReads(rpc, settings.chain_commitment, poll_interval=poll_interval)

        async def spent_today() -> int:
            midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            async with sessions() as session:
                return await tx_store.fees_since(session, midnight)

        policy = FeePolicy(
            percentile=settings.chain_fee_percentile,
            floor=settings.chain_fee_floor,
            ceiling=settings.chain_fee_ceiling,
            cu_margin=settings.chain_cu_margin,
            daily_budget=settings.chain_fee_daily_budget,
        )
        writes = ChainWrites(
            reads,
            rpc,
            keys,
            sessions,
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
            fees=FeeOracle(rpc, policy, spent_today),
        )
        custody = CustodyWrites(reads, writes, keys, sessions)

        # Reads: balances, mints, accounts, transactions (chain/reads.py).
        self.token_balance = reads.token_balance
        self.sol_balance = reads.sol_balance
        self.mint_info = reads.mint_info
        self.rent_exemption = reads.rent_exemption
        self.airdrop = reads.airdrop
        self.block_height = reads.block_height
        self.account = reads.account
        self.accounts = reads.accounts
        self.token_amounts = reads.token_amounts
        self.owned_token_amounts = reads.owned_token_amounts
        self.token_supply = reads.token_supply
        self.genesis_hash = reads.genesis_hash
        self.transaction = reads.transaction
        self.transaction_view = reads.transaction_view
        self.receipt = reads.receipt
        # Writes: the exactly-once protocol (chain/writes.py).
        self.prepare = writes.prepare
        self.submit = writes.submit
        self.advance = writes.advance
        self.await_final = writes.await_final
        self.get_write = writes.get_write
        self.check_many = writes.check_many
        self.open_writes = writes.open_writes
        self.abandon = writes.abandon
        # The signatures this process sent lately (chain/sent_here.py): the deposit follower
        # leaves their transactions unread.
        self.sent_here = writes.sent_here
        # Custody: mint decimals, custody accounts, custody transfers and mints
        # (chain/custody_writes.py).
        self.load_token_decimals = custody.load_token_decimals
        self.warm_up = custody.warm_up
        self.token_decimals = custody.token_decimals
        self.custody_address = custody.custody_address
        self.ensure_custody_account = custody.ensure_custody_account
        self.custody_origin = custody.custody_origin
        self.custody_balance = custody.custody_balance
        self.transfer_instruction = custody.transfer_instruction
        self.mint_instruction = custody.mint_instruction
        self.fits_one_transaction = custody.fits_one_transaction
        self.submit_transfers = custody.submit_transfers
        self.submit_mints = custody.submit_mints
        self.wallet_token_account = custody.wallet_token_account
        self.submit_to_wallet = custody.submit_to_wallet
        self.transfer = custody.transfer
        self.mint = custody.mint

    @property
    def rpc(self) -> ChainRpc:
        """The transport this gateway speaks through (the process's one: ``BlockReader`` and
        the chain views share it)."""
        return self._rpc

    @property
    def keys(self) -> ChainKeys:
        return self._keys

    @property
    def settings(self) -> Settings:
        return self._settings
