"""What one operation of the gateway is: method, path template and its typed models."""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

ResponseT = TypeVar("ResponseT")


@dataclass(frozen=True)
class Operation(Generic[ResponseT]):
    """One route: ``client.call(operations.lock_funds, body=LockIn(...))`` returns the
    ``response`` model parsed from the answer (the JSON body when the route declares none)."""

    name: str
    method: str
    path: str
    request: type[BaseModel] | None
    response: type[BaseModel] | None
    summary: str = ""
    # (status, model) of the other successes of another shape (approve: 202 before 200).
    alternatives: tuple[tuple[int, type[BaseModel]], ...] = ()

    def response_for(self, status: int) -> type[BaseModel] | None:
        """The model of an answer with this status."""
        return dict(self.alternatives).get(status, self.response)

    @property
    def path_params(self) -> list[str]:
        return [f for _, f, _, _ in string.Formatter().parse(self.path) if f]

    def target(self, path_params: dict[str, Any] | None = None) -> str:
        """The path with its ``{parameters}`` filled in (percent-encoded)."""
        given = path_params or {}
        missing = [p for p in self.path_params if p not in given]
        if missing:
            raise ValueError(f"{self.name} needs path parameters {missing}")
        return self.path.format(**{k: quote(str(v), safe="") for k, v in given.items()})


def given(values: dict[str, Any]) -> dict[str, Any]:
    """The arguments a resource method was given (None: left out, the gateway's default)."""
    return {k: v for k, v in values.items() if v is not None}
