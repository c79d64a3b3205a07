"""The chain gateway: the only writer on chain, exactly once per caller-chosen op_key.

A write is a list of instructions signed by gateway keys, identified by ``op_key``. Its life:

1. ``prepare``/``submit``: sign with a fresh blockhash and COMMIT the record (signature,
   lastValidBlockHeight, the exact transaction bytes) *before* the first send. A crash after
   that point leaves a record whose signature can be looked up on chain.
2. Every later step (``submit`` again, ``advance``, ``await_final``) locks the record and asks the
   chain first: landed -> never send again; not landed and the blockhash still valid -> re-send
   the SAME bytes (same signature, so it can land at most once); not landed and the blockhash
   provably expired -> re-sign with a new blockhash as a new attempt, persisted before sending.
3. Landed with an error is terminal (``failed``, error kept) and is never re-signed.

Everything needed to finish a write is in the database, so any process can resume it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from solana.exceptions import SolanaRpcException
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Commitment
from solana.rpc.core import RPCException
from solana.rpc.models import TxOpts
from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.system_program import ID as SYSTEM_PROGRAM_ID
from solders.transaction import VersionedTransaction
from solders.transaction_status import TransactionDetails, TransactionStatus
from spl.token.constants import ACCOUNT_LEN, MINT_LEN, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID
from sqlalchemy import func
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import ecosystem, tx_store
from chain.custody import (
    CustodyMint,
    CustodyTransfer,
    create_custody_instructions,
    custody_address,
    mint_instruction,
    parse_token_account,
    transfer_instruction,
)
from chain.decimals import TokenDecimals
from chain.errors import (
    ChainError,
    ChainRejected,
    ChainRpcError,
    ChainTimeout,
    ChainUnavailable,
    ChainWriteConflict,
    InsufficientChainFunds,
    MissingSigner,
    UnknownChainWrite,
)
from chain.keys import ChainKeys
from chain.watcher import FinalityWatcher
from core.config import Settings
from db.models.chain import ChainTransaction, ChainTxAttempt, MintDecimals

log = logging.getLogger(__name__)

T = TypeVar("T")

FINAL_STATUSES = ("succeeded", "failed")
_RANK = {"processed": 0, "confirmed": 1, "finalized": 2}
MAX_STATUS_BATCH = 256  # getSignatureStatuses accepts at most 256 signatures per call
PACKET_DATA_SIZE = 1232  # the largest serialized transaction a Solana node accepts
_ZERO_HASH = Hash.default()
# JSON-RPC codes that mean "node not ready", not "your request is wrong".
_TRANSIENT_RPC_CODES = {-32004, -32005, -32007, -32014, -32016}
_TOKEN_PROGRAMS = (TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID)


@dataclass(frozen=True)
class ChainWrite:
    """A snapshot of one write record, safe to hand across activities (plain values)."""

    op_key: str
    kind: str
    status: str  # signed | sent | landed | succeeded | failed
    signature: str
    attempt: int
    previous_signatures: tuple[str, ...]
    blockhash: str
    last_valid_block_height: int
    commitment: str
    confirmation_status: str | None
    slot: int | None
    block_height: int | None
    err: Any
    send_count: int
    insufficient_funds: bool = False

    @property
    def final(self) -> bool:
        return self.status in FINAL_STATUSES

    @property
    def succeeded(self) -> bool:
        return self.status == "succeeded"

    def raise_for_failure(self) -> ChainWrite:
        if self.status == "failed":
            cls = InsufficientChainFunds if self.insufficient_funds else ChainRejected
            raise cls(self.op_key, self.err, self.signature)
        return self


@dataclass(frozen=True)
class TokenBalanceChange:
    account: str
    mint: str
    owner: str | None
    pre: int
    post: int


@dataclass(frozen=True)
class ChainTxInfo:
    """One transaction touching an address, for history pages."""

    signature: str
    slot: int
    block_time: int | None
    err: Any
    confirmation_status: str | None
    fee: int | None
    token_changes: tuple[TokenBalanceChange, ...]


@dataclass(frozen=True)
class _Send:
    signature: str
    tx_bytes: bytes


class ChainGateway:
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
        max_poll_interval: float = 2.0,
        simulate: bool = True,
        extra_signers: Sequence[Keypair] = (),
    ) -> None:
        self._client = client
        # The MCC/MCD mints are settings (chain/ecosystem.py): custody follows the cluster's.
        mints = {c: ecosystem.mint(settings, c, keys) for c in ("MCC", "MCD")}
        keys = replace(keys, mints={c: m for c, m in mints.items() if m is not None})
        self._keys = keys
        self._settings = settings
        self._sessions = sessions
        self._commitment: str = settings.chain_commitment
        # Read from the mints (load_token_decimals), never assumed: see chain/decimals.py.
        self._token_decimals: TokenDecimals | None = None
        self._rpc_timeout = rpc_timeout
        self._resend_interval = resend_interval
        self._poll_interval = poll_interval
        self._max_poll_interval = max_poll_interval
        # Simulating before the first persist rejects doomed writes without paying a fee.
        self._simulate = simulate
        self._signers: dict[Pubkey, Keypair] = {
            kp.pubkey(): kp
            for kp in (
                keys.fee_payer,
                keys.mint_authority,
                keys.custody_authority,
                keys.whitelist_authority,
                keys.price_authority,
                *extra_signers,
            )
        }
        self._rent: int | None = None
        # Custody accounts seen to exist: never closed, so one lookup per process is enough.
        self._custody_known: set[Pubkey] = set()
        self._addresses: dict[tuple[str, str], Pubkey] = {}
        self._watcher: FinalityWatcher | None = None
        self._slot_heights: dict[int, int] = {}
        self._get_block_supported = True

    @property
    def keys(self) -> ChainKeys:
        return self._keys

    @property
    def settings(self) -> Settings:
        return self._settings

    # ------------------------------------------------------------- decimals

    async def load_token_decimals(self, *, stored: bool = True) -> TokenDecimals:
        """Decimals of the MCC and MCD mints as the chain has them (read once per process);
        ``stored``: while the chain is unreachable, the values kept from an earlier read."""
        if self._token_decimals is None:
            found: dict[str, int] = {}
            for currency in ("MCC", "MCD"):
                found[currency.lower()] = await self._mint_decimals(currency, stored)
            self._token_decimals = TokenDecimals(**found)
            log.info("token decimals of the mints: %s", self._token_decimals)
        return self._token_decimals

    async def _mint_decimals(self, currency: str, stored: bool) -> int:
        """From the chain (and kept in ``mint_decimals``); while the chain is unreachable, the
        value read earlier for the same mint address (a mint's decimals never change)."""
        mint = self._keys.mint_for(currency)
        try:
            info = await self.mint_info(mint)
        except ChainUnavailable:
            if not stored:
                raise
            async with self._sessions() as session:
                kept = await session.get(MintDecimals, str(mint))
            if kept is None:
                raise
            return kept.decimals
        if info is None:
            raise ChainError(f"the {currency} mint {mint} does not exist on this cluster")
        async with self._sessions() as session:
            await session.execute(
                pg_insert(MintDecimals)
                .values(mint=str(mint), decimals=info[1])
                .on_conflict_do_update(
                    index_elements=["mint"], set_={"decimals": info[1], "read_at": func.now()}
                )
            )
            await session.commit()
        return info[1]

    async def warm_up(self, retry_interval: float = 2.0) -> None:
        """Start-up: read the mints' decimals, retrying while the chain is unreachable (run as
        a background task, so a process starts even while its chain is down)."""
        stored = True  # the database once; then only the chain, backing off to 30 s
        delay = retry_interval
        while True:
            try:
                await self.load_token_decimals(stored=stored)
                return
            except ChainError as exc:  # unreachable, or a mint not created yet (chain-init)
                log.warning("token decimals not read yet (%s); retrying", exc)
            except DBAPIError as exc:
                log.warning("kept token decimals unreadable (%s); retrying", exc)
            stored = False
            await asyncio.sleep(delay)
            delay = min(delay * 2, max(retry_interval, 30.0))

    def decimals(self, currency: str | None = None) -> int:
        """The decimals of ``currency``'s mint, or (None) the one value both share; raises
        ChainUnavailable until they have been read from the chain."""
        if self._token_decimals is None:
            raise ChainUnavailable("token decimals not read from the chain yet")
        if currency is None:
            return self._token_decimals.common()
        return self._token_decimals.of(currency)

    # ------------------------------------------------------------------ writes

    async def prepare(
        self,
        op_key: str,
        instructions: Sequence[Instruction],
        *,
        kind: str = "generic",
        meta: dict[str, Any] | None = None,
    ) -> ChainWrite:
        """Sign and durably record a write without sending it (idempotent per op_key).

        ``submit`` is ``prepare`` + send; a caller that crashes between the two leaves exactly
        this state behind, which any later ``submit``/``advance``/``await_final`` completes.
        """
        write, _ = await self._prepare(op_key, instructions, kind, meta)
        return write

    async def submit(
        self,
        op_key: str,
        instructions: Sequence[Instruction],
        *,
        kind: str = "generic",
        meta: dict[str, Any] | None = None,
    ) -> ChainWrite:
        """Persist (first call) then send; on later calls check the chain before anything else.

        Idempotent: the same op_key never produces a second landed transaction. Raises
        ``ChainWriteConflict`` if op_key was used for different instructions.
        """
        write, send = await self._prepare(op_key, instructions, kind, meta)
        if send is not None:
            write = await self._send(write, send)
        return write

    async def advance(self, op_key: str) -> ChainWrite:
        """One step towards a final state, from the DB record alone (status check first)."""
        async with self._sessions() as session:
            row = await tx_store.get(session, op_key, for_update=True)
            if row is None:
                raise UnknownChainWrite(op_key)
            write, send = await self._advance_locked(session, row)
        if send is not None:
            write = await self._send(write, send)
        return write

    # A deadline parameter rather than asyncio.timeout: expiry must not cancel a step halfway
    # through its DB transaction, and must surface as the retryable ChainTimeout.
    async def await_final(
        self,
        op_key: str,
        timeout: float = 60.0,  # noqa: ASYNC109
        *,
        just_sent: bool = False,
    ) -> ChainWrite:
        """Drive the write to ``succeeded`` or ``failed`` (returned, not raised).

        Re-broadcasts while the blockhash is valid and re-signs after it expired, so a fresh
        process can finish a write another one started. Raises ``ChainTimeout`` (retryable).
        After a first step of its own (skipped when the caller ``just_sent`` it: nothing can have
        changed), the write joins this process's finality watcher, which checks every awaited
        write with one batched status call per tick.
        """
        if not just_sent:
            write = await self.advance(op_key)
            if write.final:
                return write
        if self._watcher is None:
            self._watcher = FinalityWatcher(self, self._poll_interval)
        return await self._watcher.wait(op_key, timeout)

    async def get_write(self, op_key: str) -> ChainWrite:
        """The stored record as it is, without asking the chain."""
        async with self._sessions() as session:
            row = await tx_store.get(session, op_key)
            if row is None:
                raise UnknownChainWrite(op_key)
            return _snapshot(row, await tx_store.attempts(session, row.id))

    async def check_many(
        self, op_keys: Sequence[str], *, drive: bool = True
    ) -> dict[str, ChainWrite]:
        """Status of many writes with one getSignatureStatuses call per 256 signatures.

        Landed/final states are persisted. With ``drive`` the writes that have not landed get
        one ``advance`` each (re-send if due, re-sign if expired). Unknown op_keys are omitted.
        """
        result: dict[str, ChainWrite] = {}
        not_landed: list[str] = []
        async with self._sessions() as session:
            rows = await tx_store.get_many(session, op_keys, for_update=True)
            open_rows = [r for r in rows if r.status not in FINAL_STATUSES]
            for start in range(0, len(open_rows), MAX_STATUS_BATCH):
                chunk = open_rows[start : start + MAX_STATUS_BATCH]
                statuses = await self._statuses([r.signature for r in chunk])
                for row, status in zip(chunk, statuses, strict=True):
                    if status is not None:
                        await self._apply_status(session, row, row.attempt, status)
                    else:
                        not_landed.append(row.op_key)
            attempts = await tx_store.attempts_for(session, [r.id for r in rows])
            for row in rows:
                result[row.op_key] = _snapshot(row, attempts.get(row.id, []))
            await session.commit()
        if drive:
            for op_key in not_landed:
                result[op_key] = await self.advance(op_key)
        return result

    async def open_writes(self, limit: int = 256) -> list[str]:
        """op_keys not yet final, oldest first (for a sweeper after crashes)."""
        async with self._sessions() as session:
            return await tx_store.list_open(session, limit)

    # -------------------------------------------------------- custody writes

    def custody_address(self, uid: str, currency: str) -> Pubkey:
        # Derived (sha256 + create_with_seed) on every instruction, receipt and pack: memoised.
        key = (uid, currency.upper())
        address = self._addresses.get(key)
        if address is None:
            if len(self._addresses) >= 100_000:
                self._addresses.clear()
            address = self._addresses[key] = custody_address(self._keys, uid, currency)
        return address

    async def ensure_custody_account(
        self,
        uid: str,
        currency: str,
        timeout: float = 60.0,  # noqa: ASYNC109 (passed on to await_final)
    ) -> Pubkey:
        """Create the user's custody account for the currency if missing; idempotent."""
        await self.load_token_decimals()  # every later write of this process needs them
        address = self.custody_address(uid, currency)
        if address in self._custody_known:
            return address
        if await self._account(address, self._commitment) is not None:
            self._custody_known.add(address)
            return address
        op_key = f"custody:{address}"
        instructions = create_custody_instructions(
            self._keys, uid, currency, await self._rent_exemption()
        )
        meta = {"uid": uid, "currency": currency.upper(), "address": str(address)}
        await self.submit(op_key, instructions, kind="custody", meta=meta)
        write = await self.await_final(op_key, timeout)
        if write.status == "failed":
            # Created by some other path (e.g. before this database existed): fine if it is ours.
            state = await self._token_account(address, "processed")
            if state is None or state.owner != self._keys.custody_authority.pubkey():
                write.raise_for_failure()
        self._custody_known.add(address)
        return address

    def transfer_instruction(self, transfer: CustodyTransfer) -> Instruction:
        return transfer_instruction(
            self._keys,
            transfer,
            self.decimals(transfer.currency),
            source=self.custody_address(transfer.from_uid, transfer.currency),
            dest=self.custody_address(transfer.to_uid, transfer.currency),
        )

    def transaction_size(self, instructions: Sequence[Instruction]) -> int:
        """Bytes of the signed transaction these instructions make (the blockhash and the
        signatures have fixed sizes, so a placeholder blockhash gives the exact figure)."""
        message = Message.new_with_blockhash(
            list(instructions), self._keys.fee_payer.pubkey(), _ZERO_HASH
        )
        signers = message.header.num_required_signatures
        return len(bytes(message)) + 1 + 64 * signers

    def fits_one_transaction(self, instructions: Sequence[Instruction]) -> bool:
        """Whether these instructions fit in one transaction (PACKET_DATA_SIZE)."""
        return self.transaction_size(instructions) <= PACKET_DATA_SIZE

    def mint_instruction(self, mint: CustodyMint) -> Instruction:
        return mint_instruction(
            self._keys, mint, dest=self.custody_address(mint.to_uid, mint.currency)
        )

    async def submit_transfers(
        self, op_key: str, transfers: Sequence[CustodyTransfer], *, kind: str = "transfer"
    ) -> ChainWrite:
        """Several custody transfers in ONE transaction (all land or none)."""
        await self.load_token_decimals()
        meta = {
            "transfers": [
                {
                    "currency": t.currency.upper(),
                    "from_uid": t.from_uid,
                    "to_uid": t.to_uid,
                    "amount": str(t.amount),
                }
                for t in transfers
            ]
        }
        instructions = [self.transfer_instruction(t) for t in transfers]
        return await self.submit(op_key, instructions, kind=kind, meta=meta)

    async def submit_mints(
        self, op_key: str, mints: Sequence[CustodyMint], *, kind: str = "mint"
    ) -> ChainWrite:
        """Several mint_to into custody accounts in ONE transaction."""
        meta = {
            "mints": [
                {"currency": m.currency.upper(), "to_uid": m.to_uid, "amount": str(m.amount)}
                for m in mints
            ]
        }
        instructions = [self.mint_instruction(m) for m in mints]
        return await self.submit(op_key, instructions, kind=kind, meta=meta)

    async def transfer(
        self,
        op_key: str,
        currency: str,
        from_uid: str,
        to_uid: str,
        amount: int,
        timeout: float = 60.0,  # noqa: ASYNC109 (passed on to await_final)
    ) -> ChainWrite:
        """Submit one custody transfer and wait for it; raises ``ChainRejected`` on failure."""
        await self.submit_transfers(op_key, [CustodyTransfer(currency, from_uid, to_uid, amount)])
        return (await self.await_final(op_key, timeout)).raise_for_failure()

    async def mint(
        self,
        op_key: str,
        to_uid: str,
        amount: int,
        currency: str = "MCD",
        timeout: float = 60.0,  # noqa: ASYNC109 (passed on to await_final)
    ) -> ChainWrite:
        """Mint into a custody account and wait for it; raises ``ChainRejected`` on failure."""
        await self.submit_mints(op_key, [CustodyMint(currency, to_uid, amount)])
        return (await self.await_final(op_key, timeout)).raise_for_failure()

    # ------------------------------------------------------------------ reads

    async def token_balance(self, address: Pubkey | str, commitment: str | None = None) -> int:
        """Base units held by a token account; 0 if the account does not exist."""
        state = await self._token_account(_pubkey(address), commitment or self._commitment)
        return 0 if state is None else state.amount

    async def custody_balance(self, uid: str, currency: str, commitment: str | None = None) -> int:
        return await self.token_balance(self.custody_address(uid, currency), commitment)

    async def sol_balance(self, address: Pubkey | str, commitment: str | None = None) -> int:
        """Lamports of any account (0 if it does not exist)."""
        resp = await self._rpc(
            "getBalance",
            self._client.get_balance(_pubkey(address), Commitment(commitment or self._commitment)),
        )
        return int(resp.value)

    async def mint_info(
        self, mint: Pubkey | str, commitment: str | None = None
    ) -> tuple[Pubkey | None, int] | None:
        """(mint authority, decimals) of an SPL mint, or None when the account does not exist."""
        account = await self._account(_pubkey(mint), commitment or self._commitment)
        if account is None:
            return None
        data = bytes(account.data)
        if account.owner not in _TOKEN_PROGRAMS or len(data) < MINT_LEN:
            raise ChainError(f"{mint} is not an SPL mint")
        # Mint layout: COption<authority> (4 + 32), supply (8), decimals (1), ...
        has_authority = int.from_bytes(data[0:4], "little") == 1
        return (Pubkey.from_bytes(data[4:36]) if has_authority else None), data[44]

    async def rent_exemption(self, size: int) -> int:
        resp = await self._rpc(
            "getMinimumBalanceForRentExemption",
            self._client.get_minimum_balance_for_rent_exemption(size),
        )
        return int(resp.value)

    async def airdrop(self, address: Pubkey | str, lamports: int, timeout: float = 60.0) -> str:  # noqa: ASYNC109
        """Faucet SOL on a development cluster and wait for it at the gateway's commitment."""
        resp = await self._rpc(
            "requestAirdrop", self._client.request_airdrop(_pubkey(address), lamports)
        )
        signature = str(resp.value)
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            (status,) = await self._statuses([signature])
            level = _status_name(status.confirmation_status) if status else None
            if status is not None and level is not None and _RANK[level] >= _RANK[self._commitment]:
                if status.err is not None:
                    raise ChainRejected(f"airdrop:{address}", status.err, signature)
                return signature
            await asyncio.sleep(self._poll_interval)
        raise ChainTimeout(f"airdrop {signature} not {self._commitment} after {timeout:.0f}s")

    async def block_height(self, commitment: str | None = None) -> int:
        resp = await self._rpc(
            "getBlockHeight",
            self._client.get_block_height(Commitment(commitment or self._commitment)),
        )
        return int(resp.value)

    async def history(
        self,
        address: Pubkey | str,
        *,
        before: str | None = None,
        limit: int = 20,
        commitment: str | None = None,
    ) -> list[ChainTxInfo]:
        """Transactions touching an address, newest first; page with ``before`` = last signature."""
        # getSignaturesForAddress does not accept "processed".
        level = Commitment(
            "finalized" if (commitment or self._commitment) == "finalized" else "confirmed"
        )
        sigs = await self._rpc(
            "getSignaturesForAddress",
            self._client.get_signatures_for_address(
                _pubkey(address),
                before=Signature.from_string(before) if before else None,
                limit=max(1, min(limit, 1000)),
                commitment=level,
            ),
        )
        entries = list(sigs.value)
        txs = await asyncio.gather(
            *(
                self._rpc(
                    "getTransaction",
                    self._client.get_transaction(
                        e.signature, "json", level, max_supported_transaction_version=0
                    ),
                )
                for e in entries
            )
        )
        out: list[ChainTxInfo] = []
        for entry, tx in zip(entries, txs, strict=True):
            body: dict[str, Any] = json.loads(tx.value.to_json()) if tx.value is not None else {}
            meta = (body.get("transaction") or {}).get("meta") or body.get("meta") or {}
            out.append(
                ChainTxInfo(
                    signature=str(entry.signature),
                    slot=int(entry.slot),
                    block_time=entry.block_time,
                    err=_json_err(entry),
                    confirmation_status=_status_name(entry.confirmation_status),
                    fee=meta.get("fee"),
                    token_changes=_token_changes(body, meta),
                )
            )
        return out

    # ------------------------------------------------------------- internals

    async def _prepare(
        self,
        op_key: str,
        instructions: Sequence[Instruction],
        kind: str,
        meta: dict[str, Any] | None,
    ) -> tuple[ChainWrite, _Send | None]:
        if not instructions:
            raise ValueError("a chain write needs at least one instruction")
        payload_hash = _payload_hash(instructions)
        for _ in range(3):
            async with self._sessions() as session:
                row = await tx_store.get(session, op_key, for_update=True)
                if row is not None:
                    if row.payload_hash != payload_hash:
                        raise ChainWriteConflict(f"{op_key!r} was used for other instructions")
                    return await self._advance_locked(session, row)
                blockhash, last_valid = await self._latest_blockhash()
                message = Message.new_with_blockhash(
                    list(instructions), self._keys.fee_payer.pubkey(), blockhash
                )
                tx = self._sign(message)
                sim_err = await self._simulation_error(tx) if self._simulate else None
                try:
                    row = await tx_store.insert(
                        session,
                        op_key=op_key,
                        kind=kind,
                        commitment=self._commitment,
                        payload_hash=payload_hash,
                        fee_payer=str(self._keys.fee_payer.pubkey()),
                        signature=str(tx.signatures[0]),
                        blockhash=str(blockhash),
                        last_valid_block_height=last_valid,
                        tx_bytes=bytes(tx),
                        meta=meta or {},
                    )
                except IntegrityError:
                    # A concurrent submit of the same op_key won the insert; use its record.
                    await session.rollback()
                    continue
                if sim_err is not None:
                    # Never sent, so it can never land: terminal without touching the chain.
                    _finish(row, "failed", err=sim_err)
                    await tx_store.set_attempt_status(session, row.id, 1, "failed")
                    await session.commit()
                    return _snapshot(row, []), None
                # The one commit a repository caller does mid-operation: the signed bytes MUST
                # be durable before the first send, or a crash could lead to a second signature.
                await session.commit()
                return _snapshot(row, []), _Send(row.signature, row.tx_bytes)
        raise ChainError(f"could not record chain write {op_key!r}")

    async def _advance_locked(
        self, session: AsyncSession, row: ChainTransaction
    ) -> tuple[ChainWrite, _Send | None]:
        """Decide the next step for a locked record; commits (releasing the lock) before return."""
        attempts = await tx_store.attempts(session, row.id)
        if row.status in FINAL_STATUSES:
            return _snapshot(row, attempts), None
        # Height BEFORE statuses: once the finalized height is past lastValidBlockHeight no block
        # that could still include the attempt can appear, so "not found" after it is final.
        height = await self.block_height("finalized")
        live = [a for a in attempts if a.status != "expired"] or attempts
        statuses = await self._statuses([a.signature for a in live])
        landed = [(a, s) for a, s in zip(live, statuses, strict=True) if s is not None]
        send: _Send | None = None
        if landed:
            attempt, status = landed[-1]
            if attempt.attempt != row.attempt:
                # Should be impossible (we re-sign only after expiry); trust the chain anyway.
                log.error("older attempt %s of %r landed", attempt.attempt, row.op_key)
                _make_current(row, attempt)
            await self._apply_status(session, row, attempt.attempt, status)
        elif height > row.last_valid_block_height:
            if row.status == "landed":
                log.warning("%r: landed attempt vanished (fork); re-signing", row.op_key)
            blockhash, last_valid = await self._latest_blockhash()
            old = VersionedTransaction.from_bytes(row.tx_bytes).message
            header = old.header
            tx = self._sign(
                Message.new_with_compiled_instructions(
                    header.num_required_signatures,
                    header.num_readonly_signed_accounts,
                    header.num_readonly_unsigned_accounts,
                    old.account_keys,
                    blockhash,
                    old.instructions,
                )
            )
            log.info(
                "%r: blockhash expired unlanded, re-signing attempt %d", row.op_key, row.attempt + 1
            )
            await tx_store.add_attempt(
                session,
                row,
                signature=str(tx.signatures[0]),
                blockhash=str(blockhash),
                last_valid_block_height=last_valid,
                tx_bytes=bytes(tx),
            )
            attempts = await tx_store.attempts(session, row.id)
            send = _Send(row.signature, row.tx_bytes)
        else:
            if row.status == "landed":  # its fork was dropped; the same bytes may still land
                row.status = "sent"
                row.slot = None
                row.confirmation_status = None
            if row.status == "signed" or _resend_due(row.last_sent_at, self._resend_interval):
                send = _Send(row.signature, row.tx_bytes)
        await session.commit()
        return _snapshot(row, attempts), send

    async def _apply_status(
        self, session: AsyncSession, row: ChainTransaction, attempt: int, status: TransactionStatus
    ) -> None:
        level = _status_name(status.confirmation_status) or (
            "finalized" if status.confirmations is None else "processed"
        )
        row.slot = int(status.slot)
        row.confirmation_status = level
        reached = _RANK[level] >= _RANK[row.commitment]
        if not reached:
            # An error seen below the target commitment may be on a fork: not yet terminal.
            row.status = "landed"
            await tx_store.set_attempt_status(session, row.id, attempt, "landed")
            return
        if status.err is not None:
            _finish(row, "failed", err=_json_err(status))
            await tx_store.set_attempt_status(session, row.id, attempt, "failed")
            log.warning("chain write %r failed on chain: %s", row.op_key, row.err)
        else:
            _finish(row, "succeeded")
            await tx_store.set_attempt_status(session, row.id, attempt, "succeeded")
        row.block_height = await self._slot_block_height(row.slot)

    async def _send(self, write: ChainWrite, send: _Send) -> ChainWrite:
        error: str | None = None
        try:
            # No preflight: we simulated before persisting, and a re-sent transaction that already
            # landed would fail preflight spuriously. Confirmation is ours, not the client's.
            await self._rpc(
                "sendTransaction",
                self._client.send_raw_transaction(
                    send.tx_bytes, TxOpts(skip_preflight=True, skip_confirmation=True)
                ),
            )
        except ChainRpcError as exc:
            # Not terminal: only the signature's status on chain decides the outcome.
            error = str(exc)
            log.warning("send of %r (%s) answered: %s", write.op_key, send.signature, error)
        async with self._sessions() as session:
            await tx_store.record_send(
                session, write.op_key, send.signature, error, datetime.now(UTC)
            )
            await session.commit()
        status = "sent" if write.status == "signed" else write.status
        return replace(write, status=status, send_count=write.send_count + 1)

    def _sign(self, message: Message) -> VersionedTransaction:
        needed = message.account_keys[: message.header.num_required_signatures]
        missing = [str(k) for k in needed if k not in self._signers]
        if missing:
            raise MissingSigner(f"no keypair for required signer(s) {missing}")
        return VersionedTransaction(message, [self._signers[k] for k in needed])

    async def _simulation_error(self, tx: VersionedTransaction) -> Any:
        """The error a deterministic failure would land with, or None to go ahead and send."""
        try:
            resp = await self._rpc(
                "simulateTransaction",
                self._client.simulate_transaction(tx, commitment=Commitment("processed")),
            )
        except ChainRpcError as exc:
            log.info("simulation unavailable (%s); sending unsimulated", exc)
            return None
        value = resp.value
        if value is None or value.err is None:
            return None
        err = json.loads(value.to_json()).get("err")
        # Only program errors and missing funds are properties of the transaction; e.g.
        # BlockhashNotFound is about a lagging node and must not fail the write.
        if isinstance(err, dict) and "InstructionError" in err:
            return err
        if isinstance(err, str) and err.startswith("InsufficientFunds"):
            return err
        return None

    async def _latest_blockhash(self) -> tuple[Hash, int]:
        resp = await self._rpc(
            "getLatestBlockhash", self._client.get_latest_blockhash(Commitment("confirmed"))
        )
        return resp.value.blockhash, int(resp.value.last_valid_block_height)

    async def _statuses(self, signatures: Sequence[str]) -> list[TransactionStatus | None]:
        if not signatures:
            return []
        resp = await self._rpc(
            "getSignatureStatuses",
            self._client.get_signature_statuses(
                [Signature.from_string(s) for s in signatures], search_transaction_history=True
            ),
        )
        return list(resp.value)

    async def _slot_block_height(self, slot: int) -> int | None:
        # Best effort: nice for audits, not needed for correctness (a node may lack getBlock).
        # A batch of writes finalizes in few slots, so a small cache saves most calls.
        if slot in self._slot_heights:
            return self._slot_heights[slot]
        if not self._get_block_supported:
            return None
        try:
            resp = await self._rpc(
                "getBlock",
                self._client.get_block(
                    slot,
                    max_supported_transaction_version=0,
                    transaction_details=TransactionDetails.None_,
                    rewards=False,
                    commitment=Commitment("confirmed"),
                ),
            )
        except ChainRpcError as exc:
            if exc.code == -32601:  # method not found: stop asking this node
                self._get_block_supported = False
            return None
        except ChainError:
            return None
        height = resp.value.block_height if resp.value is not None else None
        if height is None:
            return None
        if len(self._slot_heights) >= 1024:
            self._slot_heights.clear()
        self._slot_heights[slot] = int(height)
        return int(height)

    async def _account(self, address: Pubkey, commitment: str) -> Any:
        resp = await self._rpc(
            "getAccountInfo", self._client.get_account_info(address, Commitment(commitment))
        )
        return resp.value

    async def _token_account(self, address: Pubkey, commitment: str) -> Any:
        account = await self._account(address, commitment)
        if account is None:
            return None
        if account.owner not in _TOKEN_PROGRAMS:
            raise ChainError(f"{address} is not a token account")
        return parse_token_account(bytes(account.data))

    async def _rent_exemption(self) -> int:
        if self._rent is None:
            resp = await self._rpc(
                "getMinimumBalanceForRentExemption",
                self._client.get_minimum_balance_for_rent_exemption(ACCOUNT_LEN),
            )
            self._rent = int(resp.value)
        return self._rent

    async def _rpc(self, what: str, call: Awaitable[T]) -> T:
        """Map transport and node errors onto the gateway's retryable/terminal classes."""
        try:
            return await asyncio.wait_for(call, self._rpc_timeout)
        except RPCException as exc:
            detail = exc.args[0] if exc.args else exc
            code = getattr(detail, "code", None)
            message = f"{what}: {getattr(detail, 'message', detail)}"
            if code in _TRANSIENT_RPC_CODES:
                raise ChainUnavailable(message) from exc
            raise ChainRpcError(message, code) from exc
        except (SolanaRpcException, OSError, TimeoutError) as exc:
            raise ChainUnavailable(f"{what}: {exc!r}") from exc


# ---------------------------------------------------------------------- helpers


def _pubkey(address: Pubkey | str) -> Pubkey:
    return address if isinstance(address, Pubkey) else Pubkey.from_string(address)


def _payload_hash(instructions: Sequence[Instruction]) -> str:
    digest = hashlib.sha256()
    for ix in instructions:
        blob = bytes(ix)
        digest.update(len(blob).to_bytes(4, "little") + blob)
    return digest.hexdigest()


def _resend_due(last_sent_at: datetime | None, interval: float) -> bool:
    if last_sent_at is None:
        return True
    return (datetime.now(UTC) - last_sent_at).total_seconds() >= interval


def _finish(row: ChainTransaction, status: str, err: Any = None) -> None:
    row.status = status
    row.err = err
    row.completed_at = datetime.now(UTC)


def _make_current(row: ChainTransaction, attempt: ChainTxAttempt) -> None:
    row.attempt = attempt.attempt
    row.signature = attempt.signature
    row.blockhash = attempt.blockhash
    row.last_valid_block_height = attempt.last_valid_block_height
    row.tx_bytes = attempt.tx_bytes


def _status_name(status: object) -> str | None:
    if status is None:
        return None
    name = str(status).rsplit(".", 1)[-1].lower()
    return name if name in _RANK else None


def _json_err(obj: Any) -> Any:
    if getattr(obj, "err", None) is None:
        return None
    return json.loads(obj.to_json()).get("err")


def _insufficient(err: Any, tx_bytes: bytes) -> bool:
    if isinstance(err, str):
        return err.startswith("InsufficientFunds")
    if not (isinstance(err, dict) and "InstructionError" in err):
        return False
    index, detail = err["InstructionError"]
    if detail != {"Custom": 1}:
        return False
    # Custom(1) is InsufficientFunds in SPL Token and ResultWithNegativeLamports in System.
    message = VersionedTransaction.from_bytes(tx_bytes).message
    ix = message.instructions[index]
    program = message.account_keys[ix.program_id_index]
    return program in _TOKEN_PROGRAMS or program == SYSTEM_PROGRAM_ID


def _snapshot(row: ChainTransaction, attempts: Sequence[ChainTxAttempt]) -> ChainWrite:
    return ChainWrite(
        op_key=row.op_key,
        kind=row.kind,
        status=row.status,
        signature=row.signature,
        attempt=row.attempt,
        previous_signatures=tuple(a.signature for a in attempts if a.attempt != row.attempt),
        blockhash=row.blockhash,
        last_valid_block_height=row.last_valid_block_height,
        commitment=row.commitment,
        confirmation_status=row.confirmation_status,
        slot=row.slot,
        block_height=row.block_height,
        err=row.err,
        send_count=row.send_count or 0,
        insufficient_funds=row.status == "failed" and _insufficient(row.err, row.tx_bytes),
    )


def _token_changes(body: dict[str, Any], meta: dict[str, Any]) -> tuple[TokenBalanceChange, ...]:
    # The RPC nests {"transaction": {"signatures", "message"}, "meta"}; some encoders add a level.
    encoded = body.get("transaction") or {}
    message = encoded.get("message") or (encoded.get("transaction") or {}).get("message") or {}
    keys: list[str] = [
        k if isinstance(k, str) else k.get("pubkey", "") for k in message.get("accountKeys", [])
    ]
    pre = {b["accountIndex"]: b for b in meta.get("preTokenBalances") or []}
    post = {b["accountIndex"]: b for b in meta.get("postTokenBalances") or []}
    changes = []
    for index in sorted(set(pre) | set(post)):
        ref = post.get(index) or pre[index]
        changes.append(
            TokenBalanceChange(
                account=keys[index] if index < len(keys) else str(index),
                mint=ref["mint"],
                owner=ref.get("owner"),
                pre=int(pre[index]["uiTokenAmount"]["amount"]) if index in pre else 0,
                post=int(post[index]["uiTokenAmount"]["amount"]) if index in post else 0,
            )
        )
    return tuple(changes)
