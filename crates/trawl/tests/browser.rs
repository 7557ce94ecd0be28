//! `trawl read` in the browser: `--screenshot`, `--viewport` and `--action` against pages
//! served on loopback, in Debian's chromium; no browser process outlives the command; with
//! no browser, the error names what is missing and nothing is written.

use std::process::Stdio;

use trawl_testkit::{Reply, TestServer};

use crate::newuser::watch_until_exit;
use crate::util::{run, temp_dir, trawl};

const LIST: &str = r#"<html><head><title>Otter sightings</title></head><body>
<h1>Otter sightings</h1><ul id="list"><li>Item 1 on the river bank near the old mill.</li>
<li>Item 2 by the weir, two adults fishing in the early morning.</li></ul>
<button id="more">Load more</button><script>
var n = 2;
document.getElementById('more').addEventListener('click', function () {
  setTimeout(function () { for (var i = 0; i < 2; i++) { n++; var li = document.createElement('li');
    li.className = 'item-' + n; li.textContent = 'Item ' + n + ' seen from the footbridge at dusk.';
    document.getElementById('list').appendChild(li); } }, 100);
});
</script></body></html>"#;

/// PNG width and height from its header.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn read_with_actions_and_a_screenshot_leaves_no_browser_behind() {
    trawl_testkit::require_isolation!();
    trawl_testkit::require_chromium!();
    let server = TestServer::start();
    server.route("/list", Reply::html(LIST));
    let dir = temp_dir();
    let shot = dir.join("list.png");
    let mut child = trawl(&dir)
        .args([
            "read",
            &server.url("/list"),
            "--allow-host",
            "127.0.0.1",
            "--screenshot",
            shot.to_str().unwrap(),
            "--viewport",
            "640x480",
            "--action",
            "click:#more",
            "--action",
            "screenshot",
            "--wait-for",
            ".item-1, li",
            "--json",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, seen) = watch_until_exit(&mut child);
    assert!(
        seen.values().any(|c| c.contains("--type=renderer")),
        "no browser ran"
    );
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let data = &v["data"];
    assert_eq!(data["fetched_via"], "render", "{v}");
    assert!(
        data["markdown"].as_str().unwrap().contains("Item 4 seen"),
        "{v}"
    );
    let browser = &data["browser"];
    assert_eq!(browser["done"].as_array().unwrap().len(), 3, "{browser}");
    assert_eq!(browser["screenshots"][1]["width"], 640, "{browser}");
    assert_eq!(png_size(&std::fs::read(&shot).unwrap()), (640, 480));
    let by_action = dir.join("list-action3.png");
    assert_eq!(png_size(&std::fs::read(&by_action).unwrap()), (640, 480));
    assert!(stderr.contains("screenshot: "), "{stderr}");
}

#[test]
fn without_a_browser_a_screenshot_fails_naming_what_is_missing() {
    trawl_testkit::require_isolation!();
    let server = TestServer::start();
    server.route("/list", Reply::html(LIST));
    let dir = temp_dir();
    let shot = dir.join("none.png");
    let r = run(trawl(&dir).env("PATH", "/nonexistent").args([
        "read",
        &server.url("/list"),
        "--allow-host",
        "127.0.0.1",
        "--screenshot",
        shot.to_str().unwrap(),
    ]));
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("needs a browser"), "{}", r.stderr);
    assert!(r.stderr.contains("chromium"), "{}", r.stderr);
    assert!(!shot.exists());
    assert_eq!(
        server.hits("/list"),
        0,
        "the page was fetched without the browser"
    );
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/list"),
        "--allow-host",
        "127.0.0.1",
        "--render",
        "never",
        "--action",
        "click:#more",
    ]));
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("rendering is off"), "{}", r.stderr);
}

#[test]
fn bad_steps_are_refused_before_anything_is_fetched() {
    trawl_testkit::require_isolation!();
    let server = TestServer::start();
    server.route("/list", Reply::html(LIST));
    let dir = temp_dir();
    for (args, says) in [
        (
            vec!["--action", "js:alert(1)"],
            "executeJavascript is refused",
        ),
        (vec!["--action", "dance:now"], "unknown action"),
        (vec!["--action", "screenshot"], "needs --screenshot FILE"),
        (
            vec!["--viewport", "10x10", "--action", "scrape"],
            "viewport",
        ),
        (vec!["--viewport", "800x600"], "--viewport applies"),
    ] {
        let mut cmd = trawl(&dir);
        cmd.args(["read", &server.url("/list"), "--allow-host", "127.0.0.1"])
            .args(&args);
        let r = run(&mut cmd);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    }
    assert_eq!(server.hits("/list"), 0);
}
