//! The SSRF table (trawl_testkit::ssrf) through the binary and the agent tools. Loopback
//! cases aim at a decoy on 127.0.0.1; the only opened address is 127.0.0.2; a fake jina
//! reader stands by to prove a refused URL is never handed to a fallback reader.

use std::time::Duration;

use trawl_agent::tools::{Agent, AgentConfig, ReaderConfig, ReaderKind, WebFetchArgs};
use trawl_fetch::{FetchConfig, Fetcher, GuardPolicy, HostRule};
use trawl_search::{Router, SearchConfig};
use trawl_store::{SharedStore, SqliteStore, StoreConfig};
use trawl_testkit::{Reply, TestNames, TestServer, ssrf};

use crate::util::{Run, run, temp_dir, trawl};

const REFUSED: [&str; 2] = ["blocked_by_policy", "invalid_input"];

fn assert_cli_refused(r: &Run, what: &str) {
    assert_ne!(r.code, 0, "{what} was read: {}", r.stdout);
    let v: serde_json::Value = match serde_json::from_str(&r.stdout) {
        Ok(v) => v,
        // Usage errors (exit 2) print no envelope; clap refused the argument.
        Err(_) => {
            assert_eq!(r.code, 2, "{what}: {}", r.stderr);
            return;
        }
    };
    let code = v["error"]["code"].as_str().unwrap_or_default();
    assert!(REFUSED.contains(&code), "{what}: {code}: {}", v["error"]);
}

fn jina() -> TestServer {
    let j = TestServer::start_on("127.0.0.4");
    j.route("/", Reply::ok("text/plain", "fetched by the reader"));
    j
}

#[test]
fn trawl_read_refuses_every_table_case() {
    trawl_testkit::require_isolation!();
    let decoy = TestServer::start_on("127.0.0.1");
    let reader = jina();
    let dir = temp_dir();
    let cases: Vec<_> = ssrf::cases(decoy.addr().port())
        .into_iter()
        .filter(|c| !c.fake_dns)
        .collect();
    for case in &cases {
        let r = run(trawl(&dir)
            .args(["read", &case.url, "--allow-host", "127.0.0.2", "--json"])
            .env("TRAWL_READERS", "jina")
            .env("TRAWL_READER_JINA_URL", reader.base()));
        assert_cli_refused(&r, &format!("[{}] {}", case.class, case.url));
    }
    assert!(decoy.seen().is_empty(), "decoy reached: {:?}", decoy.seen());
    assert!(
        reader.seen().is_empty(),
        "reader asked: {:?}",
        reader.seen()
    );
    assert!(cases.len() >= 90, "{}", cases.len());
}

#[test]
fn trawl_read_refuses_redirect_escapes_and_proxied_private_literals() {
    trawl_testkit::require_isolation!();
    let decoy = TestServer::start_on("127.0.0.1");
    let port = decoy.addr().port();
    let server = TestServer::start_on("127.0.0.2");
    let proxy = TestServer::start_on("127.0.0.3");
    let reader = jina();
    let dir = temp_dir();
    let mut n = 0;
    for status in [301u16, 302, 303, 307, 308] {
        for (i, target) in ssrf::redirect_targets(port).iter().enumerate() {
            let path = format!("/r{status}/{i}");
            server.route(&path, Reply::redirect(status, target));
            let r = run(trawl(&dir)
                .args(["read", &server.url(&path), "--allow-host", "127.0.0.2"])
                .arg("--json")
                .env("TRAWL_READERS", "jina")
                .env("TRAWL_READER_JINA_URL", reader.base()));
            assert_cli_refused(&r, &format!("{path} -> {target}"));
            n += 1;
        }
    }
    // With --proxy, literal private addresses are refused before the proxy is asked.
    for case in ssrf::cases(port)
        .iter()
        .filter(|c| matches!(c.class, "v4" | "v6" | "spelling"))
    {
        let r = run(trawl(&dir).args(["read", &case.url, "--proxy", &proxy.base(), "--json"]));
        assert_cli_refused(&r, &format!("--proxy {}", case.url));
        n += 1;
    }
    assert!(proxy.seen().is_empty(), "proxy asked: {:?}", proxy.seen());
    assert!(decoy.seen().is_empty(), "decoy reached: {:?}", decoy.seen());
    assert!(
        reader.seen().is_empty(),
        "reader asked: {:?}",
        reader.seen()
    );
    assert!(n >= 150, "{n}");
}

fn agent(reader: &TestServer) -> Agent {
    let lookup = TestNames::table(ssrf::NAMES).lookup();
    let fetcher = Fetcher::with_lookup(
        FetchConfig {
            timeout: Duration::from_secs(5),
            policy: GuardPolicy {
                allow_private_hosts: false,
                allow_hosts: vec![HostRule::parse("127.0.0.2").unwrap()],
            },
            ..FetchConfig::default()
        },
        lookup,
    )
    .unwrap();
    let store = SharedStore::new(SqliteStore::open_in_memory(StoreConfig::default()).unwrap());
    let router = Router::builder(closed_search_config()).build();
    let readers = vec![ReaderConfig::new(
        ReaderKind::Jina,
        url::Url::parse(&reader.url("/")).unwrap(),
        Vec::new(),
    )];
    Agent::new(
        fetcher,
        store,
        router,
        readers,
        reqwest::Client::new(),
        AgentConfig::default(),
    )
}

#[tokio::test]
async fn web_fetch_refuses_every_table_case_including_private_names() {
    trawl_testkit::require_isolation!();
    let decoy = TestServer::start_on("127.0.0.1");
    let reader = jina();
    let agent = agent(&reader);
    let cases = ssrf::cases(decoy.addr().port());
    for case in &cases {
        let what = format!("[{}] {}", case.class, case.url);
        let out = agent
            .web_fetch(
                WebFetchArgs {
                    url: Some(case.url.clone()),
                    ..WebFetchArgs::default()
                },
                None,
            )
            .await;
        let code = match out {
            Err(e) => e.code.as_str().to_owned(),
            Ok(out) => {
                let item = &out.results[0];
                assert!(!item.ok, "{what} was read");
                item.error.as_ref().unwrap().code.as_str().to_owned()
            }
        };
        assert!(REFUSED.contains(&code.as_str()), "{what}: {code}");
    }
    // A batch of them at once, too.
    let batch: Vec<String> = cases.iter().take(20).map(|c| c.url.clone()).collect();
    let out = agent
        .web_fetch(
            WebFetchArgs {
                urls: Some(batch),
                ..WebFetchArgs::default()
            },
            None,
        )
        .await
        .unwrap();
    assert!(out.results.iter().all(|r| !r.ok));
    assert!(decoy.seen().is_empty(), "decoy reached: {:?}", decoy.seen());
    assert!(
        reader.seen().is_empty(),
        "reader asked: {:?}",
        reader.seen()
    );
}

/// A search configuration whose every engine points at a closed loopback port (bound, then
/// let go), so this agent reaches no engine even outside the test namespace.
fn closed_search_config() -> SearchConfig {
    let port = trawl_testkit::free_port();
    let closed = url::Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
    let mut search = SearchConfig::default();
    for engine in trawl_search::engines::all() {
        search.set_base(engine.name(), closed.clone());
    }
    search
}
