//! A crawl killed with SIGKILL is seen as interrupted at once, and the same command run
//! again right away resumes it instead of starting a second crawl (issue 42 item 10).

use std::time::{Duration, Instant};

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

const PAGES: usize = 12;

#[test]
fn a_killed_crawl_is_interrupted_and_the_same_command_resumes_it() {
    let server = TestServer::start();
    let links: String = (0..PAGES)
        .map(|i| format!("<li><a href=\"/slow/{i}\">Slow {i}</a></li>"))
        .collect();
    server.route(
        "/",
        Reply::html(format!(
            "<html><body><main><ul>{links}</ul></main></body></html>"
        )),
    );
    for i in 0..PAGES {
        server.route(
            &format!("/slow/{i}"),
            Reply::Trickle {
                body: format!(
                    "<html><head><title>Slow {i}</title></head><body><main><h1>Slow {i}</h1>\
<p>Page {i} says enough about its subject to be read as an article by the extractor.</p>\
</main></body></html>"
                )
                .into_bytes(),
                piece: 64,
                pause: Duration::from_millis(60),
            },
        );
    }
    let dir = temp_dir();
    let start = server.url("/");
    let args = ["crawl", start.as_str(), "--allow-host", "127.0.0.1"];
    let mut child = trawl(&dir)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.hits("/slow/2") == 0 {
        assert!(Instant::now() < deadline, "the crawl did not get going");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let listed = run(trawl(&dir).args(["crawl", "list", "--json"]));
    let crawl = listed.json()["data"][0].clone();
    assert_eq!(crawl["status"], "interrupted", "{crawl}");
    let id = crawl["id"].as_str().unwrap().to_owned();
    let human = run(trawl(&dir).args(["crawl", "list"]));
    assert!(
        human.stdout.contains(&format!("--resume {id}")),
        "{}",
        human.stdout
    );

    // At once, not after the record has gone quiet for 10 s.
    let again = run(trawl(&dir).args(args).arg("--json"));
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        again.json()["data"]["summary"]["id"],
        id.as_str(),
        "{}",
        again.stdout
    );
    assert_eq!(
        again.json()["data"]["summary"]["progress"]["done"],
        (PAGES + 1) as u64
    );
    let listed = run(trawl(&dir).args(["crawl", "list", "--json"]));
    assert_eq!(
        listed.json()["data"].as_array().unwrap().len(),
        1,
        "{}",
        listed.stdout
    );
    // A page stored before the kill is not fetched again.
    assert_eq!(server.hits("/"), 1);
}
