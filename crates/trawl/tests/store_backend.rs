//! Choosing the store backend from the command line: the shared Redis by flag, config file
//! or real environment (never `.env`), a clear error naming the URL when it does not
//! answer, `--store-fallback memory`, and `doctor`'s Redis check.

use trawl_testkit::{RedisServer, free_port};

use crate::util::{run, temp_dir, trawl};

#[test]
fn an_unreachable_redis_is_an_error_naming_the_url_without_its_password() {
    let dir = temp_dir();
    let port = free_port();
    let url = format!("redis://user:pw-secret-42@127.0.0.1:{port}/0");
    let r = run(trawl(&dir).args(["cache", "stats", "--redis", &url]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains(&format!("redis://****@127.0.0.1:{port}/0")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--store-fallback memory"), "{}", r.stderr);
    assert!(!r.stderr.contains("pw-secret-42") && !r.stdout.contains("pw-secret-42"));
}

#[test]
fn store_fallback_memory_warns_and_runs_on_a_private_store() {
    let dir = temp_dir();
    let url = format!("redis://127.0.0.1:{}", free_port());
    let r = run(trawl(&dir).args([
        "cache",
        "stats",
        "--json",
        "--redis",
        &url,
        "--store-fallback",
        "memory",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("warning") && r.stderr.contains(&url),
        "{}",
        r.stderr
    );
    assert_eq!(r.json()["data"]["stats"]["location"], ":memory:");
    let bad = run(trawl(&dir).args([
        "cache",
        "stats",
        "--redis",
        &url,
        "--store-fallback",
        "disk",
    ]));
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn a_config_file_selects_redis_and_a_dotenv_cannot() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let dir = temp_dir();
    // A `.env` (say, in a cloned repository) naming a Redis is ignored.
    std::fs::write(
        dir.join(".env"),
        format!("TRAWL_REDIS_URL={}\n", redis.url()),
    )
    .unwrap();
    let r = run(trawl(&dir).args(["cache", "stats", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_ne!(r.json()["data"]["stats"]["location"], redis.url());

    std::fs::create_dir_all(dir.join(".config/trawl")).unwrap();
    std::fs::write(
        dir.join(".config/trawl/config.toml"),
        format!("redis = \"{}\"\nredis_prefix = \"team:\"\n", redis.url()),
    )
    .unwrap();
    let r = run(trawl(&dir).args(["cache", "stats", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["data"]["stats"]["location"], redis.url());
    let shown = run(trawl(&dir).args(["config", "show", "--json"]));
    assert_eq!(shown.json()["data"]["redis"]["source"], "file");
    assert_eq!(shown.json()["data"]["redis_prefix"]["value"], "team:");
    // The real environment beats the file.
    let r = run(trawl(&dir).args(["cache", "stats", "--json"]).env(
        "TRAWL_REDIS_URL",
        format!("redis://127.0.0.1:{}", free_port()),
    ));
    assert_eq!(r.code, 1, "{}", r.stderr);
}

#[test]
fn doctor_checks_redis() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let dir = temp_dir();
    let r = run(trawl(&dir)
        .env("TRAWL_ARXIV_URL", "http://127.0.0.1:9")
        .args([
            "doctor",
            "--engine",
            "arxiv",
            "--json",
            "--timeout",
            "1",
            "--redis",
        ])
        .arg(redis.url()));
    let v = r.json();
    let check = &v["meta"]["doctor"]["store"];
    assert_eq!(check["ok"], true, "{v}");
    assert_eq!(check["url"], redis.url());
    let down = format!("redis://127.0.0.1:{}", free_port());
    let r = run(trawl(&dir)
        .env("TRAWL_ARXIV_URL", "http://127.0.0.1:9")
        .args([
            "doctor",
            "--engine",
            "arxiv",
            "--json",
            "--timeout",
            "1",
            "--redis",
            &down,
        ]));
    let v = r.json();
    assert_eq!(r.code, 1);
    assert_eq!(v["meta"]["doctor"]["store"]["ok"], false, "{v}");
}
