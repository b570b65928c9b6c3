-- acquireOrRenew. KEYS[1] = lease hash; ARGV = holder, token, duration (ms).
-- One script runs atomically on the server; TIME is the server's clock (scripts replicate their effects,
-- the default since Redis 5, so reading TIME here is allowed and replicas get the resulting HSET).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cur = redis.call('HMGET', KEYS[1], 'holder', 'token', 'expires')
local holder = cur[1]
local token = tonumber(cur[2]) or 0
local expires = tonumber(cur[3]) or 0
local duration = tonumber(ARGV[3])
if (not holder) or expires <= now then
  -- Free or expired: a takeover. The token field is never deleted, so it only ever grows.
  holder = ARGV[1]
  token = token + 1
  expires = now + duration
  redis.call('HSET', KEYS[1], 'holder', holder, 'token', token, 'expires', expires)
elseif holder == ARGV[1] and token == tonumber(ARGV[2]) then
  expires = now + duration
  redis.call('HSET', KEYS[1], 'expires', expires)
end
return {holder, token, expires, now}
