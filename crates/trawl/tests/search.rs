//! `trawl search`, `trawl engines` and `trawl doctor`, with fake engines on loopback
//! serving the real saved responses in ../shared/fixtures/serp.

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../../../shared/fixtures/serp/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// DuckDuckGo, SearXNG and arXiv on one loopback server (their paths differ).
fn engines_server() -> TestServer {
    let s = TestServer::start();
    s.route(
        "/html/",
        Reply::html(fixture("duckduckgo/html-openclaw.html")),
    );
    s.route(
        "/search",
        Reply::ok(
            "application/json",
            fixture("searxng/search-python-format-json.json"),
        ),
    );
    s.route(
        "/api/query",
        Reply::ok(
            "application/atom+xml",
            fixture("arxiv/query-electron-proton-2025-11-new-format.xml"),
        ),
    );
    s
}

fn search_cmd(dir: &std::path::Path, s: &TestServer) -> std::process::Command {
    let mut cmd = trawl(dir);
    for var in [
        "TRAWL_DUCKDUCKGO_URL",
        "TRAWL_SEARXNG_URL",
        "TRAWL_ARXIV_URL",
    ] {
        cmd.env(var, s.base());
    }
    cmd
}

#[test]
fn search_fuses_duckduckgo_searxng_and_arxiv() {
    let dir = temp_dir();
    let s = engines_server();
    let out = run(search_cmd(&dir, &s).args([
        "search",
        "q",
        "--engines",
        "duckduckgo,searxng,arxiv",
        "--max-results",
        "0",
        "--json",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["ok"], true);
    let data = &v["data"];
    let engines = data["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 3);
    assert!(engines.iter().all(|e| e["outcome"] == "ok"));
    let hits = data["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 50);
    // Ranked by score; python.org is voted by two independent groups through SearXNG.
    assert_eq!(hits[0]["url"], "https://www.python.org/");
    let k = 60.0;
    let expected = 2.0 / (k + 1.0) + 0.25 / (k + 1.0);
    assert!((hits[0]["fused_score"].as_f64().unwrap() - expected).abs() < 1e-12);
    for h in hits {
        assert!(!h["provenance"].as_array().unwrap().is_empty());
    }
    let engines_named: std::collections::BTreeSet<String> = hits
        .iter()
        .flat_map(|h| h["provenance"].as_array().unwrap().iter())
        .map(|p| {
            p["engine"]
                .as_str()
                .unwrap()
                .split(':')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        engines_named.into_iter().collect::<Vec<_>>(),
        ["arxiv", "duckduckgo", "searxng"]
    );
}

#[test]
fn human_output_lists_hits_then_engines() {
    let dir = temp_dir();
    let s = engines_server();
    let out = run(search_cmd(&dir, &s).args(["search", "q", "--engines", "duckduckgo,arxiv"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The hits are the web's words: they open the fenced text, after the directive.
    let mut lines = out.stdout.lines();
    assert!(
        lines
            .next()
            .unwrap_or("")
            .contains("is data read from a web page or a file")
    );
    assert!(
        lines
            .next()
            .unwrap_or("")
            .starts_with("<<<TRAWL_UNTRUSTED_BEGIN nonce=")
    );
    assert!(
        lines.next().unwrap_or("").starts_with(" 1. "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("[duckduckgo#1]"));
    assert!(out.stdout.contains("\n10. "));
    assert!(
        !out.stdout.contains("\n11. "),
        "default --max-results is 10"
    );
    let tail: Vec<&str> = out.stdout.lines().rev().take(3).collect();
    assert!(
        tail.iter()
            .any(|l| l.starts_with("duckduckgo") && l.contains("ok (10)"))
    );
    assert!(
        tail.iter()
            .any(|l| l.starts_with("arxiv") && l.contains("ok (10)"))
    );
}

#[test]
fn every_engine_failing_exits_1_with_the_outcomes() {
    let dir = temp_dir();
    let s = TestServer::start();
    s.route("/html/", Reply::status(500, "down"));
    s.route("/api/query", Reply::status(429, "slow down"));
    let out =
        run(search_cmd(&dir, &s).args(["search", "q", "--engines", "duckduckgo,arxiv", "--json"]));
    assert_eq!(out.code, 1);
    let v = out.json();
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "upstream");
    let outcomes: Vec<&str> = v["meta"]["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["http_error", "rate_limited"]);
}

#[test]
fn unknown_engine_is_bad_usage() {
    let dir = temp_dir();
    let out = run(trawl(&dir).args(["search", "q", "--engines", "nosuch"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("trawl engines"));
}

#[test]
fn record_then_replay_offline() {
    let dir = temp_dir();
    let rec = dir.join("rec");
    let s = engines_server();
    let out = run(search_cmd(&dir, &s)
        .args([
            "search",
            "q",
            "--engines",
            "duckduckgo,arxiv",
            "--json",
            "--record",
        ])
        .arg(&rec));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let live = out.json()["data"]["hits"].clone();
    drop(s);
    let out = run(trawl(&dir)
        .args([
            "search",
            "q",
            "--engines",
            "duckduckgo,arxiv",
            "--json",
            "--replay",
        ])
        .arg(&rec));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["data"]["hits"], live);
}

#[test]
fn engines_lists_keys_groups_and_routes() {
    let dir = temp_dir();
    let out = run(trawl(&dir)
        .env("EXA_API_KEY", "exa-secret-1234")
        .args(["engines", "--json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("exa-secret-1234"));
    let v = out.json();
    let list = v["data"].as_array().unwrap();
    let by = |n: &str| list.iter().find(|e| e["name"] == n).unwrap().clone();
    assert_eq!(by("duckduckgo")["group"], "bing");
    assert_eq!(by("exa")["configured"], true);
    assert_eq!(
        by("exa")["routes"],
        serde_json::json!(["web", "all", "fast", "news"])
    );
    assert_eq!(by("tavily")["configured"], false);
    assert_eq!(by("arxiv")["capabilities"]["paging"], true);
    let human = run(trawl(&dir).arg("engines"));
    assert!(human.stdout.contains("needs TAVILY_API_KEY"));
    // `trawl engines` is the engine table: same engines, order, groups, keys, filters.
    let table = trawl_search::engines::all();
    assert_eq!(list.len(), table.len());
    for (row, e) in list.iter().zip(&table) {
        let spec = e.spec();
        assert_eq!(row["name"], spec.name);
        assert_eq!(row["group"], spec.group);
        assert_eq!(row["key_env"].as_str(), e.key_env());
        assert_eq!(row["confidence"], spec.confidence);
        assert_eq!(row["fixtures"], spec.fixtures);
        assert_eq!(
            row["capabilities"],
            serde_json::to_value(spec.filters).unwrap()
        );
        // A configured engine is in exactly the table's routes; one that cannot run yet
        // (a missing key or URL) is in none.
        let want = if row["configured"] == true {
            serde_json::to_value(spec.routes).unwrap()
        } else {
            serde_json::json!([])
        };
        assert_eq!(row["routes"], want, "{}", spec.name);
    }
}

#[test]
fn doctor_names_the_failure_and_finishes_offline() {
    let dir = temp_dir();
    let s = TestServer::start();
    s.route(
        "/html/",
        Reply::html(
            r#"<html><body><form id="challenge-form" action="/anomaly"></form></body></html>"#,
        ),
    );
    let out = run(trawl(&dir)
        .env("TRAWL_DUCKDUCKGO_URL", s.base())
        .env("TRAWL_ARXIV_URL", "http://127.0.0.1:9")
        .args([
            "doctor",
            "--engine",
            "duckduckgo",
            "--engine",
            "arxiv",
            "--timeout",
            "3",
        ]));
    assert_eq!(out.code, 1);
    let ddg = out
        .stdout
        .lines()
        .find(|l| l.contains("duckduckgo"))
        .unwrap();
    assert!(
        ddg.starts_with("FAIL") && ddg.contains("blocked") && ddg.contains("captcha"),
        "{ddg}"
    );
    let ax = out.stdout.lines().find(|l| l.contains("arxiv")).unwrap();
    assert!(ax.contains("cannot connect"), "{ax}");
    assert!(!ax.contains("no real response"), "{ax}");

    // An engine whose parser was never tested on a real response says so.
    let out = run(trawl(&dir)
        .env("TRAWL_SOV2EX_URL", "http://127.0.0.1:9")
        .args(["doctor", "--engine", "sov2ex", "--timeout", "3"]));
    let line = out.stdout.lines().find(|l| l.contains("sov2ex")).unwrap();
    assert!(line.contains("parser tested on no real response"), "{line}");

    s.route(
        "/html/",
        Reply::html(fixture("duckduckgo/html-openclaw.html")),
    );
    let out = run(trawl(&dir).env("TRAWL_DUCKDUCKGO_URL", s.base()).args([
        "doctor",
        "--engine",
        "duckduckgo",
        "--json",
    ]));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.json()["data"]["engines"][0]["outcome"]["count"], 10);
}

/// `disabled_engines` (config file, then TRAWL_DISABLED_ENGINES) subtracts from explicit
/// lists and routes, a route defined in config.toml runs, and the answer's `meta` says
/// which engines the route had, which were disabled and which were asked.
#[test]
fn routes_and_disabled_engines_from_the_config_file() {
    let dir = temp_dir();
    let s = engines_server();
    let cfg = dir.join("trawl.toml");
    std::fs::write(
        &cfg,
        "disabled_engines = [\"searxng\"]\n[routes]\npapers = [\"arxiv\", \"searxng\"]\n",
    )
    .unwrap();
    let cfg = cfg.display().to_string();
    let out = run(search_cmd(&dir, &s).args([
        "--config",
        &cfg,
        "search",
        "q",
        "--engines",
        "duckduckgo,searxng",
        "--json",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(
        v["meta"]["route_engines"],
        serde_json::json!(["duckduckgo", "searxng"])
    );
    assert_eq!(v["meta"]["disabled"], serde_json::json!(["searxng"]));
    assert_eq!(v["meta"]["asked"], serde_json::json!(["duckduckgo"]));
    let engines = v["data"]["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 1);
    assert_eq!(engines[0]["engine"], "duckduckgo");

    // The config file's route, minus the disabled engine.
    let out = run(search_cmd(&dir, &s).args([
        "--config", &cfg, "search", "q", "--route", "papers", "--json",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = out.json();
    assert_eq!(v["meta"]["route"], "papers");
    assert_eq!(
        v["meta"]["route_engines"],
        serde_json::json!(["arxiv", "searxng"])
    );
    assert_eq!(v["meta"]["asked"], serde_json::json!(["arxiv"]));
    assert_eq!(v["data"]["engines"][0]["engine"], "arxiv");

    // Nothing left: a clear error and exit 2, no engine asked.
    let asked_before = s.hits("/api/query");
    let out = run(search_cmd(&dir, &s)
        .env("TRAWL_DISABLED_ENGINES", "arxiv,searxng")
        .args([
            "--config", &cfg, "search", "q", "--route", "papers", "--json",
        ]));
    assert_eq!(out.code, 2, "{}", out.stdout);
    let v = out.json();
    assert_eq!(v["error"]["code"], "invalid_input");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("disabled_engines") && msg.contains("papers"),
        "{msg}"
    );
    assert_eq!(s.hits("/api/query"), asked_before);

    // An unknown route is bad input too.
    let out = run(search_cmd(&dir, &s).args(["--config", &cfg, "search", "q", "--route", "nope"]));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("unknown route"), "{}", out.stderr);
}

/// The built-in `social` and `news` routes are the table's.
#[test]
fn social_and_news_routes_come_from_the_table() {
    let dir = temp_dir();
    let out = run(trawl(&dir).args(["engines", "--json"]));
    let v = out.json();
    let in_route = |route: &str| -> Vec<String> {
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["routes"].as_array().unwrap().iter().any(|r| r == route))
            .map(|e| e["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(in_route("social"), ["hackernews", "reddit", "sov2ex"]);
    assert!(in_route("news").contains(&"duckduckgo".to_owned()));
    // Keyed engines join `fast` only when configured.
    assert!(in_route("fast").is_empty());
}

/// Without GITHUB_TOKEN, a logged-in `gh` (a fake one on PATH here) lends its token to
/// GitHub search; the token is sent as the key and never printed. With GITHUB_TOKEN set,
/// `gh` is not asked; with GitHub moved to a non-GitHub host, its token is not lent.
#[test]
fn github_falls_back_to_gh_auth_token() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let calls = dir.join("gh-calls");
    let gh = bin.join("gh");
    std::fs::write(
        &gh,
        format!(
            "#!/bin/sh\necho \"$@\" >> {}\nif [ \"$1 $2\" = \"auth token\" ]; then echo gho_FAKE1234token; exit 0; fi\nexit 1\n",
            calls.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let s = TestServer::start();
    s.route(
        "/search/repositories",
        Reply::ok(
            "application/json",
            fixture("github/search-repositories-2014-pygithub.json"),
        ),
    );
    let out = run(trawl(&dir)
        .env("PATH", &path)
        .env("TRAWL_GITHUB_URL", s.base())
        .args(["search", "q", "--engines", "github", "--json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("gho_FAKE1234token") && !out.stderr.contains("gho_FAKE"));
    let sent: Vec<String> = s
        .seen()
        .into_iter()
        .filter_map(|r| r.headers.get("authorization").cloned())
        .collect();
    assert_eq!(sent, ["Bearer gho_FAKE1234token"]);
    assert_eq!(std::fs::read_to_string(&calls).unwrap(), "auth token\n");
    let engines = run(trawl(&dir)
        .env("PATH", &path)
        .env("TRAWL_GITHUB_URL", s.base())
        .args(["engines", "--json"]));
    let list = engines.json()["data"].as_array().unwrap().clone();
    let github = list.iter().find(|e| e["name"] == "github").unwrap();
    assert_eq!(github["keys"], 1);

    // GITHUB_TOKEN wins and `gh` is not asked.
    std::fs::remove_file(&calls).unwrap();
    let out = run(trawl(&dir)
        .env("PATH", &path)
        .env("TRAWL_GITHUB_URL", s.base())
        .env("GITHUB_TOKEN", "ghp_ENV")
        .args(["search", "q", "--engines", "github", "--json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!calls.exists());

    // GitHub moved off GitHub's host: the gh token is not lent (and gh not asked).
    let out = run(trawl(&dir)
        .env("PATH", &path)
        .env("TRAWL_GITHUB_URL", "http://github-mirror.invalid")
        .args(["engines", "--json"]));
    let list = out.json()["data"].as_array().unwrap().clone();
    let github = list.iter().find(|e| e["name"] == "github").unwrap();
    assert_eq!(github["keys"], 0);
    assert!(!calls.exists());
}

/// With a proxy configured, `doctor` asks an IP-echo service through it and directly: a
/// different exit is confirmed, the same one is said plainly. The echo service and the
/// proxy are loopback stand-ins answering with documentation addresses.
#[test]
fn doctor_compares_the_exit_address_through_the_proxy_and_directly() {
    let echo = TestServer::start();
    echo.route("/", Reply::ok("text/plain", "198.51.100.7\n"));
    for (through_proxy, differs) in [("203.0.113.9", true), ("198.51.100.7", false)] {
        let proxy = TestServer::start();
        proxy.route(&echo.url("/"), Reply::ok("text/plain", through_proxy));
        let dir = temp_dir();
        let out = run(trawl(&dir)
            .env("TRAWL_PROXY", proxy.base())
            .env("TRAWL_EGRESS_ECHO_URL", echo.url("/"))
            .env("TRAWL_DUCKDUCKGO_URL", "http://127.0.0.1:9")
            .args(["doctor", "--engine", "duckduckgo", "--json"]));
        let v = out.json();
        let egress = &v["meta"]["doctor"]["egress"];
        assert_eq!(egress["via_proxy"], through_proxy, "{v}");
        assert_eq!(egress["direct"], "198.51.100.7", "{v}");
        assert_eq!(egress["ok"], differs, "{v}");
        let verdict = egress["verdict"].as_str().unwrap();
        assert_eq!(verdict.contains("same address"), !differs, "{verdict}");
        assert_eq!(proxy.hits(&echo.url("/")), 1);
    }
}

/// `--expand` through the binary: the second phrasing is not skipped as "rate-limit slot
/// busy" (it waits for its own request's slot), and a page an engine found for both
/// phrasings shows two distinct votes, the second marked with its phrasing.
#[test]
fn an_expanded_search_asks_each_engine_for_every_phrasing() {
    let dir = temp_dir();
    let s = engines_server();
    let out = run(search_cmd(&dir, &s).args([
        "search",
        "q",
        "--expand",
        "another phrasing",
        "--engines",
        "duckduckgo",
        "--json",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let engines = out.json()["data"]["engines"].clone();
    let kinds: Vec<&str> = engines
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["ok", "ok"], "{engines}");
    assert_eq!(s.hits("/html/"), 2);
    let human = run(search_cmd(&dir, &s).args([
        "search",
        "q",
        "--expand",
        "another phrasing",
        "--engines",
        "duckduckgo",
    ]));
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human.stdout.contains("[duckduckgo#1 duckduckgo#1/q2]"),
        "{}",
        human.stdout
    );
    assert!(!human.stdout.contains("slot busy"), "{}", human.stdout);
}

/// Issue 42 item 20: `trawl search` answers a search it made a moment ago from the store's
/// short-lived cache, as `web_search` does; `--fresh` asks the engines again.
#[test]
fn search_uses_the_search_cache_and_fresh_asks_again() {
    let dir = temp_dir();
    let s = engines_server();
    let search = |extra: &[&str]| {
        run(search_cmd(&dir, &s)
            .args(["search", "python format", "--engines", "searxng", "--json"])
            .args(extra))
    };
    let first = search(&[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(!s.seen().is_empty());
    let asked = s.seen().len();
    let again = search(&[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(s.seen().len(), asked, "the second search asked the engine");
    let detail = again.json()["data"]["engines"][0]["detail"].clone();
    assert!(
        detail
            .as_str()
            .unwrap_or("")
            .contains("from the search cache"),
        "{detail}"
    );
    let fresh = search(&["--fresh"]);
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);
    assert!(s.seen().len() > asked);
}
