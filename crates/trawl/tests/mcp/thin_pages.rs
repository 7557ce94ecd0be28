//! A page read but holding little says so (issue 42 item 15), on every site: `thin` for a
//! stub, `login_wall` for one asking to sign in, in the CLI header, `--json` meta, a pipe's
//! stderr, and MCP `_meta["trawl/notes"]`. A full article gets no note.

use super::*;

fn site() -> TestServer {
    let server = TestServer::start();
    server.route(
        "/soon",
        Reply::html("<html><head><title>Soon</title></head><body><main><p>Coming soon.</p></main></body></html>"),
    );
    server.route(
        "/members",
        Reply::html(
            "<html><head><title>Members</title></head><body><main><h1>Members</h1>\
<p>Welcome back. Sign in to continue reading this report.</p></main></body></html>",
        ),
    );
    server.route("/article", Reply::html(article("Harbour seals", 20)));
    server
}

#[test]
fn a_thin_page_and_a_sign_in_page_carry_a_note_on_the_cli() {
    let server = site();
    let dir = crate::util::temp_dir();
    let read = |path: &str, extra: &[&str]| {
        crate::util::run(
            crate::util::trawl(&dir)
                .args(["--store", ":memory:", "read", &server.url(path)])
                .args(["--allow-host", "127.0.0.1"])
                .args(extra),
        )
    };
    let soon = read("/soon", &[]);
    assert_eq!(soon.code, 0, "{}", soon.stderr);
    assert!(
        soon.stdout.contains("note: thin: 2 words"),
        "{}",
        soon.stdout
    );
    let members = read("/members", &["--json"]);
    assert_eq!(
        members.json()["meta"]["notes"][0]["note"],
        "login_wall",
        "{}",
        members.stdout
    );
    let piped = read("/members", &["-q"]);
    assert!(
        piped.stderr.contains("note: login_wall"),
        "{}",
        piped.stderr
    );
    let article = read("/article", &["--json"]);
    assert!(
        article.json()["meta"].get("notes").is_none(),
        "{}",
        article.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_names_the_thin_page_in_meta() {
    let server = site();
    let world = World::new();
    let client = stdio_client(&world, &[]).await;
    let result = client
        .call_tool(call(
            "web_fetch",
            json!({"urls": [server.url("/soon"), server.url("/article")]}),
        ))
        .await
        .unwrap();
    let meta = result.meta.as_ref().expect("a _meta");
    let notes = meta.0["trawl/notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["note"], "thin");
    assert!(notes[0]["url"].as_str().unwrap().ends_with("/soon"));
    client.cancel().await.unwrap();
}
