-- release. KEYS[1] = lease hash; ARGV = holder, token, channel, group.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cur = redis.call('HMGET', KEYS[1], 'holder', 'token', 'expires')
if cur[1] == ARGV[1] and tonumber(cur[2]) == tonumber(ARGV[2]) and (tonumber(cur[3]) or 0) > now then
  -- Expire now, keep the token; wake the contenders in the same atomic step.
  redis.call('HSET', KEYS[1], 'expires', now)
  redis.call('PUBLISH', ARGV[3], ARGV[4])
  return {1}
end
return {0}
