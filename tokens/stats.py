"""Global token statistics: supply and decimals from the mint, custody totals and holders from
the ledger, 24 h and 30 d volume (sum of amounts credited to custody accounts: each transfer
between users once, deposits, mining rewards) and counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from solders.pubkey import Pubkey
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from chain.gateway import ChainGateway

# The ledger part (the 24 h and 30 d figures read ix_ledger_entries_credits, migration 0025).
LEDGER_QUERY = text(
    """
SELECT
  (SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE currency = :c) AS custody,
  (SELECT count(*) FROM ledger_accounts WHERE currency = :c AND balance > 0) AS holders,
  coalesce(sum(d_balance) FILTER (WHERE created_at >= now() - interval '24 hours'), 0) AS v24,
  count(*) FILTER (WHERE created_at >= now() - interval '24 hours') AS n24,
  coalesce(sum(d_balance), 0) AS v30,
  count(*) AS n30
FROM ledger_entries
WHERE currency = :c AND d_balance > 0 AND created_at >= now() - interval '30 days'
"""
)


@dataclass(frozen=True)
class TokenStats:
    currency: str
    mint: str
    supply: int
    decimals: int
    custody_total: int
    holders: int
    volume_24h: int
    count_24h: int
    volume_30d: int
    count_30d: int
    updated_at: datetime


async def load(
    session: AsyncSession, gateway: ChainGateway, currency: str, mint: Pubkey
) -> TokenStats:
    """Raises the gateway's ChainError when the mint cannot be read."""
    supply, decimals = await gateway.token_supply(mint, "finalized")
    row = (await session.execute(LEDGER_QUERY, {"c": currency})).one()
    return TokenStats(
        currency=currency,
        mint=str(mint),
        supply=supply,
        decimals=decimals,
        custody_total=int(row.custody),
        holders=int(row.holders),
        volume_24h=int(row.v24),
        count_24h=int(row.n24),
        volume_30d=int(row.v30),
        count_30d=int(row.n30),
        updated_at=datetime.now(UTC),
    )
