"""The topology's chain node starts whatever holds the ports it was given (deploy/topology.py):
a free RPC port says nothing of the next one, and a port found free can be taken before the node
binds it. The topology's other tests share one topology (tests/topology_fixtures.py); a node
that failed to bind failed all of them at set-up."""

from __future__ import annotations

import json
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.embedded import free_port
from deploy.image import Installed
from deploy.topology import Topology


def _held() -> tuple[socket.socket, int]:
    """A port held as an outgoing connection's local port holds it: bound, not listening."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s, int(s.getsockname()[1])


def _next_port_held() -> tuple[socket.socket, int]:
    """A free port whose next port is held."""
    for _ in range(50):
        port = free_port()
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port + 1))
        except OSError:
            s.close()
            continue
        return s, port
    raise AssertionError("no free port with a bindable next port")


def _slot(url: str) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "getSlot"}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return int(json.loads(resp.read())["result"])


@pytest.fixture
def topo(tmp_path: Path) -> Iterator[Topology]:
    nowhere = tmp_path / "image"  # start_node starts the node alone: no image is needed
    t = Topology(Installed(nowhere, nowhere, nowhere), tmp_path / "state", slot_ms=50)
    t.logs.mkdir(parents=True)
    yield t
    t.stop()


def test_the_node_serves_when_the_port_after_its_rpc_port_is_taken(topo: Topology) -> None:
    held, rpc = _next_port_held()
    with held:
        topo.ports.rpc = rpc
        topo.start_node()
        assert topo.ports.rpc == rpc
        assert topo.ports.ws != rpc + 1
        assert _slot(f"http://127.0.0.1:{rpc}") >= 0


def test_a_port_taken_before_the_first_start_gives_fresh_ports_a_restart_says_why(
    topo: Topology, capsys: pytest.CaptureFixture[str]
) -> None:
    held, taken = _held()
    with held:
        topo.ports.ws = taken
        topo.start_node()
        assert taken not in (topo.ports.rpc, topo.ports.ws)
        assert _slot(f"http://127.0.0.1:{topo.ports.rpc}") >= 0
        assert f"{taken} was taken; starting it on fresh ports" in capsys.readouterr().err

        # Once the app's environment names the RPC port, a restart keeps it, and a port taken
        # meanwhile is an error that quotes the node's own words.
        topo.env = {"SOLANA_RPC_URL": f"http://127.0.0.1:{topo.ports.rpc}"}
        assert topo.node is not None
        topo.node.stop()
        topo.ports.ws = taken
        with pytest.raises(RuntimeError, match="address already in use"):
            topo.start_node()
