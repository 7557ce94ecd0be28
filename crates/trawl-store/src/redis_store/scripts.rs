//! The Lua scripts that make multi-key writes atomic. Redis runs a script alone, start to
//! finish, so no reader ever sees a document without its passages (or the reverse), and a
//! client killed mid-call either sent the whole script or none of it.
//!
//! Keys are built inside the scripts from the prefix (ARGV[1]), which ties the backend to
//! one Redis primary (not Redis Cluster); see the key layout in `super`.

use std::sync::LazyLock;

use redis::Script;

/// `forget(p, h)`: removes document `h`, its passages, its postings, its URL entries and
/// its share of the corpus counters. Also repairs the counters of a document whose keys
/// Redis already expired (`docmeta` has no expiry for that reason). Returns 1 if the
/// document was still stored.
macro_rules! forget_lua {
    () => {
        r#"
local function forget(p, h)
  local dk = p .. 'doc:' .. h
  local existed = redis.call('EXISTS', dk)
  local m = redis.call('HGET', p .. 'docmeta', h)
  if m then
    local n, plen, size = string.match(m, '(%d+) (%d+) (%d+)')
    -- `0 - x`, not `-x`: Lua's -0 is the text "-0", which HINCRBY refuses.
    redis.call('HINCRBY', p .. 'meta', 'passages', 0 - tonumber(n))
    redis.call('HINCRBY', p .. 'meta', 'plen', 0 - tonumber(plen))
    redis.call('HINCRBY', p .. 'meta', 'bytes', 0 - tonumber(size))
    redis.call('HDEL', p .. 'docmeta', h)
  end
  local tk = p .. 'dpost:' .. h
  for _, e in ipairs(redis.call('SMEMBERS', tk)) do
    local tab = string.find(e, '\t', 1, true)
    redis.call('ZREM', p .. 't:' .. string.sub(e, 1, tab - 1), string.sub(e, tab + 1))
  end
  for _, u in ipairs(redis.call('HMGET', dk, 'url', 'final_url')) do
    if u and redis.call('GET', p .. 'url:' .. u) == h then
      redis.call('DEL', p .. 'url:' .. u)
    end
  end
  redis.call('DEL', dk, p .. 'pass:' .. h, tk)
  redis.call('ZREM', p .. 'docs', h)
  return existed
end
"#
    };
}

/// Replaces a document and its passages in one step. ARGV[2] is a JSON payload built by
/// `put_payload`: `fields` (the document hash, flat), `passages` (serialized), `postings`
/// (`[stem, ord, tf]`), `plen`, `size`, `fetched_at`, `url`, `final_url`, `ttl` (ms, or
/// empty for no expiry). Each write gets a new generation, part of every posting, so a
/// posting left behind by an expired copy never matches the next copy's passages.
pub(super) static PUT_DOCUMENT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        forget_lua!(),
        r#"
local p = ARGV[1]
local d = cjson.decode(ARGV[2])
local h = d.handle
local dk, pk, tk = p .. 'doc:' .. h, p .. 'pass:' .. h, p .. 'dpost:' .. h
forget(p, h)
local gen = redis.call('INCR', p .. 'gen')
redis.call('HSET', dk, 'gen', gen, unpack(d.fields))
for i, v in ipairs(d.passages) do
  redis.call('HSET', pk, i - 1, v)
end
for _, e in ipairs(d.postings) do
  local member = h .. '#' .. gen .. '#' .. e[2]
  redis.call('ZADD', p .. 't:' .. e[1], e[3], member)
  redis.call('SADD', tk, e[1] .. '\t' .. member)
end
redis.call('HSET', p .. 'docmeta', h, #d.passages .. ' ' .. d.plen .. ' ' .. d.size)
redis.call('HINCRBY', p .. 'meta', 'passages', #d.passages)
redis.call('HINCRBY', p .. 'meta', 'plen', d.plen)
redis.call('HINCRBY', p .. 'meta', 'bytes', d.size)
redis.call('ZADD', p .. 'docs', d.fetched_at, h)
local keys = {dk, pk, tk}
for _, u in ipairs({d.url, d.final_url}) do
  redis.call('SET', p .. 'url:' .. u, h)
  table.insert(keys, p .. 'url:' .. u)
end
if d.ttl ~= '' then
  for _, k in ipairs(keys) do redis.call('PEXPIRE', k, d.ttl) end
end
return gen
"#
    ))
});

/// Removes one document (ARGV[2] = handle) and its older copies (not `forget`'s part:
/// replacing a document keeps them); returns 1 if it was stored.
pub(super) static DELETE_DOCUMENT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        forget_lua!(),
        "redis.call('DEL', ARGV[1] .. 'ver:' .. ARGV[2])\nreturn forget(ARGV[1], ARGV[2])\n"
    ))
});

/// A 304's update: new times and validators, same content, expirations moved with it.
/// ARGV[2]: `{handle, fetched_at, expires_at, etag, last_modified, ttl}` (strings; etag and
/// last_modified null to keep the stored ones; ttl empty for no expiry).
pub(super) static REVALIDATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local p = ARGV[1]
local d = cjson.decode(ARGV[2])
local h = d.handle
local dk = p .. 'doc:' .. h
if redis.call('EXISTS', dk) == 0 then return 0 end
redis.call('HSET', dk, 'fetched_at', d.fetched_at, 'expires_at', d.expires_at)
if d.etag ~= cjson.null then redis.call('HSET', dk, 'etag', d.etag) end
if d.last_modified ~= cjson.null then redis.call('HSET', dk, 'last_modified', d.last_modified) end
redis.call('ZADD', p .. 'docs', d.fetched_at, h)
local keys = {dk, p .. 'pass:' .. h, p .. 'dpost:' .. h}
for _, u in ipairs(redis.call('HMGET', dk, 'url', 'final_url')) do
  if redis.call('GET', p .. 'url:' .. u) == h then table.insert(keys, p .. 'url:' .. u) end
end
for _, k in ipairs(keys) do
  if d.ttl ~= '' then redis.call('PEXPIRE', k, d.ttl) else redis.call('PERSIST', k) end
end
return 1
"#,
    )
});

/// Global "skip when busy" for one provider, shared by every replica: an in-flight cap
/// (leases that expire, so a replica killed mid-call does not hold a slot forever) and a
/// GCRA spacing, checked and taken together.
///
/// KEYS: the provider's lease set and its GCRA cell. ARGV: interval ms (0 = no spacing),
/// max in flight (0 = no cap), lease ms, lease id. Time is Redis's own clock, so replicas'
/// clocks need not agree. Returns `{1, 0}` when taken, `{0, wait_ms}` when busy (wait 0
/// means the in-flight cap).
pub(super) static ACQUIRE_SLOT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval, max, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if max > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= max then return {0, 0} end
end
if interval > 0 then
  local tat = tonumber(redis.call('GET', KEYS[2])) or now
  if tat < now then tat = now end
  if tat > now then return {0, tat - now} end
  redis.call('SET', KEYS[2], tat + interval, 'PX', interval + 1000)
end
if max > 0 then
  redis.call('ZADD', KEYS[1], now + lease, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], lease + 1000)
end
return {1, 0}
"#,
    )
});
