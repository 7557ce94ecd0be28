//! The Lua scripts of crawl state (see `crawl.rs` for the keys). Each moves URLs between
//! states in one step, so two replicas claiming at once never get the same URL, and a
//! URL's row, its state set, the queue and its lease never disagree.
//!
//! Every script gets the crawl's key base `P crawl:{id}:` as ARGV[1] and builds its keys
//! from it (one Redis primary, as the rest of the store). Time is Redis's own clock, so the
//! replicas' clocks need not agree on when a lease runs out.

use std::sync::LazyLock;

use redis::Script;

/// `now()`: Redis's time in ms. `move(b, k, row, to)`: moves URL `k` (its decoded `row`)
/// to state `to` — its state set (keeping its order of discovery), the priority queue, its
/// lease and owner. `merge(row, o)`: an outcome into a row (fields given win, words only
/// grow). `terminal(s)`: done, failed or skipped.
macro_rules! crawl_lua {
    () => {
        r#"
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function move(b, k, row, to)
  local from = row.state
  if from ~= to then
    local seq = redis.call('ZSCORE', b .. 'in:' .. from, k)
    redis.call('ZREM', b .. 'in:' .. from, k)
    redis.call('ZADD', b .. 'in:' .. to, seq or 0, k)
  end
  if from == 'queued' then redis.call('ZREM', b .. 'queue', k) end
  if to == 'queued' then redis.call('ZADD', b .. 'queue', row.priority, k) end
  if from == 'fetching' and to ~= 'fetching' then
    redis.call('ZREM', b .. 'leases', k)
    redis.call('HDEL', b .. 'owners', k)
  end
  row.state = to
end
local function merge(row, o)
  for _, f in ipairs({'handle', 'title', 'status', 'detail'}) do
    if o[f] ~= nil and o[f] ~= cjson.null then row[f] = o[f] end
  end
  if o.words and o.words > (row.words or 0) then row.words = o.words end
end
local function terminal(s)
  return s == 'done' or s == 'failed' or s == 'skipped'
end
"#
    };
}

/// Adds URLs a crawl has not seen. ARGV[2..]: key, state, priority, row JSON, repeated.
/// Returns how many were new.
pub(super) static ADD_URLS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local b = ARGV[1]
local added = 0
for i = 2, #ARGV, 4 do
  local k, state, priority, row = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  if redis.call('HSETNX', b .. 'urls', k, row) == 1 then
    local seq = redis.call('HINCRBY', b .. 'record', 'seq', 1)
    redis.call('ZADD', b .. 'in:' .. state, seq, k)
    if state == 'queued' then redis.call('ZADD', b .. 'queue', priority, k) end
    added = added + 1
  end
end
return added
"#,
    )
});

/// Moves URLs to a state with one outcome, whoever holds them. ARGV[2]: state, ARGV[3]:
/// outcome JSON, ARGV[4..]: keys.
pub(super) static SET_STATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        crawl_lua!(),
        r#"
local b, to, o = ARGV[1], ARGV[2], cjson.decode(ARGV[3])
for i = 4, #ARGV do
  local k = ARGV[i]
  local raw = redis.call('HGET', b .. 'urls', k)
  if raw then
    local row = cjson.decode(raw)
    move(b, k, row, to)
    merge(row, o)
    redis.call('HSET', b .. 'urls', k, cjson.encode(row))
    if terminal(to) then redis.call('SREM', b .. 'lapsed', k) end
  end
end
return 1
"#
    ))
});

/// Takes queued URLs for a worker. ARGV[2]: worker, ARGV[3]: most to take, ARGV[4]: lease
/// ms, ARGV[5]: page budget (0 = none). Leases that ran out go back to the queue first
/// (and are remembered as lapsed). Returns `{key, row JSON, lapsed}` per URL taken.
pub(super) static CLAIM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        crawl_lua!(),
        r#"
local b, worker = ARGV[1], ARGV[2]
local n, lease, limit = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local t = now()
for _, k in ipairs(redis.call('ZRANGEBYSCORE', b .. 'leases', '-inf', t)) do
  local raw = redis.call('HGET', b .. 'urls', k)
  if raw then
    local row = cjson.decode(raw)
    if row.state == 'fetching' then
      move(b, k, row, 'queued')
      redis.call('HSET', b .. 'urls', k, cjson.encode(row))
      redis.call('SADD', b .. 'lapsed', k)
    end
  end
  redis.call('ZREM', b .. 'leases', k)
  redis.call('HDEL', b .. 'owners', k)
end
if limit > 0 then
  local busy = redis.call('ZCARD', b .. 'in:done') + redis.call('ZCARD', b .. 'in:fetching')
  if limit - busy < n then n = limit - busy end
end
local out = {}
if n <= 0 then return out end
local popped = redis.call('ZPOPMAX', b .. 'queue', n)
for i = 1, #popped, 2 do
  local k = popped[i]
  local raw = redis.call('HGET', b .. 'urls', k)
  if raw then
    local row = cjson.decode(raw)
    move(b, k, row, 'fetching')
    local encoded = cjson.encode(row)
    redis.call('HSET', b .. 'urls', k, encoded)
    redis.call('ZADD', b .. 'leases', t + lease, k)
    redis.call('HSET', b .. 'owners', k, worker)
    table.insert(out, {k, encoded, redis.call('SISMEMBER', b .. 'lapsed', k)})
  end
end
return out
"#
    ))
});

/// Extends a worker's leases. ARGV[2]: worker, ARGV[3]: lease ms, ARGV[4..]: keys. Returns
/// how many it still held.
pub(super) static RENEW: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        crawl_lua!(),
        r#"
local b, worker, lease = ARGV[1], ARGV[2], tonumber(ARGV[3])
local until_ms = now() + lease
local held = 0
for i = 4, #ARGV do
  if redis.call('HGET', b .. 'owners', ARGV[i]) == worker then
    redis.call('ZADD', b .. 'leases', 'XX', until_ms, ARGV[i])
    held = held + 1
  end
end
return held
"#
    ))
});

/// Settles a URL a worker holds. ARGV[2]: worker, ARGV[3]: key, ARGV[4]: state, ARGV[5]:
/// outcome JSON. Returns 0, writing nothing, when the worker no longer holds it.
pub(super) static SETTLE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        crawl_lua!(),
        r#"
local b, worker, k, to = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('HGET', b .. 'owners', k) ~= worker then return 0 end
local raw = redis.call('HGET', b .. 'urls', k)
if not raw then return 0 end
local row = cjson.decode(raw)
if row.state ~= 'fetching' then return 0 end
move(b, k, row, to)
merge(row, cjson.decode(ARGV[5]))
redis.call('HSET', b .. 'urls', k, cjson.encode(row))
if terminal(to) then redis.call('SREM', b .. 'lapsed', k) end
return 1
"#
    ))
});

/// Writes a crawl's record; a cancel request and the creation time already there stay (as
/// on SQLite). ARGV[2]: the crawls
/// index key, ARGV[3]: id, ARGV[4]: created ms, ARGV[5..]: field, value pairs (with
/// `cancel_requested`).
pub(super) static PUT_CRAWL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local k = ARGV[1] .. 'record'
local asked = redis.call('HGET', k, 'cancel_requested')
for i = 5, #ARGV, 2 do
  local v = ARGV[i + 1]
  if ARGV[i] == 'cancel_requested' and asked == '1' then v = '1' end
  if ARGV[i] == 'created_at' then
    redis.call('HSETNX', k, ARGV[i], v)
  else
    redis.call('HSET', k, ARGV[i], v)
  end
end
redis.call('ZADD', ARGV[2], 'NX', ARGV[4], ARGV[3])
return 1
"#,
    )
});

/// Sets `cancel_requested` (ARGV[2], `0` or `1`) of a crawl that exists; returns 1 if so.
pub(super) static SET_CANCEL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local k = ARGV[1] .. 'record'
if redis.call('EXISTS', k) == 0 then return 0 end
redis.call('HSET', k, 'cancel_requested', ARGV[2])
return 1
"#,
    )
});

/// Ends a running crawl. ARGV[2]: status, ARGV[3]: summary JSON, ARGV[4]: now ms. Returns
/// 1 when this call ended it.
pub(super) static END_CRAWL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local k = ARGV[1] .. 'record'
if redis.call('HGET', k, 'status') ~= 'running' then return 0 end
redis.call('HSET', k, 'status', ARGV[2], 'summary', ARGV[3], 'updated_at', ARGV[4])
return 1
"#,
    )
});
