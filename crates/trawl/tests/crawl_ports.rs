//! A crawl and a map of `127.0.0.2:A` never request `127.0.0.2:B`, one test per way a
//! site can offer the other port: a robots `Sitemap:` line, a sitemap entry, a sitemap
//! index entry, llms.txt, a feed, a link and a redirect. Each test also checks that the
//! offering itself was read, so a pass is not a crawl that never looked.

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

fn page(links: &str) -> Reply {
    Reply::html(format!(
        "<html><head><title>Port</title>{links}</head><body><article><h1>Port</h1>\
         <p>Harbour seals rest on the sandbanks at low tide and hunt fish.</p>{links}\
         </article></body></html>"
    ))
}

fn xml(body: String) -> Reply {
    Reply::ok("application/xml", body)
}

/// The site on one port of 127.0.0.2 and a canary on another; `offer` adds the site's
/// routes given the canary's base URL. Runs a crawl and a map, then checks that `read`
/// (a path of the site) was asked for and the canary never was.
fn keeps_to_its_port(read: &str, offer: impl Fn(&TestServer, &str)) {
    trawl_testkit::require_isolation!();
    let canary = TestServer::start_on("127.0.0.2");
    for path in ["/sitemap.xml", "/feed.xml", "/x"] {
        canary.route(path, page(""));
    }
    let server = TestServer::start_on("127.0.0.2");
    server.route("/", page(""));
    offer(&server, &canary.base());
    let dir = temp_dir();
    for command in ["crawl", "map"] {
        let r = run(trawl(&dir).args([
            "--store",
            ":memory:",
            command,
            &server.url("/"),
            "--allow-host",
            "127.0.0.2",
            "--json",
        ]));
        assert_eq!(r.code, 0, "{command}: {}", r.stderr);
    }
    // A crawl reads redirects, a map reads llms.txt: each offering is read by one at least.
    assert!(server.hits(read) >= 1, "{read} was read");
    let reached: Vec<String> = canary.seen().iter().map(|r| r.path.clone()).collect();
    assert!(reached.is_empty(), "another port was reached: {reached:?}");
}

#[test]
fn not_through_a_robots_sitemap_line() {
    keeps_to_its_port("/robots.txt", |s, other| {
        s.route(
            "/robots.txt",
            Reply::ok(
                "text/plain",
                format!("User-agent: *\nAllow: /\nSitemap: {other}/sitemap.xml\n"),
            ),
        );
    });
}

#[test]
fn not_through_a_sitemap_entry() {
    keeps_to_its_port("/sitemap.xml", |s, other| {
        s.route(
            "/sitemap.xml",
            xml(format!(
                "<?xml version=\"1.0\"?><urlset><url><loc>{other}/x</loc></url></urlset>"
            )),
        );
    });
}

#[test]
fn not_through_a_sitemap_index_entry() {
    keeps_to_its_port("/sitemap.xml", |s, other| {
        s.route(
            "/sitemap.xml",
            xml(format!(
                "<?xml version=\"1.0\"?><sitemapindex><sitemap><loc>{other}/sitemap.xml</loc>\
                 </sitemap></sitemapindex>"
            )),
        );
    });
}

#[test]
fn not_through_llms_txt() {
    keeps_to_its_port("/llms.txt", |s, other| {
        s.route(
            "/llms.txt",
            Reply::ok("text/plain", format!("# Port\n\n- [Other]({other}/x)\n")),
        );
    });
}

#[test]
fn not_through_a_feed() {
    keeps_to_its_port("/feed.xml", |s, other| {
        s.route(
            "/",
            page(&format!(
                "<link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed.xml\">\
                 <link rel=\"alternate\" type=\"application/rss+xml\" href=\"{other}/feed.xml\">"
            )),
        );
        s.route(
            "/feed.xml",
            Reply::ok(
                "application/rss+xml",
                format!(
                    "<?xml version=\"1.0\"?><rss><channel><item><title>x</title>\
                     <link>{other}/x</link></item></channel></rss>"
                ),
            ),
        );
    });
}

#[test]
fn not_through_a_link() {
    keeps_to_its_port("/", |s, other| {
        s.route("/", page(&format!("<a href=\"{other}/x\">other</a>")));
    });
}

#[test]
fn not_through_a_redirect() {
    keeps_to_its_port("/moved", |s, other| {
        s.route("/", page("<a href=\"/moved\">moved</a>"));
        s.route(
            "/moved",
            Reply::status(302, "").with_header("Location", &format!("{other}/x")),
        );
    });
}
