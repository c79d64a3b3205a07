"""The MCD whitelist on chain: the program's instructions written through the gateway
(exactly once per op_key) and its entries read back; ``resync`` re-creates stored entries on a
chain that lacks them. The stored entries and their admin changes: onboarding/whitelist_entries.py.

Op keys: approval's add ``whitelist:add:<application_id>``; admin changes
``whitelist:<project_id>:<action>:<version>`` (whitelist_entries.op_key); resync
``whitelist:resync:<genesis>:<project_id>:<step>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from solders.instruction import Instruction
from solders.pubkey import Pubkey
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import whitelist as wl
from chain.errors import ChainRejected, ChainUnavailable
from chain.gateway import ChainGateway, ChainWrite
from core.config import Settings
from core.errors import ServiceUnavailable
from db.models.onboarding import McdWhitelistEntry
from onboarding.whitelist_entries import entry as stored

WRITE_TIMEOUT = 30.0


@dataclass(frozen=True)
class WhitelistChain:
    """The MCD Token program's whitelist as the gateway writes and reads it
    (chain/whitelist.py)."""

    gateway: ChainGateway
    program: Pubkey
    config: Pubkey  # McdConfig: its authority must be our whitelist_authority key

    @classmethod
    def of(cls, gateway: ChainGateway, settings: Settings) -> WhitelistChain:
        return cls(gateway, wl.program_id(settings), wl.config_address(settings))

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
        account = await self.gateway.account(self.pda(project_id)[0], commitment)
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
        accounts = await self.gateway.accounts(addresses, commitment)
        out: dict[int, wl.WhitelistEntry | None] = {}
        for project_id, account in zip(project_ids, accounts, strict=True):
            entry = None
            if account is not None and account.lamports and account.owner == self.program:
                try:
                    entry = wl.decode_entry(bytes(account.data))
                except ValueError:
                    entry = None
            out[project_id] = entry
        return out


async def onchain_entries(
    chain: WhitelistChain, project_ids: list[int]
) -> dict[int, wl.WhitelistEntry | None]:
    """``chain.entries`` for an answer: 503 when the chain cannot be read."""
    try:
        return await chain.entries(project_ids)
    except ChainUnavailable as exc:
        raise ServiceUnavailable(
            "The chain is unreachable; the whitelist entries cannot be read",
            headers={"Retry-After": "5"},
        ) from exc


def error_text(write: ChainWrite) -> str:
    err = write.err
    if isinstance(err, dict) and "InstructionError" in err:
        detail = err["InstructionError"][1]
        if isinstance(detail, dict) and "Custom" in detail:
            return wl.error_message(int(detail["Custom"]))
    return str(err)


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
    genesis = await chain.gateway.genesis_hash()
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
            entry = await stored(session, project_id, lock=True)
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
