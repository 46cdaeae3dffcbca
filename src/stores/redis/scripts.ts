/**
 * The Lua scripts of the Redis store and filter. Redis runs a script atomically, so each is a conditional write in one
 * round trip, as a DynamoDB condition is (Redis 7.0 has no `SET ... IFEQ`; a script works on every Redis and Valkey).
 * Store records are hashes with the `IdempotencyRecord` field names. Each script returns `{1, fields}` when it wrote
 * and `{0, fields}` with the record that refused it (empty for none): a refused write needs no second read. Optional
 * arguments are sent as `''` (absent) or `'=' .. value` (present), so an empty string stays a value.
 */
import { LuaScript } from './connection.js';

/**
 * The claim rule, `claimVerdict` in src/engine/claim.ts, in Lua: the one
 * expiry rule, judged at the `now` of the store's injected clock (not the
 * server's), so a lease that has passed is claimable even while the key has
 * not yet expired. test/integration/redis/store.test.ts checks that both
 * agree case by case.
 */
const LOAD_AND_VERDICT = `
local function load(key)
  local flat = redis.call('HGETALL', key)
  local rec = {}
  for i = 1, #flat, 2 do rec[flat[i]] = flat[i + 1] end
  return flat, rec
end
local function verdict(rec, now)
  local status = rec['status']
  if status == nil then return 'free' end
  local expires = tonumber(rec['expiresAt'])
  if expires ~= nil and expires * 1000 <= now then return 'free' end
  if status == 'COMPLETED' then return 'duplicate' end
  if status == 'FAILED' then return 'free' end
  local lease = tonumber(rec['leaseUntil'])
  if status == 'IN_PROGRESS' and lease ~= nil and lease <= now then return 'free' end
  return 'in-progress'
end
local function owned(rec, token)
  return rec['status'] == 'IN_PROGRESS' and rec['owner'] == token
end
local function optional(value)
  if value == '' then return nil end
  return string.sub(value, 2)
end
`;

/**
 * ARGV: now, token, leaseUntil, expiresAt (s), ttl (ms), payloadHash, messageId.
 * A takeover keeps counting `attempts` and drops the old record's leftovers.
 */
export const claimScript = new LuaScript(`${LOAD_AND_VERDICT}
local now = tonumber(ARGV[1])
local flat, rec = load(KEYS[1])
if verdict(rec, now) ~= 'free' then return {0, flat} end
local attempts = (tonumber(rec['attempts']) or 0) + 1
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'status', 'IN_PROGRESS', 'owner', ARGV[2], 'leaseUntil', ARGV[3],
  'expiresAt', ARGV[4], 'claimedAt', ARGV[1], 'attempts', tostring(attempts))
local payloadHash, messageId = optional(ARGV[6]), optional(ARGV[7])
if payloadHash then redis.call('HSET', KEYS[1], 'payloadHash', payloadHash) end
if messageId then redis.call('HSET', KEYS[1], 'messageId', messageId) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1, redis.call('HGETALL', KEYS[1])}
`);

/** ARGV: token, now, expiresAt (s), ttl (ms), result text. Fenced on the owner token. */
export const completeScript = new LuaScript(`${LOAD_AND_VERDICT}
local flat, rec = load(KEYS[1])
if not owned(rec, ARGV[1]) then return {0, flat} end
redis.call('HSET', KEYS[1], 'status', 'COMPLETED', 'completedAt', ARGV[2], 'expiresAt', ARGV[3])
redis.call('HDEL', KEYS[1], 'leaseUntil')
local result = optional(ARGV[5])
if result then redis.call('HSET', KEYS[1], 'result', result) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, redis.call('HGETALL', KEYS[1])}
`);

/** ARGV: token, leaseUntil, expiresAt (s), ttl (ms). The heartbeat: extends the lease, fenced on the owner token. */
export const renewScript = new LuaScript(`${LOAD_AND_VERDICT}
local flat, rec = load(KEYS[1])
if not owned(rec, ARGV[1]) then return {0, flat} end
redis.call('HSET', KEYS[1], 'leaseUntil', ARGV[2], 'expiresAt', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, redis.call('HGETALL', KEYS[1])}
`);

/** ARGV: token. `release: 'delete'`, fenced on the owner token (never deletes a COMPLETED record). */
export const releaseScript = new LuaScript(`${LOAD_AND_VERDICT}
local flat, rec = load(KEYS[1])
if not owned(rec, ARGV[1]) then return {0, flat} end
redis.call('DEL', KEYS[1])
return {1, {}}
`);

/** ARGV: token, lastError, expiresAt (s), ttl (ms). `release: 'mark-failed'`, fenced on the owner token. */
export const markFailedScript = new LuaScript(`${LOAD_AND_VERDICT}
local flat, rec = load(KEYS[1])
if not owned(rec, ARGV[1]) then return {0, flat} end
redis.call('HSET', KEYS[1], 'status', 'FAILED', 'lastError', ARGV[2], 'expiresAt', ARGV[3])
redis.call('HDEL', KEYS[1], 'owner', 'leaseUntil')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, redis.call('HGETALL', KEYS[1])}
`);

/** A record's fields as a flat array, whichever way the client would have shaped a bare HGETALL reply. */
export const readScript = new LuaScript(`return redis.call('HGETALL', KEYS[1])`);

/** ARGV: now. The verdict alone, for the test that holds the Lua rule to `claimVerdict`. */
export const verdictScript = new LuaScript(`${LOAD_AND_VERDICT}
local flat, rec = load(KEYS[1])
return verdict(rec, tonumber(ARGV[1]))
`);

/*
 * Filter markers are strings: a header line `<status> <expiresAt s> <owner>`
 * and the record as JSON. The scripts read the header only.
 */
const HEADER = `
local function header(key)
  local value = redis.call('GET', key)
  if not value then return nil end
  local status, expires, owner = string.match(value, '^(%S+) (%S+) ([^\\n]*)\\n')
  return { status = status, expires = tonumber(expires), owner = owner }
end
`;

/**
 * ARGV: marker, ttl (ms), now. Sets an in-progress marker unless a live
 * completed marker is there: a late in-progress write must never hide a
 * completion.
 */
export const markInProgressScript = new LuaScript(`${HEADER}
local h = header(KEYS[1])
if h and h.status == 'COMPLETED' and h.expires and h.expires * 1000 > tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`);

/** ARGV: token. Deletes the in-progress marker of this owner only; a completed marker or another owner's stays. */
export const clearInProgressScript = new LuaScript(`${HEADER}
local h = header(KEYS[1])
if h and h.status == 'IN_PROGRESS' and h.owner == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`);
