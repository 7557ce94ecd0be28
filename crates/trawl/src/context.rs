//! Builds what commands run on (fetcher, store, search router, readers) from the settings.

use std::sync::Arc;

use trawl_agent::tools::{Agent, AgentConfig, Lazy, NotStored, ReaderConfig, StoredKeyStates};
use trawl_core::TrawlError;
use trawl_fetch::{Fetcher, Guard, normalize_proxy};
use trawl_search::{Router, SearchConfig};
use trawl_store::{MeteredStore, SharedStore, SqliteStore};

use crate::backend::{OpenedStore, RedisSlots};
use crate::settings::Settings;

/// Open the store named by the settings (creating its directory).
pub fn open_store(settings: &Settings) -> Result<SharedStore, TrawlError> {
    open_store_backend(settings).map(|opened| opened.store)
}

/// Open the store named by the settings: the shared Redis when one is configured, else
/// the SQLite file.
pub fn open_store_backend(settings: &Settings) -> Result<OpenedStore, TrawlError> {
    if let Some(url) = settings.redis_url() {
        return crate::backend::open_redis(
            url,
            &settings.redis_prefix.value,
            settings.store_fallback_mode()?,
            settings.store_config(),
        );
    }
    let store = open_sqlite(settings).map_err(|e| TrawlError::internal(e.to_string()))?;
    Ok(OpenedStore {
        store: metered_sqlite(store),
        redis: None,
    })
}

fn metered_sqlite(store: SqliteStore) -> SharedStore {
    SharedStore::new(MeteredStore::new(Arc::new(store), "sqlite"))
}

/// The store for the agent tools. A SQLite store that cannot be written (a read-only
/// place, a full disk) does not stop reads: an in-memory store stands in for this run,
/// with a warning, and every read says it was not kept. (A shared Redis that does not
/// answer is handled per call instead: see `store_unavailable`.)
fn open_store_for_reads(
    settings: &Settings,
) -> Result<(OpenedStore, Option<NotStored>), TrawlError> {
    if settings.redis_url().is_some() {
        return open_store_backend(settings).map(|opened| (opened, None));
    }
    match open_sqlite(settings) {
        Ok(store) => Ok((
            OpenedStore {
                store: metered_sqlite(store),
                redis: None,
            },
            None,
        )),
        Err(e) => match NotStored::from_store_error(&e) {
            Some(note) => {
                eprintln!("warning: {e}; reads still answer, but this run keeps nothing");
                let stand_in = SqliteStore::open_in_memory(settings.store_config())
                    .map_err(|e| TrawlError::internal(e.to_string()))?;
                Ok((
                    OpenedStore {
                        store: SharedStore::new(stand_in),
                        redis: None,
                    },
                    Some(note),
                ))
            }
            None => Err(TrawlError::internal(e.to_string())),
        },
    }
}

pub fn open_sqlite(settings: &Settings) -> Result<SqliteStore, trawl_store::Error> {
    let path = settings
        .store_path()
        .map_err(|e| trawl_store::Error::Open {
            location: "(no store path)".to_owned(),
            source: e.message.into(),
        })?;
    SqliteStore::open(&path, settings.store_config())
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
        let p = reqwest::Proxy::all(url.as_str())
            .map_err(|e| TrawlError::invalid_input(format!("invalid proxy: {e}")))?;
        builder = builder.proxy(p);
    }
    builder
        .build()
        .map_err(|e| TrawlError::internal(format!("could not build HTTP client: {e}")))
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

/// Everything the agent tools need.
pub fn build_agent(settings: &Settings) -> Result<Agent, TrawlError> {
    build_agent_with(settings, AgentConfig::default())
}

pub fn build_agent_with(settings: &Settings, config: AgentConfig) -> Result<Agent, TrawlError> {
    // What can be checked cheaply is checked now, so bad settings fail every command as
    // before; the clients themselves (and their TLS roots) are built on first use.
    let fetch_config = settings.fetch_config()?;
    let guard = Guard::new(fetch_config.policy.clone());
    let (OpenedStore { store, redis }, store_note) = open_store_for_reads(settings)?;
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
            Ok(planner
                .engines_info()
                .into_iter()
                .filter(|e| e.configured)
                .map(|e| e.name.to_owned())
                .collect())
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
        let slots = redis.map(|redis| Arc::new(RedisSlots::new(redis, lease)));
        Lazy::new(move || {
            lend_gh_token(&mut search, &search_settings);
            let mut router = Router::builder(search)
                .client(http.get()?.clone())
                .key_store(keys)
                .hide(crate::redaction::proxy_secrets(&search_settings));
            if let Some(slots) = slots {
                router = router.shared_limiter(slots);
            }
            Ok(router.build())
        })
    };
    let config = settings.agent_config(config);
    let agent = Agent::with_parts(
        guard,
        Lazy::new(move || Fetcher::new(fetch_config)),
        store,
        router,
        readers(settings)?,
        http,
        config,
    );
    let agent = agent.with_usable_engines(usable);
    Ok(match store_note {
        Some(note) => agent.with_store_note(note),
        None => agent,
    })
}
