"""System activities: no business I/O."""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import activity


@dataclass
class EchoInput:
    message: str


# A function, not a class: it needs no client (every activity class takes the WorkerDeps).
@activity.defn(name="system.echo")
async def echo(data: EchoInput) -> str:
    return data.message
