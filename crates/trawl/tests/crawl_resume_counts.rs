//! A crawl stopped and resumed keeps the counts of its earlier run (issue 42 item 4): the
//! URL robots.txt disallowed and the duplicates met before the stop are in the resumed
//! crawl's summary, as in a crawl run once.

use std::time::{Duration, Instant};

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

const SLOW: usize = 6;

fn article(title: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>\
<p>This page about {title} explains one part of the manual in enough words to be read as \
an article by the extractor, with a second sentence about configuration.</p></main></body></html>"
    )
}

/// `/` links a disallowed page, a page and two copies of it, then slow pages.
fn site() -> TestServer {
    let server = TestServer::start();
    let slow: String = (0..SLOW)
        .map(|i| format!("<li><a href=\"/slow/{i}\">Slow {i}</a></li>"))
        .collect();
    server.route(
        "/",
        Reply::html(format!(
            "<html><head><title>Index</title></head><body><main><h1>Index</h1><ul>\
<li><a href=\"/private/admin\">Admin</a></li><li><a href=\"/a\">A</a></li>\
<li><a href=\"/a-copy\">A again</a></li><li><a href=\"/a-print\">A to print</a></li>\
{slow}</ul></main></body></html>"
        )),
    );
    server.route(
        "/robots.txt",
        Reply::ok("text/plain", "User-agent: *\nDisallow: /private/\n"),
    );
    for path in ["/a", "/a-copy", "/a-print"] {
        server.route(path, Reply::html(article("Anchors")));
    }
    for i in 0..SLOW {
        server.route(
            &format!("/slow/{i}"),
            Reply::Trickle {
                body: article(&format!("Slow part {i}")).into_bytes(),
                piece: 64,
                pause: Duration::from_millis(100),
            },
        );
    }
    server
}

#[test]
fn a_stopped_and_resumed_crawl_keeps_its_earlier_counts() {
    let server = site();
    let dir = temp_dir();
    let crawl = |args: &[&str]| {
        trawl(&dir)
            .arg("crawl")
            .args(args)
            .args(["--allow-host", "127.0.0.1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut child = crawl(&[&server.url("/")]);
    // The copies are read before the third slow page is asked for (two at a time).
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.hits("/slow/2") == 0 {
        assert!(Instant::now() < deadline, "the crawl did not get going");
        std::thread::sleep(Duration::from_millis(20));
    }
    let listed = run(trawl(&dir).args(["crawl", "list", "--json"]));
    let id = listed.json()["data"][0]["id"].as_str().unwrap().to_owned();
    let stop = run(trawl(&dir).args(["crawl", "cancel", &id]));
    assert_eq!(stop.code, 0, "{}", stop.stderr);
    child.wait().unwrap();
    let status = run(trawl(&dir).args(["crawl", "status", &id, "--json"]));
    assert_eq!(
        status.json()["data"]["status"],
        "cancelled",
        "{}",
        status.stdout
    );

    let resumed = run(trawl(&dir).args([
        "crawl",
        "--resume",
        &id,
        "--allow-host",
        "127.0.0.1",
        "--json",
    ]));
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let summary = &resumed.json()["data"]["summary"];
    assert_eq!(summary["status"], "done", "{summary}");
    assert_eq!(summary["disallowed"], 1, "{summary}");
    assert_eq!(summary["progress"]["duplicates"], 2, "{summary}");
    assert_eq!(summary["progress"]["done"], 2 + SLOW, "{summary}");
    assert_eq!(server.hits("/"), 1, "the start page is not read again");
}
