//! What the resolved settings configure: the fetcher, the search router, the store, the
//! hosted readers and the agent. Values were checked when they were read, so building
//! these cannot fail on a value any more.

use trawl_agent::tools::{AgentConfig, ReaderConfig};
use trawl_core::TrawlError;
use trawl_extract::ExtractOptions;
use trawl_fetch::{FetchConfig, GuardPolicy, RenderConfig, TlsRoots};
use trawl_search::SearchConfig;
use trawl_store::StoreConfig;
use url::Url;

use super::Settings;
use super::layers::Source;
use super::secrets::split_keys;

/// The engine whose keys are sessions read from cookies files.
const X_ENGINE: &str = "x";

impl Settings {
    /// The fetcher's configuration.
    pub fn fetch_config(&self) -> Result<FetchConfig, TrawlError> {
        Ok(FetchConfig {
            user_agent: self.user_agent.value.clone(),
            connect_timeout: self.connect_timeout.value.0,
            timeout: self.timeout.value.0,
            max_bytes: self.max_bytes.value,
            max_redirects: 10,
            proxy: self.proxy.value.as_deref().map(str::to_owned),
            policy: GuardPolicy {
                allow_private_hosts: self.allow_private_hosts.value,
                allow_hosts: self.allow_hosts.value.rules(),
            },
            tls_roots: self.tls_roots(),
            render: RenderConfig {
                mode: self.render.value,
                browser: self.browser.value.clone(),
                tabs: self.render_tabs.value.0,
                page_timeout: self.render_timeout.value.0,
                ..RenderConfig::default()
            },
        })
    }

    /// The certificate authorities HTTPS clients trust.
    pub fn tls_roots(&self) -> TlsRoots {
        if self.tls_system_roots.value {
            TlsRoots::WithSystem
        } else {
            TlsRoots::Bundled
        }
    }

    /// The store's retention and size bounds.
    pub fn store_config(&self) -> StoreConfig {
        StoreConfig {
            document_ttl: self.document_ttl.value.0,
            search_ttl: self.search_ttl.value.0,
            max_document_bytes: self.store_max_bytes.value,
            ..StoreConfig::default()
        }
    }

    /// The search router's configuration: deadlines, base URLs, keys, spacings, disabled
    /// engines and routes. `gh`'s token is not asked here (see `context::search_config`).
    pub fn search_config(&self) -> SearchConfig {
        let mut config = SearchConfig {
            timeout: self.search_timeout_ms.value.0,
            tavily_keyless: self.tavily_keyless.value,
            disabled: self.disabled_engines.value.0.clone(),
            routes: self.routes.clone(),
            ..SearchConfig::default()
        };
        // API engines get trawl's own User-Agent unless the user chose one.
        if self.user_agent.source != Source::Default {
            config.user_agent = self.user_agent.value.clone();
        }
        for engine in trawl_search::engines::all() {
            let name = engine.name();
            let base = self
                .url_override(&trawl_core::vars::engine_url(name))
                .and_then(|u| Url::parse(u).ok());
            if let Some(base) = base {
                config.set_base(name, base);
            }
            let keys = engine
                .key_env()
                .and_then(|var| self.secret(var))
                .map(split_keys)
                .unwrap_or_default();
            let keys = if name == X_ENGINE {
                x_sessions(&keys)
            } else {
                keys
            };
            if !keys.is_empty() {
                config.set_keys(name, keys);
            }
            if let Some(spacing) = self.min_intervals.get(name) {
                config.set_min_interval(name, spacing.value);
            }
        }
        config
    }

    /// The hosted fallback readers, in order, with their bases and keys. A base comes
    /// from the environment only (never a `.env`), so a key goes to its reader's own host
    /// unless the user moved it.
    pub fn reader_configs(&self) -> Vec<ReaderConfig> {
        self.readers
            .value
            .0
            .iter()
            .map(|&kind| {
                let base = self
                    .url_override(&kind.url_var())
                    .and_then(|u| Url::parse(u).ok())
                    .unwrap_or_else(|| Url::parse(kind.default_base()).expect("static URL"));
                let keys = self
                    .secret(kind.key_var())
                    .map(split_keys)
                    .unwrap_or_default();
                let mut reader = ReaderConfig::new(kind, base, keys);
                reader.share_query_secrets = self.readers_query_secrets.value.0.contains(&kind);
                reader
            })
            .collect()
    }

    /// The crawl service's configuration: the bounds on crawls started through
    /// `web_crawl`, the lease of a shared crawl's URLs, how long a map is kept (the read
    /// TTL), and the extraction bounds the settings name over `base_extract`.
    pub fn crawl_config(&self, base_extract: ExtractOptions) -> trawl_crawl::CrawlConfig {
        trawl_crawl::CrawlConfig {
            max_crawls: self.max_crawls.value.0,
            max_pages: self.max_crawl_pages.value.0,
            lease: self.crawl_lease.value.0,
            user_agent: self.crawl_user_agent.value.clone(),
            map_ttl: self.store_config().document_ttl,
            extract: self.extract_options(base_extract),
        }
    }

    /// The agent's read settings; the rest of `base` is kept.
    pub fn agent_config(&self, base: AgentConfig) -> AgentConfig {
        AgentConfig {
            min_chars: self.min_chars.value,
            extract_memory_bytes: self.extract_memory_bytes.value,
            extract: self.extract_options(base.extract.clone()),
            ..base
        }
    }

    /// The extraction bounds the settings name; the rest of `base` is kept.
    pub fn extract_options(&self, base: ExtractOptions) -> ExtractOptions {
        ExtractOptions {
            pdf: trawl_extract::PdfLimits {
                max_decoded_bytes: self.pdf_max_decoded_bytes.value,
                max_time: self.pdf_max_time.value.0,
                ..base.pdf
            },
            ocr: self.ocr_options(),
            ..base
        }
    }

    /// OCR as the settings name it: on unless turned off, the engine and languages, the
    /// bounds.
    pub fn ocr_options(&self) -> trawl_extract::OcrOptions {
        trawl_extract::OcrOptions {
            enabled: self.ocr.value,
            tesseract: self.tesseract.value.clone(),
            languages: self.ocr_lang.value.clone(),
            max_pages: u32::try_from(self.ocr_max_pages.value).unwrap_or(u32::MAX),
            max_pixels: self.ocr_max_pixels.value,
            max_time: self.ocr_max_time.value.0,
        }
    }
}

/// X's keys are logged-in sessions: each path names a cookies file holding `auth_token`
/// and `ct0`. A file that cannot be read or holds no session is skipped (X then reports
/// that it has no key).
fn x_sessions(paths: &[String]) -> Vec<String> {
    paths
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .filter_map(|text| trawl_search::engines::x::cookie_key(&text))
        .collect()
}
