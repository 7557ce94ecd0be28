//! `map --search` and `web_map {search}` (issue 42 item 6): words are stemmed as `open
//! --find` stems them (`volcano` finds `/volcanoes`), and a search nothing matches answers
//! no URL, with a note saying so, instead of the site's first URLs at score 0.

use super::*;

/// A home page linking an about page and a page about volcanoes.
fn site() -> TestServer {
    let server = TestServer::start();
    server.route(
        "/",
        Reply::html(
            "<html><head><title>Home</title></head><body><main><h1>Home</h1><ul>\
<li><a href=\"/about\">About us</a></li><li><a href=\"/volcanoes\">Fire mountains</a></li>\
</ul></main></body></html>",
        ),
    );
    server
}

#[test]
fn map_search_stems_and_answers_nothing_when_nothing_matches() {
    let server = site();
    let dir = crate::util::temp_dir();
    let map = |search: &str| {
        let r = crate::util::run(crate::util::trawl(&dir).args([
            "--store",
            ":memory:",
            "map",
            &server.url("/"),
            "--allow-host",
            "127.0.0.1",
            "--search",
            search,
            "--json",
        ]));
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.json()["data"].clone()
    };
    let volcano = map("volcano");
    assert_eq!(
        volcano["urls"][0]["url"],
        server.url("/volcanoes"),
        "{volcano}"
    );
    assert!(
        volcano["urls"][0]["score"].as_f64().unwrap() > 0.0,
        "{volcano}"
    );

    let nothing = map("dinosaur");
    assert_eq!(nothing["urls"], json!([]), "{nothing}");
    let notes = nothing["notes"].to_string();
    assert!(
        notes.contains("nothing matched \\\"dinosaur\\\""),
        "{notes}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_map_search_answers_nothing_when_nothing_matches() {
    let world = World::new();
    let server = site();
    let client = stdio_client(&world, &[]).await;
    let result = client
        .call_tool(call(
            "web_map",
            json!({"url": server.url("/"), "search": "dinosaur"}),
        ))
        .await
        .unwrap();
    let map = structured(&result);
    assert_eq!(map["urls"], json!([]), "{map}");
    assert!(
        map["notes"].to_string().contains("nothing matched"),
        "{map}"
    );
    assert!(
        text(&result).contains("note: search: nothing matched"),
        "{}",
        text(&result)
    );
    client.cancel().await.unwrap();
}
