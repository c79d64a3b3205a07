"""Item 5: the production compose file publishes only the API to the network."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def published_ports(text: str) -> dict[str, list[str]]:
    """service name -> its `ports:` entries (the file's plain two-space layout)."""
    ports: dict[str, list[str]] = {}
    service, in_ports = None, False
    for line in text.splitlines():
        if m := re.match(r"^  ([a-z][a-z0-9-]*):\s*$", line):
            service, in_ports = m.group(1), False
        elif re.match(r"^    ports:\s*$", line):
            in_ports = True
        elif in_ports and (m := re.match(r'^      - "?([^"]+)"?\s*$', line)):
            ports.setdefault(str(service), []).append(m.group(1))
        elif not line.startswith("      ") and not line.strip().startswith("#"):
            in_ports = False
    return ports


def test_item5_only_the_api_is_published_beyond_localhost() -> None:
    published = published_ports((ROOT / "docker-compose.yml").read_text())
    assert {"api", "temporal-ui", "solana"} <= set(published), published
    for name, ports in published.items():
        for port in ports:
            assert name == "api" or port.startswith("127.0.0.1:"), (name, port)
    for name in ("postgres", "redis", "temporal"):
        assert name not in published, name
    readme = (ROOT / "README.md").read_text()
    assert "`127.0.0.1` on the host" in readme and "Temporal Web UI (no login" in readme
