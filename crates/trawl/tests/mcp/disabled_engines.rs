//! `disabled_engines` over MCP (issue 42 item 1): a disabled engine's tool is not listed,
//! on stdio and under `trawl serve`, and a server left with no engine refuses to start
//! unless `--fetch-only`.

use super::*;

async fn tool_names(client: &Client) -> Vec<String> {
    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    names.sort();
    names
}

/// Every engine trawl has, as `trawl engines` lists them.
fn every_engine(world: &World) -> String {
    let out = crate::util::run(crate::util::trawl(&world.dir).args(["engines", "--json"]));
    let names: Vec<String> = out.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.len() > 10, "{names:?}");
    names.join(",")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabled_arxiv_and_github_are_not_listed_on_either_transport() {
    let world = World::new();
    let expected = [
        "sites",
        "web_crawl",
        "web_fetch",
        "web_map",
        "web_open",
        "web_search",
    ];

    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_trawl"));
    cmd.arg("mcp")
        .current_dir(&world.dir)
        .env_clear()
        .envs(world.env())
        .env("TRAWL_DISABLED_ENGINES", "arxiv,github");
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn trawl mcp");
    let client = serve_client(transport).await;
    assert_eq!(tool_names(&client).await, expected);
    client.cancel().await.unwrap();

    let server = HttpServer::start(&world, &[], &[("TRAWL_DISABLED_ENGINES", "arxiv,github")]);
    let client = server.client(None).await;
    assert_eq!(tool_names(&client).await, expected);
    client.cancel().await.unwrap();
}

#[test]
fn every_engine_disabled_refuses_to_start_unless_fetch_only() {
    let world = World::new();
    let all = every_engine(&world);
    let mcp = |args: &[&str]| {
        crate::util::run(
            Command::new(env!("CARGO_BIN_EXE_trawl"))
                .arg("mcp")
                .args(args)
                .current_dir(&world.dir)
                .env_clear()
                .envs(world.env())
                .env("TRAWL_DISABLED_ENGINES", &all),
        )
    };
    let refused = mcp(&[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("no search engine is usable"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("disabled_engines"),
        "{}",
        refused.stderr
    );
    // Reading only, it starts (then stops at once: stdin is empty, no client).
    let fetch_only = mcp(&["--fetch-only"]);
    assert!(
        fetch_only
            .stderr
            .contains("event=start transport=stdio version="),
        "{}",
        fetch_only.stderr
    );
    assert!(
        fetch_only
            .stderr
            .contains("tools=sites,web_crawl,web_fetch,web_map,web_open engines=0"),
        "{}",
        fetch_only.stderr
    );
}
