"""Every router, wired in one place."""

from fastapi import APIRouter

import api.routes.mining as mining_routes
import api.routes.mining_stats as mining_stats_routes
import api.routes.organizations as organization_routes
import api.routes.rewards as rewards_routes
import api.routes.techtree as techtree_routes
import api.routes.webhooks as webhooks_routes
from api.routes import (
    account,
    admin_projects,
    admin_transfers,
    admin_whitelist,
    admin_withdrawals,
    attributes,
    auction_solana,
    authorizations,
    fragment,
    funds,
    health,
    legacy,
    lending,
    onboarding,
    project_client,
    projects,
    territory,
    token_price,
    tokens,
    transfers,
    users,
    versions,
    withdrawals,
)
from authserver.accounts import router as account_pages_router
from authserver.enrol import router as enrol_router
from authserver.passkey_enrol import router as passkey_router
from authserver.routes import router as auth_router
from authserver.upstream_routes import router as upstream_router

api_router = APIRouter()
api_router.include_router(health.router)
api_router.include_router(versions.router)
api_router.include_router(project_client.router)
api_router.include_router(projects.router)
api_router.include_router(authorizations.router)  # before users: /me/... is not a uid
api_router.include_router(account.router)  # the person's own account: e-mail change, deletion
api_router.include_router(users.router)
api_router.include_router(attributes.router)
for _prefix in ("/v1", "/api/open"):  # spec: onboarding and admin routes under both prefixes
    api_router.include_router(onboarding.router, prefix=_prefix)
    api_router.include_router(admin_whitelist.router, prefix=_prefix)
    api_router.include_router(admin_projects.router, prefix=_prefix)
api_router.include_router(funds.router)
api_router.include_router(transfers.router)
api_router.include_router(admin_transfers.router)
api_router.include_router(withdrawals.router)
api_router.include_router(admin_withdrawals.router)
api_router.include_router(webhooks_routes.router)
api_router.include_router(mining_routes.router)
api_router.include_router(mining_stats_routes.router)
api_router.include_router(organization_routes.router)
api_router.include_router(organization_routes.admin_router)
api_router.include_router(techtree_routes.router)
api_router.include_router(rewards_routes.router)
api_router.include_router(legacy.router)
for _views_router in (territory, auction_solana, fragment, lending):  # chain views
    api_router.include_router(_views_router.router)
api_router.include_router(tokens.router)
api_router.include_router(token_price.router)  # the price and the statistics of the tokens
api_router.include_router(auth_router)
api_router.include_router(enrol_router)  # the second factor's enrolment pages
api_router.include_router(passkey_router)  # ... and the passkeys'
api_router.include_router(upstream_router)  # sign-in through an upstream OIDC provider
api_router.include_router(account_pages_router)  # sign-up, verification, reset
