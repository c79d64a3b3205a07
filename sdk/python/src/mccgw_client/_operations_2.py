"""Operations, part 2 of 5 (re-exported by operations.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from . import models
from ._operation import Operation

get_transfer: Operation[models.OneTransferAttributes] = Operation(
    "get_transfer",
    "GET",
    "/v1/transfer/{transfer_id}",
    None,
    models.OneTransferAttributes,
    "A transfer of this project with its state history.",
)
global_stats: Operation[models.OneGlobalAttributes] = Operation(
    "global_stats",
    "GET",
    "/v1/mining/global-stats",
    None,
    models.OneGlobalAttributes,
    "Public: confirmed mining activity of the whole ecosystem by UTC day.",
)
healthz: Operation[models.AliveBody] = Operation(
    "healthz", "GET", "/healthz", None, models.AliveBody, "Liveness: the process answers."
)
holders: Operation[models.ManyHolderAttributes] = Operation(
    "holders",
    "GET",
    "/v1/fragment/vault/{id}/holders",
    None,
    models.ManyHolderAttributes,
    "Holders of a vault's fragments (its mint's token accounts), largest first.",
)
holdings: Operation[models.ManyHoldingAttributes] = Operation(
    "holdings",
    "GET",
    "/v1/fragment/holdings/{wallet}",
    None,
    models.ManyHoldingAttributes,
    "A wallet's fragment balances, per vault.",
)
introspect: Operation[models.Introspection] = Operation(
    "introspect",
    "POST",
    "/auth/oauth/introspect",
    None,
    models.Introspection,
    "RFC 7662 token introspection (client authentication required).",
)
jwks: Operation[models.Jwks] = Operation(
    "jwks", "GET", "/auth/.well-known/jwks.json", None, models.Jwks, "Public signing keys (JWKS)."
)
legacy_mcc_balance: Operation[models.LegacyMccBalanceBody] = Operation(
    "legacy_mcc_balance",
    "GET",
    "/mcc/balance",
    None,
    models.LegacyMccBalanceBody,
    "Legacy MCC balance (plain JSON numbers; bearer is an ID token).",
)
legacy_mining_history: Operation[models.LegacyMiningHistoryBody] = Operation(
    "legacy_mining_history",
    "GET",
    "/mcc/mining/history",
    None,
    models.LegacyMiningHistoryBody,
    "Legacy mining history (plain JSON; bearer is an ID token): records and total.",
)
legacy_my_team: Operation[models.LegacyTeamBody] = Operation(
    "legacy_my_team",
    "GET",
    "/organization/my-team",
    None,
    models.LegacyTeamBody,
    "Legacy team: the caller's station, its matrix (``unit``) and the station's manager.",
)
legacy_profile: Operation[models.LegacyProfileBody] = Operation(
    "legacy_profile",
    "GET",
    "/users/profile",
    None,
    models.LegacyProfileBody,
    "Legacy profile (plain JSON; bearer is an ID token).",
)
list_applications: Operation[models.ManyApplicationAttributes] = Operation(
    "list_applications",
    "GET",
    "/v1/admin/projects/applications",
    None,
    models.ManyApplicationAttributes,
    "Applications for review, filtered by status (administrator).",
)
list_authorizations: Operation[models.ListingAuthorizationAttributes] = Operation(
    "list_authorizations",
    "GET",
    "/v1/users/me/authorizations",
    None,
    models.ListingAuthorizationAttributes,
    "The projects the current user has authorized, with the scopes granted to each.",
)
list_deliveries: Operation[models.ManyDeliveryAttributes] = Operation(
    "list_deliveries",
    "GET",
    "/v1/webhooks/{endpoint_id}/deliveries",
    None,
    models.ManyDeliveryAttributes,
    "Deliveries to one endpoint, newest first, each with its attempt log.",
)
list_endpoints: Operation[models.ManyEndpointAttributes] = Operation(
    "list_endpoints",
    "GET",
    "/v1/webhooks",
    None,
    models.ManyEndpointAttributes,
    "The calling project's webhook endpoints (deleted ones are not listed).",
)
list_organizations: Operation[models.ManyUnitAttributes] = Operation(
    "list_organizations",
    "GET",
    "/v1/organizations",
    None,
    models.ManyUnitAttributes,
    "Units of the hierarchy, filtered by type and parent, paged.",
)
list_whitelist: Operation[models.ManyWhitelistEntryAttributes] = Operation(
    "list_whitelist",
    "GET",
    "/v1/admin/mcd/whitelist",
    None,
    models.ManyWhitelistEntryAttributes,
    "The stored MCD whitelist with each entry's decoded on-chain account (administrator).",
)
loan: Operation[models.OneLoanAttributes] = Operation(
    "loan",
    "GET",
    "/v1/lending/loan/{wallet}/{loan_id}",
    None,
    models.OneLoanAttributes,
    "One loan: loan_id is the collateral NFT's mint (or the Loan account address).",
)
loans: Operation[models.ManyLoanAttributes] = Operation(
    "loans",
    "GET",
    "/v1/lending/loans/{wallet}",
    None,
    models.ManyLoanAttributes,
    "A wallet's loans, newest first, with interest accrued to now at the pool's rate.",
)
lock_funds: Operation[models.OneLockAttributes] = Operation(
    "lock_funds",
    "POST",
    "/v1/funds/lock",
    models.LockIn,
    models.OneLockAttributes,
    "Lock (reserve) a user's funds until unlocked, settled or expired.",
)
locked_funds: Operation[models.ManyLockAttributes] = Operation(
    "locked_funds",
    "GET",
    "/v1/funds/locked/{user_uid}",
    None,
    models.ManyLockAttributes,
    "Active fund locks this project holds on a user (paged).",
)
lp_balance: Operation[models.OneLpAttributes] = Operation(
    "lp_balance",
    "GET",
    "/v1/lending/lp-balance/{wallet}",
    None,
    models.OneLpAttributes,
    "A wallet's LP tokens, their value in the pool asset and share of the pool.",
)
mcc_address_balance: Operation[models.OneAddressBalanceAttributes] = Operation(
    "mcc_address_balance",
    "GET",
    "/v1/mcc/balance/{address}",
    None,
    models.OneAddressBalanceAttributes,
    "The on-chain MCC balance of any wallet (public; the same answer for users and others).",
)
mcc_balance: Operation[models.OneMccBalanceAttributes] = Operation(
    "mcc_balance",
    "GET",
    "/v1/mcc/balance",
    None,
    models.OneMccBalanceAttributes,
    "The caller's MCC custody balance: total, locked, available, deposit address.",
)
mcc_price: Operation[models.OneMccPriceAttributes] = Operation(
    "mcc_price",
    "GET",
    "/v1/mcc/price",
    None,
    models.OneMccPriceAttributes,
    "The MCC price the rule gives now (market > admin > default), with base and buyback.",
)
mcc_stats: Operation[models.OneTokenStatsAttributes] = Operation(
    "mcc_stats",
    "GET",
    "/v1/mcc/stats",
    None,
    models.OneTokenStatsAttributes,
    "Global MCC statistics: supply, custody, holders, volume, price (cached 30 s).",
)
mcc_transactions: Operation[models.ManyTokenTransactionAttributes] = Operation(
    "mcc_transactions",
    "GET",
    "/v1/mcc/transactions",
    None,
    models.ManyTokenTransactionAttributes,
    "The caller's MCC movements, newest first (deposits, transfers, settlements).",
)
