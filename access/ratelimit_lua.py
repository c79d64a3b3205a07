"""The rate limiter's Lua scripts (access.ratelimit): each runs atomically inside Redis."""

# One hit on a window set: trim, count, admit, report, on Redis's clock.
# Returns {allowed (0/1), used, reset_ms (epoch ms when the oldest hit leaves the window), now}.
_HIT = """
local function hit(key, window, limit, member)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local used = redis.call('ZCARD', key)
  local allowed = 0
  if used < limit then
    redis.call('ZADD', key, now, now .. '-' .. member)
    redis.call('PEXPIRE', key, window)
    used = used + 1
    allowed = 1
  end
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local reset = now + window
  if oldest[2] then reset = tonumber(oldest[2]) + window end
  return {allowed, used, reset, now}
end
"""
# KEYS[1] window set; ARGV: window_ms, limit, unique member suffix.
SCRIPT = _HIT + "return hit(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3])"
# A bearer's revocation check folded into its hit (one round trip, not two). KEYS: subject's
# window, revocation marker, IP's window; ARGV: window_ms, limit, member, IP limit. A revoked
# token counts against the IP (a failed authentication), the 5th value says so.
REVOCABLE = (
    _HIT
    + """
local window, member = tonumber(ARGV[1]), ARGV[3]
if redis.call('EXISTS', KEYS[2]) == 1 then
  local r = hit(KEYS[3], window, tonumber(ARGV[4]), member)
  r[5] = 1
  return r
end
local r = hit(KEYS[1], window, tonumber(ARGV[2]), member)
r[5] = 0
return r
"""
)


def riding(read: str) -> str:
    """REVOCABLE with a route's own read folded in (``access.ratelimit.Ride``): KEYS are the
    count's three then the read's, ARGV the count's four, the number of the read's keys, then
    the read's args. The read runs as its own function on those (its ``KEYS`` and ``ARGV``),
    under ``pcall``: a failing read leaves the count as it is. Returns REVOCABLE's five values,
    then 1 and the read's reply, or 0 and nil (Lua's false) when it failed."""
    return (
        _HIT
        + "local function read(KEYS, ARGV)\n"
        + read
        + """
end
local window, member = tonumber(ARGV[1]), ARGV[3]
local r
if redis.call('EXISTS', KEYS[2]) == 1 then
  r = hit(KEYS[3], window, tonumber(ARGV[4]), member)
  r[5] = 1
else
  r = hit(KEYS[1], window, tonumber(ARGV[2]), member)
  r[5] = 0
end
local n = tonumber(ARGV[5])
local ok, reply = pcall(read, {unpack(KEYS, 4, 3 + n)}, {unpack(ARGV, 6)})
if ok then
  r[6], r[7] = 1, reply
else
  r[6], r[7] = 0, false
end
return r
"""
    )


# KEYS[1] window set; ARGV: window_ms. Returns the hits within the window (nothing added).
PEEK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
return redis.call('ZCARD', KEYS[1])
"""
