"""The image and the production topology, each built once per session for the image, topology
and chaos tests (tests/chaos/conftest.py imports them)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from deploy.image import Installed, build_image
from deploy.topology import Topology
from tests.conftest import traversable_tmp


@pytest.fixture(scope="session")
def installed_image() -> Iterator[Installed]:
    import shutil

    tmp = traversable_tmp("mccgw-image-")
    try:
        yield build_image(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def topology(installed_image: Installed) -> Iterator[Topology]:
    """docker-compose.yml's topology as processes (deploy/topology.py), with the settings a
    test on one machine needs: loopback webhooks and a deposit watcher every 2 s."""
    import shutil

    state = traversable_tmp("mccgw-topology-")
    topo = Topology(
        installed_image,
        state,
        extra_env={"WEBHOOK_ALLOW_LOOPBACK": "true", "DEPOSIT_SCAN_SECONDS": "2"},
    )
    try:
        topo.start()
        yield topo
    finally:
        topo.stop()
        if keep := os.environ.get("MCCGW_KEEP_TOPOLOGY_LOGS"):  # a failed run's logs, to read
            shutil.copytree(topo.logs, keep, dirs_exist_ok=True)
        shutil.rmtree(state, ignore_errors=True)
