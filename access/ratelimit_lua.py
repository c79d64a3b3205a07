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
# KEYS[1] window set; ARGV: window_ms. Returns the hits within the window (nothing added).
PEEK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
return redis.call('ZCARD', KEYS[1])
"""
