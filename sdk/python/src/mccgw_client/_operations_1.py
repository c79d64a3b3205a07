"""Operations, part 1 of 5 (re-exported by operations.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Any

from . import models
from ._operation import Operation

active: Operation[models.ManyAuctionAttributes] = Operation(
    "active",
    "GET",
    "/v1/auction-solana/active",
    None,
    models.ManyAuctionAttributes,
    "Biddable auctions (status active and not ended), ending soonest first.",
)
admin_cancel_transfer: Operation[models.OneTransferAttributes] = Operation(
    "admin_cancel_transfer",
    "POST",
    "/v1/admin/transfers/{transfer_id}/cancel",
    models.AdminActionIn,
    models.OneTransferAttributes,
    "Cancel a transfer whose chain write can no longer land (never sent, or expired).",
)
apply: Operation[models.OneApplicationAttributes] = Operation(
    "apply",
    "POST",
    "/v1/projects/apply",
    models.ApplicationIn,
    models.OneApplicationAttributes,
    "Apply for a project (developer ID token); one pending application per developer.",
)
approve: Operation[models.OneApprovedApplicationAttributes] = Operation(
    "approve",
    "POST",
    "/v1/admin/projects/applications/{application_id}/approve",
    models.ApproveIn,
    models.OneApprovedApplicationAttributes,
    "The answer carries the project's OAuth client id (`oauth_client_id`, a public client:",
)
auction: Operation[models.OneAuctionDetailAttributes] = Operation(
    "auction",
    "GET",
    "/v1/auction-solana/auction/{id}",
    None,
    models.OneAuctionDetailAttributes,
    "One auction with seconds left, minimum next bid and its escrow balance.",
)
auction_bids: Operation[models.ManyBidAttributes] = Operation(
    "auction_bids",
    "GET",
    "/v1/auction-solana/auction/{id}/bids",
    None,
    models.ManyBidAttributes,
    "An auction's bids, highest first (ties: earliest first).",
)
authorize_page: Operation[Any] = Operation(
    "authorize_page",
    "GET",
    "/auth/oauth/authorize",
    None,
    None,
    "Login and consent page of the authorization-code flow.",
)
authorize_submit: Operation[Any] = Operation(
    "authorize_submit",
    "POST",
    "/auth/oauth/authorize",
    None,
    None,
    "Log in and approve (or deny) the authorization request.",
)
batch_attributes: Operation[models.ListingProjectAttributeSetAttributes] = Operation(
    "batch_attributes",
    "POST",
    "/v1/users/batch/attributes",
    models.AttributeBatchIn,
    models.ListingProjectAttributeSetAttributes,
    "Read this project's attributes of many users at once (one item per requested uid).",
)
batch_submit: Operation[models.MiningBatchBody] = Operation(
    "batch_submit",
    "POST",
    "/v1/mining/batch-submit",
    models.BatchIn,
    models.MiningBatchBody,
    "Submit up to 100 activities; each has its own idempotency key, status and result.",
)
calculate_interest: Operation[models.OneInterestAttributes] = Operation(
    "calculate_interest",
    "POST",
    "/v1/lending/calculate-interest",
    models.CalculateInterestIn,
    models.OneInterestAttributes,
    "Interest on a loan exactly as the lending program computes it, with the overflow flag.",
)
cancel_transfer: Operation[models.OneTransferAttributes] = Operation(
    "cancel_transfer",
    "POST",
    "/v1/transfer/{transfer_id}/cancel",
    models.CancelIn,
    models.OneTransferAttributes,
    "Cancel a transfer while it is still `pending` (409 `invalid-state` afterwards).",
)
change_project_status: Operation[models.OneStatusChangeAttributes] = Operation(
    "change_project_status",
    "PUT",
    "/v1/admin/projects/{project_id}/status",
    models.StatusChangeIn,
    models.OneStatusChangeAttributes,
    "Move a project through its status machine, with a reason (administrator).",
)
collection: Operation[models.OneCollectionAttributes] = Operation(
    "collection",
    "GET",
    "/v1/territory/collection",
    None,
    models.OneCollectionAttributes,
    "The territory collection: authority, collection mint, minted totals per type.",
)
config_auction_solana: Operation[models.OneAuctionConfigAttributes] = Operation(
    "config_auction_solana",
    "GET",
    "/v1/auction-solana/config",
    None,
    models.OneAuctionConfigAttributes,
    "The auction program's config: increments, durations, totals.",
)
config_fragment: Operation[models.OneFragmentConfigAttributes] = Operation(
    "config_fragment",
    "GET",
    "/v1/fragment/config",
    None,
    models.OneFragmentConfigAttributes,
    "The fragment program's config.",
)
config_tech_tree: Operation[models.OneTechTreeConfigAttributes] = Operation(
    "config_tech_tree",
    "GET",
    "/v1/tech-tree/config",
    None,
    models.OneTechTreeConfigAttributes,
    "Public: the levels, their bonuses and the lighting thresholds.",
)
create_organization: Operation[models.OneUnitAttributes] = Operation(
    "create_organization",
    "POST",
    "/v1/admin/organizations",
    models.UnitIn,
    models.OneUnitAttributes,
    "Create a unit under its parent (administrator; the same unit again answers 200).",
)
delete_attributes: Operation[models.OneAttributeDeletionAttributes] = Operation(
    "delete_attributes",
    "DELETE",
    "/v1/users/{uid}/attributes",
    models.AttributeDeleteIn,
    models.OneAttributeDeletionAttributes,
    "Delete some of this project's attributes of a user (idempotent; missing keys listed).",
)
delete_endpoint: Operation[models.OneEndpointAttributes] = Operation(
    "delete_endpoint",
    "DELETE",
    "/v1/webhooks/{endpoint_id}",
    None,
    models.OneEndpointAttributes,
    "Delete an endpoint: nothing more is delivered to it (its log stays queryable).",
)
estimate_borrow_cost: Operation[models.OneEstimateAttributes] = Operation(
    "estimate_borrow_cost",
    "POST",
    "/v1/lending/estimate-borrow-cost",
    models.EstimateBorrowIn,
    models.OneEstimateAttributes,
    "What a loan would cost now: collateral, limits, rates before/after, interest at due.",
)
full_profile: Operation[models.OneFullProfileAttributes] = Operation(
    "full_profile",
    "GET",
    "/v1/users/{uid}/full-profile",
    None,
    models.OneFullProfileAttributes,
    "A project sees it only for users who authorized it, and their e-mail only if they granted",
)
funds_transfer: Operation[models.OneTransferAttributes] = Operation(
    "funds_transfer",
    "POST",
    "/v1/funds/transfer",
    models.FundsTransferIn,
    models.OneTransferAttributes,
    "Move funds between two users of this project (both must have authorized it).",
)
get_activity: Operation[models.OneMiningSubmissionAttributes] = Operation(
    "get_activity",
    "GET",
    "/v1/mining/activity/{activity_id}",
    None,
    models.OneMiningSubmissionAttributes,
    "Status of one of the project's mining activities, with its history and transaction.",
)
get_client: Operation[models.OneOAuthClientAttributes] = Operation(
    "get_client",
    "GET",
    "/v1/projects/oauth-client",
    None,
    models.OneOAuthClientAttributes,
    "The calling project's OAuth client (id, redirect URIs, scopes users may grant).",
)
get_endpoint: Operation[models.OneEndpointAttributes] = Operation(
    "get_endpoint",
    "GET",
    "/v1/webhooks/{endpoint_id}",
    None,
    models.OneEndpointAttributes,
    "One webhook endpoint of the calling project.",
)
get_organization: Operation[models.OneUnitAttributes] = Operation(
    "get_organization",
    "GET",
    "/v1/organizations/{unit_id}",
    None,
    models.OneUnitAttributes,
    "One unit: type, number, name, parent, manager, territory NFT, members and state.",
)
