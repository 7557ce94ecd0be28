//! trawl-sites: readers that know a site. A URL of GitHub, Hacker News, Stack Exchange,
//! Wikipedia, Reddit, YouTube or X is read through the site's own API instead of its HTML (which is
//! heavy, a wall or an app shell for a bot), and comes back as Markdown with the authors,
//! dates, scores and structure the API gives.
//!
//! How it fits: [`all`] is the table of readers (one [`SiteSpec`] each: the URL pattern,
//! what it reads, what it needs, how far its parser is trusted and where its saved
//! responses come from). [`choose`] picks one for a URL before trawl's generic tiers run;
//! [`read`] asks the site's API through a [`SiteClient`], whose every request goes through
//! trawl-fetch's guard ([`trawl_fetch::Fetcher::fetch_api`]). Each reader is one module: it
//! builds its API URLs and parses what comes back with pure functions, tested on saved
//! real responses (`fixtures/`, provenance in `fixtures/PROVENANCE.md`). [`login_wall`]
//! tells a login or "open in app" wall apart from a page's content.
//!
//! ```
//! let url = url::Url::parse("https://github.com/rust-lang/rust/issues/1").unwrap();
//! let (spec, target) = trawl_sites::choose(&url).unwrap();
//! assert_eq!(spec.name, "github");
//! assert!(target.is_ok());
//! ```

#![forbid(unsafe_code)]

mod client;
mod cookies;
pub mod github;
pub mod hackernews;
mod page;
pub mod reddit;
mod spec;
pub mod stackexchange;
mod table;
mod thread;
mod walls;
pub mod wikipedia;
pub mod x;
pub mod youtube;

pub use client::{SiteClient, SiteConfig};
pub use cookies::{CookieJar, header_for as cookie_header};
pub use page::SitePage;
pub use spec::{GitHubTarget, SiteSpec, Target};
pub use table::{all, by_name, choose};
pub use thread::Bounds;
pub use walls::login_wall;

use trawl_core::TrawlError;

/// Why `spec` cannot read with `config` (it needs something the user did not give), so
/// the generic tiers read the page instead; `None` when it can.
pub fn unavailable(spec: &SiteSpec, config: &SiteConfig) -> Option<String> {
    (spec.name == x::SPEC.name && config.x_session.is_none()).then(|| {
        format!(
            "no X session: set {} to a logged-in session's cookies file",
            trawl_core::vars::X_COOKIES_FILE
        )
    })
}

/// Read `target` through its site's API.
pub async fn read(client: &SiteClient<'_>, target: &Target) -> Result<SitePage, TrawlError> {
    match target {
        Target::GitHub(t) => github::read(client, t).await,
        Target::HackerNews { id } => hackernews::read(client, *id).await,
        Target::StackExchange { site, id } => stackexchange::read(client, site, *id).await,
        Target::Wikipedia { lang, title } => wikipedia::read(client, lang, title).await,
        Target::Reddit { path } => reddit::read(client, path).await,
        Target::YouTube { id } => youtube::read(client, id).await,
        Target::X { id } => x::read(client, *id).await,
    }
}
