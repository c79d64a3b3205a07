"""Operations, part 2 of 4 (re-exported by operations.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Any

from . import models
from ._operation import Operation

legacy_my_team: Operation[models.LegacyTeam] = Operation(
    "legacy_my_team",
    "GET",
    "/organization/my-team",
    None,
    models.LegacyTeam,
    "Legacy team: the caller's station, its matrix (``unit``) and the station's manager.",
)
legacy_profile: Operation[Any] = Operation(
    "legacy_profile",
    "GET",
    "/users/profile",
    None,
    None,
    "Legacy profile (plain JSON; bearer is an ID token).",
)
list_applications: Operation[models.Envelope] = Operation(
    "list_applications",
    "GET",
    "/v1/admin/projects/applications",
    None,
    models.Envelope,
    "Applications for review, filtered by status (administrator).",
)
list_authorizations: Operation[models.Envelope] = Operation(
    "list_authorizations",
    "GET",
    "/v1/users/me/authorizations",
    None,
    models.Envelope,
    "The projects the current user has authorized, with the scopes granted to each.",
)
list_deliveries: Operation[models.Envelope] = Operation(
    "list_deliveries",
    "GET",
    "/v1/webhooks/{endpoint_id}/deliveries",
    None,
    models.Envelope,
    "Deliveries to one endpoint, newest first, each with its attempt log.",
)
list_endpoints: Operation[models.Envelope] = Operation(
    "list_endpoints",
    "GET",
    "/v1/webhooks",
    None,
    models.Envelope,
    "The calling project's webhook endpoints (deleted ones are not listed).",
)
list_organizations: Operation[Any] = Operation(
    "list_organizations",
    "GET",
    "/v1/organizations",
    None,
    None,
    "Units of the hierarchy, filtered by type and parent, paged.",
)
list_whitelist: Operation[models.Envelope] = Operation(
    "list_whitelist",
    "GET",
    "/v1/admin/mcd/whitelist",
    None,
    models.Envelope,
    "The stored MCD whitelist with each entry's decoded on-chain account (administrator).",
)
loan: Operation[Any] = Operation(
    "loan",
    "GET",
    "/v1/lending/loan/{wallet}/{loan_id}",
    None,
    None,
    "One loan: loan_id is the collateral NFT's mint (or the Loan account address).",
)
loans: Operation[Any] = Operation(
    "loans",
    "GET",
    "/v1/lending/loans/{wallet}",
    None,
    None,
    "A wallet's loans, newest first, with interest accrued to now at the pool's rate.",
)
lock_funds: Operation[models.Envelope] = Operation(
    "lock_funds",
    "POST",
    "/v1/funds/lock",
    models.LockIn,
    models.Envelope,
    "Lock (reserve) a user's funds until unlocked, settled or expired.",
)
locked_funds: Operation[models.Envelope] = Operation(
    "locked_funds",
    "GET",
    "/v1/funds/locked/{user_uid}",
    None,
    models.Envelope,
    "Active fund locks this project holds on a user (paged).",
)
lp_balance: Operation[Any] = Operation(
    "lp_balance",
    "GET",
    "/v1/lending/lp-balance/{wallet}",
    None,
    None,
    "A wallet's LP tokens, their value in the pool asset and share of the pool.",
)
mcc_address_balance: Operation[Any] = Operation(
    "mcc_address_balance",
    "GET",
    "/v1/mcc/balance/{address}",
    None,
    None,
    "The on-chain MCC balance of any wallet (public; the same answer for users and others).",
)
mcc_balance: Operation[Any] = Operation(
    "mcc_balance",
    "GET",
    "/v1/mcc/balance",
    None,
    None,
    "The caller's MCC custody balance: total, locked, available, deposit address.",
)
mcc_price: Operation[Any] = Operation(
    "mcc_price",
    "GET",
    "/v1/mcc/price",
    None,
    None,
    "The MCC price the rule gives now (market > admin > default), with base and buyback.",
)
mcc_stats: Operation[Any] = Operation(
    "mcc_stats",
    "GET",
    "/v1/mcc/stats",
    None,
    None,
    "Global MCC statistics: supply, custody, holders, volume, price (cached 30 s).",
)
mcc_transactions: Operation[Any] = Operation(
    "mcc_transactions",
    "GET",
    "/v1/mcc/transactions",
    None,
    None,
    "The caller's MCC movements, newest first (deposits, transfers, settlements).",
)
mcd_balance: Operation[Any] = Operation(
    "mcd_balance",
    "GET",
    "/v1/mcd/balance",
    None,
    None,
    "The caller's MCD custody balance (`mcd_balance`): total, frozen, available.",
)
mcd_rewards: Operation[models.Envelope] = Operation(
    "mcd_rewards",
    "GET",
    "/v1/mcd/rewards",
    None,
    models.Envelope,
    "The current user's confirmed MCD mining rewards per UTC day and project.",
)
mcd_stats: Operation[Any] = Operation(
    "mcd_stats",
    "GET",
    "/v1/mcd/stats",
    None,
    None,
    "Global MCD statistics: supply, custody, holders, volume (cached 30 s).",
)
mcd_transactions: Operation[Any] = Operation(
    "mcd_transactions",
    "GET",
    "/v1/mcd/transactions",
    None,
    None,
    "The caller's MCD movements, newest first (deposits, transfers, mining rewards).",
)
me: Operation[models.Envelope] = Operation(
    "me",
    "GET",
    "/v1/users/me",
    None,
    models.Envelope,
    "The current user (scope user:read; `profile` also counts; `email` shows the e-mail).",
)
mining_stats: Operation[Any] = Operation(
    "mining_stats",
    "GET",
    "/v1/mining/stats",
    None,
    None,
    "The caller's confirmed mining totals by UTC day and project (a user's, or a project's).",
)
my_application: Operation[models.Envelope] = Operation(
    "my_application",
    "GET",
    "/v1/projects/applications/{application_id}",
    None,
    models.Envelope,
    "One of the caller's applications (developer ID token).",
)
my_applications: Operation[models.Envelope] = Operation(
    "my_applications",
    "GET",
    "/v1/projects/applications",
    None,
    models.Envelope,
    "The caller's applications, newest first (developer ID token).",
)
my_profile: Operation[models.Envelope] = Operation(
    "my_profile",
    "GET",
    "/v1/users/me/profile",
    None,
    models.Envelope,
    "The current user's detailed profile.",
)
nft: Operation[Any] = Operation(
    "nft",
    "GET",
    "/v1/territory/nft/{mint}",
    None,
    None,
    "`recorded_owner` is the program's `owner` field, which goes stale on any transfer made",
)
nfts: Operation[Any] = Operation(
    "nfts",
    "GET",
    "/v1/territory/nfts/{wallet}",
    None,
    None,
    "The territory NFTs a wallet holds, by type and id (escrowed ones marked by `custody`).",
)
openid_configuration: Operation[Any] = Operation(
    "openid_configuration",
    "GET",
    "/auth/.well-known/openid-configuration",
    None,
    None,
    "OpenID Connect discovery document.",
)
organization_members: Operation[Any] = Operation(
    "organization_members",
    "GET",
    "/v1/organizations/{unit_id}/members",
    None,
    None,
    "Current members of a unit (of every station under it), oldest first, paged.",
)
organization_stats: Operation[Any] = Operation(
    "organization_stats",
    "GET",
    "/v1/organizations/{unit_id}/stats",
    None,
    None,
    "Public: members, 30-day mining input, qualifying days and lit state of a unit.",
)
place_member: Operation[Any] = Operation(
    "place_member",
    "POST",
    "/v1/admin/organizations/{unit_id}/members",
    models.PlacementIn,
    None,
    "Place a user in a station, moving them out of their current one (administrator).",
)
pool: Operation[Any] = Operation(
    "pool",
    "GET",
    "/v1/lending/pool",
    None,
    None,
    "The lending pool: balances, rate parameters, current rates and the NFT price oracle.",
)
position: Operation[Any] = Operation(
    "position",
    "GET",
    "/v1/lending/position/{wallet}",
    None,
    None,
    "A wallet's LP position and all its loans with their live debt.",
)
project_attributes: Operation[models.Envelope] = Operation(
    "project_attributes",
    "GET",
    "/v1/users/{uid}/projects/{project_id}/attributes",
    None,
    models.Envelope,
    "A project's attributes of a user, limited to what the caller may see.",
)
