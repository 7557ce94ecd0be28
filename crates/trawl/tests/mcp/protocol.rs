//! Protocol errors as JSON-RPC says: a parse error for a body that is not JSON, an invalid
//! request for JSON that is not a message, and bad arguments echoed short.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_answers_invalid_json_with_a_json_rpc_parse_error() {
    let world = World::new();
    let server = HttpServer::start(&world, &["--fetch-only"], &[]);
    let http = reqwest::Client::new();
    let post = |body: &'static str, content_type: &'static str| {
        http.post(&server.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", content_type)
            .body(body)
            .send()
    };
    let response = post("{\"jsonrpc\": \"2.0\", \"id\": 1,", "application/json")
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32700, "{body}");
    assert_eq!(body["id"], Value::Null, "{body}");

    let response = post(
        "{\"jsonrpc\": \"2.0\", \"id\": 9, \"what\": 1}",
        "application/json",
    )
    .await
    .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32600, "{body}");
    assert_eq!(body["id"], 9, "{body}");

    // A body that is not JSON at all, labelled as something else, is still a media-type error.
    let response = post("hello", "text/plain").await.unwrap();
    assert_eq!(response.status(), 415);
}

/// The longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for x in s.chars() {
        run = if x == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_megabyte_bad_argument_comes_back_cut_short() {
    let world = World::new();
    let server = HttpServer::start(&world, &["--fetch-only"], &[]);
    let client = server.client(None).await;
    let big = "A".repeat(1_000_000);
    for arguments in [
        json!({"url": world.pages.url("/article"), "page_size_tokens": big}),
        json!({"handle": big}),
        json!({"url": big}),
    ] {
        let result = client
            .call_tool(call("web_fetch", arguments))
            .await
            .unwrap();
        assert_eq!(error_code(&result), "invalid_input");
        let whole = serde_json::to_string(&result).unwrap();
        assert!(
            whole.len() < 4_000,
            "{} bytes: {}",
            whole.len(),
            &whole[..300]
        );
        assert!(longest_run(&text(&result), 'A') <= 64, "{}", text(&result));
        // Said once, in the text: not again in `_meta`.
        let echo = "A".repeat(64);
        assert!(whole.matches(&echo).count() <= 1, "{whole}");
    }
    client.cancel().await.unwrap();
}
