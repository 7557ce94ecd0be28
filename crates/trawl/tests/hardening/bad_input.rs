//! Bad input: every flag and every MCP tool argument out of range, empty, too long, of the
//! wrong type or malformed is refused as `invalid_input` (exit 2 on the CLI) with a
//! message naming the field. Unicode queries and URLs work (IDN hosts go out as punycode).

use trawl_testkit::{Reply, TestServer};

use crate::hardening::secrets::mcp_exchange;
use crate::util::{run, temp_dir, trawl};

const URL: &str = "http://example.com/";

/// (arguments, a word the error must name). Every one is a usage error: exit 2.
fn cli_cases() -> Vec<(Vec<String>, &'static str)> {
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    let long_url = format!("http://example.com/{}", "a".repeat(100_000));
    let many: Vec<String> = (0..21).map(|i| format!("http://example.com/{i}")).collect();
    let mut out = vec![
        (s(&["read"]), "URL"),
        (s(&["read", ""]), "URL"),
        (s(&["read", "   "]), "URL"),
        (s(&["read", "http://[::1"]), "URL"),
        (s(&["read", "http://"]), "URL"),
        (s(&["read", URL, "--timeout", "abc"]), "timeout"),
        (s(&["read", URL, "--timeout", "-1"]), "timeout"),
        (s(&["read", URL, "--timeout", "NaN"]), "timeout"),
        (s(&["read", URL, "--timeout", "inf"]), "timeout"),
        (s(&["read", URL, "--timeout", "1e400"]), "timeout"),
        (s(&["read", URL, "--max-bytes", "-5"]), "max-bytes"),
        (s(&["read", URL, "--max-bytes", "lots"]), "max-bytes"),
        (
            s(&["read", URL, "--max-bytes", "99999999999999999999999"]),
            "max-bytes",
        ),
        (s(&["read", URL, "--proxy", ""]), "proxy"),
        (s(&["read", URL, "--proxy", "ftp://p"]), "proxy"),
        (s(&["read", URL, "--proxy", "not a url"]), "proxy"),
        (s(&["read", URL, "--allow-host", ""]), "allow-host"),
        (s(&["read", URL, "--allow-host", "bad host!"]), "allow-host"),
        (
            s(&["read", URL, "--allow-host", "10.0.0.0/99"]),
            "allow-host",
        ),
        (s(&["read", URL, "--page", "0"]), "page"),
        (s(&["read", URL, "--page", "-3"]), "page"),
        (s(&["read", URL, "--page", "x"]), "page"),
        (s(&["read", URL, "--page", "4294967296"]), "page"),
        (
            s(&["read", URL, "--page-size-tokens", "-1"]),
            "page-size-tokens",
        ),
        (
            s(&["read", URL, "--page-size-tokens", "x"]),
            "page-size-tokens",
        ),
        (s(&["read", URL, "--format", "yaml"]), "format"),
        (s(&["read", "-", "--url", "not a url"]), "url"),
        (s(&["read", URL, "--fresh", "--offline"]), "offline"),
        (s(&["read", &long_url]), "URL"),
        (s(&["search"]), "QUERY"),
        (s(&["search", ""]), "query"),
        (s(&["search", "   "]), "query"),
        (vec!["search".into(), "q".repeat(600)], "query"),
        (s(&["search", "q", "--max-results", "-1"]), "max-results"),
        (s(&["search", "q", "--max-results", "ten"]), "max-results"),
        (s(&["search", "q", "--route", "bogus"]), "route"),
        (s(&["search", "q", "--engines", "nosuch"]), "engines"),
        (s(&["search", "q", "--freshness", "decade"]), "freshness"),
        (s(&["search", "q", "--safesearch", "x"]), "safesearch"),
        (s(&["search", "q", "--page", "0"]), "page"),
        (s(&["search", "q", "--page", "abc"]), "page"),
        (s(&["search", "q", "--expand", ""]), "expand"),
        (s(&["search", "q", "--timeout", "-2"]), "timeout"),
        (
            s(&["search", "q", "--record", "a", "--replay", "b"]),
            "replay",
        ),
        (s(&["open"]), "handle"),
        (s(&["open", "nothandle"]), "handle"),
        (
            s(&["open", "example.com~0123456789ab", "--page", "0"]),
            "page",
        ),
        (
            s(&["open", "example.com~0123456789ab", "--page", "x"]),
            "page",
        ),
        (s(&["open", "--find", ""]), "find"),
        (s(&["open", "--find", "x", "--limit", "abc"]), "limit"),
        (s(&["cache", "bogus"]), "bogus"),
        (s(&["serve", "--listen", "not-an-address"]), "listen"),
        (s(&["serve", "--max-concurrent", "abc"]), "max-concurrent"),
        (s(&["mcp", "--max-concurrent", "-1"]), "max-concurrent"),
        (s(&["frobnicate"]), "frobnicate"),
    ];
    let mut batch = s(&["read"]);
    batch.extend(many);
    out.push((batch, "20"));
    out
}

#[test]
fn every_bad_flag_is_a_usage_error_naming_the_field() {
    let dir = temp_dir();
    let mut failures = Vec::new();
    let cases = cli_cases();
    for (args, field) in &cases {
        for json in [false, true] {
            let mut cmd = trawl(&dir);
            cmd.args(args);
            if json && !args.iter().any(|a| a == "cache" || a == "frobnicate") {
                cmd.arg("--json");
            }
            let r = run(&mut cmd);
            let shown: String = args
                .iter()
                .map(|a| a.chars().take(40).collect::<String>())
                .collect::<Vec<_>>()
                .join(" ");
            let said = format!("{}{}", r.stderr, r.stdout).to_ascii_lowercase();
            if r.code != 2 || !said.contains(&field.to_ascii_lowercase()) {
                failures.push(format!(
                    "{shown} (json={json}): exit {} naming {field:?}? stderr: {}",
                    r.code,
                    r.stderr.chars().take(300).collect::<String>()
                ));
                continue;
            }
            // With --json a refusal that got past clap is an Envelope with invalid_input.
            if json
                && let Ok(v) = serde_json::from_str::<serde_json::Value>(&r.stdout)
                && v["error"]["code"] != "invalid_input"
            {
                failures.push(format!("{shown}: code {}", v["error"]["code"]));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        cases.len() * 2,
        failures.join("\n")
    );
    assert!(cases.len() >= 50);
}

#[test]
fn bad_environment_values_are_usage_errors_naming_the_variable() {
    let dir = temp_dir();
    for (var, value) in [
        ("TRAWL_TIMEOUT", "soon"),
        ("TRAWL_MAX_BYTES", "-1"),
        ("TRAWL_ALLOW_PRIVATE_HOSTS", "perhaps"),
        ("TRAWL_PROXY", "gopher://x"),
    ] {
        let r = run(trawl(&dir).args(["read", URL, "--json"]).env(var, value));
        assert_eq!(r.code, 2, "{var}={value}: {} {}", r.stdout, r.stderr);
        let said = format!("{}{}", r.stderr, r.stdout);
        assert!(
            said.contains(var) || said.to_ascii_lowercase().contains("proxy"),
            "{var}: {said}"
        );
    }
}

/// Each call and the field its refusal must name.
fn mcp_cases() -> Vec<(serde_json::Value, &'static str)> {
    use serde_json::json;
    let call = |name: &str, args: serde_json::Value| json!({"name": name, "arguments": args});
    let many: Vec<String> = (0..21).map(|i| format!("http://example.com/{i}")).collect();
    vec![
        (call("web_search", json!({})), "query"),
        (call("web_search", json!({"query": ""})), "query"),
        (call("web_search", json!({"query": "   "})), "query"),
        (
            call("web_search", json!({"query": "q".repeat(501)})),
            "query",
        ),
        (call("web_search", json!({"query": 42})), "query"),
        (
            call("web_search", json!({"query": "q", "max_results": 0})),
            "max_results",
        ),
        (
            call("web_search", json!({"query": "q", "max_results": 51})),
            "max_results",
        ),
        (
            call("web_search", json!({"query": "q", "max_results": -1})),
            "max_results",
        ),
        (
            call("web_search", json!({"query": "q", "max_results": "ten"})),
            "max_results",
        ),
        (
            call("web_search", json!({"query": "q", "route": "bogus"})),
            "route",
        ),
        (
            call("web_search", json!({"query": "q", "engines": "duckduckgo"})),
            "engines",
        ),
        (
            call("web_search", json!({"query": "q", "engines": ["nosuch"]})),
            "engines",
        ),
        (
            call("web_search", json!({"query": "q", "freshness": "decade"})),
            "freshness",
        ),
        (
            call("web_search", json!({"query": "q", "safesearch": 1})),
            "safesearch",
        ),
        (call("web_search", json!({"query": "q", "page": 0})), "page"),
        (
            call("web_search", json!({"query": "q", "page": 11})),
            "page",
        ),
        (
            call("web_search", json!({"query": "q", "read_top": 11})),
            "read_top",
        ),
        (
            call("web_search", json!({"query": "q", "expand": ["", "x"]})),
            "expand",
        ),
        (
            call(
                "web_search",
                json!({"query": "q", "expand": ["a", "b", "c", "d", "e"]}),
            ),
            "expand",
        ),
        (
            call("web_search", json!({"query": "q", "qurey": "typo"})),
            "qurey",
        ),
        (call("web_fetch", json!({})), "url"),
        (call("web_fetch", json!({"url": ""})), "url"),
        (call("web_fetch", json!({"url": 7})), "url"),
        (call("web_fetch", json!({"url": "not a url"})), "url"),
        (call("web_fetch", json!({"urls": []})), "urls"),
        (call("web_fetch", json!({"urls": many})), "urls"),
        (
            call("web_fetch", json!({"urls": ["http://example.com/", ""]})),
            "urls",
        ),
        (
            call(
                "web_fetch",
                json!({"url": URL, "handle": "example.com~0123456789ab"}),
            ),
            "handle",
        ),
        (call("web_fetch", json!({"handle": "nothandle"})), "handle"),
        (call("web_fetch", json!({"url": URL, "page": 0})), "page"),
        (call("web_fetch", json!({"url": URL, "page": -1})), "page"),
        (
            call("web_fetch", json!({"url": URL, "page_size_tokens": "big"})),
            "page_size_tokens",
        ),
        (call("web_open", json!({})), "handle"),
        (call("web_open", json!({"handle": "nothandle"})), "handle"),
        (
            call(
                "web_open",
                json!({"handle": "example.com~0123456789ab", "page": 0}),
            ),
            "page",
        ),
        (call("web_open", json!({"find": ""})), "find"),
        (call("web_open", json!({"handle": 5})), "handle"),
        (call("arxiv", json!({"query": ""})), "query"),
        (call("github", json!({"query": ""})), "query"),
    ]
}

#[test]
fn every_bad_mcp_argument_is_invalid_input_naming_the_field() {
    let dir = temp_dir();
    let cases = mcp_cases();
    let calls: Vec<serde_json::Value> = cases.iter().map(|(c, _)| c.clone()).collect();
    let (stdout, stderr) = mcp_exchange(trawl(&dir).args(["mcp"]), &calls);
    let answers: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let mut failures = Vec::new();
    for (i, (call, field)) in cases.iter().enumerate() {
        let id = i + 2;
        let Some(a) = answers.iter().find(|a| a["id"] == id) else {
            failures.push(format!("{call}: no answer"));
            continue;
        };
        let text = a.to_string();
        let refused = if a.get("error").is_some() {
            // A protocol error (invalid params) must still name the field.
            true
        } else {
            a["result"]["isError"] == true && text.contains("invalid_input")
        };
        if !refused || !text.contains(field) {
            failures.push(format!(
                "{call} -> {}",
                text.chars().take(400).collect::<String>()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}\nstderr: {stderr}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn unicode_queries_and_idn_urls_work() {
    // An IDN host with an emoji path and an RTL query, through a loopback HTTP proxy: the
    // proxy sees the absolute-form request, so the host must already be punycode.
    let proxy = TestServer::start();
    let wire = "http://xn--bcher-kva.example/%F0%9F%A6%80/%D7%A9%D7%9C%D7%95%D7%9D?q=%D9%85%D8%B1%D8%AD%D8%A8%D8%A7";
    proxy.route(
        wire,
        Reply::html(
            "<html><head><title>Bücher 🦀 שלום</title></head><body><article><p>مرحبا بالعالم. \
             Ein Buch über Krebse 🦀 und ihre Geschichte, lang genug für einen Artikel. \
             שלום עולם, זה טקסט בעברית.</p></article></body></html>",
        ),
    );
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "read",
        "http://bücher.example/🦀/שלום?q=مرحبا",
        "--proxy",
        &proxy.base(),
        "--json",
    ]));
    assert_eq!(r.code, 0, "{} {}", r.stdout, r.stderr);
    let v = r.json();
    assert_eq!(v["data"]["title"], "Bücher 🦀 שלום");
    assert!(
        v["data"]["markdown"]
            .as_str()
            .unwrap()
            .contains("مرحبا بالعالم")
    );
    assert!(
        v["data"]["handle"]
            .as_str()
            .unwrap()
            .starts_with("xn--bcher-kva.example~")
            || v["data"]["handle"]
                .as_str()
                .unwrap()
                .starts_with("bücher.example~"),
        "{}",
        v["data"]["handle"]
    );
    assert_eq!(proxy.seen()[0].path, wire);

    // A Unicode query reaches the engine percent-encoded as UTF-8 and the answer is parsed.
    let engine = TestServer::start();
    engine.route(
        "/search",
        Reply::ok(
            "application/json",
            r#"{"query":"x","results":[{"url":"https://example.org/🦀","title":"Krebs 🦀 סרטן","content":"مرحبا","engine":"bing","engines":["bing"],"positions":[1]}]}"#,
        ),
    );
    let r = run(trawl(&dir)
        .args([
            "search",
            "שלום 🦀 日本語 مرحبا",
            "--engines",
            "searxng",
            "--json",
        ])
        .env("TRAWL_SEARXNG_URL", engine.base()));
    assert_eq!(r.code, 0, "{} {}", r.stdout, r.stderr);
    let v = r.json();
    assert_eq!(v["data"]["hits"][0]["title"], "Krebs 🦀 סרטן");
    let sent = &engine.seen()[0].path;
    assert!(
        sent.contains("%D7%A9%D7%9C%D7%95%D7%9D") && sent.contains("%F0%9F%A6%80"),
        "{sent}"
    );
}
