"""Every ORM model, imported here so Alembic's autogenerate and metadata see them all."""

from db.base import Base

__all__ = ["Base"]
