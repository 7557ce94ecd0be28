//! The table of site readers, like the search engines' table: one [`SiteSpec`] per reader,
//! chosen by URL before the generic tiers.

use url::Url;

use crate::spec::{SiteSpec, Target};
use crate::{github, hackernews, reddit, stackexchange, wikipedia, x, youtube};

/// Every site reader, in the order `trawl sites` lists them.
pub fn all() -> &'static [SiteSpec] {
    &[
        github::SPEC,
        hackernews::SPEC,
        stackexchange::SPEC,
        wikipedia::SPEC,
        reddit::SPEC,
        youtube::SPEC,
        x::SPEC,
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
