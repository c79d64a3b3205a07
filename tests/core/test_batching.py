"""core.batching: callers gathered into batches, one task per key (real asyncio, nothing faked).

The settler and the shared minter rest on these; their exactly-once tests (tests/engine,
tests/mining) drive them against the real chain and database. Here each rule is pinned on its
own, with windows wide enough for a loaded machine.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest

from core.batching import Gatherer, Handled, TaskPerKey

log = logging.getLogger("tests.core.batching")


class Recorder:
    """A handler that answers each key in upper case and records the batches it took."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    async def __call__(self, keys: list[str]) -> Handled[str, str]:
        self.batches.append(list(keys))
        return Handled({k: k.upper() for k in keys})


async def arrive_after(gatherer: Gatherer[str, str], key: str, delay: float) -> str | None:
    await asyncio.sleep(delay)
    return await gatherer.arrive(key)


async def test_callers_arriving_within_the_linger_are_taken_as_one_batch() -> None:
    handle = Recorder()
    gatherer = Gatherer(handle, linger=0.5, full=10, name="test-batcher")
    answers = await asyncio.gather(
        arrive_after(gatherer, "a", 0.0),
        arrive_after(gatherer, "b", 0.02),
        arrive_after(gatherer, "c", 0.05),
        arrive_after(gatherer, "a", 0.05),  # already waiting: shares the answer, queued once
    )
    assert answers == ["A", "B", "C", "A"]
    assert handle.batches == [["a", "b", "c"]]


async def test_a_linger_given_as_a_callable_is_read_at_each_batch() -> None:
    """The minter's window is a class attribute tests widen on a running worker."""
    setting = {"linger": 0.0}
    handle = Recorder()
    gatherer = Gatherer(handle, linger=lambda: setting["linger"], full=10, name="test-batcher")
    setting["linger"] = 0.5
    await asyncio.gather(arrive_after(gatherer, "a", 0.0), arrive_after(gatherer, "b", 0.05))
    assert handle.batches == [["a", "b"]]


async def test_a_full_batch_does_not_wait_for_the_linger() -> None:
    handle = Recorder()
    gatherer = Gatherer(handle, linger=60.0, full=3, name="test-batcher")
    answers = await asyncio.wait_for(asyncio.gather(*(gatherer.arrive(k) for k in "abc")), 10)
    assert answers == ["A", "B", "C"]
    assert handle.batches == [["a", "b", "c"]]


async def test_a_key_the_handler_leaves_out_is_answered_none_and_one_answer_may_be_an_error() -> (
    None
):
    refused = ValueError("b refused")

    async def handle(keys: list[str]) -> Handled[str, str]:
        return Handled({"a": "A", "b": refused})

    gatherer = Gatherer(handle, linger=0.5, full=3, name="test-batcher")
    answers = await asyncio.gather(*(gatherer.arrive(k) for k in "abc"), return_exceptions=True)
    assert answers == ["A", refused, None]


async def test_an_exception_of_the_handler_reaches_every_member_and_frees_the_slot() -> None:
    boom = RuntimeError("claim failed")
    handle = Recorder()
    failing = True

    async def handle_or_fail(keys: list[str]) -> Handled[str, str]:
        if failing:
            raise boom
        return await handle(keys)

    gatherer = Gatherer(handle_or_fail, linger=0.5, full=3, name="test-batcher")
    every = asyncio.gather(*(gatherer.arrive(k) for k in "abc"), return_exceptions=True)
    answers = await asyncio.wait_for(every, 10)  # a member left waiting would hang
    assert [a is boom for a in answers] == [True, True, True], answers
    failing = False
    # The failed batch gave its slot back, and its keys are no longer waiting: "a" is new.
    assert await asyncio.wait_for(gatherer.arrive("a"), 10) == "A"
    assert handle.batches == [["a"]]


async def test_the_slot_is_held_until_the_batch_says_its_writes_are_sent() -> None:
    sent = asyncio.get_running_loop().create_future()
    batches: list[list[str]] = []

    async def handle(keys: list[str]) -> Handled[str, str]:
        batches.append(keys)
        return Handled({k: k for k in keys}, sent=[sent] if len(batches) == 1 else ())

    gatherer = Gatherer(handle, linger=0.0, full=1, slots=1, name="test-batcher")
    assert await gatherer.arrive("a") == "a"  # answered before its writes are sent
    second = asyncio.create_task(gatherer.arrive("b"))
    await asyncio.sleep(0.3)
    assert batches == [["a"]] and not second.done()
    sent.set_result(None)
    assert await asyncio.wait_for(second, 10) == "b"
    assert batches == [["a"], ["b"]]


async def test_a_batch_takes_at_most_full_and_the_rest_go_in_the_next() -> None:
    """Arrivals that piled up while the slot was held are taken ``full`` at a time (one
    transaction's worth for the settler and the minter): full writes, not a full one and a
    small rest."""
    loop = asyncio.get_running_loop()
    sent = loop.create_future()
    batches: list[list[str]] = []

    async def handle(keys: list[str]) -> Handled[str, str]:
        batches.append(keys)
        return Handled({k: k.upper() for k in keys}, sent=[sent] if len(batches) == 1 else ())

    gatherer = Gatherer(handle, linger=0.0, full=3, slots=1, name="test-batcher")
    assert await gatherer.arrive("a") == "A"  # its batch holds the slot until ``sent``
    piled = [asyncio.create_task(gatherer.arrive(k)) for k in "bcdefgh"]
    await asyncio.sleep(0.1)
    assert batches == [["a"]]
    sent.set_result(None)
    answers = await asyncio.wait_for(asyncio.gather(*piled), 10)
    assert answers == list("BCDEFGH")
    assert batches == [["a"], ["b", "c", "d"], ["e", "f", "g"], ["h"]]


async def test_a_cancelled_caller_leaves_the_answer_to_the_others() -> None:
    handle = Recorder()
    gatherer = Gatherer(handle, linger=0.3, full=10, name="test-batcher")
    impatient = asyncio.create_task(gatherer.arrive("a"))
    patient = asyncio.create_task(gatherer.arrive("a"))
    await asyncio.sleep(0.05)
    impatient.cancel()
    assert await asyncio.wait_for(patient, 10) == "A"
    assert impatient.cancelled()


async def test_one_task_per_key_every_caller_gets_the_same_task() -> None:
    started: list[str] = []
    go = asyncio.Event()

    async def work(key: str) -> str:
        started.append(key)
        await go.wait()
        return key * 2

    tasks: TaskPerKey[str, str] = TaskPerKey("test", what="test write", logger=log)
    first = tasks.task("k", lambda mark_sent: work("k"))
    assert tasks.task("k", lambda mark_sent: work("k")) is first
    other = tasks.task("j", lambda mark_sent: work("j"))
    assert other is not first and first.get_name() == "test k"
    go.set()
    assert await first == "kk" and await other == "jj"
    assert started == ["k", "j"]  # the work of "k" ran once
    await asyncio.sleep(0)  # done callbacks run
    again = tasks.task("k", lambda mark_sent: work("k"))
    assert again is not first  # a finished task is dropped: a later caller resumes the work
    assert await again == "kk"


async def test_sent_resolves_when_the_work_marks_it_not_when_the_task_ends() -> None:
    final = asyncio.Event()

    async def work(mark_sent: Callable[[], None]) -> str:
        mark_sent()
        await final.wait()
        return "booked"

    loop = asyncio.get_running_loop()
    tasks: TaskPerKey[str, str] = TaskPerKey("test", what="test write", logger=log)
    sent = loop.create_future()
    task = tasks.task("k", work, sent=sent)
    await asyncio.wait_for(sent, 10)
    assert not task.done()
    joined = loop.create_future()
    assert tasks.task("k", work, sent=joined) is task
    assert joined.done()  # the running task's sender is someone else: no one waits on it
    final.set()
    assert await task == "booked"


async def test_a_failed_task_releases_sent_reaches_every_caller_and_is_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def work(mark_sent: Callable[[], None]) -> str:
        await asyncio.sleep(0.05)
        raise RuntimeError("node down")

    tasks: TaskPerKey[str, str] = TaskPerKey("test", what="test write", logger=log)
    sent = asyncio.get_running_loop().create_future()
    with caplog.at_level(logging.WARNING, logger=log.name):
        task = tasks.task("k", work, sent=sent)
        callers = [asyncio.shield(tasks.task("k", work)) for _ in range(3)]
        results = await asyncio.gather(*callers, return_exceptions=True)
        await asyncio.sleep(0)  # done callbacks run
    assert sent.done() and task.done()
    assert [type(r) for r in results] == [RuntimeError] * 3
    lines = [r.getMessage() for r in caplog.records if r.name == log.name]
    assert lines == ["test write k stopped: RuntimeError('node down')"]


async def test_the_slot_goes_to_the_next_batch_once_sent_while_the_write_awaits_finality() -> None:
    """Both pieces as the settler and the minter use them: a batch's write holds the slot only
    until it is sent; the next batch is signed while the first awaits finality."""
    final = asyncio.Event()
    writes: TaskPerKey[str, str] = TaskPerKey("test", what="test write", logger=log)
    batches: list[list[str]] = []

    async def write(key: str, mark_sent: Callable[[], None]) -> str:
        mark_sent()
        await final.wait()
        return f"{key} final"

    async def handle(keys: list[str]) -> Handled[str, str]:
        batches.append(keys)
        sent = asyncio.get_running_loop().create_future()
        op_key = "+".join(keys)
        writes.task(op_key, lambda mark_sent: write(op_key, mark_sent), sent=sent)
        return Handled(dict.fromkeys(keys, op_key), [sent])

    gatherer = Gatherer(handle, linger=0.0, full=1, name="test-batcher")
    first = await gatherer.arrive("a")
    assert await asyncio.wait_for(gatherer.arrive("b"), 10) == "b"
    assert batches == [["a"], ["b"]]
    assert first is not None
    final.set()
    assert await writes.task(first, write_never_started) == "a final"


async def write_never_started(mark_sent: Callable[[], None]) -> str:
    raise AssertionError("the running task is returned, not a new one")
