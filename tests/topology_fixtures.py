"""The image and the production topology, each built once per session for the image, topology
and chaos tests. Registered by the root tests/conftest.py only: a fixture imported into two
conftest files is two fixtures to pytest, and the topology was built twice (once for
tests/deploy, once for tests/chaos)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from deploy.image import Installed, build_image
from deploy.topology import Topology

# What the tests' topology (and ``make chaos``'s) sets beside compose's environment: loopback
# webhooks, a deposit watcher every 2 s, and a webhook retry schedule of seconds, not hours (the
# default waits 5 min after a second failure, 30 min after a third: the chaos receiver is down
# a third of the time, and the invariant is "delivered at least once", not how long a retry
# waits).
TOPOLOGY_ENV = {
    "WEBHOOK_ALLOW_LOOPBACK": "true",
    "DEPOSIT_SCAN_SECONDS": "2",
    "WEBHOOK_RETRY_SCHEDULE": "0,2,5,10,20,30,60,60,60,60,60,60,60,60",
}


@pytest.fixture(scope="session")
def installed_image() -> Iterator[Installed]:
    import shutil

    from tests.conftest import traversable_tmp  # not at import: tests/conftest imports this

    tmp = traversable_tmp("mccgw-image-")
    try:
        yield build_image(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def topology(installed_image: Installed) -> Iterator[Topology]:
    """docker-compose.yml's topology as processes (deploy/topology.py), with the settings a
    test on one machine needs (``TOPOLOGY_ENV``)."""
    import shutil

    from tests.conftest import traversable_tmp

    state = traversable_tmp("mccgw-topology-")
    topo = Topology(
        installed_image,
        state,
        extra_env=TOPOLOGY_ENV,
    )
    try:
        topo.start()
        yield topo
    finally:
        topo.stop()
        if keep := os.environ.get("MCCGW_KEEP_TOPOLOGY_LOGS"):  # a failed run's logs, to read
            shutil.copytree(topo.logs, keep, dirs_exist_ok=True)
        shutil.rmtree(state, ignore_errors=True)
