"""Each bench's figures as JSON, for ``bench/summary.py``: ``record("engine", {...})`` writes
``$BENCH_JSON_DIR/engine.json`` when that variable is set (``make bench`` sets it), and does
nothing otherwise, so every script still runs alone."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any


def record(bench: str, figures: dict[str, Any]) -> None:
    where = os.environ.get("BENCH_JSON_DIR")
    if not where:
        return
    one, five, _ = os.getloadavg()
    out = {
        "bench": bench,
        "at": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "load": [round(one, 2), round(five, 2)],  # at the end of the bench
        "figures": figures,
    }
    path = Path(where)
    path.mkdir(parents=True, exist_ok=True)
    (path / f"{bench}.json").write_text(json.dumps(out, indent=1))
