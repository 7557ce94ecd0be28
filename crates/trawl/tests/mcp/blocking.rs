//! Nothing blocks the runtime: with one async worker and one extraction held in place by a
//! test hook (a FIFO the extraction reads, no timer), `/healthz`, a `web_open` and a
//! second read all answer, and the held read finishes once released.

use std::ffi::CString;
use std::os::unix::fs::OpenOptionsExt;

use super::*;

fn make_fifo(path: &std::path::Path) {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path only.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_extraction_leaves_the_server_answering() {
    let world = World::new();
    world
        .pages
        .route("/hold", Reply::html(article("Held seals", 20)));
    let fifo = world.dir.join("hold.fifo");
    make_fifo(&fifo);
    let fifo_env = fifo.display().to_string();
    let server = HttpServer::start(
        &world,
        &["--fetch-only"],
        &[
            ("TRAWL_TEST_HOLD_EXTRACT", fifo_env.as_str()),
            // One async worker: an extraction on it would stall everything.
            ("TOKIO_WORKER_THREADS", "1"),
        ],
    );
    let client = Arc::new(server.client(None).await);
    let first = client
        .call_tool(call(
            "web_fetch",
            json!({"url": world.pages.url("/article"), "page_size_tokens": 500}),
        ))
        .await
        .unwrap();
    let handle = structured(&first)["results"][0]["document"]["handle"]
        .as_str()
        .unwrap()
        .to_owned();

    let held = {
        let client = client.clone();
        let url = world.pages.url("/hold");
        tokio::spawn(async move {
            client
                .call_tool(call("web_fetch", json!({"url": url})))
                .await
        })
    };
    // The extraction has reached the hook once its read end is open: a non-blocking open
    // of the write end succeeds only then.
    let mut release = None;
    until(async || {
        release = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .ok();
        release.is_some()
    })
    .await;
    assert!(!held.is_finished());

    let within = Duration::from_secs(20);
    let health = tokio::time::timeout(within, reqwest::get(format!("{}/healthz", server.base())))
        .await
        .expect("/healthz answers while an extraction is held")
        .unwrap();
    assert_eq!(health.status(), 200);
    let body: Value = health.json().await.unwrap();
    assert_eq!(body["inflight_calls"], 1, "{body}");

    let opened = tokio::time::timeout(
        within,
        client.call_tool(call("web_open", json!({"handle": handle, "page": 1}))),
    )
    .await
    .expect("web_open answers while an extraction is held")
    .unwrap();
    assert_eq!(structured(&opened)["page"], 1);

    let second = tokio::time::timeout(
        within,
        client.call_tool(call(
            "web_fetch",
            json!({"url": world.pages.url("/second"), "fresh": true}),
        )),
    )
    .await
    .expect("a second read answers while an extraction is held")
    .unwrap();
    assert!(
        structured(&second)["results"][0]["document"]["markdown"]
            .as_str()
            .unwrap()
            .contains("Grey seals")
    );
    assert!(!held.is_finished(), "the hook did not hold the extraction");

    drop(release);
    let held = tokio::time::timeout(Duration::from_secs(30), held)
        .await
        .expect("the held read finishes once released")
        .unwrap()
        .unwrap();
    assert!(
        structured(&held)["results"][0]["document"]["markdown"]
            .as_str()
            .unwrap()
            .contains("Held seals")
    );
}
