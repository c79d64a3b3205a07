"""The Redis fast path of idempotency (api.idempotency): a finished key's stored answer (the
done marker) and the in-flight lock, each decided in one script round trip. PostgreSQL's unique
(scope, key) row stays the arbiter when Redis forgets (``api.idempotency_store``)."""

from __future__ import annotations

import hashlib
import logging
import uuid

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from db.models.access import IdempotencyRecord

log = logging.getLogger("mccgw.idempotency")

LOCK_SECONDS = 60

# KEYS: lock; ARGV: token. Unlock only a lock this request holds.
RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end"

# One round trip decides the fast path: a finished key (replay it) or take the in-flight lock.
# KEYS: done, lock; ARGV: token, lock seconds. Returns {1, done} | {2} (locked by us) | {3}.
BEGIN = """
local done = redis.call('GET', KEYS[1])
if done then return {1, done} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'EX', ARGV[2]) then return {2} end
return {3}
"""
# KEYS: done, lock; ARGV: token, done value, done seconds. Publish the result, then unlock.
FINISH = """
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1
"""


_SCRIPTS: dict[str, AsyncScript] = {}


def script(redis: Redis, source: str) -> AsyncScript:
    """The script of ``source``, made once (its SHA-1 computed once); each call names its
    client (EVALSHA: the script text is sent once per server)."""
    script = _SCRIPTS.get(source)
    if script is None:
        script = _SCRIPTS[source] = redis.register_script(source)
    return script


def done_value(record: IdempotencyRecord) -> bytes:
    head = f"{record.request_hash}\n{record.status_code}\n{record.content_type}\n"
    return head.encode() + record.response_body


def from_done(value: bytes) -> IdempotencyRecord:
    request_hash, status, content_type, body = value.split(b"\n", 3)
    return IdempotencyRecord(
        request_hash=request_hash.decode(),
        status_code=int(status),
        content_type=content_type.decode(),
        response_body=body,
    )


class KeyLock:
    """One request's hold on (scope, key) in Redis: ``begin`` finds the key's answer or takes
    the in-flight lock, ``finish`` publishes the committed answer and unlocks, ``release``
    unlocks a request that did not finish."""

    def __init__(self, redis: Redis, scope: str, key: str) -> None:
        digest = hashlib.sha256(key.encode()).hexdigest()
        self.redis, self.key = redis, key
        self.done, self.lock = f"idem:done:{scope}:{digest}", f"idem:{scope}:{digest}"
        self.token = uuid.uuid4().hex

    async def begin(self) -> tuple[IdempotencyRecord | None, bool]:
        """(the finished key's answer, None if not finished; whether this request now holds
        the in-flight lock: False while another one does)."""
        state = await script(self.redis, BEGIN)(
            keys=[self.done, self.lock], args=[self.token, LOCK_SECONDS], client=self.redis
        )
        if state[0] == 1:
            return from_done(state[1]), False
        return None, state[0] == 2

    async def finish(self, record: IdempotencyRecord, seconds: int) -> None:
        try:
            await script(self.redis, FINISH)(
                keys=[self.done, self.lock],
                args=[self.token, done_value(record), seconds],
                client=self.redis,
            )
        except RedisError as exc:
            # Committed: the answer stands. Without the done marker a retry is told to wait
            # (the lock lapses in LOCK_SECONDS) and is then replayed from PostgreSQL.
            log.warning("idempotency key %s committed but not published: %r", self.key, exc)

    async def release(self) -> None:
        await script(self.redis, RELEASE)(keys=[self.lock], args=[self.token], client=self.redis)
