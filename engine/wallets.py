"""The wallet a user withdraws to: the profile's ``wallet_address`` (flush only).

Changing it is the one way to say where money leaves custody, so it is guarded (the route asks
for a fresh first-party sign-in, ``access/fresh.py``) and slowed down: the change starts a
cooling-off (``WITHDRAWAL_COOLING_OFF_SECONDS``) during which new withdrawals wait, and it
cancels the user's withdrawals not yet claimed for their chain write (they were for the old
wallet; those already being signed go on to it). An address that is not a wallet is refused:
not a public key, one of the gateway's own keys, or an account on chain that cannot own tokens
(a token account or mint, a program).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from solders.pubkey import Pubkey
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from chain.answers import TOKEN_PROGRAMS
from chain.decimals import TokenDecimals
from chain.gateway import ChainGateway
from core.errors import NotFound, Rejected
from db.models import User
from db.models.withdrawals import Withdrawal
from engine.withdrawals import end


def _refused(message: str) -> Rejected:
    return Rejected(
        f"wallet_address: {message}",
        slug="validation-error",
        errors=[{"field": "wallet_address", "message": message}],
    )


async def check_wallet(gateway: ChainGateway, address: str) -> Pubkey:
    """The address as a wallet that can own the withdrawn tokens (422 otherwise)."""
    try:
        owner = Pubkey.from_string(address)
    except ValueError as exc:
        raise _refused("not a Solana address (base58, 32 bytes)") from exc
    keys = gateway.keys
    ours = {k.pubkey() for k in (keys.fee_payer, keys.mint_authority, keys.custody_authority,
                                 keys.whitelist_authority, keys.price_authority)}  # fmt: skip
    if owner in ours or owner in (keys.mint_for("MCC"), keys.mint_for("MCD")):
        raise _refused("one of the gateway's own addresses")
    account = await gateway.account(owner, "confirmed")
    if account is not None and (account.executable or account.owner in TOKEN_PROGRAMS):
        what = "a program" if account.executable else "a token account or mint"
        raise _refused(f"{what}, not a wallet: give the address of the wallet itself")
    return owner


@dataclass
class WalletChange:
    user: User
    changed: bool
    cancelled: list[Withdrawal] = field(default_factory=list)


async def change_wallet(
    session: AsyncSession,
    uid: str,
    owner: Pubkey | None,
    now: datetime,
    decimals: TokenDecimals,
) -> WalletChange:
    """Set (or clear, with None) the profile's wallet: from ``now`` a cooling-off runs, and the
    withdrawals still pending are cancelled. Setting the address it has changes nothing."""
    user = await session.get(User, uid, with_for_update=True)
    if user is None:
        raise NotFound(f"User {uid} does not exist")
    address = str(owner) if owner is not None else None
    if user.wallet_address == address:
        return WalletChange(user, changed=False)
    user.wallet_address, user.wallet_changed_at = address, now
    pending = await session.scalars(
        select(Withdrawal.id).where(Withdrawal.user_uid == uid, Withdrawal.status == "pending")
    )
    change = WalletChange(user, changed=True)
    reason = "cancelled: the wallet address of the profile changed"
    for withdrawal_id in list(pending):
        if (ended := await end(session, withdrawal_id, "cancelled", reason, decimals)) is not None:
            change.cancelled.append(ended)
    await session.flush()
    return change
