"""Every router, wired in one place."""

from fastapi import APIRouter

import api.routes.webhooks as webhooks_routes
from api.routes import attributes, health, legacy, projects, users
from authserver.routes import router as auth_router

api_router = APIRouter()
api_router.include_router(health.router)
api_router.include_router(projects.router)
api_router.include_router(users.router)
api_router.include_router(attributes.router)
api_router.include_router(webhooks_routes.router)
api_router.include_router(legacy.router)
api_router.include_router(auth_router)
