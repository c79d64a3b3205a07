"""The chaos tests run on the session's production topology (tests/deploy/conftest.py)."""

from tests.deploy.conftest import installed_image, topology

__all__ = ["installed_image", "topology"]
