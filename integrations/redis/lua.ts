// Every script reads the time from Redis (TIME), so that all processes
// share one clock, and is atomic: Redis runs one script at a time.

/** Milliseconds since the epoch, by the Redis server's clock. */
const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Claim KEYS[1] for ARGV[1] ms (record TTL ARGV[2] ms). Replies
 * {'s', value} (stored result), {'n'} (the operation ran, its result was not
 * storable), {'p', ms left on the lease}, or
 * {'c', token, takeover '1' | '0'} (claimed; the token is the record's
 * fence counter plus one, so tokens of a key only grow).
 */
export const CLAIM = `${NOW_MS}
local r = redis.call('HMGET', KEYS[1], 's', 'tok', 'lease', 'v')
local state = r[1]
if state == 's' then return {'s', r[4] or ''} end
if state == 'n' then return {'n'} end
local lease = tonumber(r[3])
if state == 'p' and lease ~= nil and lease > now then
  return {'p', string.format('%.0f', lease - now)}
end
local tok = string.format('%.0f', (tonumber(r[2]) or 0) + 1)
redis.call('HSET', KEYS[1], 's', 'p', 'tok', tok, 'lease', string.format('%.0f', now + tonumber(ARGV[1])))
redis.call('HDEL', KEYS[1], 'v')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if state == 'p' then return {'c', tok, '1'} end
return {'c', tok, '0'}`;

/**
 * Settle KEYS[1] if it is still pending under token ARGV[1] (the fence):
 * ARGV[2] 's' with value ARGV[3], 'n' (ran, result not storable) or 'f';
 * keep it ARGV[4] ms. Replies 1, or 0 when the claim was taken over
 * meanwhile.
 */
export const SETTLE = `local r = redis.call('HMGET', KEYS[1], 's', 'tok')
if r[1] ~= 'p' or r[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 's', ARGV[2], 'v', ARGV[3])
redis.call('HDEL', KEYS[1], 'lease')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`;

/** Extend KEYS[1]'s lease to ARGV[2] ms from now if it is still pending under token ARGV[1]. Replies 1, or 0. */
export const EXTEND = `${NOW_MS}
local r = redis.call('HMGET', KEYS[1], 's', 'tok')
if r[1] ~= 'p' or r[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'lease', string.format('%.0f', now + tonumber(ARGV[2])))
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

/**
 * Token bucket KEYS[1]: ARGV[1] tokens per second, ARGV[2] burst, state kept
 * ARGV[3] ms after the last call. Replies 0 (a token was taken) or the
 * milliseconds until one will be there.
 */
export const TOKEN_BUCKET = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local s = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(s[1])
local ts = tonumber(s[2])
if tokens == nil or ts == nil then
  tokens = burst
elseif now > ts then
  tokens = math.min(burst, tokens + (now - ts) * rate / 1000000)
else
  now = ts
end
local wait = 0
if tokens >= 1 - 1e-9 then
  tokens = tokens - 1
else
  wait = math.ceil((1 - tokens) * 1000 / rate)
  if wait < 1 then wait = 1 end
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'ts', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return wait`;
