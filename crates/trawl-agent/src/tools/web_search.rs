//! `web_search`: one query fanned out to many engines, the hits fused; the top ones may be
//! read at once.

use futures_util::StreamExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use trawl_core::{ErrorBody, ErrorCode, TrawlError};
use trawl_search::{
    Filters, Freshness, OutcomeKind, Route, SafeSearch, SearchData, SearchRequest,
};

use super::bounds::{ToolArgs, checked, describe};
use super::declare::{Asked, Details, Hints, Needs, Tool};
use super::search::{SearchAnswer, engine_outcomes, no_engine_answered, search_details};
use super::{Agent, Progress, invalid, render};
use crate::fence::Fence;
use trawl_text::passages;

/// Search the web with many engines at once; hits are fused and de-duplicated.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = describe)]
pub struct WebSearchArgs {
    /// What to search for, in natural words.
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// How many fused hits to return (default 10).
    #[schemars(range(min = 1, max = 50))]
    pub max_results: Option<u32>,
    /// Engine set: web (default), dev, academic, news, social, fast, all, or a configured
    /// route; engines overrides it.
    #[schemars(length(min = 1, max = 64))]
    pub route: Option<String>,
    /// Exact engines to ask, e.g. ["duckduckgo", "wikipedia"].
    pub engines: Option<Vec<String>>,
    /// Only results from this site, e.g. "docs.rs".
    pub site: Option<String>,
    /// Only results from the last day, week, month or year.
    pub freshness: Option<Freshness>,
    /// Language code for results, e.g. "en", "de".
    pub language: Option<String>,
    /// Region code, e.g. "us", "de".
    pub region: Option<String>,
    /// Adult-content filter (each engine's default when unset).
    pub safesearch: Option<SafeSearch>,
    /// Result page.
    #[schemars(range(min = 1, max = 10))]
    pub page: Option<u32>,
    /// Other phrasings of the same question, fused with it.
    #[schemars(length(max = 4), inner(length(min = 1, max = 500)))]
    pub expand: Option<Vec<String>>,
    /// Also read the top N hits: each gets a handle and a preview.
    #[schemars(range(min = 0, max = 10))]
    pub read_top: Option<u32>,
    /// With read_top: each preview is the passages best matching the query, in this
    /// many tokens a hit.
    #[schemars(range(min = 50, max = 100_000))]
    pub read_max_tokens: Option<u32>,
}

/// Optional text that is empty or blank means "not given".
fn given(text: Option<String>) -> Option<String> {
    text.filter(|s| !s.trim().is_empty())
}

impl ToolArgs for WebSearchArgs {
    fn normalized(self) -> Self {
        WebSearchArgs {
            query: self.query.trim().to_owned(),
            route: given(self.route).map(|r| r.trim().to_owned()),
            site: given(self.site),
            language: given(self.language),
            region: given(self.region),
            expand: self
                .expand
                .map(|e| e.iter().map(|q| q.trim().to_owned()).collect()),
            ..self
        }
    }
}

/// The `web_search` tool.
#[derive(Debug)]
pub struct WebSearch;

impl Tool for WebSearch {
    const NAME: &'static str = "web_search";
    const TITLE: &'static str = "Web search";
    const DESCRIPTION: &'static str = "Search the web with several engines at once; hits are fused, de-duplicated and \
ranked, each with title, URL, snippet and the engines that found it. Use it to find pages on a \
question, then read the best with web_fetch. Narrow with site, freshness, language or region; \
choose engines with route (web, dev, academic, news, social, fast, all) or engines. read_top=N \
also reads the top N hits. More hits: page=next_page.";
    const HINTS: Hints = Hints::reads(true);
    const NEEDS: Needs = Needs::AnyEngine;
    type Args = WebSearchArgs;
    type Out = SearchAnswer;

    async fn call(
        agent: Agent,
        args: WebSearchArgs,
        _: Option<Progress>,
    ) -> Result<SearchAnswer, TrawlError> {
        agent.web_search(args).await.and_then(no_engine_answered)
    }

    fn markdown(out: &SearchAnswer, fence: &Fence) -> String {
        render::search_markdown(&out.0, fence)
    }

    fn asked(args: &WebSearchArgs) -> Vec<Asked> {
        let mut asked = vec![Asked::Text("query", args.query.clone())];
        if let Some(engines) = &args.engines {
            asked.push(Asked::Text("asked", engines.join(",")));
        } else if let Some(route) = &args.route {
            asked.push(Asked::Text("route", route.clone()));
        }
        asked
    }

    fn details(out: &SearchAnswer) -> Details {
        search_details(out)
    }

    fn engine_outcomes(out: &SearchAnswer) -> Vec<(String, &'static str)> {
        engine_outcomes(out)
    }
}

impl Agent {
    /// `web_search`: fused hits from many engines; with `read_top`, the top hits are read
    /// and get a handle and a query-aware preview.
    pub async fn web_search(&self, args: WebSearchArgs) -> Result<SearchData, TrawlError> {
        let args = checked(args)?;
        let query = args.query;
        let max_results = args.max_results.unwrap_or(10);
        let read_top = args.read_top.unwrap_or(0);
        let expand = args.expand.unwrap_or_default();
        let engines = args.engines.unwrap_or_default();
        for name in &engines {
            if self.router()?.engine(name).is_none() {
                return Err(invalid(
                    "engines",
                    format!("unknown engine {name:?} (see `trawl engines`)"),
                ));
            }
        }
        let mut request = SearchRequest::new(query.clone());
        request.expand = expand;
        // A built-in route, unless the config file defines one by that name (the router
        // checks it when it plans the search).
        if let Some(name) = args.route {
            match Route::parse(&name) {
                Some(r) => request.route = r,
                None => request.route_name = Some(name),
            }
        }
        request.engines = engines;
        request.max_results = max_results as usize;
        request.filters = Filters {
            site: args.site,
            freshness: args.freshness,
            language: args.language,
            region: args.region,
            safesearch: args.safesearch,
            page: args.page,
        };
        self.router()?.plan(&request).map_err(|why| {
            invalid(
                if request.engines.is_empty() {
                    "route"
                } else {
                    "engines"
                },
                why,
            )
        })?;
        let mut data = self.search_cached(&request).await?;
        let any_answered = data
            .engines
            .iter()
            .any(|e| matches!(e.outcome, OutcomeKind::Ok | OutcomeKind::Empty));
        if !any_answered {
            let why: Vec<String> = data
                .engines
                .iter()
                .map(|e| format!("{}: {:?}", e.engine, e.outcome))
                .collect();
            return Err(TrawlError::new(
                ErrorCode::Upstream,
                format!("every engine failed ({})", why.join(", ")),
            ));
        }
        if args.read_max_tokens.is_some() && read_top == 0 {
            return Err(invalid("read_max_tokens", "only applies with read_top"));
        }
        self.read_hits_within(&mut data, &query, read_top as usize, args.read_max_tokens)
            .await;
        Ok(data)
    }

    /// Read the top `n` hits concurrently; each gets a handle and a query-aware preview
    /// (the page's passages that best match `query`), or its read error in `extra`.
    pub async fn read_hits(&self, data: &mut SearchData, query: &str, n: usize) {
        self.read_hits_within(data, query, n, None).await;
    }

    /// [`Self::read_hits`]; with `max_tokens`, each preview is the page's passages that
    /// best match `query` within that many estimated tokens (a query-focused read, whose
    /// figures go in the hit's `extra.focus`) instead of a short excerpt.
    pub async fn read_hits_within(
        &self,
        data: &mut SearchData,
        query: &str,
        n: usize,
        max_tokens: Option<u32>,
    ) {
        if n == 0 {
            return;
        }
        let top: Vec<(usize, String)> = data
            .hits
            .iter()
            .take(n)
            .map(|h| h.url.clone())
            .enumerate()
            .collect();
        let reads = futures_util::stream::iter(top)
            .map(|(i, url)| async move {
                let read = self.read_url(&url, false).await;
                // Splitting and ranking passages is CPU work: off the async workers.
                let preview = match (&read, max_tokens) {
                    (Ok(read), Some(max_tokens)) => {
                        let out =
                            super::page::focused_page_out(&read.record, true, query, max_tokens)
                                .await
                                .ok();
                        out.and_then(|o| Some((o.markdown, Some(o.focus?))))
                    }
                    (Ok(read), None) => {
                        let markdown = read.record.document.markdown.clone();
                        let query = query.to_owned();
                        Some((
                            trawl_text::cpu::run(move || {
                                let parts =
                                    passages::split(&markdown, trawl_text::pager::DEFAULT_PAGE_TOKENS);
                                passages::preview(&parts, &query, None, 600)
                            })
                            .await,
                            None,
                        ))
                    }
                    (Err(_), _) => None,
                };
                (i, read, preview)
            })
            .buffer_unordered(self.config.batch_concurrency.max(1))
            .collect::<Vec<_>>()
            .await;
        for (i, read, preview) in reads {
            let hit = &mut data.hits[i];
            match read {
                Ok(read) => {
                    hit.handle = Some(read.record.document.handle.clone());
                    let (preview, focus) = preview.unzip();
                    hit.preview = preview;
                    if let Some(focus) = focus.flatten() {
                        let figures = serde_json::json!({ "focus": {
                            "tokens": focus.tokens,
                            "document_tokens": focus.document_tokens,
                            "left_out_tokens": focus.left_out_tokens,
                            "matched": focus.matched,
                        }});
                        add_extra(&mut hit.extra, figures);
                    }
                }
                Err(e) => {
                    hit.preview = None;
                    let note = serde_json::json!({ "read_error": ErrorBody::from(e) });
                    add_extra(&mut hit.extra, note);
                }
            }
        }
    }

    /// A search through the store's short-lived cache (see [`search_through_cache`]).
    async fn search_cached(&self, request: &SearchRequest) -> Result<SearchData, TrawlError> {
        Ok(search_through_cache(
            &self.store,
            self.router()?,
            request,
            self.config.bypass_search_cache,
        )
        .await)
    }
}

/// A search through the store's short-lived cache, as `web_search` and `trawl search` ask
/// it: an answer cached for the same request (the query's case aside) is given again, each
/// engine saying "from the search cache"; a new one is cached only when every engine
/// answered, so a passing outage is not remembered. `bypass` asks the engines anyway.
pub async fn search_through_cache(
    store: &trawl_store::SharedStore,
    router: &trawl_search::Router,
    request: &SearchRequest,
    bypass: bool,
) -> SearchData {
    let mut normalized = request.clone();
    normalized.query = normalized.query.to_lowercase();
    let key = format!(
        "search:v1:{}",
        serde_json::to_string(&normalized).unwrap_or_default()
    );
    let k = key.clone();
    if !bypass
        && let Ok(Some(hit)) = store.run(move |s| s.get_search(&k)).await
        && let Ok(mut data) = serde_json::from_value::<SearchData>(hit.value)
    {
        for e in &mut data.engines {
            e.detail = Some(match e.detail.take() {
                Some(d) => format!("{d}; from the search cache"),
                None => "from the search cache".to_owned(),
            });
        }
        return data;
    }
    let data = router.search(request).await;
    let complete = data
        .engines
        .iter()
        .all(|e| matches!(e.outcome, OutcomeKind::Ok | OutcomeKind::Empty));
    if complete && let Ok(value) = serde_json::to_value(&data) {
        let _ = store.run(move |s| s.put_search(&key, &value, None)).await;
    }
    data
}

/// Adds the fields of `note` to a hit's `extra` (an engine's own fields stay).
fn add_extra(extra: &mut Option<serde_json::Value>, note: serde_json::Value) {
    *extra = Some(match extra.take() {
        Some(serde_json::Value::Object(mut m)) => {
            m.extend(note.as_object().cloned().unwrap_or_default());
            serde_json::Value::Object(m)
        }
        _ => note,
    });
}
