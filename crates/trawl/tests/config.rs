use crate::util::{run, temp_dir, trawl};

#[test]
fn layers_file_dotenv_env_and_flags() {
    let dir = temp_dir();
    std::fs::create_dir_all(dir.join(".config/trawl")).unwrap();
    std::fs::write(
        dir.join(".config/trawl/config.toml"),
        "timeout = 12.0\nmax_bytes = 1000\nproxy = \"http://file-proxy:1\"\n[keys]\nEXA_API_KEY = \"exa-file-secret-999\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join(".env"),
        "TRAWL_MAX_BYTES=2000\nTRAWL_TIMEOUT=13\nSERPER_API_KEY=serper-dotenv-secret\n",
    )
    .unwrap();
    let r = run(trawl(&dir)
        .args(["config", "show", "--json"])
        .env("TRAWL_TIMEOUT", "14")
        .env("BRAVE_API_KEY", "brave-env-secret-12345"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    let d = &v["data"];
    assert_eq!(d["timeout_secs"]["value"], 14.0, "env beats .env and file");
    assert_eq!(d["timeout_secs"]["source"], "env");
    assert_eq!(d["max_bytes"]["value"], 1000, ".env sets keys only");
    assert_eq!(d["max_bytes"]["source"], "file");
    assert_eq!(d["keys"]["SERPER_API_KEY"]["source"], "dotenv");
    assert_eq!(d["proxy"]["value"], "http://file-proxy:1");
    assert_eq!(d["proxy"]["source"], "file");
    assert_eq!(d["connect_timeout_secs"]["source"], "default");
    assert!(
        d["keys"]["BRAVE_API_KEY"]["value"]
            .as_str()
            .unwrap()
            .starts_with("****")
    );
    assert!(
        d["keys"]["EXA_API_KEY"]["value"]
            .as_str()
            .unwrap()
            .starts_with("****")
    );
    for secret in [
        "brave-env-secret-12345",
        "exa-file-secret-999",
        "serper-dotenv-secret",
    ] {
        assert!(!r.stdout.contains(secret) && !r.stderr.contains(secret));
    }
    // Human output masks too.
    let r = run(trawl(&dir)
        .args(["config", "show"])
        .env("BRAVE_API_KEY", "brave-env-secret-12345"));
    assert_eq!(r.code, 0);
    assert!(!r.stdout.contains("brave-env-secret-12345"));
    assert!(r.stdout.contains("BRAVE_API_KEY"));
}

#[test]
fn a_broken_config_file_is_a_usage_error() {
    let dir = temp_dir();
    std::fs::write(dir.join("bad.toml"), "timeout = \"soon\"\n").unwrap();
    let r = run(trawl(&dir).args(["--config", "bad.toml", "config", "show"]));
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("bad.toml"), "{}", r.stderr);
    let r = run(trawl(&dir).args(["--config", "missing.toml", "config", "show"]));
    assert_eq!(r.code, 2);
    std::fs::write(dir.join("unknown.toml"), "timout = 3\n").unwrap();
    let r = run(trawl(&dir).args(["--config", "unknown.toml", "config", "show"]));
    assert_eq!(r.code, 2, "unknown keys are refused, not ignored");
}

#[test]
fn proxy_password_is_masked() {
    let dir = temp_dir();
    let r = run(trawl(&dir).args(["config", "show", "--json"]).env(
        "TRAWL_PROXY",
        "socks5h://user:hunter2pass@proxy.example:1080",
    ));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("hunter2pass"));
}
