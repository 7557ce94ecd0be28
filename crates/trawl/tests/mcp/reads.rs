//! Issue 25 over MCP: `web_fetch` with `query` (per document of a batch) and with
//! `changes`, and `web_open` with `version`; page text in the answers stays fenced.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn focused_and_change_tracking_reads_over_stdio() {
    let world = World::new();
    let before = article("Tide tables", 40);
    let after = before.replace(
        "Paragraph 7 of Tide tables",
        "Paragraph 7 (revised) of Tide tables",
    );
    world.pages.route(
        "/edited",
        Reply::Sequence(vec![Reply::html(before), Reply::html(after)]),
    );
    let client = stdio_client(&world, &[]).await;

    // A batch, each document within its own budget.
    let urls = [world.pages.url("/article"), world.pages.url("/second")];
    let result = client
        .call_tool(call(
            "web_fetch",
            json!({"urls": urls, "query": "harbour seals paragraph 12", "max_tokens": 200}),
        ))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    let data = structured(&result);
    for item in data["results"].as_array().unwrap() {
        let doc = &item["document"];
        assert!(doc["focus"]["tokens"].as_u64().unwrap() <= 200, "{doc}");
        assert!(
            doc["focus"]["left_out_tokens"].as_u64().unwrap() > 0,
            "{doc}"
        );
        assert!(
            doc["markdown"]
                .as_str()
                .unwrap()
                .contains("<<<TRAWL_UNTRUSTED_BEGIN")
        );
    }
    assert!(text(&result).contains("Left out: "), "{}", text(&result));
    let bad = client
        .call_tool(call(
            "web_fetch",
            json!({"url": urls[0], "max_tokens": 200}),
        ))
        .await
        .unwrap();
    assert_eq!(error_code(&bad), "invalid_input");

    // Change tracking: new, then changed with its diff fenced, then the old copy by version.
    let url = world.pages.url("/edited");
    let track = || call("web_fetch", json!({"url": url, "changes": true}));
    let first = client.call_tool(track()).await.unwrap();
    assert_eq!(
        structured(&first)["results"][0]["document"]["changes"]["change_status"],
        "new"
    );
    let second = client.call_tool(track()).await.unwrap();
    let doc = &structured(&second)["results"][0]["document"];
    let changes = &doc["changes"];
    assert_eq!(changes["change_status"], "changed", "{doc}");
    let diff = changes["diff"].as_str().unwrap();
    assert!(
        diff.contains("<<<TRAWL_UNTRUSTED_BEGIN"),
        "the diff is page text: {diff}"
    );
    assert!(
        diff.contains("+Paragraph 7 (revised) of Tide tables"),
        "{diff}"
    );
    let shown = text(&second);
    assert!(shown.contains("change_status: changed"), "{shown}");
    assert!(shown.contains("version=1"), "{shown}");
    let handle = doc["handle"].as_str().unwrap();
    let old = client
        .call_tool(call(
            "web_open",
            json!({"handle": handle, "version": 1, "page_size_tokens": 0}),
        ))
        .await
        .unwrap();
    let old = structured(&old);
    assert_eq!(old["version"], 1);
    let md = old["markdown"].as_str().unwrap();
    assert!(md.contains("Paragraph 7 of Tide tables") && !md.contains("(revised)"));
    client.cancel().await.unwrap();
}
