"""Every router, wired in one place."""

from fastapi import APIRouter

from api.routes import health, projects

api_router = APIRouter()
api_router.include_router(health.router)
api_router.include_router(projects.router)
