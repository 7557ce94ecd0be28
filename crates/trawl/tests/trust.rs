//! Configuration trust: a `.env` that came with a directory may give API keys and nothing
//! else. A loopback canary stands in for the attacker a planted `.env` would point at; it
//! must see no request and no key, while the `.env`'s key is still used.

use std::path::Path;

use trawl_testkit::{Reply, TestServer};

use crate::util::{run, temp_dir, trawl};

const KEY: &str = "brvKEY-dotenv-5e1f0c9a7b3d2468";

/// A planted `.env` aiming everything it can at `canary`.
fn hostile_dotenv(dir: &Path, canary: &TestServer) {
    let c = canary.base();
    std::fs::write(
        dir.join(".env"),
        format!(
            "BRAVE_API_KEY={KEY}\n\
             TRAWL_BRAVE_API_URL={c}/\n\
             TRAWL_READER_JINA_URL={c}/\n\
             TRAWL_READERS=jina\n\
             TRAWL_PROXY={c}\n\
             TRAWL_ALLOW_PRIVATE_HOSTS=1\n\
             TRAWL_ALLOW_HOSTS=127.0.0.0/8\n\
             TRAWL_STORE={}/planted.db\n\
             PROJECT_DATABASE_URL=postgres://db/app\n",
            dir.display()
        ),
    )
    .unwrap();
}

fn assert_canary_untouched(canary: &TestServer) {
    let seen = canary.seen();
    assert!(seen.is_empty(), "the canary was reached: {seen:?}");
}

#[test]
fn a_dotenv_in_a_parent_directory_is_not_read() {
    let dir = temp_dir();
    std::fs::write(
        dir.join(".env"),
        "BRAVE_API_KEY=parent-key-123456\nEXA_API_KEY=parent-exa-123456\n",
    )
    .unwrap();
    let sub = dir.join("project");
    std::fs::create_dir_all(&sub).unwrap();
    let r = run(trawl(&sub).args(["config", "show", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d = &r.json()["data"];
    assert!(d["keys"].get("BRAVE_API_KEY").is_none(), "{d}");
    assert!(d["keys"].get("EXA_API_KEY").is_none(), "{d}");
    assert!(d["dotenv_file"].is_null(), "{d}");
    // The same file is read from its own directory.
    let r = run(trawl(&dir).args(["config", "show", "--json"]));
    assert_eq!(
        r.json()["data"]["keys"]["BRAVE_API_KEY"]["source"],
        "dotenv"
    );
}

#[test]
fn config_show_names_the_layers_and_the_ignored_lines() {
    let dir = temp_dir();
    let canary = TestServer::start();
    hostile_dotenv(&dir, &canary);
    let r = run(trawl(&dir).args(["config", "show", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d = &r.json()["data"];
    assert_eq!(d["proxy"]["value"], serde_json::Value::Null);
    assert_eq!(d["allow_private_hosts"]["value"], false);
    assert_eq!(d["allow_hosts"]["value"], serde_json::json!([]));
    assert_eq!(d["store"]["source"], "default");
    assert_eq!(d["readers"]["value"], serde_json::json!([]));
    assert_eq!(d["url_overrides"], serde_json::json!({}));
    assert_eq!(d["keys"]["BRAVE_API_KEY"]["source"], "dotenv");
    let ignored: Vec<&str> = d["ignored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["key"].as_str().unwrap())
        .collect();
    for key in [
        "TRAWL_BRAVE_API_URL",
        "TRAWL_READER_JINA_URL",
        "TRAWL_READERS",
        "TRAWL_PROXY",
        "TRAWL_ALLOW_PRIVATE_HOSTS",
        "TRAWL_ALLOW_HOSTS",
        "TRAWL_STORE",
    ] {
        assert!(ignored.contains(&key), "{key} not listed in {ignored:?}");
        // One warning line per ignored key, naming the file.
        let line = r
            .stderr
            .lines()
            .find(|l| l.contains(key))
            .unwrap_or_else(|| panic!("no warning for {key}: {}", r.stderr));
        assert!(
            line.starts_with("warning:") && line.contains(".env"),
            "{line}"
        );
    }
    assert!(
        !ignored.contains(&"PROJECT_DATABASE_URL"),
        "not trawl's business"
    );
    assert!(!r.stdout.contains(KEY) && !r.stderr.contains(KEY));
    let r = run(trawl(&dir)
        .args(["config", "show", "--json"])
        .env("TRAWL_TIMEOUT", "9")
        .env("TAVILY_API_KEY", "tvly-env-key-98765"));
    let env = &r.json()["data"]["environment"];
    assert_eq!(env["TRAWL_TIMEOUT"], "setting", "{env}");
    assert_eq!(env["TAVILY_API_KEY"], "api key", "{env}");
    assert!(!r.stdout.contains("tvly-env-key-98765"));
    // The human form shows the same.
    let r = run(trawl(&dir).args(["config", "show"]));
    assert!(r.stdout.contains("BRAVE_API_KEY = ") && r.stdout.contains("# dotenv"));
    assert!(
        r.stdout.contains("# ignored: TRAWL_PROXY in "),
        "{}",
        r.stdout
    );
}

/// The `.env`'s key goes where the user's environment says (a loopback stand-in for
/// Brave), its own base URL and proxy are not used, and its allow-private-hosts does not
/// open loopback: the canary sees nothing at all.
#[test]
fn a_planted_dotenv_changes_nothing_but_its_key_is_used() {
    let dir = temp_dir();
    let canary = TestServer::start();
    let brave = TestServer::start();
    brave.route(
        "/",
        Reply::ok("application/json", r#"{"web":{"results":[]}}"#),
    );
    hostile_dotenv(&dir, &canary);
    let r = run(trawl(&dir)
        .args(["search", "rust", "--engines", "brave_api", "--json"])
        .env("TRAWL_BRAVE_API_URL", brave.base()));
    let seen = brave.seen();
    assert!(
        !seen.is_empty(),
        "brave was not asked: {}\n{}",
        r.stdout,
        r.stderr
    );
    assert_eq!(
        seen[0]
            .headers
            .get("x-subscription-token")
            .map(String::as_str),
        Some(KEY),
        "the .env key is used"
    );
    let r = run(trawl(&dir).args(["read", &canary.url("/secret"), "--json"]));
    assert_ne!(r.code, 0, "loopback was read: {}", r.stdout);
    assert_eq!(
        r.json()["error"]["code"],
        "blocked_by_policy",
        "{}",
        r.stdout
    );
    assert_canary_untouched(&canary);
    assert!(
        !dir.join("planted.db").exists(),
        "the planted store path was used"
    );
}

/// Without the user's override the `.env`'s key goes to Brave's own host (unreachable in
/// the loopback-only namespace), never to the `.env`'s base URL or proxy.
#[test]
fn a_planted_base_url_never_receives_the_key() {
    trawl_testkit::require_isolation!();
    let dir = temp_dir();
    let canary = TestServer::start();
    hostile_dotenv(&dir, &canary);
    let r = run(trawl(&dir).args(["search", "rust", "--engines", "brave_api", "--json"]));
    assert!(!r.stdout.contains(KEY) && !r.stderr.contains(KEY));
    assert!(
        r.stdout.contains("brave_api"),
        "brave_api was not tried with the .env key: {}",
        r.stdout
    );
    assert_canary_untouched(&canary);
}

/// `trawl_core::vars` documents every variable the code reads, and no `"TRAWL_…"` literal
/// exists outside it and the tests.
#[test]
fn every_variable_is_named_in_one_place() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let vars_module = root.join("crates/trawl-core/src/vars.rs");
    let mut offenders = Vec::new();
    let mut stack = vec![root.join("crates")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                // Test code may spell variables out; test support (trawl-testkit) too.
                if !matches!(name.as_str(), "tests" | "target" | "trawl-testkit" | "fuzz") {
                    stack.push(path);
                }
                continue;
            }
            if !name.ends_with(".rs") || path == vars_module {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Unit tests sit at the end of a file, after `#[cfg(test)]`.
            let code = text.split("#[cfg(test)]").next().unwrap();
            for (n, line) in code.lines().enumerate() {
                if line.contains("\"TRAWL_") {
                    offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "use trawl_core::vars:\n{}",
        offenders.join("\n")
    );
    // The variables read through other crates' own tables are documented too.
    for engine in trawl_search::engines::all() {
        let var = trawl_core::vars::engine_url(engine.name());
        assert!(trawl_core::vars::lookup(&var).is_some(), "{var}");
        if let Some(key) = engine.key_env() {
            let v = trawl_core::vars::lookup(key).unwrap_or_else(|| panic!("{key}"));
            assert_eq!(v.trust, trawl_core::vars::Trust::ApiKey, "{key}");
        }
    }
    for reader in trawl_agent::tools::ReaderKind::ALL {
        assert!(trawl_core::vars::lookup(&reader.url_var()).is_some());
        assert!(trawl_core::vars::lookup(reader.key_var()).is_some());
    }
}

/// The README's table of variables is the one `trawl config vars` prints.
#[test]
fn the_readme_lists_every_variable() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let table = trawl_core::vars::markdown_table();
    assert!(
        readme.contains(&table),
        "README.md's variable table is out of date: replace it with `trawl config vars`"
    );
    let r = run(trawl(&temp_dir()).args(["config", "vars"]));
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, table);
}
