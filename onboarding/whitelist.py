"""The MCD whitelist: chain writes through the gateway (exactly once per op_key) and the
stored list kept in step with the chain.

Op keys:
- approval's add: ``whitelist:add:<application_id>`` (one per application, whatever retries);
- admin changes: ``whitelist:<project_id>:<action>:<version>``, ``version`` counted on the
  entry row, so suspend / activate / suspend are three distinct writes while a retry of one
  change reuses its key.

An admin change is two-phase: (1) the row is locked, ``version`` bumped and the pending op key
committed; (2) the chain write is driven to a final state; (3) the outcome is applied to the
row (and the project's ``suspended`` flag) in one transaction. If the chain is down between (1)
and (3), the next call for that project first settles the pending write (same op key), so a
change is never lost nor made twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Commitment
from solders.instruction import Instruction
from solders.pubkey import Pubkey
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import whitelist as wl
from chain.errors import ChainRejected
from chain.gateway import ChainGateway, ChainWrite
from core.config import Settings
from db.models import Project
from db.models.onboarding import McdWhitelistEntry, ProjectApplication

ACTIONS = {"suspend": "suspended", "activate": "active", "remove": "removed"}
WRITE_TIMEOUT = 30.0


class WhitelistConflict(Exception):
    """The requested change does not fit the entry's state (maps to 409 invalid-state)."""


class UnknownEntry(Exception):
    """No whitelist entry for the project (maps to 404)."""


@dataclass(frozen=True)
class WhitelistChain:
    gateway: ChainGateway
    client: AsyncClient
    program: Pubkey

    @classmethod
    def of(cls, gateway: ChainGateway, client: AsyncClient, settings: Settings) -> WhitelistChain:
        return cls(gateway, client, wl.program_id(gateway.keys, settings.whitelist_program_id))

    @property
    def authority(self) -> Pubkey:
        return self.gateway.keys.whitelist_authority.pubkey()

    def pda(self, project_id: int) -> tuple[Pubkey, int]:
        return wl.find_whitelist_pda(self.program, project_id)

    def instructions(
        self, action: str, project_id: int, wallet: str | None = None
    ) -> list[Instruction]:
        if action == "add":
            assert wallet is not None
            return [wl.add_ix(self.program, self.authority, project_id, Pubkey.from_string(wallet))]
        if action == "remove":
            return [wl.remove_ix(self.program, self.authority, project_id)]
        status = wl.Status.SUSPENDED if action == "suspend" else wl.Status.ACTIVE
        return [wl.set_status_ix(self.program, self.authority, project_id, int(status))]

    async def write(self, op_key: str, instructions: list[Instruction]) -> ChainWrite:
        """Submit (idempotent per op_key) and drive to a final state; ChainUnavailable and
        ChainTimeout propagate (retryable); a failed write is returned."""
        await self.gateway.submit(op_key, instructions, kind="whitelist")
        return await self.gateway.await_final(op_key, WRITE_TIMEOUT)

    async def entry(
        self, project_id: int, commitment: str = "finalized"
    ) -> wl.WhitelistEntry | None:
        """The on-chain entry of a project, or None."""
        resp = await self.client.get_account_info(
            self.pda(project_id)[0], commitment=Commitment(commitment)
        )
        account = resp.value
        if account is None or account.lamports == 0 or account.owner != self.program:
            return None
        try:
            return wl.decode_entry(bytes(account.data))
        except ValueError:
            return None


def error_text(write: ChainWrite) -> str:
    err = write.err
    if isinstance(err, dict) and "InstructionError" in err:
        detail = err["InstructionError"][1]
        if isinstance(detail, dict) and "Custom" in detail:
            return wl.error_message(int(detail["Custom"]))
    return str(err)


def op_key(project_id: int, action: str, version: int) -> str:
    return f"whitelist:{project_id}:{action}:{version}"


async def settle(
    sessions: async_sessionmaker[AsyncSession], chain: WhitelistChain, project_id: int
) -> McdWhitelistEntry:
    """Drive the entry's pending chain write (if any) to its end and apply the outcome."""
    async with sessions() as session:
        entry = await _entry(session, project_id)
        pending = (entry.pending_action, entry.pending_op_key)
    action, key = pending
    if action is None or key is None:
        return entry
    write = await chain.write(key, chain.instructions(action, project_id))
    async with sessions() as session:
        entry = await _entry(session, project_id, lock=True)
        if entry.pending_op_key != key:  # a concurrent call applied it already
            return entry
        entry.pending_action = None
        entry.pending_op_key = None
        if not write.succeeded:
            await session.commit()
            raise ChainRejected(key, error_text(write), write.signature)
        now = datetime.now(UTC)
        entry.status = ACTIONS[action]
        entry.last_tx = write.signature
        if action == "remove":
            entry.remove_tx = write.signature
        # The flag api/auth/project.py reads: only an active entry lets the project call.
        await session.execute(
            update(Project)
            .where(Project.project_id == project_id)
            .values(suspended=action != "activate", updated_at=now)
        )
        await session.execute(
            update(ProjectApplication)
            .where(
                ProjectApplication.project_id == project_id,
                ProjectApplication.status.in_(("approved", "suspended")),
            )
            .values(status="approved" if action == "activate" else "suspended", updated_at=now)
        )
        await session.commit()
        await session.refresh(entry)
        return entry


async def change(
    sessions: async_sessionmaker[AsyncSession],
    chain: WhitelistChain,
    project_id: int,
    action: str,
) -> McdWhitelistEntry:
    """Apply ``action`` (suspend | activate | remove) on chain first, then in the database.

    Idempotent: asking for the state the entry is already in changes nothing.
    """
    target = ACTIONS[action]
    for _ in range(5):
        await settle(sessions, chain, project_id)
        async with sessions() as session:
            entry = await _entry(session, project_id, lock=True)
            if entry.pending_op_key is not None:
                continue  # another call started a change meanwhile: settle it first
            if entry.status == target:
                return entry
            if entry.status == "removed":
                raise WhitelistConflict(f"Project {project_id} was removed from the whitelist")
            entry.version += 1
            entry.pending_action = action
            entry.pending_op_key = op_key(project_id, action, entry.version)
            await session.commit()
        return await settle(sessions, chain, project_id)
    raise WhitelistConflict(f"The whitelist entry of project {project_id} keeps changing")


async def _entry(
    session: AsyncSession, project_id: int, *, lock: bool = False
) -> McdWhitelistEntry:

    statement = select(McdWhitelistEntry).where(McdWhitelistEntry.project_id == project_id)
    if lock:
        statement = statement.with_for_update()
    entry = await session.scalar(statement)
    if entry is None:
        raise UnknownEntry(f"Project {project_id} has no whitelist entry")
    return entry


def entry_attributes(entry: McdWhitelistEntry) -> dict[str, object]:
    return {
        "project_id": entry.project_id,
        "project_name": entry.project_name,
        "wallet_address": entry.wallet_address,
        "pda_address": entry.pda_address,
        "pda_bump": entry.pda_bump,
        "status": entry.status,
        "created_by": entry.created_by,
        "add_tx": entry.add_tx,
        "last_tx": entry.last_tx,
        "remove_tx": entry.remove_tx,
        "pending_action": entry.pending_action,
        "created_at": entry.created_at.isoformat(),
        "updated_at": entry.updated_at.isoformat(),
    }
