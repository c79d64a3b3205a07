"""Project-reported user attributes (upsert on uid, project, key)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Security
from pydantic import BaseModel, Field, field_validator
from sqlalchemy import func
from sqlalchemy.dialects.postgresql import insert

from api.auth.consent import require_user_authorized
from api.auth.deps import current_project
from api.auth.principal import ProjectPrincipal
from api.envelope import Envelope, single
from api.idempotency import write_context
from db.models.access import UserProjectAttribute

router = APIRouter(prefix="/v1/users", tags=["attributes"])

ProjectCaller = Annotated[ProjectPrincipal, Security(current_project)]


class AttributeIn(BaseModel):
    attribute_key: str = Field(min_length=1, max_length=100, examples=["auction_wins"])
    attribute_value: Any = Field(examples=[{"count": 3}])
    visibility: Literal["public", "private", "authorized"] = "private"
    idempotency_key: str | None = Field(
        None, description="Required unless the Idempotency-Key header is sent"
    )

    @field_validator("attribute_value")
    @classmethod
    def _present(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("attribute_value is required (any JSON value but null)")
        return value


@router.post(
    "/{uid}/attributes",
    response_model=Envelope,
    responses={
        401: {"description": "Project credentials refused"},
        403: {"description": "`user-not-authorized-for-project`, `project-suspended`, ..."},
        409: {"description": "Idempotency conflict"},
    },
)
async def report_attribute(
    uid: str, payload: AttributeIn, project: ProjectCaller, request: Request
) -> Any:
    """Report (upsert) one attribute of a user who authorized this project."""
    async with write_context(request, project, operation="attributes.upsert", user_uid=uid) as ctx:
        await require_user_authorized(ctx.session, project, uid)
        values = {
            "uid": uid,
            "project_id": project.project_id,
            "attribute_key": payload.attribute_key,
            "attribute_value": payload.attribute_value,
            "visibility": payload.visibility,
        }
        insert_ = insert(UserProjectAttribute).values(**values)
        statement = insert_.on_conflict_do_update(
            index_elements=["uid", "project_id", "attribute_key"],
            set_={
                "attribute_value": insert_.excluded.attribute_value,
                "visibility": insert_.excluded.visibility,
                "updated_at": func.now(),
            },
        ).returning(UserProjectAttribute)
        row = (await ctx.session.execute(statement)).scalar_one()
        return ctx.respond(
            200,
            single(
                "user_project_attribute",
                row.id,
                {
                    "uid": row.uid,
                    "project_id": str(row.project_id),
                    "attribute_key": row.attribute_key,
                    "attribute_value": row.attribute_value,
                    "visibility": row.visibility,
                    "created_at": row.created_at.isoformat(),
                    "updated_at": row.updated_at.isoformat(),
                },
            ),
        )
