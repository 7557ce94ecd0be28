//! `POST /v2/search` and `/v1/search`: web results from trawl's engines (`web_search`),
//! `tbs` and `location` mapped to trawl's freshness and region; `scrapeOptions` reads
//! the hits through [`super::scrape`].

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use trawl_agent::tools::WebSearchArgs;
use trawl_search::Freshness;

use super::error::CompatError;
use super::error::json_ok;
use super::request::body;
use super::scrape::scrape;
use super::state::Compat;
use super::types::{ScrapeOptions, check_other};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SearchRequest {
    query: String,
    /// Results wanted (default 5, as Firecrawl's).
    limit: Option<u32>,
    /// Google's time filter: `qdr:d`, `qdr:w`, `qdr:m`, `qdr:y`.
    tbs: Option<String>,
    /// A country name or code, as Firecrawl takes it.
    location: Option<String>,
    /// v1: a country code.
    country: Option<String>,
    /// v1: a language code.
    lang: Option<String>,
    /// v2: only `web` is answered.
    sources: Option<Vec<Value>>,
    timeout: Option<u64>,
    scrape_options: Option<ScrapeOptions>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

/// Firecrawl's answer to a team whose plan has no provider exchange, word for word.
const EXCHANGE_OFF: &str = "Exchange is not enabled for this team.";

/// `qdr:X` as trawl's freshness.
fn freshness(tbs: &str) -> Result<Freshness, CompatError> {
    tbs.strip_prefix("qdr:")
        .and_then(|x| Freshness::parse(&x[..x.len().min(1)]))
        .ok_or_else(|| {
            CompatError::unsupported(format!(
                "tbs {tbs:?} (trawl maps qdr:h/d/w/m/y; custom date ranges are not mapped)"
            ))
        })
}

/// A location (`"Germany"`, `"de"`, `"San Francisco,California,United States"`) as a
/// region code when it is one already; names are not guessed.
fn region(location: &str) -> Result<String, CompatError> {
    let last = location.rsplit(',').next().unwrap_or(location).trim();
    if last.len() == 2 && last.chars().all(|c| c.is_ascii_alphabetic()) {
        return Ok(last.to_ascii_lowercase());
    }
    Err(CompatError::unsupported(format!(
        "location {location:?} (give a two-letter country code)"
    )))
}

pub async fn search_v2(
    State(compat): State<Compat>,
    bytes: Bytes,
) -> Result<Response, CompatError> {
    let results = run(&compat, &bytes).await?;
    Ok(json_ok(json!({"success": true, "data": {"web": results}})))
}

/// v1 answers the list itself as `data`.
pub async fn search_v1(
    State(compat): State<Compat>,
    bytes: Bytes,
) -> Result<Response, CompatError> {
    let results = run(&compat, &bytes).await?;
    Ok(json_ok(json!({"success": true, "data": results})))
}

async fn run(compat: &Compat, bytes: &Bytes) -> Result<Vec<Value>, CompatError> {
    let request: SearchRequest = body(bytes)?;
    check_other(
        &request.other,
        &[
            "ignoreInvalidURLs",
            "categories",
            "integration",
            "domainTools",
            "toolDetail",
        ],
    )?;
    let names: Vec<&str> = request
        .sources
        .iter()
        .flatten()
        .map(|source| {
            source
                .as_str()
                .or_else(|| source.get("type").and_then(Value::as_str))
                .unwrap_or("?")
        })
        .collect();
    // Firecrawl's provider exchange (`alexandria` sources, `domainTools`) is not here:
    // answered with the very 403 Firecrawl gives a team without it, so that clients
    // which try it by default (firecrawl-mcp) fall back to plain web results.
    if names.contains(&"alexandria") || request.other.get("domainTools") == Some(&json!(true)) {
        return Err(CompatError::forbidden(EXCHANGE_OFF));
    }
    {
        for name in names {
            if name != "web" {
                return Err(CompatError::unsupported(format!(
                    "the {name} source (trawl answers web results)"
                )));
            }
        }
    }
    let mut args = WebSearchArgs {
        query: request.query.clone(),
        max_results: Some(request.limit.unwrap_or(5)),
        language: request.lang.clone(),
        ..WebSearchArgs::default()
    };
    if let Some(tbs) = request.tbs.as_deref().filter(|t| !t.is_empty()) {
        // trawl's shortest window is a day.
        args.freshness = Some(if tbs == "qdr:h" {
            Freshness::Day
        } else {
            freshness(tbs)?
        });
    }
    if let Some(location) = request.location.as_deref().or(request.country.as_deref()) {
        args.region = Some(region(location)?);
    }
    // `scrapeOptions: {formats: []}` (what the JS SDK's v1 `search(q)` sends) asks for no
    // page to be read: results only.
    let scrape_options = request
        .scrape_options
        .clone()
        .filter(|o| o.formats.as_ref().is_none_or(|f| !f.is_empty()));
    if let Some(options) = &scrape_options {
        options.check(&[])?;
    }
    let agent = compat.agent.clone();
    let work = async move {
        let data = agent.web_search(args).await?;
        let hits = data.hits;
        let Some(options) = scrape_options else {
            return Ok::<_, CompatError>(
                hits.iter()
                    .map(|h| json!({"url": h.url, "title": h.title, "description": h.snippet}))
                    .collect(),
            );
        };
        // Read the hits concurrently; one that cannot be read says why in its metadata.
        let read = futures_util::stream::iter(hits)
            .map(|hit| {
                let (agent, options) = (agent.clone(), options.clone());
                async move {
                    let mut result = match scrape(&agent, &hit.url, &options).await {
                        Ok(doc) => serde_json::to_value(doc).unwrap_or_default(),
                        Err(e) => json!({"metadata": {"sourceURL": hit.url, "url": hit.url,
                                                      "error": e.message, "statusCode": e.status.as_u16()}}),
                    };
                    result["url"] = json!(hit.url);
                    result["title"] = json!(hit.title);
                    result["description"] = json!(hit.snippet);
                    result
                }
            })
            .buffered(5)
            .collect::<Vec<Value>>()
            .await;
        Ok(read)
    };
    compat
        .gated(super::request::within(
            request.timeout,
            || "the search".to_owned(),
            work,
        ))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_and_location_filters_map_to_trawls() {
        assert_eq!(freshness("qdr:w").unwrap(), Freshness::Week);
        assert_eq!(freshness("qdr:y").unwrap(), Freshness::Year);
        assert!(freshness("cdr:1,cd_min:1/1/2024").is_err());
        assert_eq!(region("DE").unwrap(), "de");
        assert_eq!(region("Berlin,Germany,de").unwrap(), "de");
        assert!(region("Germany").is_err());
    }
}
