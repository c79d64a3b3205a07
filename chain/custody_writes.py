"""Custody on chain: the mints' decimals, users' custody accounts, and custody transfers and
mints as exactly-once writes (``chain/writes.py``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from solders.hash import Hash
from solders.instruction import Instruction
from solders.message import Message
from solders.pubkey import Pubkey
from spl.token.constants import MINT_LEN
from sqlalchemy import func
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import tx_store
from chain.answers import TOKEN_PROGRAMS
from chain.custody import (
    CustodyMint,
    CustodyTransfer,
    WalletTransfer,
    create_custody_instructions,
    custody_address,
    mint_instruction,
    transfer_instruction,
    wallet_token_account,
    wallet_transfer_instructions,
)
from chain.decimals import TokenDecimals
from chain.errors import (
    ChainError,
    ChainUnavailable,
)
from chain.fees import MAX_UNITS, budget_instructions
from chain.keys import ChainKeys
from chain.reads import ChainReads
from chain.write_record import ChainWrite
from chain.writes import ChainWrites
from db.models.chain import MintDecimals

PACKET_DATA_SIZE = 1232  # the largest serialized transaction a Solana node accepts
_ZERO_HASH = Hash.default()

log = logging.getLogger(__name__)


def _creation_keys(address: Pubkey) -> tuple[str, str]:
    """The write keys of a custody account's creation: over an empty address, and over one
    that someone had sent lamports to first (ensure_custody_account)."""
    return f"custody:{address}", f"custody:{address}:funded"


class CustodyWrites:
    """Custody on chain, reading through ``reads`` and writing through ``writes``."""

    def __init__(
        self,
        reads: ChainReads,
        writes: ChainWrites,
        keys: ChainKeys,
        sessions: async_sessionmaker[AsyncSession],
    ) -> None:
        self._keys = keys
        self._sessions = sessions
        self._commitment = reads.commitment
        # What custody needs of the other two parts, named once.
        self.mint_info = reads.mint_info
        self.token_balance = reads.token_balance
        self._account = reads.account
        self._token_account = reads.token_account
        self._rent_exemption = reads.token_account_rent
        self.submit = writes.submit
        self.await_final = writes.await_final
        # Read from the mints (load_token_decimals), never assumed: see chain/decimals.py.
        self._token_decimals: TokenDecimals | None = None
        # Custody accounts seen to exist: never closed, so one lookup per process is enough.
        self._custody_known: set[Pubkey] = set()
        self._addresses: dict[tuple[str, str], Pubkey] = {}

    async def load_token_decimals(
        self, *, stored: bool = True, keep: bool = False
    ) -> TokenDecimals:
        """Read the decimals of the MCC and MCD mints as the chain has them, and the token
        program that owns each, once per process (the programs go into ``keys.programs``, so
        custody accounts and instructions use them): what ``token_decimals`` answers from then
        on, returned. For start-up (``warm_up``) and for a write that must have them before it
        goes on. ``stored``: while the chain is unreachable, use the values kept from an
        earlier read; ``keep``: keep what the chain says (the worker does, at start-up)."""
        if self._token_decimals is None:
            found: dict[str, int] = {}
            programs: dict[str, Pubkey] = {}
            for currency in ("MCC", "MCD"):
                program, decimals = await self._mint_facts(currency, stored, keep)
                found[currency.lower()], programs[currency] = decimals, program
            self._keys.programs.update(programs)
            self._addresses.clear()  # derived with the programs as they are now
            self._token_decimals = TokenDecimals(**found)
            log.info(
                "token mints: %s; programs %s",
                self._token_decimals, {c: str(p) for c, p in programs.items()},
            )  # fmt: skip
        return self._token_decimals

    async def _mint_facts(self, currency: str, stored: bool, keep: bool) -> tuple[Pubkey, int]:
        """(owner program, decimals) from the chain (and kept in ``mint_decimals``); while the
        chain is unreachable, the values read earlier for the same mint address (a mint's
        decimals and owner never change)."""
        mint = self._keys.mint_for(currency)
        try:
            account = await self._account(mint, self._commitment)
        except ChainUnavailable:
            if not stored:
                raise
            async with self._sessions() as session:
                kept = await session.get(MintDecimals, str(mint))
            if kept is None or kept.program is None:
                # Kept before the program was (migration 0021): it is not assumed, since a
                # custody address derived with the wrong program is another account.
                raise
            return Pubkey.from_string(kept.program), kept.decimals
        if account is None:
            raise ChainError(f"the {currency} mint {mint} does not exist on this cluster")
        data = bytes(account.data)
        if account.owner not in TOKEN_PROGRAMS or len(data) < MINT_LEN:
            raise ChainError(f"the {currency} mint {mint} is not an SPL Token/Token-2022 mint")
        program, decimals = account.owner, data[44]  # Mint: COption<authority>, supply, decimals
        if not keep:
            return program, decimals
        values = {"decimals": decimals, "program": str(program)}
        async with self._sessions() as session:
            await session.execute(
                pg_insert(MintDecimals)
                .values(mint=str(mint), **values)
                .on_conflict_do_update(
                    index_elements=["mint"], set_={**values, "read_at": func.now()}
                )
            )
            await session.commit()
        return program, decimals

    async def warm_up(self, retry_interval: float = 2.0, *, keep: bool = False) -> None:
        """Start-up: read the mints' decimals, retrying while the chain is unreachable (run as
        a background task, so a process starts even while its chain is down)."""
        stored = True  # the database once; then only the chain, backing off to 30 s
        delay = retry_interval
        while True:
            try:
                await self.load_token_decimals(stored=stored, keep=keep)
                return
            except ChainError as exc:  # unreachable, or a mint not created yet (chain-init)
                log.warning("token decimals not read yet (%s); retrying", exc)
            except DBAPIError as exc:
                log.warning("kept token decimals unreadable (%s); retrying", exc)
            stored = False
            await asyncio.sleep(delay)
            delay = min(delay * 2, max(retry_interval, 30.0))

    def token_decimals(self) -> TokenDecimals:
        """The process's one ``TokenDecimals`` (both mints' own decimals), as read from the
        chain at start-up (``warm_up``); raises ChainUnavailable until then: nothing assumed."""
        if self._token_decimals is None:
            raise ChainUnavailable("token decimals not read from the chain yet")
        return self._token_decimals

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
        account = await self._account(address, self._commitment)
        if account is not None and account.owner in TOKEN_PROGRAMS:
            self._custody_known.add(address)
            return address
        # Missing, or only lamports someone sent to the derivable address (still a system
        # account): create it over them (chain.custody.create_custody_instructions).
        existing = int(account.lamports) if account is not None else 0
        # A pre-funded address gets its own op: a creation that failed over those lamports
        # before this fix (create_account_with_seed) must not be replayed as failed forever.
        op_key = _creation_keys(address)[1 if existing else 0]
        instructions = create_custody_instructions(
            self._keys, uid, currency, await self._rent_exemption(), existing
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

    async def custody_origin(
        self,
        uid: str,
        currency: str,
        timeout: float = 60.0,  # noqa: ASYNC109 (passed on to await_final)
    ) -> int:
        """The first slot at which the user's custody account can have held tokens: the slot
        where the gateway's own creation of it landed. Nothing else can create a token account
        at that address (it is derived from the custody authority, which must sign), so no
        earlier transaction touching it moved any of its tokens. 0 when the gateway keeps no
        landed record of creating it (made before this database): its whole history counts."""
        address = self.custody_address(uid, currency)
        keys = _creation_keys(address)
        async with self._sessions() as session:
            found = await tx_store.records(session, keys)
        slots = []
        for row, _ in found:
            status, slot = row.status, row.slot
            if status in tx_store.OPEN_STATUSES and slot is None:  # not seen landed yet
                write = await self.await_final(row.op_key, timeout)
                status, slot = write.status, write.slot
            if status in ("landed", "succeeded") and slot is not None:
                slots.append(int(slot))
        return min(slots, default=0)

    def transfer_instruction(self, transfer: CustodyTransfer) -> Instruction:
        return transfer_instruction(
            self._keys,
            transfer,
            self.token_decimals().of(transfer.currency),
            source=self.custody_address(transfer.from_uid, transfer.currency),
            dest=self.custody_address(transfer.to_uid, transfer.currency),
        )

    def transaction_size(self, instructions: Sequence[Instruction]) -> int:
        """Bytes of the signed transaction these instructions make (the blockhash and the
        signatures have fixed sizes, so a placeholder blockhash gives the exact figure)."""
        # with the compute budget every write carries (chain/fees.py): its size is fixed
        priced = [*instructions, *budget_instructions(MAX_UNITS, 1)]
        message = Message.new_with_blockhash(priced, self._keys.fee_payer.pubkey(), _ZERO_HASH)
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
        self,
        op_key: str,
        transfers: Sequence[CustodyTransfer],
        *,
        kind: str = "transfer",
        new: bool = False,
    ) -> ChainWrite:
        """Several custody transfers in ONE transaction (all land or none); ``new``: named by
        the caller's claim a moment ago (``ChainWrites.submit``)."""
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
        return await self.submit(op_key, instructions, kind=kind, meta=meta, new=new)

    async def submit_mints(
        self, op_key: str, mints: Sequence[CustodyMint], *, kind: str = "mint", new: bool = False
    ) -> ChainWrite:
        """Several mint_to into custody accounts in ONE transaction; ``new``: named by the
        caller's claim a moment ago (``ChainWrites.submit``)."""
        meta = {
            "mints": [
                {"currency": m.currency.upper(), "to_uid": m.to_uid, "amount": str(m.amount)}
                for m in mints
            ]
        }
        instructions = [self.mint_instruction(m) for m in mints]
        return await self.submit(op_key, instructions, kind=kind, meta=meta, new=new)

    def wallet_token_account(self, owner: Pubkey, currency: str) -> Pubkey:
        """Where a withdrawal to ``owner`` lands: its associated token account for the mint."""
        return wallet_token_account(self._keys, owner, currency)

    async def submit_to_wallet(
        self, op_key: str, transfer: WalletTransfer, *, kind: str = "withdrawal"
    ) -> ChainWrite:
        """One custody account to a wallet's associated token account (created if missing), in
        one transaction, exactly once per ``op_key`` (``chain/writes.py``)."""
        decimals = (await self.load_token_decimals()).of(transfer.currency)
        source = self.custody_address(transfer.from_uid, transfer.currency)
        instructions = wallet_transfer_instructions(self._keys, transfer, decimals, source=source)
        meta = {
            "currency": transfer.currency.upper(),
            "from_uid": transfer.from_uid,
            "owner": str(transfer.owner),
            "destination": str(self.wallet_token_account(transfer.owner, transfer.currency)),
            "amount": str(transfer.amount),
        }
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

    async def custody_balance(self, uid: str, currency: str, commitment: str | None = None) -> int:
        return await self.token_balance(self.custody_address(uid, currency), commitment)
