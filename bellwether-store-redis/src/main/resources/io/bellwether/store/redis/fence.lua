-- Guarded write (RedisFencingGuard). KEYS[1] = the resource's fence key, KEYS[2] = the key to write;
-- ARGV = token, operation ('set' or 'hset'), then the operation's arguments (value; or field, value).
-- The write happens only if the token is not lower than the highest the resource has accepted, which it then
-- becomes; both in this one atomic script. Tokens are compared as canonical decimal strings (no sign, no
-- leading zeros: what Java's Long.toString gives for a non-negative long), shorter first: exact for every
-- long, where Lua's numbers (doubles) are exact only below 2^53.
local offered = ARGV[1]
local highest = redis.call('GET', KEYS[1])
if highest and (#highest > #offered or (#highest == #offered and highest > offered)) then
  return {0, highest}
end
if highest ~= offered then
  redis.call('SET', KEYS[1], offered)
end
if ARGV[2] == 'set' then
  redis.call('SET', KEYS[2], ARGV[3])
elseif ARGV[2] == 'hset' then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
else
  return redis.error_reply('unknown guarded operation ' .. tostring(ARGV[2]))
end
return {1, offered}
