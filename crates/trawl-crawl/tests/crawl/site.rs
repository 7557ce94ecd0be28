//! A loopback site the tests generate: a few hundred pages under `/docs/`, a blog reached
//! only by links, a robots.txt with a `Disallow` and a `Sitemap` line, a sitemap index that
//! points at a gzipped sitemap, an endless calendar, and links that redirect to another
//! host and to the cloud metadata address. Every request is logged with its time.

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

/// Pages listed in the sitemap.
pub const DOC_PAGES: usize = 200;
/// Pages found only through links.
pub const BLOG_PAGES: usize = 20;
/// A word only page `/docs/17` holds.
pub const MARKER: &str = "zephyrquokka";

#[derive(Clone)]
pub struct SiteConfig {
    /// `Crawl-delay` in robots.txt (seconds), if any.
    pub crawl_delay: Option<f32>,
    /// Where `/go/away` redirects (another host).
    pub away: String,
    /// How long each page takes to answer.
    pub page_latency: Duration,
    /// Serve (and link) the near-duplicate pages of [`NEAR_DUPLICATES`].
    pub near_duplicates: bool,
}

/// With `near_duplicates`, groups of paths that are one page: a docs page, its print view
/// and its address with a parameter that changes a line; a story at two paths; a mirror of
/// a docs page that declares the original canonical. Each group's first path is where it
/// is linked from (`/docs/4`, the home page, `/docs/8`).
pub const NEAR_DUPLICATES: [&[&str]; 3] = [
    &["/docs/4", "/print/docs/4", "/docs/4?campaign=spring"],
    &["/news/river", "/2024/05/river"],
    &["/docs/9", "/mirror/docs/9"],
];

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            crawl_delay: None,
            away: "http://127.0.0.2:9/".into(),
            page_latency: Duration::ZERO,
            near_duplicates: false,
        }
    }
}

#[derive(Clone)]
struct Shared {
    base: String,
    config: SiteConfig,
    log: Arc<Mutex<Vec<(String, Instant)>>>,
}

pub struct Site {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<(String, Instant)>>>,
}

impl Site {
    pub fn start(config: SiteConfig) -> Site {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let shared = Shared {
            base: format!("http://{addr}"),
            config,
            log: log.clone(),
        };
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let app = Router::new().fallback(handle).with_state(shared);
                axum::serve(listener, app).await.unwrap();
            });
        });
        Site { addr, log }
    }

    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base())
    }

    /// Every path requested, in order.
    pub fn requests(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// Requests per path.
    pub fn counts(&self) -> HashMap<String, usize> {
        let mut m = HashMap::new();
        for p in self.requests() {
            *m.entry(p).or_insert(0) += 1;
        }
        m
    }

    /// Times of the requests whose path starts with `prefix`, in order.
    pub fn times(&self, prefix: &str) -> Vec<Instant> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _)| p.starts_with(prefix))
            .map(|(_, t)| *t)
            .collect()
    }
}

/// Every path of a page the site serves under `/docs/` or `/blog/` (the in-scope pages).
pub fn content_paths() -> Vec<String> {
    let mut v: Vec<String> = (0..DOC_PAGES).map(|i| format!("/docs/{i}")).collect();
    v.extend((0..BLOG_PAGES).map(|i| format!("/blog/{i}")));
    v
}

fn page(title: &str, body: &str, links: &[(String, String)]) -> String {
    page_with_head(title, "", body, links)
}

fn page_with_head(title: &str, head: &str, body: &str, links: &[(String, String)]) -> String {
    let nav: String = links
        .iter()
        .map(|(href, text)| format!("<li><a href=\"{href}\">{text}</a></li>"))
        .collect();
    format!(
        "<!doctype html><html><head><title>{title}</title>{head}</head><body>\
<nav><ul><li><a href=\"/\">Home</a></li>{nav}</ul></nav>\
<main><article><h1>{title}</h1>{body}</article></main>\
<footer><a href=\"/private/secrets\">Staff</a></footer></body></html>"
    )
}

fn prose(topic: &str, n: usize) -> String {
    (0..4)
        .map(|k| {
            format!(
                "<p>This is paragraph {k} about {topic} number {n}. It explains how the {topic} \
works, why it matters to the people who read the documentation, and what to do next \
when something about {topic} {n} goes wrong in production on a busy afternoon.</p>"
            )
        })
        .collect()
}

/// The pages of [`NEAR_DUPLICATES`] not served by the docs handler.
fn near_duplicate(path: &str) -> Option<String> {
    match path {
        "/print/docs/4" => Some(page(
            "Docs page 4",
            &format!("{}<p>Printed from the documentation site.</p>", article(4)),
            &[],
        )),
        "/news/river" | "/2024/05/river" => {
            let section = if path == "/news/river" {
                "News"
            } else {
                "Archive"
            };
            Some(page(
                "Council approves the river path",
                &format!(
                    "<p>Filed under {section}.</p><p>The river path council vote.</p>{}",
                    article(7)
                ),
                &[("/2024/05/river".to_owned(), "Permalink".to_owned())],
            ))
        }
        "/mirror/docs/9" => Some(page_with_head(
            "Docs page 9",
            "<link rel=\"canonical\" href=\"/docs/9\">",
            // Another page by its words (its own long preface): only the canonical link
            // says it is /docs/9.
            &format!(
                "{}{}",
                prose("mirrors and their upkeep", 3),
                prose("docs", 9)
            ),
            &[],
        )),
        _ => None,
    }
}

/// About 300 words of varied prose (unlike [`prose`], whose paragraphs repeat one
/// sentence): an article whose copy with a line added is a near-duplicate by its words.
fn article(seed: u64) -> String {
    const WORDS: [&str; 32] = [
        "river",
        "council",
        "path",
        "bridge",
        "cycling",
        "budget",
        "vote",
        "residents",
        "summer",
        "lights",
        "bank",
        "mayor",
        "plan",
        "debate",
        "trees",
        "route",
        "safety",
        "night",
        "walkers",
        "funding",
        "design",
        "meeting",
        "north",
        "station",
        "market",
        "school",
        "harbour",
        "ferry",
        "garden",
        "library",
        "square",
        "tunnel",
    ];
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        WORDS[(x % WORDS.len() as u64) as usize]
    };
    (0..6)
        .map(|_| {
            let words: Vec<&str> = (0..50).map(|_| next()).collect();
            format!("<p>{}.</p>", words.join(" "))
        })
        .collect()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data).unwrap();
    gz.finish().unwrap()
}

fn html(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

async fn handle(State(s): State<Shared>, uri: Uri) -> Response {
    let path = uri
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "/".into());
    s.log.lock().unwrap().push((path.clone(), Instant::now()));
    let base = &s.base;
    let bare = uri.path();
    match bare {
        "/robots.txt" => {
            let delay = s
                .config
                .crawl_delay
                .map(|d| format!("Crawl-delay: {d}\n"))
                .unwrap_or_default();
            return (
                [(header::CONTENT_TYPE, "text/plain")],
                format!("User-agent: *\nDisallow: /private/\n{delay}\nSitemap: {base}/sitemap_index.xml\n"),
            )
                .into_response();
        }
        "/sitemap_index.xml" => {
            return (
                [(header::CONTENT_TYPE, "application/xml")],
                format!(
                    "<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
<sitemap><loc>{base}/sitemaps/docs.xml.gz</loc></sitemap></sitemapindex>"
                ),
            )
                .into_response();
        }
        "/sitemaps/docs.xml.gz" => {
            let urls: String = (0..DOC_PAGES)
                .map(|i| {
                    format!(
                        "<url><loc>{base}/docs/{i}</loc><lastmod>2024-01-{:02}</lastmod></url>",
                        i % 28 + 1
                    )
                })
                .collect();
            let xml = format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{urls}</urlset>"
            );
            return (
                [(header::CONTENT_TYPE, "application/gzip")],
                gzip(xml.as_bytes()),
            )
                .into_response();
        }
        "/go/away" => {
            return (
                StatusCode::FOUND,
                [(header::LOCATION, s.config.away.clone())],
            )
                .into_response();
        }
        "/go/meta" => {
            return (
                StatusCode::FOUND,
                [(header::LOCATION, "http://169.254.169.254/latest/meta-data/")],
            )
                .into_response();
        }
        _ => {}
    }
    if !s.config.page_latency.is_zero() {
        tokio::time::sleep(s.config.page_latency).await;
    }
    let common = |extra: Vec<(String, String)>| {
        let mut l = vec![
            ("/docs/0".to_owned(), "Docs".to_owned()),
            ("/blog/0".to_owned(), "Blog".to_owned()),
            ("/calendar/2024/1".to_owned(), "Calendar".to_owned()),
            ("/go/away".to_owned(), "Partner".to_owned()),
            ("/go/meta".to_owned(), "Status".to_owned()),
        ];
        l.extend(extra);
        l
    };
    let near = s.config.near_duplicates;
    if bare == "/" {
        let extra = if near {
            vec![("/news/river".to_owned(), "River story".to_owned())]
        } else {
            vec![]
        };
        return html(page("Home", &prose("home", 0), &common(extra)));
    }
    if near && let Some(reply) = near_duplicate(bare) {
        return html(reply);
    }
    if let Some(n) = bare
        .strip_prefix("/docs/")
        .and_then(|n| n.parse::<usize>().ok())
        && n < DOC_PAGES
    {
        let mut body = if near && n == 4 {
            article(4)
        } else {
            prose("docs", n)
        };
        if n == 17 {
            body.push_str(&format!("<p>The secret word of this page is {MARKER}.</p>"));
        }
        let mut next = vec![
            (format!("/docs/{}", (n + 1) % DOC_PAGES), "Next".to_owned()),
            (format!("/docs/{}?utm_source=nav", n), "Self".to_owned()),
        ];
        if near && n == 4 {
            next.push(("/print/docs/4".into(), "Print".into()));
            next.push(("/docs/4?campaign=spring".into(), "Share".into()));
        }
        if near && n == 8 {
            next.push(("/mirror/docs/9".into(), "Mirror of the next page".into()));
        }
        if near && n == 4 && uri.query() == Some("campaign=spring") {
            body.push_str("<p>Shared with you from the spring campaign.</p>");
        }
        return html(page(&format!("Docs page {n}"), &body, &common(next)));
    }
    if let Some(n) = bare
        .strip_prefix("/blog/")
        .and_then(|n| n.parse::<usize>().ok())
        && n < BLOG_PAGES
    {
        let next = vec![(
            format!("/blog/{}", (n + 1) % BLOG_PAGES),
            "Older post".to_owned(),
        )];
        return html(page(
            &format!("Blog post {n}"),
            &prose("blog", n),
            &common(next),
        ));
    }
    if let Some(rest) = bare.strip_prefix("/calendar/") {
        let mut parts = rest.split('/').filter_map(|p| p.parse::<u32>().ok());
        if let (Some(y), Some(m)) = (parts.next(), parts.next()) {
            let (ny, nm) = if m >= 12 { (y + 1, 1) } else { (y, m + 1) };
            let next = vec![(format!("/calendar/{ny}/{nm}"), "Next month".to_owned())];
            return html(page(
                &format!("Calendar {y}-{m}"),
                &prose(&format!("events of {y}"), m as usize),
                &next,
            ));
        }
    }
    (
        StatusCode::NOT_FOUND,
        html(page("Not found", "<p>No such page.</p>", &[])),
    )
        .into_response()
}
