//! [`CrawlNotes`] on Redis: two hashes beside a crawl's other keys (`B` = `P crawl:{id}:`),
//! `B links` and `B changes`, each canonical key → JSON (the links as `link_lines` packs
//! them). Removed with the crawl.

use redis::Commands;

use super::RedisStore;
use crate::crawl_notes::{CrawlNotes, PageNotes};
use crate::{Error, Result, link_lines};

/// The hashes `delete_crawl` removes too.
pub(super) const NOTE_KEYS: [&str; 2] = ["links", "changes"];

fn decode(raw: Option<String>, what: &'static str) -> Result<Option<serde_json::Value>> {
    raw.map(|t| serde_json::from_str(&t).map_err(|source| Error::Decode { what, source }))
        .transpose()
}

impl CrawlNotes for RedisStore {
    fn put_page_notes(&self, id: &str, notes: &[PageNotes]) -> Result<()> {
        let base = self.key(&format!("crawl:{id}:"));
        let links: Vec<(String, String)> = notes
            .iter()
            .filter_map(|n| {
                Some((
                    n.key.clone(),
                    link_lines::to_note(n.links.as_ref()?).to_string(),
                ))
            })
            .collect();
        let changes: Vec<(String, String)> = notes
            .iter()
            .filter_map(|n| Some((n.key.clone(), n.change.as_ref()?.to_string())))
            .collect();
        self.with_conn(|conn| {
            let mut pipe = redis::pipe();
            pipe.atomic();
            if !links.is_empty() {
                pipe.hset_multiple(format!("{base}links"), &links).ignore();
            }
            if !changes.is_empty() {
                pipe.hset_multiple(format!("{base}changes"), &changes)
                    .ignore();
            }
            pipe.query::<()>(conn)?;
            Ok(())
        })
    }

    fn page_notes(&self, id: &str, keys: &[String]) -> Result<Vec<PageNotes>> {
        let base = self.key(&format!("crawl:{id}:"));
        let keys: Vec<String> = if keys.is_empty() {
            let mut all: Vec<String> = self.with_conn(|conn| {
                let mut k: Vec<String> = conn.hkeys(format!("{base}links"))?;
                k.extend(conn.hkeys::<_, Vec<String>>(format!("{base}changes"))?);
                Ok(k)
            })?;
            all.sort();
            all.dedup();
            all
        } else {
            keys.to_vec()
        };
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let (links, changes): (Vec<Option<String>>, Vec<Option<String>>) =
            self.with_conn(|conn| {
                Ok(redis::pipe()
                    .cmd("HMGET")
                    .arg(format!("{base}links"))
                    .arg(&keys)
                    .cmd("HMGET")
                    .arg(format!("{base}changes"))
                    .arg(&keys)
                    .query(conn)?)
            })?;
        let mut out = Vec::new();
        for ((key, l), c) in keys.into_iter().zip(links).zip(changes) {
            if l.is_none() && c.is_none() {
                continue;
            }
            out.push(PageNotes {
                key,
                links: decode(l, "crawl page links")?
                    .as_ref()
                    .and_then(link_lines::from_note),
                change: decode(c, "crawl page change")?,
            });
        }
        Ok(out)
    }
}
