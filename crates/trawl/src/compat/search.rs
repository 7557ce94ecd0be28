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
    /// v2: `web` and `news` (trawl's news route); `images` is refused.
    sources: Option<Vec<Value>>,
    /// v2: `github` (trawl's dev route, GitHub hits), `research` (the academic route),
    /// `pdf` (`filetype:pdf`, PDF hits); one at a time.
    categories: Option<Vec<Value>>,
    /// Only hits from these sites (one: the engines' site filter; every one: kept after).
    include_domains: Option<Vec<String>>,
    /// No hits from these sites.
    exclude_domains: Option<Vec<String>>,
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

/// Common names that ISO 3166 writes formally (why a short table: the standard's names are
/// "Russian Federation", "Viet Nam", "Korea (Republic of)").
const COUNTRY_ALIASES: [(&str, &str); 14] = [
    ("usa", "us"),
    ("uk", "gb"),
    ("great britain", "gb"),
    ("england", "gb"),
    ("russia", "ru"),
    ("vietnam", "vn"),
    ("south korea", "kr"),
    ("korea", "kr"),
    ("north korea", "kp"),
    ("czech republic", "cz"),
    ("taiwan", "tw"),
    ("iran", "ir"),
    ("bolivia", "bo"),
    ("venezuela", "ve"),
];

/// A country (a two- or three-letter code, or a name) as a two-letter region code.
fn country_code(text: &str) -> Option<String> {
    let t = text.trim();
    if let Ok(c) = isocountry::CountryCode::for_alpha2_caseless(t) {
        return Some(c.alpha2().to_ascii_lowercase());
    }
    if t.len() == 3
        && let Ok(c) = isocountry::CountryCode::for_alpha3_caseless(t)
    {
        return Some(c.alpha2().to_ascii_lowercase());
    }
    let name = t.to_lowercase();
    if let Some((_, code)) = COUNTRY_ALIASES.iter().find(|(alias, _)| *alias == name) {
        return Some((*code).to_owned());
    }
    // The ISO name itself, or its short form before " of …", " (…)" or ", …"
    // ("United States" → "United States of America").
    isocountry::CountryCode::iter()
        .filter(|c| {
            let iso = c.name().to_lowercase();
            iso == name
                || iso.strip_prefix(&name).is_some_and(|rest| {
                    rest.starts_with(" of ") || rest.starts_with(" (") || rest.starts_with(", ")
                })
        })
        .min_by_key(|c| c.name().len())
        .map(|c| c.alpha2().to_ascii_lowercase())
}

/// A location (`"Germany"`, `"de"`, `"San Francisco,California,United States"`) as a
/// region code: its last part, a country code or name.
fn region(location: &str) -> Result<String, CompatError> {
    let last = location.rsplit(',').next().unwrap_or(location);
    country_code(last).ok_or_else(|| {
        CompatError::unsupported(format!(
            "location {location:?} (its last part is no country trawl knows: give a country name or code)"
        ))
    })
}

pub async fn search_v2(
    State(compat): State<Compat>,
    bytes: Bytes,
) -> Result<Response, CompatError> {
    let found = run(&compat, &bytes).await?;
    let mut data = Map::new();
    for (source, results) in found {
        data.insert(source.to_owned(), Value::Array(results));
    }
    Ok(json_ok(json!({"success": true, "data": data})))
}

/// v1 answers the web list itself as `data`.
pub async fn search_v1(
    State(compat): State<Compat>,
    bytes: Bytes,
) -> Result<Response, CompatError> {
    let found = run(&compat, &bytes).await?;
    let web = found
        .into_iter()
        .find(|(source, _)| *source == "web")
        .map(|(_, results)| results)
        .unwrap_or_default();
    Ok(json_ok(json!({"success": true, "data": web})))
}

/// The name of a `sources` or `categories` entry (a string, or `{type: …}`).
fn entry_name(entry: &Value) -> &str {
    entry
        .as_str()
        .or_else(|| entry.get("type").and_then(Value::as_str))
        .unwrap_or("?")
}

/// What a category asks of the search: a route, words added to the query, and which hits
/// it keeps.
struct Category {
    route: Option<&'static str>,
    query_suffix: &'static str,
    keeps: fn(&url::Url) -> bool,
}

fn category(name: &str) -> Result<Category, CompatError> {
    Ok(match name {
        "github" => Category {
            route: Some("dev"),
            query_suffix: "",
            keeps: |u| {
                u.host_str()
                    .is_some_and(|h| h == "github.com" || h.ends_with(".github.com"))
            },
        },
        "research" => Category {
            route: Some("academic"),
            query_suffix: "",
            keeps: |_| true,
        },
        "pdf" => Category {
            route: None,
            query_suffix: " filetype:pdf",
            keeps: |u| u.path().to_ascii_lowercase().ends_with(".pdf"),
        },
        other => {
            return Err(CompatError::unsupported(format!(
                "the {other} category (trawl maps github, research and pdf)"
            )));
        }
    })
}

/// Whether `url`'s host is `domain` or one of its subdomains.
fn on_domain(url: &url::Url, domain: &str) -> bool {
    let domain = domain
        .trim()
        .trim_start_matches("www.")
        .trim_end_matches('/')
        .to_ascii_lowercase();
    url.host_str().is_some_and(|h| {
        let h = h.to_ascii_lowercase();
        let h = h.trim_start_matches("www.");
        h == domain || h.ends_with(&format!(".{domain}"))
    })
}

async fn run(
    compat: &Compat,
    bytes: &Bytes,
) -> Result<Vec<(&'static str, Vec<Value>)>, CompatError> {
    let request: SearchRequest = body(bytes)?;
    check_other(
        &request.other,
        &[
            "ignoreInvalidURLs",
            "integration",
            "domainTools",
            "toolDetail",
        ],
    )?;
    let names: Vec<&str> = request.sources.iter().flatten().map(entry_name).collect();
    // Firecrawl's provider exchange (`alexandria` sources, `domainTools`) is not here:
    // answered with the very 403 Firecrawl gives a team without it, so that clients
    // which try it by default (firecrawl-mcp) fall back to plain web results.
    if names.contains(&"alexandria") || request.other.get("domainTools") == Some(&json!(true)) {
        return Err(CompatError::forbidden(EXCHANGE_OFF));
    }
    let mut sources: Vec<&'static str> = Vec::new();
    for name in &names {
        let source = match *name {
            "web" => "web",
            "news" => "news",
            other => {
                return Err(CompatError::unsupported(format!(
                    "the {other} source (trawl answers web and news results)"
                )));
            }
        };
        if !sources.contains(&source) {
            sources.push(source);
        }
    }
    if sources.is_empty() {
        sources.push("web");
    }
    let categories: Vec<&str> = request
        .categories
        .iter()
        .flatten()
        .map(entry_name)
        .collect();
    if categories.len() > 1 {
        return Err(CompatError::unsupported(
            "several categories at once (trawl maps one: github, research or pdf)",
        ));
    }
    let category = categories.first().map(|c| category(c)).transpose()?;
    let include = request.include_domains.clone().unwrap_or_default();
    let exclude = request.exclude_domains.clone().unwrap_or_default();
    let limit = request.limit.unwrap_or(5);
    let filtered = category.is_some() || !include.is_empty() || !exclude.is_empty();
    let mut base = WebSearchArgs {
        query: format!(
            "{}{}",
            request.query,
            category.as_ref().map_or("", |c| c.query_suffix)
        ),
        // Hits kept after a filter are fewer: ask for more, cut after.
        max_results: Some(if filtered {
            limit.saturating_mul(3)
        } else {
            limit
        }),
        language: request.lang.clone(),
        route: category.as_ref().and_then(|c| c.route).map(str::to_owned),
        site: (include.len() == 1).then(|| include[0].clone()),
        ..WebSearchArgs::default()
    };
    if let Some(tbs) = request.tbs.as_deref().filter(|t| !t.is_empty()) {
        // trawl's shortest window is a day.
        base.freshness = Some(if tbs == "qdr:h" {
            Freshness::Day
        } else {
            freshness(tbs)?
        });
    }
    if let Some(location) = request.location.as_deref().or(request.country.as_deref()) {
        base.region = Some(region(location)?);
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
    let keeps = category.as_ref().map(|c| c.keeps);
    let agent = compat.agent.clone();
    let work = async move {
        let mut found = Vec::new();
        for source in sources {
            let mut args = base.clone();
            if source == "news" {
                args.route = Some("news".to_owned());
            }
            let hits: Vec<_> = agent
                .web_search(args)
                .await?
                .hits
                .into_iter()
                .filter(|h| {
                    let Ok(url) = url::Url::parse(&h.url) else {
                        return false;
                    };
                    keeps.is_none_or(|keeps| keeps(&url))
                        && (include.is_empty() || include.iter().any(|d| on_domain(&url, d)))
                        && !exclude.iter().any(|d| on_domain(&url, d))
                })
                .take(limit as usize)
                .collect();
            let results = match &scrape_options {
                None => hits
                    .iter()
                    .enumerate()
                    .map(|(i, h)| {
                        let mut hit = json!({"url": h.url, "title": h.title,
                                             "description": h.snippet, "position": i + 1});
                        if source == "news" {
                            hit["snippet"] = json!(h.snippet);
                            if let Some(date) = &h.published {
                                hit["date"] = json!(date);
                            }
                        }
                        hit
                    })
                    .collect(),
                Some(options) => read_hits(&agent, hits, options).await,
            };
            found.push((source, results));
        }
        Ok::<_, CompatError>(found)
    };
    compat
        .gated(super::request::within(
            request.timeout,
            || "the search".to_owned(),
            work,
        ))
        .await
}

/// Each hit read as a scrape; one that cannot be read says why in its metadata.
async fn read_hits(
    agent: &trawl_agent::tools::Agent,
    hits: Vec<trawl_search::Hit>,
    options: &ScrapeOptions,
) -> Vec<Value> {
    futures_util::stream::iter(hits.into_iter().enumerate())
        .map(|(i, hit)| {
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
                result["position"] = json!(i + 1);
                result
            }
        })
        .buffered(5)
        .collect::<Vec<Value>>()
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
        assert_eq!(region("Germany").unwrap(), "de");
        assert_eq!(
            region("San Francisco,California,United States").unwrap(),
            "us"
        );
        assert_eq!(region("United Kingdom").unwrap(), "gb");
        assert_eq!(region("Russia").unwrap(), "ru");
        assert_eq!(region("deu").unwrap(), "de");
        assert!(region("Atlantis").is_err());
    }
}
