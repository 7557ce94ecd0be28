//! What kind of page this is. Declared types (JSON-LD, OpenGraph) decide when they are
//! specific and the markup agrees (a `Product` that shows no price or cart is a landing
//! page); then the URL's shape (forum and docs sections, feed sections, slugs, ids); then
//! the page's structure (code, prose, prices, repeated items, dated entries). The answer
//! also decides how wide the main content is (see `lib.rs`).

mod shape;
mod url_shape;

pub(crate) use shape::{Shape, shape};

use trawl_core::PageType;
use url::Url;

use crate::metadata::{Metadata, page_type_of_schema, page_type_of_url};
use url_shape::url_shape;

/// Elements naming a cart that make a shop grid rather than one product's page.
const CARTS_ON_A_GRID: u32 = 6;

/// Repeated items that make a listing by themselves (see `page_type`).
const MANY_ITEMS: u32 = 12;

/// Decide the page type.
pub(crate) fn page_type(meta: &Metadata, url: &Url, shape: Shape<'_>) -> PageType {
    let by_url = page_type_of_url(url);
    let path = url_shape(url);
    // A JSON-LD article type is the page's own statement; `og:type=article` is the default
    // of common CMS themes and is set on landing pages too.
    let ld_article = meta
        .page_type_hint
        .iter()
        .any(|t| page_type_of_schema(t) == Some(PageType::Article));
    // An article whose JSON-LD also names several products is a review roundup ("the best
    // dishwashers"): one product's page declares one product.
    let ld_products = meta
        .page_type_hint
        .iter()
        .filter(|t| page_type_of_schema(t) == Some(PageType::Product))
        .count();
    let declared = if ld_article && ld_products >= 2 {
        Some(PageType::Article)
    } else {
        meta.declared_type()
    };
    // Many prices, several of them on repeated items: a shop grid, not a pricing table.
    let many_prices = shape.prices >= 8 && shape.repeated_items >= 6 && shape.priced_items >= 3;
    let og_product = meta
        .og_type
        .as_deref()
        .is_some_and(|t| t.trim().to_ascii_lowercase().starts_with("product"));
    // A declared product must show something for sale: SEO plugins mark service pages
    // `Product` to earn rating stars.
    let sold = || {
        shape.prices > 0 || by_url == PageType::Product || og_product || {
            let marks = shape.marks();
            marks.carts > 0 || marks.offers > 0
        }
    };
    let shop_grid = shape.priced_items >= 12;
    let listing_or_collection = |shape: Shape<'_>| {
        if shape.prices >= 4 {
            PageType::Collection
        } else {
            PageType::Listing
        }
    };
    let sold = declared == Some(PageType::Product) && sold();
    match declared {
        Some(t @ (PageType::Forum | PageType::Video | PageType::Profile)) => return t,
        Some(PageType::Documentation) => return PageType::Documentation,
        Some(PageType::Product)
            if sold
                && !shop_grid
                && !(many_prices && (by_url == PageType::Listing || path.under_shop)) =>
        {
            return PageType::Product;
        }
        Some(PageType::Product) if sold => return listing_or_collection(shape),
        Some(PageType::Listing) => return listing_or_collection(shape),
        _ => {}
    }
    let entries = shape.articles.max(shape.times) >= 8;
    // Entries that are both `<article>`s and dated, or dated in the dozens: a feed even when
    // no one group of them holds much of the page's text.
    let dated_entries = shape.articles.min(shape.times) >= 8 || shape.times >= 20;
    // The repeated items hold a good share of the page's text.
    let items_are_the_page = shape.repeated_chars * 100 >= shape.text_chars * 15;
    // `/topic/cloud` or `/t/office-chairs` without post markup is a section index, and so is
    // one whose "posts" are dated entries making up the page (comment counts on a feed).
    if by_url == PageType::Forum
        && (path.depth > 2
            || path.slug_words > 3
            || !(entries && items_are_the_page) && shape.marks().posts >= 3)
    {
        return PageType::Forum;
    }
    if by_url == PageType::Documentation {
        return PageType::Documentation;
    }
    // Sites of manuals and guides name themselves so after the page's own title.
    if site_says_docs(meta.title.as_deref().unwrap_or("")) && !ld_article {
        return PageType::Documentation;
    }
    // Reference pages and tutorials: code everywhere, outside a blog.
    if shape.code_spans >= 60
        && (shape.code_blocks >= 5 || shape.code_spans >= 100)
        && !ld_article
        && !path.under_posts
    {
        return PageType::Documentation;
    }
    // A feed: the site's front or a short section path with many dated entries, or a feed
    // section (`/news`) with repeated items.
    let short_path = path.depth == 0 || (path.slug_words <= 2 && path.depth <= 2);
    if !ld_article
        && (short_path && entries && (items_are_the_page || dated_entries)
            || path.feed_section && shape.repeated_items >= 5)
    {
        return PageType::Listing;
    }
    // Many repeated items with titles holding the page, and little prose beside them: a
    // listing, whatever its URL or its CMS's `og:type` say (an events page on a slug). Not
    // a thread: its posts repeat too.
    if !ld_article
        && shape.repeated_items >= MANY_ITEMS
        && items_are_the_page
        && shape.long_paragraphs * 4 < shape.repeated_items
        && shape.marks().posts < 3
    {
        return listing_or_collection(shape);
    }
    let articleish = (declared == Some(PageType::Article)
        || by_url == PageType::Article
        || meta.published.is_some())
        && !(path.under_service && !ld_article && by_url != PageType::Article)
        // `og:type=article` and a date alone are what a CMS puts on every page: an article
        // also names its author, states it in JSON-LD, or has a sentence for a slug or title.
        && (ld_article
            || by_url == PageType::Article
            || meta.byline.is_some()
            || path.slug_words >= 3
            || headline_words(meta.title.as_deref().unwrap_or("")) >= 6);
    // A short title naming what a business sells (`Cybersecurity Consulting Services`, `Local
    // SEO Software`), on a page that names no author nor states an article in JSON-LD: a
    // service page whose CMS marks every page `og:type=article`.
    if articleish
        && !ld_article
        && meta.byline.is_none()
        && offering_title(meta.title.as_deref().unwrap_or(""))
    {
        return PageType::Service;
    }
    // Prices by the dozen: a shop's page, whatever its prose.
    if shape.prices >= 30 && !ld_article {
        return if path.has_id {
            PageType::Product
        } else {
            PageType::Collection
        };
    }
    if articleish && shape.long_paragraphs >= 4 {
        return PageType::Article;
    }
    if meta.title_says_docs() || shape.code_blocks >= 3 {
        return PageType::Documentation;
    }
    // Sentence-long slugs on pages that say they are articles, even without `<p>` prose
    // (some news sites write paragraphs as `<div>`s).
    if articleish && path.slug_words >= 5 {
        return PageType::Article;
    }
    if index_title(meta.title.as_deref().unwrap_or("")) {
        return if path.under_shop {
            PageType::Collection
        } else {
            listing_or_collection(shape)
        };
    }
    if many_prices {
        return if path.has_id && !path.under_shop {
            PageType::Product
        } else {
            PageType::Collection
        };
    }
    if by_url == PageType::Product || (1..=5).contains(&shape.prices) && shape.long_paragraphs < 6 {
        return PageType::Product;
    }
    if by_url == PageType::Listing
        || path.under_shop
        || shape.repeated_items >= 6
            && shape.long_paragraphs < shape.repeated_items
            && items_are_the_page
    {
        return if path.under_shop {
            PageType::Collection
        } else {
            listing_or_collection(shape)
        };
    }
    if articleish || path.slug_words >= 5 && shape.long_paragraphs >= 8 {
        return PageType::Article;
    }
    match by_url {
        PageType::Homepage | PageType::Other => {
            // Cart buttons: one per item on a shop grid, a few on one product's page.
            let carts = shape.cart_buttons;
            if carts >= CARTS_ON_A_GRID {
                PageType::Collection
            } else if carts >= 1 && shape.prices > 0 {
                PageType::Product
            } else if shape.repeated_items >= 6 && shape.link_chars * 10 >= shape.text_chars * 7 {
                // Mostly links, in repeated items: an index.
                PageType::Listing
            } else {
                PageType::Service
            }
        }
        t => t,
    }
}

/// The signals `page_type` reads, for debugging (see `crate::page_type_signals`).
pub(crate) fn signals(meta: &Metadata, url: &Url, s: Shape<'_>) -> String {
    let p = url_shape(url);
    let m = s.marks();
    format!(
        "type={:?} declared={:?} og={:?} ld={:?} by_url={:?} depth={} slug={} feed={} svc={} shop={} posts_sec={} id={} \
         code_blocks={} code_spans={} prices={} carts={} articles={} times={} rep={} priced={} rep_chars={} text={} links={} longp={} \
         posts={} cartm={} offers={} byline={} published={} title={:?}",
        page_type(meta, url, s),
        meta.declared_type(),
        meta.og_type,
        meta.page_type_hint,
        page_type_of_url(url),
        p.depth,
        p.slug_words,
        p.feed_section,
        p.under_service,
        p.under_shop,
        p.under_posts,
        p.has_id,
        s.code_blocks,
        s.code_spans,
        s.prices,
        s.cart_buttons,
        s.articles,
        s.times,
        s.repeated_items,
        s.priced_items,
        s.repeated_chars,
        s.text_chars,
        s.link_chars,
        s.long_paragraphs,
        m.posts,
        m.carts,
        m.offers,
        meta.byline.is_some(),
        meta.published.is_some(),
        meta.title,
    )
}

/// The title's site name (`Ownership - The Rust Programming Language`, `Tutorial - User
/// Guide - FastAPI`, `grep(1) - Linux manual page`) calls the site a manual or a guide.
fn site_says_docs(title: &str) -> bool {
    let Some(site) = TITLE_SEPARATORS
        .iter()
        .filter_map(|sep| title.find(sep).map(|at| at + sep.len()))
        .min()
        .map(|start| title[start..].to_ascii_lowercase())
    else {
        return false;
    };
    [
        "documentation",
        "docs",
        "manual",
        "developers",
        "programming language",
        "guide",
        "handbook",
    ]
    .iter()
    .any(|word| site.contains(word))
}

/// A short title that names an index: `Gaming News`, `Online Courses`,
/// `Remote Software Engineer Jobs`, `The Go Blog`.
fn index_title(title: &str) -> bool {
    let headline = headline(title).to_ascii_lowercase();
    let words: Vec<&str> = headline
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.len() <= 6
        && words.iter().any(|w| {
            matches!(
                *w,
                "news"
                    | "jobs"
                    | "courses"
                    | "programs"
                    | "reviews"
                    | "catalogs"
                    | "browse"
                    | "latest"
                    | "category"
                    | "topics"
                    | "standings"
                    | "schedule"
                    | "trending"
            ) || w.ends_with("blog")
        })
}

/// A short headline that names an offering (`Data Analytics Services`, `AI Development
/// Company UAE`, `Free Blockchain Course`), not a listicle or a question about one (`10
/// Best Agencies`, `How to Choose Software`).
fn offering_title(title: &str) -> bool {
    let headline = headline(title).to_ascii_lowercase();
    let words: Vec<&str> = headline
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let Some(first) = words.first() else {
        return false;
    };
    words.len() <= 6
        && !first.starts_with(|c: char| c.is_ascii_digit())
        && !matches!(*first, "how" | "why" | "what" | "when" | "top" | "best")
        && words.iter().any(|w| {
            matches!(
                *w,
                "services"
                    | "service"
                    | "solutions"
                    | "consulting"
                    | "consultants"
                    | "software"
                    | "company"
                    | "agency"
                    | "platform"
                    | "tools"
                    | "course"
                    | "courses"
                    | "certification"
                    | "certificate"
                    | "recruiters"
            )
        })
}

/// What separates a page's title from its site's name.
const TITLE_SEPARATORS: [&str; 7] = [" | ", " - ", " – ", " — ", " : ", " » ", " · "];

/// Words in a title before the site name (`How to train a puppy | Pet Clinic` = 5): an
/// article's title is a sentence, a landing or index page's a name.
fn headline_words(title: &str) -> usize {
    headline(title).split_whitespace().count()
}

/// A title without the site name after it.
fn headline(title: &str) -> &str {
    TITLE_SEPARATORS
        .iter()
        .filter_map(|sep| title.find(sep))
        .min()
        .map_or(title, |end| &title[..end])
}

#[cfg(test)]
mod tests {
    use super::{headline_words, site_says_docs};

    #[test]
    fn site_names_of_manuals() {
        assert!(site_says_docs("Traits - The Rust Programming Language"));
        assert!(site_says_docs("grep(1) - Linux manual page"));
        assert!(!site_says_docs("The Ultimate Guide to Sourdough"));
        assert!(!site_says_docs("Pricing | Acme"));
    }

    #[test]
    fn headline_words_stop_at_the_site_name() {
        assert_eq!(headline_words("How to train a puppy | Pet Clinic"), 5);
        assert_eq!(headline_words("Pricing – Acme"), 1);
        assert_eq!(headline_words("A title without a site name"), 6);
        assert_eq!(headline_words(""), 0);
    }
}
