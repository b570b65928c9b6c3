-- acquireOrRenew. KEYS[1] = lease hash; ARGV = holder, token, duration (ms), priority.
-- One script runs atomically on the server; TIME is the server's clock (scripts replicate their effects,
-- the default since Redis 5, so reading TIME here is allowed and replicas get the resulting HSET).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cur = redis.call('HMGET', KEYS[1], 'holder', 'token', 'expires', 'priority', 'wanted_priority', 'wanted_until')
local holder = cur[1]
local token = tonumber(cur[2]) or 0
local expires = tonumber(cur[3]) or 0
local duration = tonumber(ARGV[3])
-- Priorities: the holder's, and the best waiting contender's claim (priority, until). Absent fields are 0, and a
-- priority equal to the stored one is not written, so with every member at 0 the hash is what it was without them.
local priority = tonumber(ARGV[4]) or 0
local held = tonumber(cur[4]) or 0
local wanted = tonumber(cur[5]) or 0
local wantedUntil = tonumber(cur[6]) or 0
-- A free lease goes to nobody below a live claim, so that the claimant, not a lower contender, takes it; the
-- others get the hash back as it is (expired: not theirs) and poll again.
local claimedAbove = wantedUntil > now and wanted > priority
if (not holder) or (expires <= now and not claimedAbove) then
  -- Free or expired: a takeover. The next token is above the last one and at least the server's clock in
  -- milliseconds times 16 (4 low bits count takeovers within one millisecond; more borrow from the next one).
  -- So a server that lost the hash (restarted empty, lost its last writes, or a replica that missed them took
  -- over) still issues a token above every earlier one, as long as its clock reads later than the clock of the
  -- server that issued the last one did then. Tokens stay below 2^47 (the elector's counter range) until the
  -- year 2248, and exact in Lua's doubles.
  token = math.max(token + 1, now * 16)
  if token >= 140737488355328 then
    return redis.error_reply('lease token ' .. string.format('%.0f', token) .. ' for ' .. KEYS[1]
      .. ' would leave the allowed range (below 2^47): check the Redis server clock (TIME ' .. t[1] .. ' s)')
  end
  holder = ARGV[1]
  expires = now + duration
  -- '%.0f': a plain number would be stored as '%.14g', which rounds values of 15 digits.
  redis.call('HSET', KEYS[1], 'holder', holder, 'token', string.format('%.0f', token), 'expires', expires)
  if priority ~= held then
    redis.call('HSET', KEYS[1], 'priority', priority)
  end
elseif expires > now and holder == ARGV[1] and token == tonumber(ARGV[2]) then
  expires = now + duration
  redis.call('HSET', KEYS[1], 'expires', expires)
  if priority ~= held then
    redis.call('HSET', KEYS[1], 'priority', priority)
  end
elseif priority > held and not claimedAbove then
  -- Held by a member of lower priority: claim it, unless a live claim is higher.
  wanted = priority
  wantedUntil = now + duration
  redis.call('HSET', KEYS[1], 'wanted_priority', wanted, 'wanted_until', wantedUntil)
end
return {holder, token, expires, now, wanted, wantedUntil}
