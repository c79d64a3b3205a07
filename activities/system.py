"""System activities: no business I/O."""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import activity


@dataclass
class EchoInput:
    message: str


class SystemActivities:
    @activity.defn(name="echo")
    async def echo(self, data: EchoInput) -> str:
        return data.message
