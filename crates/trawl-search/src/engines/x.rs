//! X (Twitter) posts, through the web app's GraphQL `SearchTimeline` on the user's own
//! logged-in session: `TRAWL_X_COOKIES_FILE` names a cookies file (Netscape `cookies.txt`,
//! a JSON export, or a `Cookie:` line) holding `auth_token` and `ct0`. The cookies are the
//! engine's key: never logged, stripped from `--record` output, and an expired session is an
//! `auth` failure. Several files, comma-separated, rotate like keys.

use serde::Deserialize;
use serde_json::Value;

use super::prelude::*;

/// The GraphQL operation, as the web app names it (X changes the id now and then; the
/// answer is then a 404, reported as an HTTP error).
const SEARCH_TIMELINE: &str = "/i/api/graphql/BGd0T_j7oVwlW5U79tO_0A/SearchTimeline";

/// The web app's own public bearer token (the same for every visitor); the user's session
/// is in the cookies.
pub const WEB_APP_BEARER: &str = "Bearer AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA";

/// The feature switches the web app sends with every timeline query; X refuses a query
/// that leaves required ones out.
const FEATURES: &str = include_str!("x/features.json");

/// The feature switches as one JSON line, as a GraphQL query's `features` parameter
/// (the X site reader sends the same ones with `TweetDetail`).
pub fn features() -> String {
    FEATURES.split_whitespace().collect()
}

/// The key for one cookies file: `auth_token=…; ct0=…`, or `None` when either is missing.
pub fn cookie_key(text: &str) -> Option<String> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    if let Ok(Value::Array(cookies)) = serde_json::from_str::<Value>(text) {
        for c in cookies {
            if let (Some(n), Some(v)) = (c["name"].as_str(), c["value"].as_str()) {
                pairs.push((n.to_owned(), v.to_owned()));
            }
        }
    }
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') || l.starts_with("#HttpOnly_"))
    {
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() >= 7 {
            pairs.push((fields[5].to_owned(), fields[6].trim().to_owned()));
            continue;
        }
        let line = line.trim().trim_start_matches("Cookie:");
        for part in line.split(';') {
            if let Some((n, v)) = part.split_once('=') {
                pairs.push((n.trim().to_owned(), v.trim().to_owned()));
            }
        }
    }
    let get = |name: &str| {
        pairs
            .iter()
            .rev()
            .find(|(n, v)| n == name && !v.is_empty())
            .map(|(_, v)| v.clone())
    };
    Some(format!(
        "auth_token={}; ct0={}",
        get("auth_token")?,
        get("ct0")?
    ))
}

/// The request for one query: the top posts. Filters become X's search operators.
pub fn request(query: &str, req: &SearchRequest, ctx: &RequestContext<'_>) -> EngineRequest {
    let f = &req.filters;
    let mut q = query.to_owned();
    if let Some(site) = &f.site {
        q.push_str(&format!(" url:{site}"));
    }
    if let Some(fr) = f.freshness {
        let d = super::yyyymmdd_days_ago(fr.days());
        q.push_str(&format!(" since:{}-{}-{}", &d[..4], &d[4..6], &d[6..]));
    }
    if let Some(lang) = &f.language {
        q.push_str(&format!(" lang:{}", lang.to_lowercase()));
    }
    let variables = serde_json::json!({
        "rawQuery": q, "count": 20, "querySource": "typed_query", "product": "Top",
    });
    let p = [
        ("variables", variables.to_string()),
        ("features", features()),
    ];
    let r = EngineRequest::get(endpoint_with(ctx.base, SEARCH_TIMELINE, &p))
        .header("authorization", WEB_APP_BEARER)
        .header("x-twitter-active-user", "yes")
        .header("x-twitter-auth-type", "OAuth2Session");
    let Some(cookies) = ctx.key else { return r };
    let ct0 = cookies
        .split(';')
        .find_map(|p| p.trim().strip_prefix("ct0="))
        .unwrap_or("");
    r.header("x-csrf-token", ct0).header("cookie", cookies)
}

#[derive(Deserialize)]
struct Response {
    data: Option<Value>,
    #[serde(default)]
    errors: Vec<ApiError>,
}

#[derive(Deserialize)]
struct ApiError {
    #[serde(default)]
    message: String,
}

/// The words of X's `errors[].message`.
const ERRORS: ErrorWords = ErrorWords {
    rate: &["rate limit"],
    quota: &[],
    auth: &[
        "authenticate",
        "csrf",
        "login",
        "suspended",
        "locked",
        "bad token",
    ],
};

/// Parse a `SearchTimeline` answer: the posts of its `TimelineAddEntries`, each linked to
/// `https://x.com/<user>/status/<id>`, with its author, date and counts.
pub fn parse(body: &[u8]) -> Result<Vec<RawItem>, ParseError> {
    let r: Response = json_body(body)?;
    let timeline = r
        .data
        .as_ref()
        .map(|d| &d["search_by_raw_query"]["search_timeline"]["timeline"]["instructions"])
        .and_then(Value::as_array);
    let Some(instructions) = timeline else {
        let msg = r.errors.into_iter().map(|e| e.message).collect::<Vec<_>>();
        let msg = if msg.is_empty() {
            "no `search_timeline`".to_owned()
        } else {
            msg.join("; ")
        };
        return Err(ParseError::from_message(msg, &ERRORS));
    };
    Ok(instructions
        .iter()
        .filter_map(|i| i["entries"].as_array())
        .flatten()
        .filter_map(|e| post(&e["content"]["itemContent"]["tweet_results"]["result"]))
        .collect())
}

/// One post of a timeline entry (a post under visibility rules is wrapped once more).
fn post(result: &Value) -> Option<RawItem> {
    let t = match result["__typename"].as_str()? {
        "Tweet" => result,
        "TweetWithVisibilityResults" => &result["tweet"],
        _ => return None,
    };
    let id = t["rest_id"].as_str()?;
    let user = &t["core"]["user_results"]["result"];
    // Newer answers moved the handle from `legacy` to `core`.
    let handle = user["core"]["screen_name"]
        .as_str()
        .or(user["legacy"]["screen_name"].as_str())?;
    let name = user["core"]["name"]
        .as_str()
        .or(user["legacy"]["name"].as_str())
        .unwrap_or(handle);
    let legacy = &t["legacy"];
    let text = t["note_tweet"]["note_tweet_results"]["result"]["text"]
        .as_str()
        .or(legacy["full_text"].as_str())
        .unwrap_or("");
    let extra = serde_json::json!({
        "author": handle, "likes": legacy["favorite_count"], "replies": legacy["reply_count"],
        "reposts": legacy["retweet_count"], "views": t["views"]["count"], "lang": legacy["lang"],
    });
    let url = format!("https://x.com/{handle}/status/{id}");
    Some(
        RawItem::new(url, format!("{name} (@{handle})"), clean_text(text))
            .dated(legacy["created_at"].as_str().map(str::to_owned))
            .with_extra(Some(extra)),
    )
}

/// x, as data: what `trawl engines`, routing, docs and `doctor` read.
pub const SPEC: EngineSpec = EngineSpec {
    name: "x",
    group: "x",
    filters: Capabilities::named("site freshness language"),
    key: KeyNeed::Required,
    key_env: trawl_core::vars::X_COOKIES_FILE,
    base: "https://x.com",
    browser_like: false,
    confidence: "parsing high (a real SearchTimeline answer, 2026-07, saved by twscrape's tests); getting through: low-medium (X changes the operation id and may ask for an x-client-transaction-id trawl does not compute); posts only, no top replies",
    routes: Routes::named("all social news"),
    fixtures: "tested on 1 real saved response (twscrape's saved search timeline, captured 2026-07)",
    request,
    parse,
};

#[cfg(test)]
mod tests;
