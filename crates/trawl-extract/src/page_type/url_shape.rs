//! What a URL's path says about its page beyond the section names `metadata` reads: how
//! long its slugs are, and which kind of site section the path is under.

use url::Url;

/// Sections that hold a feed of entries when they are the last segment (`/news`, `/blog/`).
const FEED_SECTIONS: &[&str] = &[
    "news",
    "blog",
    "blogs",
    "recipes",
    "articles",
    "stories",
    "posts",
    "latest",
    "sections",
    "section",
    "hub",
    "topics",
    "topic",
    "category",
    "categories",
    "tag",
    "tags",
    "archive",
    "archives",
    "magazine",
];
/// Sections of a company's site that describe what it sells as a service.
const SERVICE_SECTIONS: &[&str] = &[
    "services",
    "service",
    "solutions",
    "solution",
    "what-we-do",
    "capabilities",
    "expertise",
    "platform",
    "features",
    "feature",
    "pricing",
    "industries",
    "consulting",
];
/// Sections of a shop that list products (`/collections/…`, `/c/…`, `/browse/…`).
const SHOP_SECTIONS: &[&str] = &[
    "collections",
    "collection",
    "shop",
    "store",
    "c",
    "cp",
    "browse",
    "product-category",
    "catalog",
    "department",
];
/// Sections whose children are posts: `/blog/<slug>` is an article even when short.
const POST_SECTIONS: &[&str] = &[
    "blog", "blogs", "post", "posts", "article", "articles", "news", "story", "stories",
];

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct UrlShape {
    /// Path segments.
    pub(crate) depth: usize,
    /// Words in the path's longest slug (`how-to-train-a-puppy` = 5): articles have
    /// sentence-long slugs (sometimes followed by an id segment), landing and index pages
    /// one or two words.
    pub(crate) slug_words: usize,
    /// The last segment is a feed section (`/news`, `/blog/`).
    pub(crate) feed_section: bool,
    pub(crate) under_service: bool,
    pub(crate) under_shop: bool,
    pub(crate) under_posts: bool,
    /// A segment is an identifier (`/dp/0735211299`, `/itm/225991068401`): one item's page.
    pub(crate) has_id: bool,
}

pub(crate) fn url_shape(url: &Url) -> UrlShape {
    let path = url.path().to_ascii_lowercase();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let Some((last, parents)) = segments.split_last() else {
        return UrlShape::default();
    };
    let any = |names: &[&str]| segments.iter().any(|s| names.contains(s));
    UrlShape {
        depth: segments.len(),
        slug_words: segments.iter().map(|s| words(s)).max().unwrap_or(0),
        feed_section: FEED_SECTIONS.contains(last),
        under_service: any(SERVICE_SECTIONS),
        under_shop: any(SHOP_SECTIONS),
        under_posts: parents.iter().any(|s| POST_SECTIONS.contains(s)),
        has_id: segments.iter().any(|s| is_identifier(s)),
    }
}

/// Words in one segment, its file extension left out.
fn words(segment: &str) -> usize {
    let stem = [".html", ".htm", ".php", ".aspx", ".asp"]
        .iter()
        .find_map(|ext| segment.strip_suffix(ext))
        .unwrap_or(segment);
    stem.replace("%20", " ")
        .split(['-', '_', ' ', '+'])
        .filter(|w| !w.is_empty())
        .count()
}

/// At least six characters, three of them digits, no more than half letters.
fn is_identifier(segment: &str) -> bool {
    let digits = segment.bytes().filter(u8::is_ascii_digit).count();
    let letters = segment.bytes().filter(u8::is_ascii_alphabetic).count();
    segment.len() >= 6 && digits >= 3 && letters <= segment.len() / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(u: &str) -> UrlShape {
        url_shape(&Url::parse(u).unwrap())
    }

    #[test]
    fn slugs_sections_and_ids() {
        assert_eq!(shape("https://a.example/").depth, 0);
        assert_eq!(
            shape("https://a.example/blog/how-to-train-a-puppy.html").slug_words,
            5
        );
        assert_eq!(
            shape("https://a.example/news/how-a-duvet-nearly-killed-him/ar-BBWXwNX").slug_words,
            6
        );
        assert!(shape("https://a.example/blog/how-to").under_posts);
        assert!(shape("https://a.example/en/news/").feed_section);
        assert!(shape("https://a.example/services/data-analytics").under_service);
        assert!(shape("https://a.example/collections/beard-oil").under_shop);
        assert!(shape("https://a.example/itm/225991068401").has_id);
        assert!(shape("https://a.example/dp/0735211299").has_id);
        assert!(!shape("https://a.example/2024/recap").has_id);
    }
}
