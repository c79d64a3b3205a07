"""Who may read which per-project user attribute (spec "Visibility rules", docs/onboarding.md).

| visibility | anonymous | other user | the user, admin | owner project | authorized p. | other p. |
|------------|-----------|------------|-----------------|---------------|---------------|----------|
| public     | yes       | yes        | yes             | yes           | yes           | yes      |
| private    | no        | no         | yes             | yes           | no            | no       |
| authorized | no        | no         | yes             | yes           | yes           | no       |

"Authorized project": a project the user has granted an active consent
(``access.consent.authorized_projects``). Attributes of a project whose status forbids
attribute reads (``deleted``) are hidden from everyone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Viewer:
    """The caller of a read: nobody, a user (bearer token) or a project (credentials)."""

    uid: str | None = None
    project_id: int | None = None
    admin: bool = False

    @property
    def anonymous(self) -> bool:
        return self.uid is None and self.project_id is None


ANONYMOUS = Viewer()


def can_see(
    viewer: Viewer,
    *,
    uid: str,
    owner_project: int,
    visibility: str,
    authorized_projects: Iterable[int] = (),
) -> bool:
    """May ``viewer`` read an attribute of user ``uid`` kept by ``owner_project``?"""
    if visibility == "public":
        return True
    if viewer.admin or (viewer.uid is not None and viewer.uid == uid):
        return True
    if viewer.project_id is None:
        return False
    if viewer.project_id == owner_project:
        return True
    return visibility == "authorized" and viewer.project_id in set(authorized_projects)
