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

from solana.exceptions import SolanaRpcException
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Commitment
from solders.instruction import Instruction
from solders.pubkey import Pubkey
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import whitelist as wl
from chain.errors import ChainRejected, ChainUnavailable
from chain.gateway import ChainGateway, ChainWrite
from core.config import Settings
from core.time import iso
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
    """The MCD Token program's whitelist as the gateway writes it (chain/whitelist.py)."""

    gateway: ChainGateway
    client: AsyncClient
    program: Pubkey
    config: Pubkey  # McdConfig: its authority must be our whitelist_authority key

    @classmethod
    def of(cls, gateway: ChainGateway, client: AsyncClient, settings: Settings) -> WhitelistChain:
        return cls(gateway, client, wl.program_id(settings), wl.config_address(settings))

    @property
    def authority(self) -> Pubkey:
        return self.gateway.keys.whitelist_authority.pubkey()

    def pda(self, project_id: int) -> tuple[Pubkey, int]:
        return wl.find_whitelist_pda(self.program, project_id)

    def instructions(
        self,
        action: str,
        project_id: int,
        wallet: str | None = None,
        project_name: str | None = None,
    ) -> list[Instruction]:
        """The one instruction of ``action`` (add | suspend | activate | remove). ``add``
        stores the name cut to the 64 bytes the entry holds (chain_project_name)."""
        program, authority, config = self.program, self.authority, self.config
        if action == "add":
            assert wallet is not None and project_name is not None
            name = wl.chain_project_name(project_name)
            owner = Pubkey.from_string(wallet)
            return [wl.add_ix(program, authority, config, project_id, name, owner)]
        if action == "remove":
            return [wl.remove_ix(program, authority, config, project_id)]
        status = wl.Status.SUSPENDED if action == "suspend" else wl.Status.ACTIVE
        return [wl.set_status_ix(program, authority, config, project_id, int(status))]

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

    async def entries(
        self, project_ids: list[int], commitment: str = "confirmed"
    ) -> dict[int, wl.WhitelistEntry | None]:
        """The on-chain entries of several projects in one getMultipleAccounts call."""
        if not project_ids:
            return {}
        addresses = [self.pda(p)[0] for p in project_ids]
        try:
            resp = await self.client.get_multiple_accounts(
                addresses, commitment=Commitment(commitment)
            )
        except (SolanaRpcException, OSError) as exc:
            raise ChainUnavailable(f"whitelist entries unreadable: {exc}") from exc
        out: dict[int, wl.WhitelistEntry | None] = {}
        for project_id, account in zip(project_ids, resp.value, strict=True):
            entry = None
            if account is not None and account.lamports and account.owner == self.program:
                try:
                    entry = wl.decode_entry(bytes(account.data))
                except ValueError:
                    entry = None
            out[project_id] = entry
        return out


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


def entry_attributes(
    entry: McdWhitelistEntry, onchain: wl.WhitelistEntry | None = None
) -> dict[str, object]:
    """The stored entry, plus ``onchain``: the McdWhitelist account's fields as the program
    holds them (None when the chain has no entry, e.g. after removal)."""
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
        "created_at": iso(entry.created_at),
        "updated_at": iso(entry.updated_at),
        "onchain": wl.entry_fields(onchain) if onchain is not None else None,
    }


_RESYNC_LABELS = {
    (): "present",
    ("add",): "added",
    ("add", "suspend"): "added+suspended",
    ("suspend",): "suspended",
    ("activate",): "activated",
}


@dataclass(frozen=True)
class Resynced:
    project_id: int
    action: str  # "present" | "added" | "added+suspended" | "suspended" | "activated" | "mismatch"
    signature: str | None = None


async def resync(
    sessions: async_sessionmaker[AsyncSession], chain: WhitelistChain
) -> list[Resynced]:
    """Re-create on chain every stored entry that is not removed, in the MCD Token layout.

    For a chain that lacks them: a dev chain from before the move to the MCD Token interface
    (its 80-byte entries lived under another program id), a wiped dev chain, or a newly
    configured cluster. An entry already there keeps its account; only its status is brought
    in step. The op keys carry the chain's genesis hash, so re-running on the same chain is a
    no-op and a fresh chain gets fresh writes. Updates each row's PDA to the configured program.
    """
    genesis = str((await chain.client.get_genesis_hash()).value)
    async with sessions() as session:
        rows = list(
            await session.scalars(
                select(McdWhitelistEntry)
                .where(McdWhitelistEntry.status.in_(("active", "suspended")))
                .order_by(McdWhitelistEntry.project_id)
            )
        )
    done: list[Resynced] = []
    for row in rows:
        project_id = row.project_id
        onchain = await chain.entry(project_id, commitment="confirmed")
        steps: list[str] = []
        if onchain is None:
            steps.append("add")
        elif str(onchain.wallet) != row.wallet_address:
            done.append(Resynced(project_id, "mismatch"))
            continue
        want_active = row.status == "active"
        if (onchain.active if onchain is not None else True) != want_active:
            steps.append("activate" if want_active else "suspend")
        signatures: dict[str, str] = {}
        for step in steps:
            key = f"whitelist:resync:{genesis}:{project_id}:{step}"
            instructions = chain.instructions(
                step, project_id, row.wallet_address, row.project_name
            )
            write = await chain.write(key, instructions)
            if not write.succeeded:
                raise ChainRejected(key, error_text(write), write.signature)
            signatures[step] = write.signature
        pda, bump = chain.pda(project_id)
        async with sessions() as session:
            entry = await _entry(session, project_id, lock=True)
            entry.pda_address, entry.pda_bump = str(pda), bump
            if "add" in signatures:
                entry.add_tx = signatures["add"]
            if steps:
                entry.last_tx = signatures[steps[-1]]
            await session.commit()
        done.append(
            Resynced(
                project_id,
                _RESYNC_LABELS[tuple(steps)],
                signatures.get(steps[-1]) if steps else None,
            )
        )
    return done
