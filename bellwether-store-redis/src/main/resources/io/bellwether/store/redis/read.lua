-- read. KEYS[1] = lease hash. Returns {} if the group never had a lease.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cur = redis.call('HMGET', KEYS[1], 'holder', 'token', 'expires')
if not cur[1] then
  return {}
end
return {cur[1], tonumber(cur[2]), tonumber(cur[3]), now}
