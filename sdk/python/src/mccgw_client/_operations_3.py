"""Operations, part 3 of 5 (re-exported by operations.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Any

from . import models
from ._operation import Operation

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
project_status: Operation[models.Envelope] = Operation(
    "project_status",
    "GET",
    "/v1/projects/{project_id}/status",
    None,
    models.Envelope,
    "Current status of a project, what it allows, and its latest changes (public).",
)
public_user: Operation[models.Envelope] = Operation(
    "public_user",
    "GET",
    "/v1/users/{uid}",
    None,
    models.Envelope,
    "Public information about a user (no authentication).",
)
readyz: Operation[Any] = Operation(
    "readyz",
    "GET",
    "/readyz",
    None,
    None,
    "Readiness: database, Redis, Temporal and the chain RPC all answer.",
)
reconciliation_drifts: Operation[models.Envelope] = Operation(
    "reconciliation_drifts",
    "GET",
    "/v1/admin/reconciliation/drifts",
    None,
    models.Envelope,
    "Drift rows found by reconciliation (newest first; filter by run_id).",
)
records: Operation[models.Envelope] = Operation(
    "records",
    "GET",
    "/v1/mining/records",
    None,
    models.Envelope,
    "Confirmed mining rewards: a user's own, or a project's (optionally of one user).",
)
redeliver: Operation[models.Envelope] = Operation(
    "redeliver",
    "POST",
    "/v1/webhooks/deliveries/{delivery_id}/redeliver",
    None,
    models.Envelope,
    "Send a delivery again now (same X-Service-Delivery id; the retry schedule restarts).",
)
register: Operation[models.Envelope] = Operation(
    "register",
    "POST",
    "/v1/webhooks/register",
    models.EndpointIn,
    models.Envelope,
    "Register a webhook endpoint of the calling project (the secret is shown once).",
)
register_project: Operation[models.Envelope] = Operation(
    "register_project",
    "POST",
    "/v1/projects/register",
    models.ProjectRegistrationIn,
    models.Envelope,
    "Register a project directly (administrator); the api_secret is returned once.",
)
reject: Operation[models.Envelope] = Operation(
    "reject",
    "POST",
    "/v1/admin/projects/applications/{application_id}/reject",
    models.RejectIn,
    models.Envelope,
    "Reject a pending application with a reason (administrator).",
)
