//! Builds what commands run on (fetcher, store, search router, readers) from the settings.

use std::sync::Arc;

use trawl_agent::tools::{Agent, AgentConfig, ReaderConfig, ReaderKind, StoredKeyStates};
use trawl_core::TrawlError;
use trawl_fetch::{Fetcher, normalize_proxy};
use trawl_search::{Router, SearchConfig};
use trawl_store::{SharedStore, SqliteStore, StoreConfig};
use url::Url;

use crate::settings::{SECRET_VARS, Settings};

/// Open the store named by the settings (creating its directory).
pub fn open_store(settings: &Settings) -> Result<SharedStore, TrawlError> {
    let path = settings.store_path()?;
    if path != ":memory:"
        && let Some(dir) = std::path::Path::new(&path).parent()
    {
        std::fs::create_dir_all(dir).map_err(|e| {
            TrawlError::internal(format!(
                "cannot create the store directory {}: {e}",
                dir.display()
            ))
        })?;
    }
    let config = StoreConfig {
        document_ttl: std::time::Duration::from_secs_f64(settings.document_ttl_secs.value),
        search_ttl: std::time::Duration::from_secs_f64(settings.search_ttl_secs.value),
        max_document_bytes: settings.store_max_bytes.value,
        ..StoreConfig::default()
    };
    let store = SqliteStore::open(&path, config)
        .map_err(|e| TrawlError::internal(format!("cannot open the store at {path}: {e}")))?;
    Ok(SharedStore::new(store))
}

/// A plain client for engines and hosted readers: same proxy and User-Agent policy as the
/// fetcher, but no page guard (their endpoints are configuration, not user input).
pub fn service_client(settings: &Settings) -> Result<reqwest::Client, TrawlError> {
    let mut builder = reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs_f64(
            settings.connect_timeout_secs.value,
        ))
        .no_proxy();
    if let Some(proxy) = &settings.proxy.value {
        let url = normalize_proxy(proxy)?;
        let p = reqwest::Proxy::all(url.as_str())
            .map_err(|e| TrawlError::invalid_input(format!("invalid proxy: {e}")))?;
        builder = builder.proxy(p);
    }
    builder
        .build()
        .map_err(|e| TrawlError::internal(format!("could not build HTTP client: {e}")))
}

/// Search settings from the environment, plus keys given in the config file.
pub fn search_config(settings: &Settings) -> SearchConfig {
    let mut vars: Vec<(String, String)> = std::env::vars().collect();
    for name in SECRET_VARS {
        if std::env::var(name).is_err()
            && let Some(v) = settings.secret(name)
        {
            vars.push(((*name).to_owned(), v.to_owned()));
        }
    }
    let has_token = vars
        .iter()
        .any(|(k, v)| k == crate::github_token::GITHUB_TOKEN_VAR && !v.trim().is_empty());
    let github_base = vars
        .iter()
        .find(|(k, _)| k == crate::github_token::GITHUB_URL_VAR)
        .map(|(_, v)| v.clone());
    if !has_token
        && crate::github_token::may_send_token_to(github_base.as_deref())
        && let Some(token) = crate::github_token::from_gh()
    {
        vars.push((crate::github_token::GITHUB_TOKEN_VAR.to_owned(), token));
    }
    let mut config = SearchConfig::from_vars(vars);
    config.disabled = settings
        .disabled_engines
        .value
        .iter()
        .map(|e| e.trim().to_ascii_lowercase())
        .collect();
    config.routes = settings.routes.clone();
    config
}

/// The fallback readers named by the settings, with their bases and keys.
pub fn readers(settings: &Settings) -> Result<Vec<ReaderConfig>, TrawlError> {
    let mut out = Vec::new();
    for name in &settings.readers.value {
        if name == "none" {
            return Ok(Vec::new());
        }
        let kind = ReaderKind::parse(name).ok_or_else(|| {
            TrawlError::invalid_input(format!("readers: unknown reader {name:?}"))
        })?;
        let base = match std::env::var(kind.url_var()) {
            Ok(v) if !v.trim().is_empty() => Url::parse(v.trim())
                .map_err(|e| TrawlError::invalid_input(format!("{}: {e}", kind.url_var())))?,
            _ => Url::parse(kind.default_base()).expect("static URL"),
        };
        let keys = settings
            .secret(kind.key_var())
            .map(|v| {
                v.split(',')
                    .map(|k| k.trim().to_owned())
                    .filter(|k| !k.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        out.push(ReaderConfig { kind, base, keys });
    }
    Ok(out)
}

/// Everything the agent tools need.
pub fn build_agent(settings: &Settings) -> Result<Agent, TrawlError> {
    build_agent_with(settings, AgentConfig::default())
}

pub fn build_agent_with(settings: &Settings, mut config: AgentConfig) -> Result<Agent, TrawlError> {
    let fetcher = Fetcher::new(settings.fetch_config()?)?;
    let store = open_store(settings)?;
    let client = service_client(settings)?;
    let router = Router::builder(search_config(settings))
        .client(client.clone())
        .key_store(Arc::new(StoredKeyStates(store.clone())))
        .build();
    config.min_chars = settings.min_chars.value;
    Ok(Agent::new(
        fetcher,
        store,
        router,
        readers(settings)?,
        client,
        config,
    ))
}
