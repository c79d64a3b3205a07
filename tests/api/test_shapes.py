"""Shape.of_row: a response model read from a row (issue 28, item 5)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from api.envelope import single
from api.typed import Attributes


class _Sample(Attributes):
    uid: str
    created_at: str
    note: str | None = None
    count: int


@dataclass
class _Row:
    uid: str
    created_at: datetime
    count: int
    secret: str = "never sent"


def test_a_model_reads_its_fields_from_the_row_and_the_wire_time() -> None:
    row = _Row("u1", datetime(2030, 1, 2, 4, 4, 5, tzinfo=timezone(timedelta(hours=1))), 3)
    shown = _Sample.of_row(row)
    # Only the declared fields, the row's other attributes stay behind; the time in UTC.
    assert single("sample", "u1", shown)["data"]["attributes"] == {
        "uid": "u1",
        "created_at": "2030-01-02T03:04:05Z",
        "count": 3,
    }


def test_given_values_win_and_an_optional_field_left_out_is_absent() -> None:
    row = _Row("u1", datetime(2030, 1, 2, tzinfo=UTC), 3)
    attributes = single("sample", "u1", _Sample.of_row(row, count=4, note=None))["data"]
    assert attributes["attributes"]["count"] == 4
    assert "note" in attributes["attributes"]  # given as None: sent as null
    assert "note" not in single("sample", "u1", _Sample.of_row(row))["data"]["attributes"]


def test_a_value_that_does_not_fit_or_an_undeclared_key_is_refused() -> None:
    with pytest.raises(ValidationError):
        _Sample.of_row(_Row("u1", datetime(2030, 1, 2, tzinfo=UTC), count="many"))  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        _Sample(uid="u1", created_at="x", count=1, extra="not declared")  # type: ignore[call-arg]
