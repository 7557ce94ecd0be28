//! What a site reader declares ([`SiteSpec`]) and what it makes of a URL ([`Target`]),
//! apart from the table itself so readers and the table do not import each other.

use url::Url;

/// One site reader, as `trawl sites` lists it.
#[derive(Debug)]
pub struct SiteSpec {
    /// Lower-case name: in `attempts`, `trawl sites` and `TRAWL_SITE_<NAME>_URL`.
    pub name: &'static str,
    /// The hosts it answers for (`*.` matches any subdomain).
    pub hosts: &'static [&'static str],
    /// The URLs it reads, as a person would write them.
    pub pattern: &'static str,
    /// What comes back.
    pub reads: &'static str,
    /// What it needs (a key, a cookie file), or "nothing".
    pub needs: &'static str,
    /// The API's base URL when no override is set.
    pub base: &'static str,
    /// How far its parser can be trusted: the age and kind of its saved responses.
    pub confidence: &'static str,
    /// Where its saved responses come from.
    pub fixtures: &'static str,
    /// Which page of the site `url` is: `None` when the reader does not read it (the
    /// generic tiers do), `Some(Err(why))` when it is a kind of page the reader refuses.
    pub route: fn(&Url) -> Option<Result<Target, String>>,
}

impl SiteSpec {
    /// Whether it answers for `host` (a bare host, as the site memory keys sites).
    pub fn answers_for(&self, host: &str) -> bool {
        host_matches(host, self.hosts)
    }
}

/// A page a reader knows how to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A repository, an issue or pull request, or a file.
    GitHub(GitHubTarget),
    /// An item (story or comment) and its comment tree.
    HackerNews {
        /// The item's id.
        id: u64,
    },
    /// A question and its answers.
    StackExchange {
        /// The API's `site` parameter (`stackoverflow`, `superuser`, `unix`, …).
        site: String,
        /// The question's id.
        id: u64,
    },
    /// An article.
    Wikipedia {
        /// The wiki's language (the host's first label).
        lang: String,
        /// The article's title as in the URL (underscores for spaces).
        title: String,
    },
    /// A post and its comments.
    Reddit {
        /// The path of the post's `.json` (its permalink, or `comments/ID` for `redd.it`).
        path: String,
    },
    /// A video: its details and transcript.
    YouTube {
        /// The video's id (11 characters).
        id: String,
    },
    /// A post, its quoted post and its replies.
    X {
        /// The post's id.
        id: u64,
    },
}

/// Which page of a GitHub repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitHubTarget {
    /// The repository's root.
    Repo {
        /// Owner (user or organisation).
        owner: String,
        /// Repository name.
        repo: String,
    },
    /// An issue or a pull request (the issues API serves both).
    Thread {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
        /// Its number.
        number: u64,
    },
    /// One file at a ref.
    Blob {
        /// Owner.
        owner: String,
        /// Repository.
        repo: String,
        /// Branch, tag or commit (a ref holding a slash is read as its first segment).
        git_ref: String,
        /// The file's path in the repository.
        path: String,
    },
}

/// Whether `host` is one of `patterns` (`*.example.org` matches its subdomains).
pub(crate) fn host_matches(host: &str, patterns: &[&str]) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    patterns.iter().any(|p| match p.strip_prefix("*.") {
        Some(parent) => host.ends_with(&format!(".{parent}")),
        None => host == *p,
    })
}

/// The non-empty path segments of `url`.
pub(crate) fn segments(url: &Url) -> Vec<&str> {
    url.path_segments()
        .map(|s| s.filter(|s| !s.is_empty()).collect())
        .unwrap_or_default()
}
