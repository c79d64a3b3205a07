"""The territory hierarchy (stations, matrices, sectors, systems), who belongs to which
station and when, each station's daily KPI, and the daily job's progress marker.

Money is integer base units: USDC inputs carry 6 decimals (``*_input`` columns)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, CreatedAt, IdentityPk, TimestampMixin, UserUid
from db.models.mining import MiningSubmission

UNIT_TYPES = ("station", "matrix", "sector", "system")


class OrgUnit(TimestampMixin, Base):
    """One unit of the hierarchy, keyed on the wire by (type, number) like on chain."""

    __tablename__ = "org_units"
    __table_args__ = (
        UniqueConstraint("unit_type", "number", name="uq_org_units_type_number"),
        CheckConstraint(f"unit_type IN {UNIT_TYPES!r}", name="unit_type"),
        CheckConstraint("number >= 1", name="number"),
        Index("ix_org_units_parent", "parent_id"),
    )

    id: Mapped[IdentityPk]
    unit_type: Mapped[str] = mapped_column(String(10))
    number: Mapped[int]
    name: Mapped[str] = mapped_column(String(100))
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("org_units.id"))
    manager_uid: Mapped[str | None] = mapped_column(String(100), ForeignKey("users.uid"))
    # The territory NFT's mint once minted (territory program, TerritoryNft.mint).
    territory_mint: Mapped[str | None] = mapped_column(String(64))
    # The tech-tree state as of ``state_day`` (the last day of the 30-day window evaluated):
    # qualifying days of a station, the average over its stations for the units above.
    lit: Mapped[bool] = mapped_column(Boolean, default=False, server_default="f")
    qualifying_days: Mapped[Decimal] = mapped_column(
        Numeric(6, 2), default=Decimal(0), server_default="0"
    )
    state_day: Mapped[date | None] = mapped_column(Date)
    lit_since: Mapped[date | None] = mapped_column(Date)


class OrgMembership(Base):
    """A user's stay in a station; at most one open (left_at IS NULL) per user."""

    __tablename__ = "org_memberships"
    __table_args__ = (
        Index(
            "uq_org_memberships_open_user",
            "user_uid",
            unique=True,
            postgresql_where=text("left_at IS NULL"),
        ),
        Index("ix_org_memberships_station", "station_id", "joined_at"),
        CheckConstraint("left_at IS NULL OR left_at >= joined_at", name="dates"),
    )

    id: Mapped[IdentityPk]
    user_uid: Mapped[UserUid] = mapped_column(ForeignKey("users.uid"))
    station_id: Mapped[int] = mapped_column(ForeignKey("org_units.id"))
    joined_at: Mapped[datetime]
    left_at: Mapped[datetime | None]


class StationDailyKpi(Base):
    """One station's UTC day: members at the day's end, their mining input, and whether the
    day qualifies (>= 900 members and an average input >= 20 USDC)."""

    __tablename__ = "org_station_kpis"
    __table_args__ = (Index("ix_org_station_kpis_day", "day"),)

    station_id: Mapped[int] = mapped_column(ForeignKey("org_units.id"), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    member_count: Mapped[int] = mapped_column(Integer)
    # USDC base units (6 decimals): the sum, and the average rounded down.
    total_input: Mapped[int]
    avg_input: Mapped[int]
    qualifies: Mapped[bool] = mapped_column(Boolean)
    computed_at: Mapped[CreatedAt]


class KpiProgress(Base):
    """The daily job's marker: the last UTC day whose KPI rows and unit states are committed
    (written in the same transaction as that day's rows)."""

    __tablename__ = "org_kpi_progress"

    job: Mapped[str] = mapped_column(String(40), primary_key=True)
    last_completed_day: Mapped[date] = mapped_column(Date)
    updated_at: Mapped[CreatedAt]


# The daily job reads one UTC day of confirmed submissions: by this index, not a table scan.
# (Declared here, beside its only reader; the table is mining's.)
Index(
    "ix_mining_activities_confirmed_day",
    MiningSubmission.confirmed_at,
    postgresql_where=text("status = 'confirmed'"),
)
