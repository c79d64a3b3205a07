"""Issue 31, L3: `funds.deposited` (amount and sender wallet) goes only to the projects the user
let see their funds, not to every project they ever signed in to."""

from __future__ import annotations

from sqlalchemy import select

from activities.deps import WorkerDeps
from db.models.events import Event
from devchain.outside import OutsideWallet
from tests.factories import World
from tests.tokens.conftest import UNIT
from tests.tokens.test_deposits import _watched_user
from tokens.deposit_watch import DepositScanner


async def test_deposit_events_go_only_to_projects_with_a_funds_scope(
    world: World, deps: WorkerDeps, scanner: DepositScanner, outsider: OutsideWallet
) -> None:
    uid = await _watched_user(world, deps, scanner)
    signed_in, funds = await world.project(), await world.project()
    await world.consent(uid, signed_in.project_id, ["openid", "profile", "mining:write"])
    await world.consent(uid, funds.project_id, ["openid", "funds:read"])
    custody = deps.gateway.custody_address(uid, "MCC")
    await outsider.send_tokens(deps.gateway.keys.mint_for("MCC"), custody, 5 * UNIT, 9)
    summary = await scanner.scan()
    assert summary.credited == 1
    async with deps.sessions() as session:
        heard = set(
            await session.scalars(
                select(Event.project_id).where(
                    Event.type == "funds.deposited", Event.data["user_uid"].astext == uid
                )
            )
        )
    assert heard == {funds.project_id}
