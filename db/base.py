"""Declarative base with a constraint naming convention, so migrations name things stably."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, cast

from sqlalchemy import BigInteger, DateTime, Identity, MetaData, String, Table, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# Column types many tables share: ``id: Mapped[IdentityPk]``, ``created_at: Mapped[CreatedAt]``.
IdentityPk = Annotated[int, mapped_column(BigInteger, Identity(), primary_key=True)]
CreatedAt = Annotated[datetime, mapped_column(DateTime(timezone=True), server_default=func.now())]
# A user's Firebase uid, and a currency code (MCC/MCD), wherever a table keeps one.
UserUid = Annotated[str, mapped_column(String(100))]
CurrencyCode = Annotated[str, mapped_column(String(8))]
UpdatedAt = Annotated[
    datetime,
    mapped_column(DateTime(timezone=True), server_default=func.now(), onupdate=func.now()),
]


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    # Whole numbers are money or ids (BIGINT unless a column says Integer), and every
    # timestamp is timezone-aware: said once here rather than on each column.
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        int: BigInteger,
        datetime: DateTime(timezone=True),
    }


def table_of(model: type[Base]) -> Table:
    """A model's table, for Core statements executed with a parameter list (executemany /
    insertmanyvalues: compiled once whatever the values, without the ORM's bulk overhead)."""
    return cast(Table, model.__table__)


class TimestampMixin:
    created_at: Mapped[CreatedAt]
    updated_at: Mapped[UpdatedAt]


class StateHistoryMixin:
    """A row of a resource's append-only state history (a transfer's, a withdrawal's): the
    subclass adds the resource's foreign key."""

    id: Mapped[IdentityPk]
    status: Mapped[str] = mapped_column(String(20))
    reason: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[CreatedAt]
