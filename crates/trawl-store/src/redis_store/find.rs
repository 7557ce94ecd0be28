//! `find` on Redis: candidate passages named by the inverted index (`P t:{stem}`), ranked
//! with BM25 computed here (see the parent module for why ranking runs in trawl).

use std::collections::HashMap;

use redis::Connection;

use super::{RedisStore, StoredPassage, index, parse};
use crate::{Error, FindScope, PassageHit, Result};

impl RedisStore {
    pub(super) fn find_candidates(
        &self,
        conn: &mut Connection,
        query: &str,
        scope: FindScope<'_>,
        limit: usize,
    ) -> Result<Vec<PassageHit>> {
        let parts = index::parse_query(&self.stemmer, query);
        if parts.is_empty() {
            return Err(Error::EmptyQuery);
        }
        let mut stems: Vec<String> = Vec::new();
        for part in &parts {
            for s in &part.stems {
                if !stems.contains(s) {
                    stems.push(s.clone());
                }
            }
        }
        let mut pipe = redis::pipe();
        for s in &stems {
            pipe.cmd("ZRANGE")
                .arg(self.key(&format!("t:{s}")))
                .arg(0)
                .arg(-1)
                .arg("WITHSCORES");
        }
        pipe.cmd("HMGET")
            .arg(self.key("meta"))
            .arg(&["passages", "plen"]);
        let mut answers: Vec<redis::Value> = pipe.query(conn)?;
        let meta: Vec<Option<i64>> = parse(answers.pop().unwrap_or(redis::Value::Nil))?;
        let postings: Vec<Vec<(String, f64)>> =
            answers.into_iter().map(parse).collect::<Result<_>>()?;
        let scope_prefix = match scope {
            FindScope::Document(h) => Some(format!("{h}#")),
            FindScope::All => None,
        };
        // member → weighted tf per stem
        let mut tfs: HashMap<String, Vec<f64>> = HashMap::new();
        for (i, list) in postings.iter().enumerate() {
            for (member, tf) in list {
                if scope_prefix
                    .as_ref()
                    .is_some_and(|p| !member.starts_with(p))
                {
                    continue;
                }
                tfs.entry(member.clone())
                    .or_insert_with(|| vec![0.0; stems.len()])[i] = *tf;
            }
        }
        let stem_index = |s: &String| stems.iter().position(|x| x == s).unwrap_or(0);
        let has_stems = |tf: &[f64], part: &index::QueryPart| {
            part.stems.iter().all(|s| tf[stem_index(s)] > 0.0)
        };
        tfs.retain(|_, tf| parts.iter().any(|p| has_stems(tf, p)));

        // Load the candidates' passages and their documents' current generation.
        let mut by_handle: HashMap<String, Vec<(String, u64, String)>> = HashMap::new();
        for member in tfs.keys() {
            let mut it = member.rsplitn(3, '#');
            let (Some(ord), Some(generation), Some(handle)) = (it.next(), it.next(), it.next())
            else {
                continue;
            };
            by_handle.entry(handle.to_owned()).or_default().push((
                ord.to_owned(),
                generation.parse().unwrap_or(0),
                member.clone(),
            ));
        }
        let handles: Vec<&String> = by_handle.keys().collect();
        let mut pipe = redis::pipe();
        for h in &handles {
            pipe.cmd("HGET")
                .arg(self.key(&format!("doc:{h}")))
                .arg("gen");
            let ords: Vec<&str> = by_handle[*h].iter().map(|(o, _, _)| o.as_str()).collect();
            pipe.cmd("HMGET")
                .arg(self.key(&format!("pass:{h}")))
                .arg(ords);
        }
        let mut loaded: Vec<redis::Value> = if handles.is_empty() {
            Vec::new()
        } else {
            pipe.query(conn)?
        };
        let corpus = index::Corpus {
            passages: meta.first().copied().flatten().unwrap_or(0) as f64,
            mean_len: match meta.as_slice() {
                [Some(n), Some(len)] if *n > 0 => *len as f64 / *n as f64,
                _ => 1.0,
            },
        };
        let mut stale: Vec<String> = Vec::new();
        let mut all_hits: Vec<(PassageHit, usize)> = Vec::new();
        let mut any_hits: Vec<(PassageHit, usize)> = Vec::new();
        for (i, h) in handles.iter().enumerate() {
            let generation: Option<u64> = parse(std::mem::take(&mut loaded[2 * i]))?;
            let texts: Vec<Option<String>> = parse(std::mem::take(&mut loaded[2 * i + 1]))?;
            for ((ord, member_gen, member), text) in by_handle[*h].iter().zip(texts) {
                let passage = match (generation, text) {
                    (Some(g), Some(text)) if g == *member_gen => serde_json::from_str::<
                        StoredPassage,
                    >(&text)
                    .map_err(|source| Error::Decode {
                        what: "passage",
                        source,
                    })?,
                    _ => {
                        stale.push(member.clone());
                        continue;
                    }
                };
                let tf = &tfs[member];
                let matched = parts
                    .iter()
                    .filter(|p| {
                        has_stems(tf, p)
                            && p.phrase.as_ref().is_none_or(|words| {
                                index::has_phrase(&passage.heading, &passage.text, words)
                            })
                    })
                    .count();
                if matched == 0 {
                    continue;
                }
                let score = index::bm25(
                    corpus,
                    passage.len,
                    stems
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| tf[*j] > 0.0)
                        .map(|(j, _)| (postings[j].len() as u64, tf[j])),
                );
                let hit = PassageHit {
                    handle: (*h).clone(),
                    page: passage.page,
                    heading: passage.heading,
                    text: passage.text,
                    score,
                };
                let ord: usize = ord.parse().unwrap_or(0);
                if matched == parts.len() {
                    all_hits.push((hit.clone(), ord));
                }
                any_hits.push((hit, ord));
            }
        }
        if !stale.is_empty() {
            self.forget_postings(conn, &stems, &stale);
        }
        let mut hits = if all_hits.is_empty() {
            any_hits
        } else {
            all_hits
        };
        hits.sort_by(|(a, ao), (b, bo)| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.handle.cmp(&b.handle))
                .then_with(|| ao.cmp(bo))
        });
        if limit > 0 {
            hits.truncate(limit);
        }
        Ok(hits.into_iter().map(|(hit, _)| hit).collect())
    }

    /// Drops postings left behind by documents Redis expired (best effort: a failure
    /// here only leaves them for the next find).
    fn forget_postings(&self, conn: &mut Connection, stems: &[String], members: &[String]) {
        let mut pipe = redis::pipe();
        for s in stems {
            pipe.cmd("ZREM")
                .arg(self.key(&format!("t:{s}")))
                .arg(members)
                .ignore();
        }
        let _: redis::RedisResult<()> = pipe.query(conn);
    }
}
