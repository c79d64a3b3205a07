"""The image, built once per session for the image and topology tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from deploy.image import Installed, build_image
from tests.conftest import traversable_tmp


@pytest.fixture(scope="session")
def installed_image() -> Iterator[Installed]:
    import shutil

    tmp = traversable_tmp("mccgw-image-")
    try:
        yield build_image(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
