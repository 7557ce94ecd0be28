//! The table of site readers, like the search engines' table: one [`SiteSpec`] per reader,
//! chosen by URL before the generic tiers.

use url::Url;

use crate::{github, hackernews, reddit, stackexchange, wikipedia};

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
    GitHub(github::Target),
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
}

/// Every site reader, in the order `trawl sites` lists them.
pub fn all() -> &'static [SiteSpec] {
    &[
        github::SPEC,
        hackernews::SPEC,
        stackexchange::SPEC,
        wikipedia::SPEC,
        reddit::SPEC,
    ]
}

/// The reader named `name`.
pub fn by_name(name: &str) -> Option<&'static SiteSpec> {
    all().iter().find(|s| s.name == name)
}

/// The reader for `url` and what it makes of it, when one answers for its host.
pub fn choose(url: &Url) -> Option<(&'static SiteSpec, Result<Target, String>)> {
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    all()
        .iter()
        .find_map(|spec| (spec.route)(url).map(|t| (spec, t)))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(raw: &str) -> Option<(&'static str, Result<Target, String>)> {
        choose(&Url::parse(raw).unwrap()).map(|(s, t)| (s.name, t))
    }

    #[test]
    fn each_reader_is_chosen_by_its_urls_only() {
        assert_eq!(pick("https://github.com/o/r").unwrap().0, "github");
        assert_eq!(
            pick("https://news.ycombinator.com/item?id=17").unwrap().0,
            "hackernews"
        );
        assert_eq!(
            pick("https://stackoverflow.com/questions/1001/x")
                .unwrap()
                .0,
            "stackexchange"
        );
        assert_eq!(
            pick("https://unix.stackexchange.com/questions/5/x")
                .unwrap()
                .0,
            "stackexchange"
        );
        assert_eq!(
            pick("https://en.wikipedia.org/wiki/Ada_Lovelace")
                .unwrap()
                .0,
            "wikipedia"
        );
        assert_eq!(
            pick("https://www.reddit.com/r/rust/comments/abc/x/")
                .unwrap()
                .0,
            "reddit"
        );
        // Not theirs: the generic tiers read them.
        for raw in [
            "https://example.com/o/r",
            "https://github.com/",
            "https://github.com/settings/profile",
            "https://evilgithub.com/o/r",
            "https://github.com.evil.example/o/r",
            "https://news.ycombinator.com/news",
            "https://stackoverflow.com/tags",
            "https://en.wikipedia.org/w/index.php?title=X&action=history",
            "ftp://github.com/o/r",
        ] {
            assert!(pick(raw).is_none(), "{raw} should go to the generic tiers");
        }
    }

    #[test]
    fn names_are_unique_and_lower_case() {
        let mut names: Vec<&str> = all().iter().map(|s| s.name).collect();
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_lowercase()))
        );
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all().len());
    }
}
