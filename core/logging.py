"""Structured JSON logs: every line carries what it was about -- the request id of the request
being served, the workflow id (and activity) of the Temporal activity running, the op key of
the chain write -- so one grep follows one operation through the API, the worker and the chain.

HTTP clients' per-call lines (``HTTP Request: POST ...`` of httpx, and of httpx2 under the
Solana client) are DEBUG: an idle worker polls the chain several times a second, and an
operator's INFO log holds one line per business event, not one per call.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from temporalio import activity

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "request_id", default=None
)
# Fields bound to the work in progress (``bound``), e.g. the op key of a chain write.
_fields_var: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "log_fields", default=None
)

# Attributes every LogRecord has; anything else was passed through `extra=` and is logged.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}
# Loggers of HTTP clients: their INFO line per call is DEBUG here.
HTTP_CLIENT_LOGGERS = ("httpx", "httpx2", "httpcore", "httpcore2", "urllib3", "hpack", "h2")


@contextlib.contextmanager
def bound(**fields: Any) -> Iterator[None]:
    """Every line logged inside (in this task and the tasks it starts) carries ``fields``."""
    token = _fields_var.set({**(_fields_var.get() or {}), **fields})
    try:
        yield
    finally:
        _fields_var.reset(token)


def context_fields() -> dict[str, Any]:
    """What a line logged here and now is about: request id, bound fields, and the workflow
    and activity when inside a Temporal activity."""
    found: dict[str, Any] = {}
    if (rid := request_id_var.get()) is not None:
        found["request_id"] = rid
    if activity.in_activity():
        info = activity.info()
        found["workflow_id"] = info.workflow_id
        found["workflow_type"] = info.workflow_type
        found["activity"] = info.activity_type
        found["attempt"] = info.attempt
    found.update(_fields_var.get() or {})
    return found


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update(context_fields())
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        # The workflow logger's own context (temporalio.workflow adds it to every line).
        if isinstance(wf := entry.pop("temporal_workflow", None), dict):
            entry.setdefault("workflow_id", wf.get("workflow_id"))
            entry.setdefault("workflow_type", wf.get("workflow_type"))
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class _AtDebug(logging.Filter):
    """An HTTP client's per-call INFO line, re-levelled DEBUG (and dropped unless the root
    logger shows DEBUG)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno <= logging.INFO:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return record.levelno >= logging.getLogger().getEffectiveLevel()


def configure_logging(level: str = "INFO", json_lines: bool = True) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if json_lines:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # uvicorn's access log would duplicate our request log line.
    logging.getLogger("uvicorn.access").disabled = True
    debug = root.level <= logging.DEBUG
    for name in HTTP_CLIENT_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG if debug else logging.WARNING)
        if not any(isinstance(f, _AtDebug) for f in logger.filters):
            logger.addFilter(_AtDebug())
    for noisy in ("temporalio.activity", "temporalio.workflow"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
