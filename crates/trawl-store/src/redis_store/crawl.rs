//! [`CrawlStore`] on Redis, so every replica on one Redis works on the same crawls.
//!
//! # Keys (under the prefix `P`; `B` = `P crawl:{id}:`)
//!
//! | key | type | holds |
//! |---|---|---|
//! | `P crawls` | sorted set | crawl ids by creation time |
//! | `B record` | hash | the crawl's record, and `seq` (URLs seen so far) |
//! | `B urls` | hash | canonical key → the URL's row (JSON: url, depth, priority, outcome, state) |
//! | `B in:{state}` | sorted set | the URLs in each state, scored by the order they were seen |
//! | `B queue` | sorted set | queued URLs by priority (the frontier claims pop from) |
//! | `B leases`, `B owners` | sorted set, hash | fetching URLs: lease end (Redis time, ms) and worker |
//! | `B lapsed` | set | URLs whose lease ran out and that are not settled yet |
//!
//! Every move between states is one Lua script (`crawl_scripts.rs`). Crawl keys have no
//! expiry: a crawl is kept until `delete_crawl`, as on SQLite.

use std::collections::HashMap;
use std::time::Duration;

use redis::Commands;
use serde::{Deserialize, Serialize};

use super::{RedisStore, crawl_scripts as scripts};
use crate::crawl::{ClaimedUrl, CrawlRecord, CrawlStore, CrawlUrl, UrlOutcome, UrlState};
use crate::{Error, Result, duration_millis, from_millis, to_millis};

const STATES: [UrlState; 5] = [
    UrlState::Queued,
    UrlState::Fetching,
    UrlState::Done,
    UrlState::Failed,
    UrlState::Skipped,
];

/// A URL's row as kept in `B urls` (its key is the hash field).
#[derive(Serialize, Deserialize)]
struct Row {
    url: String,
    depth: u32,
    priority: f64,
    run: u32,
    state: UrlState,
    handle: Option<String>,
    title: Option<String>,
    #[serde(default)]
    words: u64,
    status: Option<u16>,
    detail: Option<String>,
}

impl Row {
    fn of(u: &CrawlUrl) -> Self {
        Row {
            url: u.url.clone(),
            depth: u.depth,
            priority: u.priority,
            run: u.run,
            state: u.state,
            handle: u.handle.clone(),
            title: u.title.clone(),
            words: u.words,
            status: u.status,
            detail: u.detail.clone(),
        }
    }

    fn into_url(self, key: String) -> CrawlUrl {
        CrawlUrl {
            key,
            url: self.url,
            depth: self.depth,
            priority: self.priority,
            run: self.run,
            state: self.state,
            handle: self.handle,
            title: self.title,
            words: self.words,
            status: self.status,
            detail: self.detail,
        }
    }
}

fn decode_row(key: String, raw: &str) -> Result<CrawlUrl> {
    let row: Row = serde_json::from_str(raw).map_err(|source| Error::Decode {
        what: "crawl URL",
        source,
    })?;
    Ok(row.into_url(key))
}

fn decode_json(raw: Option<&String>, what: &'static str) -> Result<serde_json::Value> {
    match raw {
        None => Ok(serde_json::Value::Null),
        Some(text) => serde_json::from_str(text).map_err(|source| Error::Decode { what, source }),
    }
}

fn outcome_json(o: &UrlOutcome) -> String {
    serde_json::json!({
        "handle": o.handle,
        "title": o.title,
        "words": o.words,
        "status": o.status,
        "detail": o.detail,
    })
    .to_string()
}

fn json_text(value: &impl Serialize) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Backend(e.into()))
}

impl RedisStore {
    /// `P crawl:{id}:`, the base of a crawl's keys.
    fn crawl_base(&self, id: &str) -> String {
        self.key(&format!("crawl:{id}:"))
    }

    fn decode_record(id: &str, fields: HashMap<String, String>) -> Result<Option<CrawlRecord>> {
        let Some(start_url) = fields.get("start_url") else {
            return Ok(None);
        };
        let millis = |name: &str| {
            fields
                .get(name)
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0)
        };
        Ok(Some(CrawlRecord {
            id: id.to_owned(),
            start_url: start_url.clone(),
            status: fields.get("status").cloned().unwrap_or_default(),
            options: decode_json(fields.get("options"), "crawl options")?,
            summary: decode_json(fields.get("summary"), "crawl summary")?,
            created_at: from_millis(millis("created_at")),
            updated_at: from_millis(millis("updated_at")),
            cancel_requested: fields.get("cancel_requested").is_some_and(|v| v == "1"),
        }))
    }

    /// The rows of `keys` (missing ones left out), in that order.
    fn rows(&self, base: &str, keys: Vec<String>) -> Result<Vec<CrawlUrl>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let raws: Vec<Option<String>> = self.with_conn(|conn| {
            Ok(redis::cmd("HMGET")
                .arg(format!("{base}urls"))
                .arg(&keys)
                .query(conn)?)
        })?;
        keys.into_iter()
            .zip(raws)
            .filter_map(|(k, raw)| raw.map(|r| decode_row(k, &r)))
            .collect()
    }
}

impl CrawlStore for RedisStore {
    fn shares_work(&self) -> bool {
        true
    }

    fn put_crawl(&self, r: &CrawlRecord) -> Result<()> {
        let created = to_millis(r.created_at).to_string();
        let fields = [
            ("start_url", r.start_url.clone()),
            ("status", r.status.clone()),
            ("options", json_text(&r.options)?),
            ("summary", json_text(&r.summary)?),
            ("created_at", created.clone()),
            ("updated_at", to_millis(r.updated_at).to_string()),
            (
                "cancel_requested",
                if r.cancel_requested { "1" } else { "0" }.to_owned(),
            ),
        ];
        let base = self.crawl_base(&r.id);
        let index = self.key("crawls");
        self.with_conn(|conn| {
            let mut call = scripts::PUT_CRAWL.prepare_invoke();
            call.arg(&base).arg(&index).arg(&r.id).arg(&created);
            for (name, value) in &fields {
                call.arg(*name).arg(value);
            }
            Ok(call.invoke::<i64>(conn).map(drop)?)
        })
    }

    fn get_crawl(&self, id: &str) -> Result<Option<CrawlRecord>> {
        let key = format!("{}record", self.crawl_base(id));
        let fields: HashMap<String, String> = self.with_conn(|conn| Ok(conn.hgetall(&key)?))?;
        Self::decode_record(id, fields)
    }

    fn crawls(&self) -> Result<Vec<CrawlRecord>> {
        let ids: Vec<String> =
            self.with_conn(|conn| Ok(conn.zrevrange(self.key("crawls"), 0, -1)?))?;
        let mut out = Vec::new();
        for id in ids {
            if let Some(r) = self.get_crawl(&id)? {
                out.push(r);
            }
        }
        // As SQLite orders them: newest first, then by id.
        out.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.id.cmp(&b.id)));
        Ok(out)
    }

    fn request_cancel(&self, id: &str) -> Result<bool> {
        let base = self.crawl_base(id);
        let found: i64 =
            self.with_conn(|conn| Ok(scripts::SET_CANCEL.arg(&base).arg("1").invoke(conn)?))?;
        Ok(found == 1)
    }

    fn clear_cancel(&self, id: &str) -> Result<()> {
        let base = self.crawl_base(id);
        self.with_conn(|conn| {
            Ok(scripts::SET_CANCEL
                .arg(&base)
                .arg("0")
                .invoke::<i64>(conn)?)
        })?;
        Ok(())
    }

    fn add_crawl_urls(&self, id: &str, urls: &[CrawlUrl]) -> Result<usize> {
        if urls.is_empty() {
            return Ok(0);
        }
        let base = self.crawl_base(id);
        let mut args = Vec::with_capacity(urls.len() * 4);
        for u in urls {
            args.push(u.key.clone());
            args.push(u.state.as_str().to_owned());
            args.push(u.priority.to_string());
            args.push(json_text(&Row::of(u))?);
        }
        let added: i64 = self.with_conn(|conn| {
            let mut call = scripts::ADD_URLS.prepare_invoke();
            call.arg(&base).arg(&args);
            Ok(call.invoke(conn)?)
        })?;
        Ok(added.max(0) as usize)
    }

    fn set_crawl_url_state(
        &self,
        id: &str,
        keys: &[String],
        state: UrlState,
        outcome: &UrlOutcome,
    ) -> Result<()> {
        if keys.is_empty() {
            return Ok(());
        }
        let base = self.crawl_base(id);
        let outcome = outcome_json(outcome);
        self.with_conn(|conn| {
            let mut call = scripts::SET_STATE.prepare_invoke();
            call.arg(&base).arg(state.as_str()).arg(&outcome).arg(keys);
            Ok(call.invoke::<i64>(conn).map(drop)?)
        })
    }

    fn known_crawl_urls(&self, id: &str, keys: &[String]) -> Result<Vec<String>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let base = self.crawl_base(id);
        // A seen key has a row; one round trip for all of them, no row sent back.
        let urls = format!("{base}urls");
        let present: Vec<bool> = self.with_conn(|conn| {
            let mut pipe = redis::pipe();
            for k in keys {
                pipe.hexists(&urls, k);
            }
            Ok(pipe.query(conn)?)
        })?;
        Ok(keys
            .iter()
            .zip(present)
            .filter(|(_, here)| *here)
            .map(|(k, _)| k.clone())
            .collect())
    }

    fn crawl_urls(
        &self,
        id: &str,
        states: &[UrlState],
        offset: usize,
        limit: usize,
    ) -> Result<Vec<CrawlUrl>> {
        let base = self.crawl_base(id);
        let states: Vec<UrlState> = if states.is_empty() {
            STATES.to_vec()
        } else {
            states.to_vec()
        };
        let keys: Vec<String> = if let [only] = states[..] {
            // One state: Redis pages it.
            let stop = if limit == 0 {
                -1
            } else {
                (offset + limit) as isize - 1
            };
            let set = format!("{base}in:{}", only.as_str());
            self.with_conn(|conn| Ok(conn.zrange(&set, offset as isize, stop)?))?
        } else {
            // Several: merged by the order they were seen, then paged.
            let mut all: Vec<(String, f64)> = Vec::new();
            for s in &states {
                let set = format!("{base}in:{}", s.as_str());
                let some: Vec<(String, f64)> =
                    self.with_conn(|conn| Ok(conn.zrange_withscores(&set, 0, -1)?))?;
                all.extend(some);
            }
            all.sort_by(|a, b| a.1.total_cmp(&b.1));
            let take = if limit == 0 { usize::MAX } else { limit };
            all.into_iter()
                .skip(offset)
                .take(take)
                .map(|(k, _)| k)
                .collect()
        };
        self.rows(&base, keys)
    }

    fn crawl_url_counts(&self, id: &str) -> Result<Vec<(UrlState, u64)>> {
        let base = self.crawl_base(id);
        let counts: Vec<u64> = self.with_conn(|conn| {
            let mut pipe = redis::pipe();
            for s in STATES {
                pipe.zcard(format!("{base}in:{}", s.as_str()));
            }
            Ok(pipe.query(conn)?)
        })?;
        let mut out: Vec<(UrlState, u64)> = STATES
            .into_iter()
            .zip(counts)
            .filter(|(_, n)| *n > 0)
            .collect();
        out.sort_by_key(|(s, _)| s.as_str());
        Ok(out)
    }

    fn delete_crawl(&self, id: &str) -> Result<bool> {
        let base = self.crawl_base(id);
        let mut keys: Vec<String> = ["record", "urls", "queue", "leases", "owners", "lapsed"]
            .iter()
            .map(|k| format!("{base}{k}"))
            .collect();
        keys.extend(STATES.iter().map(|s| format!("{base}in:{}", s.as_str())));
        keys.extend(
            super::crawl_notes::NOTE_KEYS
                .iter()
                .map(|k| format!("{base}{k}")),
        );
        let index = self.key("crawls");
        let (existed, _): (i64, i64) = self.with_conn(|conn| {
            Ok(redis::pipe()
                .atomic()
                .exists(format!("{base}record"))
                .zrem(&index, id)
                .del(&keys)
                .ignore()
                .query(conn)?)
        })?;
        Ok(existed == 1)
    }

    fn claim_crawl_urls(
        &self,
        id: &str,
        worker: &str,
        n: usize,
        lease: Duration,
        limit: usize,
    ) -> Result<Vec<ClaimedUrl>> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let base = self.crawl_base(id);
        let taken: Vec<(String, String, i64)> = self.with_conn(|conn| {
            Ok(scripts::CLAIM
                .arg(&base)
                .arg(worker)
                .arg(n)
                .arg(duration_millis(lease).max(1))
                .arg(limit)
                .invoke(conn)?)
        })?;
        taken
            .into_iter()
            .map(|(key, raw, lapsed)| {
                Ok(ClaimedUrl {
                    url: decode_row(key, &raw)?,
                    lapsed: lapsed == 1,
                })
            })
            .collect()
    }

    fn renew_crawl_leases(
        &self,
        id: &str,
        worker: &str,
        keys: &[String],
        lease: Duration,
    ) -> Result<usize> {
        if keys.is_empty() {
            return Ok(0);
        }
        let base = self.crawl_base(id);
        let held: i64 = self.with_conn(|conn| {
            let mut call = scripts::RENEW.prepare_invoke();
            call.arg(&base)
                .arg(worker)
                .arg(duration_millis(lease).max(1))
                .arg(keys);
            Ok(call.invoke(conn)?)
        })?;
        Ok(held.max(0) as usize)
    }

    fn settle_crawl_url(
        &self,
        id: &str,
        worker: &str,
        key: &str,
        state: UrlState,
        outcome: &UrlOutcome,
    ) -> Result<bool> {
        let base = self.crawl_base(id);
        let outcome = outcome_json(outcome);
        let settled: i64 = self.with_conn(|conn| {
            Ok(scripts::SETTLE
                .arg(&base)
                .arg(worker)
                .arg(key)
                .arg(state.as_str())
                .arg(&outcome)
                .invoke(conn)?)
        })?;
        Ok(settled == 1)
    }

    fn end_crawl(&self, id: &str, status: &str, summary: &serde_json::Value) -> Result<bool> {
        let base = self.crawl_base(id);
        let summary = json_text(summary)?;
        let now = self.now();
        let ended: i64 = self.with_conn(|conn| {
            Ok(scripts::END_CRAWL
                .arg(&base)
                .arg(status)
                .arg(&summary)
                .arg(now)
                .invoke(conn)?)
        })?;
        Ok(ended == 1)
    }
}
