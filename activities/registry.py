"""Which callables of an activity object the worker registers: every ``@activity.defn`` method.

Collected, not listed by hand, so an activity defined but forgotten in a list cannot leave its
workflows waiting on a task queue that has no implementation for it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from temporalio import activity


def activities_of(*holders: object) -> list[Callable[..., Any]]:
    """The bound ``@activity.defn`` methods of each holder, by name within each."""
    found: list[Callable[..., Any]] = []
    for holder in holders:
        # Read from the class: an instance's properties would be evaluated on the way.
        for name, fn in inspect.getmembers(type(holder), inspect.isfunction):
            if activity._Definition.from_callable(fn) is not None:
                found.append(getattr(holder, name))
    return found
