//! Page metadata: `<meta>` tags (OpenGraph, Twitter, Dublin Core), `<link rel>`, JSON-LD,
//! and the page type.
//!
//! Precedence, per field: what the page states for machines (JSON-LD, OpenGraph) before
//! generic tags, and those before what is guessed from the markup.

use serde_json::Value;
use trawl_core::PageType;
use url::Url;

use crate::dom::{AttrName, Dom, Kind, NodeId, Tag};

#[derive(Debug, Default)]
pub(crate) struct Metadata {
    pub(crate) title: Option<String>,
    pub(crate) byline: Option<String>,
    pub(crate) published: Option<String>,
    pub(crate) language: Option<String>,
    pub(crate) site_name: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) canonical_url: Option<String>,
    pub(crate) og_type: Option<String>,
    pub(crate) json_ld: Vec<Value>,
    pub(crate) base: Option<Url>,
    /// JSON-LD `articleBody`, when a block carries one (a fallback for the content pass).
    pub(crate) article_body: Option<String>,
    /// Every title the page states (OpenGraph, JSON-LD, `<title>`), to recognise it in the body.
    pub(crate) titles: Vec<String>,
    /// Every JSON-LD `@type` seen, in order.
    pub(crate) page_type_hint: Vec<String>,
    /// The head as written (see [`trawl_core::HeadMeta`]).
    pub(crate) head: trawl_core::HeadMeta,
}

/// Collect metadata from the whole page (head and body: pages put meta tags anywhere).
pub(crate) fn collect(dom: &Dom, url: &Url) -> Metadata {
    let mut meta = Metadata::default();
    let mut found = Found::default();
    for i in 1..dom.nodes.len() as NodeId {
        let node = dom.node(i);
        if node.kind != Kind::Element {
            continue;
        }
        match node.tag {
            Tag::Meta => found.meta(dom, i),
            Tag::Title if found.title_tag.is_none() => {
                found.title_tag = Some(clean(&dom.raw_text(i)))
            }
            Tag::Link => {
                let rel = dom
                    .attr(i, AttrName::Rel)
                    .unwrap_or("")
                    .to_ascii_lowercase();
                if rel.split_ascii_whitespace().any(|r| r == "canonical")
                    && found.canonical.is_none()
                {
                    found.canonical = dom.attr(i, AttrName::Href).map(str::to_owned);
                }
                if rel.split_ascii_whitespace().any(|r| r == "icon") && found.icon.is_none() {
                    found.icon = dom.attr(i, AttrName::Href).map(str::to_owned);
                }
            }
            Tag::Base if meta.base.is_none() => {
                meta.base = dom
                    .attr(i, AttrName::Href)
                    .and_then(|h| url.join(h.trim()).ok());
            }
            Tag::Script
                if dom
                    .attr(i, AttrName::Type)
                    .is_some_and(|t| t.eq_ignore_ascii_case("application/ld+json")) =>
            {
                let raw = dom.raw_text(i);
                if let Some(value) = parse_json_ld(&raw) {
                    meta.json_ld.push(value);
                }
            }
            Tag::H1 if found.h1.is_none() => {
                found.h1 = Some(clean(&dom.raw_text(i))).filter(|s| !s.is_empty())
            }
            Tag::Time if found.time.is_none() => {
                found.time = dom.attr(i, AttrName::Datetime).map(str::to_owned)
            }
            _ => {
                if found.itemprop_date.is_none()
                    && dom
                        .attr(i, AttrName::Itemprop)
                        .is_some_and(|p| p == "datePublished")
                {
                    found.itemprop_date = dom
                        .attr(i, AttrName::Content)
                        .or_else(|| dom.attr(i, AttrName::Datetime))
                        .map(str::to_owned);
                }
                if found.rel_author.is_none()
                    && node.tag == Tag::A
                    && dom
                        .attr(i, AttrName::Rel)
                        .is_some_and(|r| r.split_ascii_whitespace().any(|w| w == "author"))
                {
                    found.rel_author =
                        Some(clean(&dom.raw_text(i))).filter(|s| !s.is_empty() && s.len() < 100);
                }
            }
        }
    }

    let ld = JsonLdFacts::from_blocks(&meta.json_ld);
    meta.titles = [
        &found.og_title,
        &ld.headline,
        &found.twitter_title,
        &found.title_tag,
    ]
    .into_iter()
    .flatten()
    .cloned()
    .collect();
    meta.title = first([
        found.og_title.clone(),
        ld.headline.clone(),
        found.twitter_title.clone(),
        found.title_tag.clone(),
        found.h1.clone(),
    ]);
    meta.byline = first([
        ld.author.clone(),
        found.author.clone(),
        found.rel_author.clone(),
    ]);
    meta.published = first([
        ld.published.clone(),
        found.published.clone(),
        found.itemprop_date.clone(),
        found.time.clone(),
    ]);
    meta.language = first([
        dom.html_lang.clone(),
        found.content_language.clone(),
        found.og_locale.clone(),
    ])
    .map(|l| l.replace('_', "-"));
    meta.site_name = first([
        found.og_site_name.clone(),
        ld.publisher.clone(),
        found.application_name.clone(),
    ]);
    meta.description = first([
        found.description.clone(),
        found.og_description.clone(),
        ld.description.clone(),
    ]);
    let absolute = |u: &Option<String>| {
        u.as_deref()
            .and_then(|u| url.join(u.trim()).ok())
            .map(String::from)
    };
    meta.head = trawl_core::HeadMeta {
        title_tag: found.title_tag.clone().filter(|t| !t.is_empty()),
        og_title: found.og_title.clone(),
        og_description: found.og_description.clone(),
        og_image: absolute(&found.og_image),
        og_url: found.og_url.clone(),
        keywords: found.keywords.clone(),
        robots: found.robots.clone(),
        favicon: absolute(&found.icon),
    };
    meta.canonical_url = first([found.canonical.clone(), found.og_url.clone()])
        .and_then(|c| url.join(c.trim()).ok())
        .map(String::from);
    meta.og_type = found.og_type.clone();
    meta.article_body = ld.article_body;
    meta.page_type_hint = ld.types;
    meta
}

impl Metadata {
    /// The type the page declares (JSON-LD `@type`, then `og:type`), if specific.
    pub(crate) fn declared_type(&self) -> Option<PageType> {
        self.page_type_hint
            .iter()
            .find_map(|t| page_type_of_schema(t))
            .or_else(|| self.og_type.as_deref().and_then(page_type_of_og))
    }

    /// Doc generators (Sphinx, MkDocs, rustdoc) put "documentation"/"docs" in titles.
    pub(crate) fn title_says_docs(&self) -> bool {
        self.title.as_deref().is_some_and(|title| {
            let title = title.to_ascii_lowercase();
            title.contains("documentation")
                || title
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| w == "docs")
        })
    }
}

#[derive(Default)]
struct Found {
    title_tag: Option<String>,
    h1: Option<String>,
    og_title: Option<String>,
    twitter_title: Option<String>,
    og_site_name: Option<String>,
    og_description: Option<String>,
    og_url: Option<String>,
    og_type: Option<String>,
    og_locale: Option<String>,
    og_image: Option<String>,
    keywords: Option<String>,
    robots: Option<String>,
    icon: Option<String>,
    description: Option<String>,
    author: Option<String>,
    rel_author: Option<String>,
    published: Option<String>,
    itemprop_date: Option<String>,
    time: Option<String>,
    canonical: Option<String>,
    content_language: Option<String>,
    application_name: Option<String>,
}

impl Found {
    fn meta(&mut self, dom: &Dom, id: NodeId) {
        let Some(content) = dom
            .attr(id, AttrName::Content)
            .map(clean)
            .filter(|c| !c.is_empty())
        else {
            return;
        };
        let key = dom
            .attr(id, AttrName::Property)
            .or_else(|| dom.attr(id, AttrName::Name))
            .or_else(|| dom.attr(id, AttrName::Itemprop))
            .or_else(|| dom.attr(id, AttrName::HttpEquiv))
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let slot = match key.as_str() {
            "og:title" => &mut self.og_title,
            "twitter:title" => &mut self.twitter_title,
            "og:site_name" => &mut self.og_site_name,
            "og:description" => &mut self.og_description,
            "og:url" => &mut self.og_url,
            "og:type" => &mut self.og_type,
            "og:locale" => &mut self.og_locale,
            "og:image" => &mut self.og_image,
            "keywords" => &mut self.keywords,
            "robots" => &mut self.robots,
            "description" => &mut self.description,
            "author" | "article:author" | "dc.creator" | "parsely-author" | "sailthru.author"
            | "byl" => &mut self.author,
            "article:published_time"
            | "datepublished"
            | "date"
            | "pubdate"
            | "publishdate"
            | "dc.date"
            | "dc.date.issued"
            | "parsely-pub-date"
            | "sailthru.date"
            | "og:published_time" => &mut self.published,
            "content-language" => &mut self.content_language,
            "application-name" => &mut self.application_name,
            _ => return,
        };
        if slot.is_none() {
            // `article:author` is often a profile URL; a name reads better.
            if key == "article:author" && content.starts_with("http") {
                return;
            }
            *slot = Some(content);
        }
    }
}

/// Facts read from JSON-LD blocks (including `@graph` members).
#[derive(Default)]
struct JsonLdFacts {
    types: Vec<String>,
    headline: Option<String>,
    author: Option<String>,
    published: Option<String>,
    publisher: Option<String>,
    description: Option<String>,
    article_body: Option<String>,
}

impl JsonLdFacts {
    fn from_blocks(blocks: &[Value]) -> Self {
        let mut facts = JsonLdFacts::default();
        let mut stack: Vec<&Value> = blocks.iter().collect();
        let mut visited = 0;
        while let Some(value) = stack.pop() {
            visited += 1;
            if visited > 512 {
                break;
            }
            match value {
                Value::Array(items) => stack.extend(items.iter().rev()),
                Value::Object(map) => {
                    if let Some(graph) = map.get("@graph") {
                        stack.push(graph);
                    }
                    let types: Vec<String> = match map.get("@type") {
                        Some(Value::String(t)) => vec![t.clone()],
                        Some(Value::Array(ts)) => ts
                            .iter()
                            .filter_map(|t| t.as_str().map(str::to_owned))
                            .collect(),
                        _ => Vec::new(),
                    };
                    let is_content = types
                        .iter()
                        .any(|t| page_type_of_schema(t).is_some_and(|p| p != PageType::Homepage));
                    facts.types.extend(types);
                    if !is_content {
                        continue;
                    }
                    set(
                        &mut facts.headline,
                        map.get("headline")
                            .or_else(|| map.get("name"))
                            .and_then(Value::as_str),
                    );
                    set(
                        &mut facts.published,
                        map.get("datePublished")
                            .or_else(|| map.get("uploadDate"))
                            .and_then(Value::as_str),
                    );
                    set(
                        &mut facts.description,
                        map.get("description").and_then(Value::as_str),
                    );
                    set(
                        &mut facts.article_body,
                        map.get("articleBody")
                            .or_else(|| map.get("text"))
                            .and_then(Value::as_str),
                    );
                    if facts.author.is_none() {
                        facts.author = map.get("author").and_then(names);
                    }
                    if facts.publisher.is_none() {
                        facts.publisher = map.get("publisher").and_then(names);
                    }
                }
                _ => {}
            }
        }
        facts
    }
}

fn set(slot: &mut Option<String>, value: Option<&str>) {
    if slot.is_none()
        && let Some(v) = value.map(clean).filter(|v| !v.is_empty())
    {
        *slot = Some(v);
    }
}

/// `"Name"`, `{"name": …}` or a list of those, joined with ", ".
fn names(value: &Value) -> Option<String> {
    let list: Vec<String> = match value {
        Value::String(s) => vec![clean(s)],
        Value::Object(m) => m
            .get("name")
            .and_then(Value::as_str)
            .map(clean)
            .into_iter()
            .collect(),
        Value::Array(items) => items.iter().filter_map(names).collect(),
        _ => Vec::new(),
    };
    let joined = list
        .into_iter()
        .filter(|s| !s.is_empty() && !s.starts_with("http"))
        .collect::<Vec<_>>()
        .join(", ");
    (!joined.is_empty()).then_some(joined)
}

/// Parse a JSON-LD block, tolerating the wrappers pages put around it.
fn parse_json_ld(raw: &str) -> Option<Value> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return None;
    }
    if let Ok(value) = serde_json::from_str(trimmed) {
        return Some(value);
    }
    let inner = trimmed
        .trim_start_matches("<!--")
        .trim_end_matches("-->")
        .trim()
        .trim_start_matches("//<![CDATA[")
        .trim_start_matches("<![CDATA[")
        .trim_end_matches("//]]>")
        .trim_end_matches("]]>")
        .trim()
        .trim_end_matches(';');
    serde_json::from_str(inner).ok()
}

fn first<const N: usize>(options: [Option<String>; N]) -> Option<String> {
    options.into_iter().flatten().find(|s| !s.is_empty())
}

/// Collapse whitespace.
pub(crate) fn clean(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn page_type_of_schema(t: &str) -> Option<PageType> {
    let t = t.rsplit('/').next().unwrap_or(t);
    Some(match t {
        "Article"
        | "NewsArticle"
        | "BlogPosting"
        | "Report"
        | "ScholarlyArticle"
        | "OpinionNewsArticle"
        | "AnalysisNewsArticle"
        | "ReportageNewsArticle"
        | "LiveBlogPosting"
        | "Review"
        | "SocialMediaPosting"
        | "Recipe"
        | "HowTo" => PageType::Article,
        "TechArticle" | "APIReference" => PageType::Documentation,
        "DiscussionForumPosting" | "QAPage" | "Question" => PageType::Forum,
        "Product" | "ProductGroup" | "IndividualProduct" | "Offer" => PageType::Product,
        "ItemList" | "CollectionPage" | "SearchResultsPage" | "OfferCatalog" => PageType::Listing,
        "ProfilePage" | "Person" => PageType::Profile,
        "VideoObject" => PageType::Video,
        _ => return None,
    })
}

fn page_type_of_og(og: &str) -> Option<PageType> {
    let og = og.trim().to_ascii_lowercase();
    Some(match og.as_str() {
        "article" | "blog" | "news" => PageType::Article,
        "product" | "og:product" | "product.item" => PageType::Product,
        "profile" => PageType::Profile,
        t if t.starts_with("video") => PageType::Video,
        _ => return None,
    })
}

pub(crate) fn page_type_of_url(url: &Url) -> PageType {
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    let path = url.path().to_ascii_lowercase();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let has = |names: &[&str]| segments.iter().any(|s| names.contains(s));
    if host.starts_with("docs.")
        || host.ends_with("readthedocs.io")
        || host == "docs.rs"
        || has(&[
            "docs",
            "doc",
            "documentation",
            "reference",
            "api",
            "manual",
            "guide",
            "guides",
            "handbook",
        ])
    {
        return PageType::Documentation;
    }
    if host.starts_with("forum")
        || host.starts_with("community.")
        || host.starts_with("discuss")
        || has(&[
            "forum",
            "forums",
            "thread",
            "threads",
            "t",
            "questions",
            "discussion",
            "discussions",
            "comments",
            "topic",
            "viewtopic.php",
        ])
    {
        return PageType::Forum;
    }
    if has(&["product", "products", "dp", "item", "p", "shop"]) {
        return PageType::Product;
    }
    if has(&["watch", "video", "videos"]) {
        return PageType::Video;
    }
    if has(&["user", "users", "profile", "u", "people", "author"]) {
        return PageType::Profile;
    }
    if has(&[
        "search",
        "category",
        "categories",
        "tag",
        "tags",
        "list",
        "archive",
        "collections",
    ]) {
        return PageType::Listing;
    }
    if segments.is_empty() {
        return PageType::Homepage;
    }
    let dated = segments.windows(2).any(|w| {
        w[0].len() == 4
            && w[0].starts_with("20")
            && w[0].bytes().all(|b| b.is_ascii_digit())
            && w[1].len() <= 2
            && w[1].bytes().all(|b| b.is_ascii_digit())
    });
    if dated
        || has(&[
            "article", "articles", "news", "blog", "post", "posts", "story", "stories",
        ])
        || path.ends_with(".html") && segments.len() >= 2
    {
        return PageType::Article;
    }
    PageType::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_type_from_url_shape() {
        let t = |u: &str| page_type_of_url(&Url::parse(u).unwrap());
        assert_eq!(t("https://example.com/"), PageType::Homepage);
        assert_eq!(
            t("https://docs.rs/url/latest/url/"),
            PageType::Documentation
        );
        assert_eq!(
            t("https://example.com/2019/11/19/some-story"),
            PageType::Article
        );
        assert_eq!(t("https://example.com/forum/thread/123"), PageType::Forum);
        assert_eq!(t("https://shop.example/product/42"), PageType::Product);
    }

    #[test]
    fn json_ld_with_comment_wrapper_parses() {
        assert!(parse_json_ld("<!-- {\"@type\": \"NewsArticle\"} -->").is_some());
    }
}
