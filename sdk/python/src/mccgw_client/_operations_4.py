"""Operations, part 4 of 5 (re-exported by operations.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from . import models
from ._operation import Operation

remove_member: Operation[models.OneMembershipAttributes] = Operation(
    "remove_member",
    "POST",
    "/v1/admin/organizations/members/{uid}/leave",
    models.RemovalIn,
    models.OneMembershipAttributes,
    "End a user's membership of their station (administrator).",
)
report_attribute: Operation[models.OneProjectAttributeAttributes] = Operation(
    "report_attribute",
    "POST",
    "/v1/users/{uid}/attributes",
    models.AttributeIn,
    models.OneProjectAttributeAttributes,
    "Report (upsert) one attribute of a user who authorized this project.",
)
request_transfer: Operation[models.OneTransferAttributes] = Operation(
    "request_transfer",
    "POST",
    "/v1/transfer/request",
    models.TransferRequestIn,
    models.OneTransferAttributes,
    "Request a transfer from a user who authorized this project; settles on chain.",
)
retry_transfer: Operation[models.OneRetryAttributes] = Operation(
    "retry_transfer",
    "POST",
    "/v1/admin/transfers/{transfer_id}/retry",
    models.AdminActionIn,
    models.OneRetryAttributes,
    "Re-check the chain and drive a stuck transfer on (re-sends exactly the same write).",
)
revoke: Operation[models.Revocation] = Operation(
    "revoke",
    "POST",
    "/auth/oauth/revoke",
    None,
    models.Revocation,
    "RFC 7009 token revocation (a refresh token revokes its whole family).",
)
revoke_authorization: Operation[models.OneAuthorizationAttributes] = Operation(
    "revoke_authorization",
    "DELETE",
    "/v1/users/me/authorizations/{project_id}",
    None,
    models.OneAuthorizationAttributes,
    "Withdraw the current user's authorization of a project (its tokens for the user die).",
)
roll_api_secret: Operation[models.OneApiSecretAttributes] = Operation(
    "roll_api_secret",
    "POST",
    "/v1/projects/{project_id}/api-secret/roll",
    models.RollIn,
    models.OneApiSecretAttributes,
    "Roll the project's api_secret (its owner's ID token, or an administrator): the new secret",
)
roll_secret_projects: Operation[models.OneOAuthClientSecretAttributes] = Operation(
    "roll_secret_projects",
    "POST",
    "/v1/projects/oauth-client/secret/roll",
    models.ClientSecretRollIn,
    models.OneOAuthClientSecretAttributes,
    "Roll the client secret of the calling project's OAuth client: the new one is shown once,",
)
roll_secret_webhooks: Operation[models.OneWebhookSecretAttributes] = Operation(
    "roll_secret_webhooks",
    "POST",
    "/v1/webhooks/{endpoint_id}/secret/roll",
    models.SecretRollIn,
    models.OneWebhookSecretAttributes,
    "Roll an endpoint's signing secret: the new one is shown once; until",
)
set_mcc_price: Operation[models.OneMccPrice] = Operation(
    "set_mcc_price",
    "POST",
    "/v1/mcc/price",
    models.PriceSet,
    models.OneMccPrice,
    "Set the administrator price (scope mcc:admin, role admin; audited).",
)
set_redirect_uris: Operation[models.OneOAuthClientAttributes] = Operation(
    "set_redirect_uris",
    "PUT",
    "/v1/projects/oauth-client",
    models.RedirectUrisIn,
    models.OneOAuthClientAttributes,
    "Set the redirect URIs of the calling project's OAuth client (created if missing).",
)
set_whitelist_status: Operation[models.OneWhitelistStatusAttributes] = Operation(
    "set_whitelist_status",
    "PUT",
    "/v1/admin/mcd/whitelist/{project_id}/status",
    models.WhitelistStatusIn,
    models.OneWhitelistStatusAttributes,
    "Suspend or reactivate a project's whitelist entry: chain first, then the database.",
)
stats: Operation[models.OneStatsAttributes] = Operation(
    "stats",
    "GET",
    "/v1/lending/stats",
    None,
    models.OneStatsAttributes,
    "Utilization, rates, liquidity, LP exchange rate, TVL and loan counts, accrued to now.",
)
stuck_transfers: Operation[models.ManyStuckTransferAttributes] = Operation(
    "stuck_transfers",
    "GET",
    "/v1/admin/transfers/stuck",
    None,
    models.ManyStuckTransferAttributes,
    "Transfers `pending_onchain` (or `pending`) for longer than the threshold.",
)
submit_activity: Operation[models.MiningSubmitBody] = Operation(
    "submit_activity",
    "POST",
    "/v1/mining/submit-activity",
    models.ActivityIn,
    models.MiningSubmitBody,
    "Submit one mining activity; verified independently, rewarded in MCD on chain.",
)
token: Operation[models.TokenResponse] = Operation(
    "token",
    "POST",
    "/auth/oauth/token",
    None,
    models.TokenResponse,
    "Token endpoint: authorization_code (with PKCE) and refresh_token grants.",
)
unit_nft: Operation[models.OneNftAttributes] = Operation(
    "unit_nft",
    "GET",
    "/v1/territory/unit/{unit_id}/nft",
    None,
    models.OneNftAttributes,
    "The territory NFT account of a unit (type + id); `status` reserved = not minted yet.",
)
unlock: Operation[models.OneTreeAttributes] = Operation(
    "unlock",
    "POST",
    "/v1/tech-tree/unlock",
    models.LightIn,
    models.OneTreeAttributes,
    "Evaluate the caller's station now (window ending yesterday); light it if it earned it.",
)
unlock_funds: Operation[models.OneLockAttributes] = Operation(
    "unlock_funds",
    "POST",
    "/v1/funds/unlock",
    models.UnlockIn,
    models.OneLockAttributes,
    "Unlock a fund lock of this project (exactly once; 409 if no longer locked).",
)
update_endpoint: Operation[models.OneEndpointAttributes] = Operation(
    "update_endpoint",
    "PATCH",
    "/v1/webhooks/{endpoint_id}",
    models.EndpointPatch,
    models.OneEndpointAttributes,
    "Change an endpoint's url, events or secret, or re-enable it.",
)
update_my_profile: Operation[models.OneUserProfileAttributes] = Operation(
    "update_my_profile",
    "PATCH",
    "/v1/users/me/profile",
    models.ProfileUpdate,
    models.OneUserProfileAttributes,
    "Change the display name (scope user:write). Naturally idempotent: `idempotency_key` is",
)
update_project: Operation[models.OneAdminProjectAttributes] = Operation(
    "update_project",
    "PATCH",
    "/v1/admin/projects/{project_id}",
    models.ProjectSettingsIn,
    models.OneAdminProjectAttributes,
    "Change a project's rate-limit tier, amount limits or IP allow-list (administrator);",
)
upgrade: Operation[models.OneTreeAttributes] = Operation(
    "upgrade",
    "POST",
    "/v1/tech-tree/upgrade",
    models.LightIn,
    models.OneTreeAttributes,
    "Evaluate the units above the caller's station; light those that earned it.",
)
upload_avatar: Operation[models.OneAvatarAttributes] = Operation(
    "upload_avatar",
    "POST",
    "/v1/users/me/avatar",
    None,
    models.OneAvatarAttributes,
    "Verified by decoding, re-encoded without metadata, stored; its URL becomes `avatar_url`",
)
user_bonus: Operation[models.OneBonusAttributes] = Operation(
    "user_bonus",
    "GET",
    "/v1/tech-tree/bonus",
    None,
    models.OneBonusAttributes,
    "The caller's ``bonus_multiplier`` (from the cache the daily job fills).",
)
user_profile: Operation[models.OneBaseProfileAttributes] = Operation(
    "user_profile",
    "GET",
    "/v1/users/{uid}/profile",
    None,
    models.OneBaseProfileAttributes,
    "A user's base profile (scope user:read): no e-mail, no project attributes.",
)
user_tree: Operation[models.OneTreeAttributes] = Operation(
    "user_tree",
    "GET",
    "/v1/tech-tree/user",
    None,
    models.OneTreeAttributes,
    "The caller's station and the units above it: states, days, and what is missing.",
)
vault: Operation[models.OneVaultDetailAttributes] = Operation(
    "vault",
    "GET",
    "/v1/fragment/vault/{id}",
    None,
    models.OneVaultDetailAttributes,
    "One vault (id = vault address or NFT mint) with live supply and its buyout.",
)
