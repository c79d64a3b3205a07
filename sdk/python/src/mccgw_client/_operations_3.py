"""Operations, part 3 of 5 (re-exported by operations.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from . import models
from ._operation import Operation

mcd_balance: Operation[models.OneMcdBalance] = Operation(
    "mcd_balance",
    "GET",
    "/v1/mcd/balance",
    None,
    models.OneMcdBalance,
    "The caller's MCD custody balance (`mcd_balance`): total, frozen, available.",
)
mcd_rewards: Operation[models.ManyMcdRewardAttributes] = Operation(
    "mcd_rewards",
    "GET",
    "/v1/mcd/rewards",
    None,
    models.ManyMcdRewardAttributes,
    "The current user's confirmed MCD mining rewards per UTC day and project.",
)
mcd_stats: Operation[models.OneTokenStats] = Operation(
    "mcd_stats",
    "GET",
    "/v1/mcd/stats",
    None,
    models.OneTokenStats,
    "Global MCD statistics: supply, custody, holders, volume (cached 30 s).",
)
mcd_transactions: Operation[models.ManyTokenTransaction] = Operation(
    "mcd_transactions",
    "GET",
    "/v1/mcd/transactions",
    None,
    models.ManyTokenTransaction,
    "The caller's MCD movements, newest first (deposits, transfers, mining rewards).",
)
me: Operation[models.OneUserAttributes] = Operation(
    "me",
    "GET",
    "/v1/users/me",
    None,
    models.OneUserAttributes,
    "The current user (scope user:read; `profile` also counts; `email` shows the e-mail).",
)
mining_stats: Operation[models.OneMiningStatsAttributes] = Operation(
    "mining_stats",
    "GET",
    "/v1/mining/stats",
    None,
    models.OneMiningStatsAttributes,
    "The caller's confirmed mining totals by UTC day and project (a user's, or a project's).",
)
my_application: Operation[models.OneApplicationAttributes] = Operation(
    "my_application",
    "GET",
    "/v1/projects/applications/{application_id}",
    None,
    models.OneApplicationAttributes,
    "One of the caller's applications (developer ID token).",
)
my_applications: Operation[models.ManyApplicationAttributes] = Operation(
    "my_applications",
    "GET",
    "/v1/projects/applications",
    None,
    models.ManyApplicationAttributes,
    "The caller's applications, newest first (developer ID token).",
)
my_profile: Operation[models.OneUserProfileAttributes] = Operation(
    "my_profile",
    "GET",
    "/v1/users/me/profile",
    None,
    models.OneUserProfileAttributes,
    "The current user's detailed profile.",
)
nft: Operation[models.OneNftDetailAttributes] = Operation(
    "nft",
    "GET",
    "/v1/territory/nft/{mint}",
    None,
    models.OneNftDetailAttributes,
    "`recorded_owner` is the program's `owner` field, which goes stale on any transfer made",
)
nfts: Operation[models.ManyWalletNftAttributes] = Operation(
    "nfts",
    "GET",
    "/v1/territory/nfts/{wallet}",
    None,
    models.ManyWalletNftAttributes,
    "The territory NFTs a wallet holds, by type and id (escrowed ones marked by `custody`).",
)
openid_configuration: Operation[models.OpenIdConfiguration] = Operation(
    "openid_configuration",
    "GET",
    "/auth/.well-known/openid-configuration",
    None,
    models.OpenIdConfiguration,
    "OpenID Connect discovery document.",
)
organization_members: Operation[models.ManyMemberAttributes] = Operation(
    "organization_members",
    "GET",
    "/v1/organizations/{unit_id}/members",
    None,
    models.ManyMemberAttributes,
    "Current members of a unit (of every station under it), oldest first, paged.",
)
organization_stats: Operation[models.OneUnitStatsAttributes] = Operation(
    "organization_stats",
    "GET",
    "/v1/organizations/{unit_id}/stats",
    None,
    models.OneUnitStatsAttributes,
    "Public: members, 30-day mining input, qualifying days and lit state of a unit.",
)
place_member: Operation[models.OneMembershipAttributes] = Operation(
    "place_member",
    "POST",
    "/v1/admin/organizations/{unit_id}/members",
    models.PlacementIn,
    models.OneMembershipAttributes,
    "Place a user in a station, moving them out of their current one (administrator).",
)
pool: Operation[models.OnePoolAttributes] = Operation(
    "pool",
    "GET",
    "/v1/lending/pool",
    None,
    models.OnePoolAttributes,
    "The lending pool: balances, rate parameters, current rates and the NFT price oracle.",
)
position: Operation[models.OnePositionAttributes] = Operation(
    "position",
    "GET",
    "/v1/lending/position/{wallet}",
    None,
    models.OnePositionAttributes,
    "A wallet's LP position and all its loans with their live debt.",
)
project_attributes: Operation[models.CountedProjectAttributeAttributes] = Operation(
    "project_attributes",
    "GET",
    "/v1/users/{uid}/projects/{project_id}/attributes",
    None,
    models.CountedProjectAttributeAttributes,
    "A project's attributes of a user, limited to what the caller may see.",
)
project_status: Operation[models.OneProjectStatusAttributes] = Operation(
    "project_status",
    "GET",
    "/v1/projects/{project_id}/status",
    None,
    models.OneProjectStatusAttributes,
    "Current status of a project, what it allows, and its latest changes (public).",
)
public_user: Operation[models.OnePublicUserAttributes] = Operation(
    "public_user",
    "GET",
    "/v1/users/{uid}",
    None,
    models.OnePublicUserAttributes,
    "Public information about a user (no authentication).",
)
readyz: Operation[models.Ready] = Operation(
    "readyz",
    "GET",
    "/readyz",
    None,
    models.Ready,
    "Readiness: database, Redis, Temporal and the chain RPC all answer.",
)
reconciliation_drifts: Operation[models.ManyDriftAttributes] = Operation(
    "reconciliation_drifts",
    "GET",
    "/v1/admin/reconciliation/drifts",
    None,
    models.ManyDriftAttributes,
    "Drift rows found by reconciliation (newest first; filter by run_id).",
)
records: Operation[models.ManyMiningRecordAttributes] = Operation(
    "records",
    "GET",
    "/v1/mining/records",
    None,
    models.ManyMiningRecordAttributes,
    "Confirmed mining rewards: a user's own, or a project's (optionally of one user).",
)
redeliver: Operation[models.OneDeliveryAttributes] = Operation(
    "redeliver",
    "POST",
    "/v1/webhooks/deliveries/{delivery_id}/redeliver",
    None,
    models.OneDeliveryAttributes,
    "Send a delivery again now (same X-Service-Delivery id; the retry schedule restarts).",
)
register: Operation[models.OneRegisteredEndpointAttributes] = Operation(
    "register",
    "POST",
    "/v1/webhooks/register",
    models.EndpointIn,
    models.OneRegisteredEndpointAttributes,
    "Register a webhook endpoint of the calling project (the secret is shown once).",
)
register_project: Operation[models.OneRegisteredProjectAttributes] = Operation(
    "register_project",
    "POST",
    "/v1/projects/register",
    models.ProjectRegistrationIn,
    models.OneRegisteredProjectAttributes,
    "Register a project directly (administrator); idempotent on its key. The api_secret (and,",
)
reject: Operation[models.OneApplicationAttributes] = Operation(
    "reject",
    "POST",
    "/v1/admin/projects/applications/{application_id}/reject",
    models.RejectIn,
    models.OneApplicationAttributes,
    "Reject a pending application with a reason (administrator).",
)
remove_from_whitelist: Operation[models.WhitelistRemovedBody] = Operation(
    "remove_from_whitelist",
    "DELETE",
    "/v1/admin/mcd/whitelist/{project_id}",
    None,
    models.WhitelistRemovedBody,
    "Remove a project from the whitelist on chain and in the stored list (administrator).",
)
