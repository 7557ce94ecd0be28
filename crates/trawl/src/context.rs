//! Builds what commands run on (fetcher, store, search router, readers) from the settings.

use std::sync::Arc;

use trawl_agent::tools::{Agent, AgentConfig, NotStored, ReaderConfig, StoredKeyStates};
use trawl_core::{ErrorCode, Lazy, TrawlError};
use trawl_crawl::CrawlService;
use trawl_fetch::{Fetcher, Guard, normalize_proxy};
use trawl_search::{Router, SearchConfig};
use trawl_store::{OpenedStore, SqliteStore, StandIn, StoreChoice, WhenUnwritable};

use crate::settings::{Settings, StoreLocation};

/// The store the settings choose: the shared Redis when one is configured, else the SQLite
/// file, or memory (which keeps nothing). The one place the choice is made.
pub fn store_choice(settings: &Settings) -> Result<StoreChoice, TrawlError> {
    let config = settings.store_config();
    if let Some(url) = settings.redis_url() {
        return Ok(StoreChoice::Redis {
            url: url.to_owned(),
            prefix: settings.redis_prefix.value.clone(),
            fallback: settings.store_fallback_mode()?,
            config,
        });
    }
    Ok(match settings.store_location()? {
        StoreLocation::Memory => StoreChoice::Memory { config },
        StoreLocation::File(path) => StoreChoice::Sqlite {
            path: path.to_string_lossy().into_owned(),
            config,
        },
    })
}

/// Opens the store the settings choose (see [`open_choice`]).
pub fn open_store(
    settings: &Settings,
    unwritable: WhenUnwritable,
) -> Result<OpenedStore, TrawlError> {
    open_choice(&store_choice(settings)?, unwritable)
}

/// Opens `choice` through trawl-store's one opener, saying on stderr when a private memory
/// store stands in for it.
pub fn open_choice(
    choice: &StoreChoice,
    unwritable: WhenUnwritable,
) -> Result<OpenedStore, TrawlError> {
    let opened = trawl_store::open(choice, unwritable).map_err(|e| match choice {
        StoreChoice::Redis { .. } => TrawlError::internal(format!(
            "cannot use the Redis store at {}: {} (is redis-server running there? \
             --store-fallback memory starts with a private store instead)",
            choice.location(),
            store_error_line(choice, &e)
        )),
        // A path that is a directory, a corrupt or read-only file, a full disk: the store
        // cannot be used as it is, which is no bug of trawl's, and trying again will not help.
        _ if e.fault().is_some() => {
            TrawlError::new(ErrorCode::StoreUnavailable, e.to_string()).with_retryable(false)
        }
        _ => TrawlError::internal(e.to_string()),
    })?;
    match &opened.stand_in {
        Some(StandIn::RedisDown { location, error }) => eprintln!(
            "warning: Redis at {location} does not answer ({}); using a store private to this \
             process (--store-fallback memory): nothing is shared with other replicas",
            store_error_line(choice, error)
        ),
        Some(StandIn::Unwritable(e)) => {
            eprintln!("warning: {e}; reads still answer, but this run keeps nothing");
        }
        None => {}
    }
    Ok(opened)
}

/// The SQLite file the settings name, opened as it is for `cache doctor`'s checks of the
/// file itself (integrity, writability); commands open their store with [`open_store`].
pub fn open_sqlite(settings: &Settings) -> Result<SqliteStore, trawl_store::Error> {
    let location = settings
        .store_location()
        .map_err(|e| trawl_store::Error::Open {
            location: "(no store path)".to_owned(),
            source: e.message.into(),
        })?;
    match location {
        StoreLocation::Memory => SqliteStore::open_in_memory(settings.store_config()),
        StoreLocation::File(path) => SqliteStore::open(&path, settings.store_config()),
    }
}

/// A Redis error on one line, without the URL's credentials: a server (or something
/// posing as one) may repeat the `AUTH` it was sent in its error.
pub(crate) fn redis_error(url: &str, e: &dyn std::error::Error) -> String {
    trawl_core::scrub(
        &trawl_core::error_chain(e),
        trawl_core::redact::url_secrets(url),
    )
}

/// `e` on one line; a Redis choice's credentials scrubbed out of it.
fn store_error_line(choice: &StoreChoice, e: &dyn std::error::Error) -> String {
    match choice {
        StoreChoice::Redis { url, .. } => redis_error(url, e),
        _ => trawl_core::error_chain(e),
    }
}

/// A plain client for engines and hosted readers: same proxy and User-Agent policy as the
/// fetcher, but no page guard (their endpoints are configuration, not user input).
pub fn service_client(settings: &Settings) -> Result<reqwest::Client, TrawlError> {
    let mut builder = reqwest::Client::builder()
        .tls_backend_preconfigured(trawl_fetch::tls_client_config(settings.tls_roots())?)
        .connect_timeout(settings.connect_timeout.value.0)
        .no_proxy();
    if let Some(proxy) = settings.proxy.value.as_deref() {
        let url = normalize_proxy(proxy)?;
        let p = reqwest::Proxy::all(url.as_str()).map_err(|e| {
            TrawlError::invalid_input(format!("invalid proxy: {e}")).with_causes_of(&e)
        })?;
        builder = builder.proxy(p);
    }
    builder.build().map_err(|e| {
        TrawlError::internal(format!("could not build HTTP client: {e}")).with_causes_of(&e)
    })
}

/// Search settings (with `gh`'s token lent to GitHub when no `GITHUB_TOKEN` is set).
pub fn search_config(settings: &Settings) -> SearchConfig {
    let mut config = search_config_without_gh(settings);
    lend_gh_token(&mut config, settings);
    config
}

/// [`search_config`] without asking `gh`: what a process that may never search needs now.
fn search_config_without_gh(settings: &Settings) -> SearchConfig {
    settings.search_config()
}

/// Without GITHUB_TOKEN, a logged-in `gh` CLI lends its token, but only for GitHub's own API
/// (or a loopback stand-in): never for a base URL moved elsewhere. `gh` is a child process
/// (milliseconds), so this runs only when a search router is built.
fn lend_gh_token(config: &mut SearchConfig, settings: &Settings) {
    const GITHUB: &str = "github";
    if !config.keys_for(GITHUB).is_empty() {
        return;
    }
    let github_base = settings.url_override(&crate::github_token::github_url_var());
    if !crate::github_token::may_send_token_to(github_base) {
        return;
    }
    // On a runtime worker (a first search over MCP), the wait for `gh` must not hold the
    // worker's other tasks.
    let asked = match tokio::runtime::Handle::try_current() {
        Ok(rt) if rt.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(crate::github_token::from_gh)
        }
        _ => crate::github_token::from_gh(),
    };
    if let Some(token) = asked {
        config.set_keys(GITHUB, vec![token]);
    }
}

/// The fallback readers named by the settings, with their bases and keys.
pub fn readers(settings: &Settings) -> Result<Vec<ReaderConfig>, TrawlError> {
    Ok(settings.reader_configs())
}

/// The site readers' settings: each reader's base moves only with `TRAWL_SITE_<NAME>_URL`
/// from the real environment (a `.env` cannot set it, so it cannot send GitHub's token
/// elsewhere); the overrides are checked now, so a bad one fails every command.
fn site_config(settings: &Settings) -> Result<Lazy<trawl_sites::SiteConfig>, TrawlError> {
    let mut config = trawl_sites::SiteConfig::default();
    for spec in trawl_sites::all() {
        let var = trawl_core::vars::site_url(spec.name);
        if let Some(raw) = settings.url_override(&var) {
            let url = url::Url::parse(raw)
                .map_err(|e| TrawlError::invalid_input(format!("{var}: not a URL ({e})")))?;
            config.bases.insert(spec.name.to_owned(), url);
        }
    }
    // X's session, as X search reads it (the first file holding one).
    config.x_session = settings
        .secret(trawl_core::vars::X_COOKIES_FILE)
        .into_iter()
        .flat_map(|paths| paths.split(','))
        .filter_map(|path| std::fs::read_to_string(path.trim()).ok())
        .find_map(|text| trawl_search::engines::x::cookie_key(&text));
    // The user's cookies files: `--cookies` for every site its cookies name, `[cookies]`
    // per site. A file that cannot be read or parsed fails the command, named by its path
    // (never by its content).
    let files = settings
        .cookies
        .value
        .iter()
        .map(|path| (None, path.clone()))
        .chain(
            settings
                .cookie_files
                .iter()
                .map(|(site, path)| (Some(site.as_str()), path.clone())),
        );
    for (site, path) in files {
        let text = std::fs::read_to_string(&path).map_err(|e| {
            TrawlError::invalid_input(format!("cookies file {}: {e}", path.display()))
        })?;
        let jar = trawl_sites::CookieJar::parse(&text, site).map_err(|why| {
            TrawlError::invalid_input(format!("cookies file {}: {why}", path.display()))
        })?;
        config.cookies.push(jar);
    }
    Ok(Lazy::ready(config))
}

/// GitHub's token for the GitHub site reader, as GitHub search gets it: `GITHUB_TOKEN`,
/// else a logged-in `gh` (asked on the first GitHub read only), and none at all when the
/// reader's base was moved off GitHub's API host and loopback.
fn site_github_token(settings: &Settings) -> Lazy<Option<String>> {
    let base = settings
        .url_override(&trawl_core::vars::site_url(trawl_sites::github::SPEC.name))
        .map(str::to_owned);
    if !crate::github_token::may_send_token_to(base.as_deref()) {
        return Lazy::ready(None);
    }
    if let Some(token) = settings.secret(trawl_core::vars::GITHUB_TOKEN) {
        return Lazy::ready(Some(token.to_owned()));
    }
    Lazy::new(|| {
        Ok(match tokio::runtime::Handle::try_current() {
            Ok(rt) if rt.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(crate::github_token::from_gh)
            }
            _ => crate::github_token::from_gh(),
        })
    })
}

/// Everything the agent tools need.
pub fn build_agent(settings: &Settings) -> Result<Agent, TrawlError> {
    build_agent_with(settings, AgentConfig::default())
}

pub fn build_agent_with(settings: &Settings, config: AgentConfig) -> Result<Agent, TrawlError> {
    Ok(build(settings, config, false)?.0)
}

/// The agent of `trawl serve`: on a shared Redis store its crawl service joins every
/// running crawl there (see `CrawlService::join_shared_crawls`). Needs a Tokio runtime.
pub fn build_server_agent(settings: &Settings) -> Result<Agent, TrawlError> {
    Ok(build(settings, AgentConfig::default(), true)?.0)
}

/// The agent of `trawl crawl`, and the per-host slots its crawler shares with the other
/// processes on a shared Redis store (`None` on other stores).
pub fn build_crawl_agent(
    settings: &Settings,
) -> Result<(Agent, Option<Arc<dyn trawl_core::SharedLimiter>>), TrawlError> {
    build(settings, AgentConfig::default(), false)
}

fn build(
    settings: &Settings,
    config: AgentConfig,
    serving: bool,
) -> Result<(Agent, Option<Arc<dyn trawl_core::SharedLimiter>>), TrawlError> {
    // What can be checked cheaply is checked now, so bad settings fail every command as
    // before; the clients themselves (and their TLS roots) are built on first use.
    let fetch_config = settings.fetch_config()?;
    let guard = Guard::new(fetch_config.policy.clone());
    // A SQLite store that cannot be written (a read-only place, a full disk) does not stop
    // reads: a memory store stands in for this run and every read says it was not kept.
    // (A shared Redis that does not answer is handled per call instead: see
    // `store_unavailable`.)
    let opened = open_store(settings, WhenUnwritable::UseMemory)?;
    let store_note = match &opened.stand_in {
        Some(StandIn::Unwritable(e)) => NotStored::from_store_error(e),
        _ => None,
    };
    let store = opened.store.clone();
    // Hosts' back-off in the store: page reads, site readers and engines hold to it, in
    // this process and every other on the same store.
    let backoff: Arc<dyn trawl_core::SharedBackoff> =
        Arc::new(trawl_store::StoredBackoff(store.clone()));
    let service_settings = settings.clone();
    let http = Lazy::new(move || service_client(&service_settings));
    let search = search_config_without_gh(settings);
    // Which engines can run does not depend on a token `gh` would lend (GitHub runs
    // without one), so a server lists its tools without asking `gh` or building the router.
    let usable = {
        let http = http.clone();
        let search = search.clone();
        Lazy::new(move || {
            let planner = Router::builder(search).client(http.get()?.clone()).build();
            Ok(planner.usable_engines())
        })
    };
    let router = {
        let http = http.clone();
        // `gh auth token` is asked when the router is first needed, not at start.
        let mut search = search;
        let search_settings = settings.clone();
        let keys = Arc::new(StoredKeyStates(store.clone()));
        // A slot outlives a call by at most the engine deadline; a replica killed mid-call
        // frees its slots after that.
        let lease = search.timeout.max(std::time::Duration::from_secs(1)) * 2;
        let slots = opened.shared_limiter(lease);
        let backoff = Arc::clone(&backoff);
        Lazy::new(move || {
            lend_gh_token(&mut search, &search_settings);
            let mut router = Router::builder(search)
                .client(http.get()?.clone())
                .key_store(keys)
                .shared_backoff(Arc::clone(&backoff))
                .hide(crate::redaction::proxy_secrets(&search_settings));
            if let Some(slots) = slots {
                router = router.shared_limiter(slots);
            }
            Ok(router.build())
        })
    };
    let crawl_config = settings.crawl_config(config.extract.clone());
    let config = settings.agent_config(config);
    // Every read (site readers, pages, crawls) tells a 401/403 sign-in page as a login
    // wall, and holds to hosts' back-off as every process on the store sees it.
    let fetcher = Lazy::new(move || {
        Fetcher::new(fetch_config).map(|f| {
            f.with_login_wall(trawl_sites::login_wall)
                .with_shared_backoff(backoff)
        })
    });
    // A replica killed mid-request holds its per-host slots until they lapse: as long as
    // the URLs it had claimed (a request outliving it only lifts the cap a little early;
    // the spacing between starts still holds).
    let crawl_slots = opened.shared_limiter(crawl_config.lease);
    let crawls = CrawlService::new(
        crawl_config,
        fetcher.clone(),
        store.clone(),
        crawl_slots.clone(),
    );
    if serving {
        crawls.join_shared_crawls();
    }
    let agent = Agent::with_parts(
        guard,
        fetcher,
        store,
        router,
        readers(settings)?,
        http,
        config,
    );
    let agent = agent
        .with_usable_engines(usable)
        .with_crawls(crawls)
        .with_sites(site_config(settings)?, site_github_token(settings));
    let agent = match store_note {
        Some(note) => agent.with_store_note(note),
        None => agent,
    };
    Ok((agent, crawl_slots))
}
