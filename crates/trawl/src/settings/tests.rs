use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use trawl_agent::tools::ReaderKind;
use trawl_fetch::RenderMode;

use super::value::Readers;
use super::*;
use crate::cli::Cli;

struct MapEnv(BTreeMap<String, String>);

impl MapEnv {
    fn of(pairs: &[(&str, &str)]) -> Self {
        MapEnv(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }
    fn empty() -> Self {
        MapEnv(BTreeMap::new())
    }
}

impl Env for MapEnv {
    fn var(&self, name: &str) -> Option<String> {
        self.0.get(name).cloned()
    }
    fn vars(&self) -> Vec<(String, String)> {
        self.0.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

fn file(text: &str) -> FileConfig {
    FileConfig::parse(
        text,
        Some(Path::new("/home/u/.config/trawl/config.toml")),
        table::DECLARED,
    )
    .unwrap()
}

/// The settings of `trawl <args>` with `file` and `env`; a command line clap refuses is
/// an error holding clap's message.
fn resolve_command(file: FileConfig, env: &MapEnv, args: &[&str]) -> Result<Settings, TrawlError> {
    use clap::Parser;
    let cli = Cli::try_parse_from(std::iter::once("trawl").chain(args.iter().copied()))
        .map_err(|e| TrawlError::invalid_input(e.to_string()))?;
    let (_, net) = crate::json_and_net(&cli.command);
    Settings::resolve(file, &DotEnv::default(), env, &cli.setting_flags(&net))
}

/// The settings of `trawl read - <flags>` with `file` and `env`.
fn resolve(file: FileConfig, env: &MapEnv, flags: &[&str]) -> Result<Settings, TrawlError> {
    let args: Vec<&str> = ["read", "-"].iter().chain(flags).copied().collect();
    resolve_command(file, env, &args)
}

#[test]
fn layers_in_order() {
    let file = file("timeout = 5.0\nmax_bytes = 100\nproxy = \"http://p:1\"");
    let env = MapEnv::of(&[(vars::MAX_BYTES, "200")]);
    let s = resolve(file, &env, &["--proxy", "socks5h://q:2"]).unwrap();
    assert_eq!(s.timeout.value.0, Duration::from_secs(5));
    assert_eq!(s.timeout.source, Source::File);
    assert_eq!(s.max_bytes.value, 200);
    assert_eq!(s.max_bytes.source, Source::Env);
    assert_eq!(s.proxy.value.as_deref(), Some("socks5h://q:2"));
    assert_eq!(s.proxy.source, Source::Flag);
    assert_eq!(s.connect_timeout.source, Source::Default);
}

#[test]
fn render_mode_layers_and_is_checked() {
    let f = file("render = \"never\"");
    let env = MapEnv::of(&[(vars::RENDER, "always")]);
    let s = resolve(f.clone(), &env, &[]).unwrap();
    assert_eq!(s.fetch_config().unwrap().render.mode, RenderMode::Always);
    let s = resolve(f, &MapEnv::empty(), &[]).unwrap();
    assert_eq!(s.fetch_config().unwrap().render.mode, RenderMode::Never);
    let net = ["--render", "sometimes"];
    let err = resolve(FileConfig::default(), &MapEnv::empty(), &net).unwrap_err();
    assert!(err.message.contains("sometimes"), "{}", err.message);
    assert!(err.message.contains("--render"), "{}", err.message);
}

#[test]
fn value_errors_name_their_source() {
    let err = resolve(file("\nrender = \"sometimes\"\n"), &MapEnv::empty(), &[]).unwrap_err();
    assert!(
        err.message
            .contains("config file /home/u/.config/trawl/config.toml line 2: render"),
        "{}",
        err.message
    );
    assert!(err.message.contains("sometimes"), "{}", err.message);
    let env = MapEnv::of(&[(vars::RENDER, "sometimes")]);
    let err = resolve(FileConfig::default(), &env, &[]).unwrap_err();
    assert!(err.message.contains(vars::RENDER), "{}", err.message);
    let searxng_spacing = vars::engine_min_interval("searxng");
    let env = MapEnv::of(&[(&searxng_spacing, "soon")]);
    let err = resolve(FileConfig::default(), &env, &[]).unwrap_err();
    assert!(err.message.contains(&searxng_spacing), "{}", err.message);
    let err = resolve(file("render_tabs = 99"), &MapEnv::empty(), &[]).unwrap_err();
    assert!(
        err.message.contains("line 1: render_tabs"),
        "{}",
        err.message
    );
}

#[test]
fn secrets_are_masked() {
    let env = MapEnv::of(&[("BRAVE_API_KEY", "sk-very-secret-123")]);
    let s = resolve(FileConfig::default(), &env, &[]).unwrap();
    let shown = s.redacted_json().to_string();
    assert!(!shown.contains("sk-very-secret-123"), "{shown}");
    assert!(shown.contains("BRAVE_API_KEY"));
    assert!(!s.to_toml_text().contains("sk-very-secret-123"));
    assert_eq!(s.secret("BRAVE_API_KEY"), Some("sk-very-secret-123"));
}

#[test]
fn bad_values_are_refused() {
    let env = MapEnv::of(&[(vars::TIMEOUT, "soon")]);
    let err = resolve(FileConfig::default(), &env, &[]).unwrap_err();
    assert!(err.message.contains(vars::TIMEOUT));
    let net = ["--allow-host", "not a host!"];
    assert!(resolve(FileConfig::default(), &MapEnv::empty(), &net).is_err());
    let net = ["--proxy", "ftp://x"];
    assert!(resolve(FileConfig::default(), &MapEnv::empty(), &net).is_err());
}

#[test]
fn dotenv_gives_keys_only_and_never_enables_a_reader() {
    let dotenv = DotEnv {
        path: Some("/repo/.env".into()),
        keys: [
            ("JINA_API_KEY".to_owned(), "jina-from-dotenv".to_owned()),
            ("EXA_API_KEY".to_owned(), "exa-from-dotenv".to_owned()),
        ]
        .into(),
        ignored: Vec::new(),
    };
    let env = MapEnv::of(&[("TAVILY_API_KEY", "tv"), (vars::TOKEN, "")]);
    let file = file("[keys]\nEXA_API_KEY = \"exa-from-file\"\n");
    let s = Settings::resolve(file, &dotenv, &env, &Flags::default()).unwrap();
    assert_eq!(s.secret("JINA_API_KEY"), Some("jina-from-dotenv"));
    assert_eq!(s.keys["JINA_API_KEY"].source, Source::Dotenv);
    // The user's own file beats a `.env`.
    assert_eq!(s.secret("EXA_API_KEY"), Some("exa-from-file"));
    assert_eq!(s.keys["EXA_API_KEY"].source, Source::File);
    assert_eq!(
        s.readers.value,
        Readers(vec![ReaderKind::Tavily, ReaderKind::Exa]),
        "keyed by the user only"
    );
    // An empty token is kept, so serving refuses it.
    assert_eq!(s.secret(vars::TOKEN), Some(""));
}

#[test]
fn no_reader_by_default() {
    let s = resolve(FileConfig::default(), &MapEnv::empty(), &[]).unwrap();
    assert!(s.readers.value.0.is_empty());
    assert!(s.readers_query_secrets.value.0.is_empty());
    assert!(s.reader_configs().is_empty());
}

/// What trawl-search's `from_vars` test asserted, now through the settings.
#[test]
fn search_config_gets_bases_keys_deadline_and_spacings() {
    let env = MapEnv::of(&[
        (&vars::engine_url("duckduckgo"), "http://127.0.0.1:9001"),
        (vars::SEARXNG_URL, "http://sx.local:8888/"),
        ("BRAVE_API_KEY", " k1, ,k2 "),
        (vars::SEARCH_TIMEOUT_MS, "1500"),
        (&vars::engine_min_interval("arxiv"), "1000"),
        (&vars::engine_min_interval("searxng"), "250"),
    ]);
    let cfg = resolve(FileConfig::default(), &env, &[])
        .unwrap()
        .search_config();
    assert_eq!(cfg.min_interval_for("arxiv"), Some(Duration::from_secs(1)));
    assert_eq!(
        cfg.min_interval_for("searxng"),
        Some(Duration::from_millis(250))
    );
    assert_eq!(cfg.min_interval_for("brave_api"), None);
    assert_eq!(cfg.timeout, Duration::from_millis(1500));
    assert_eq!(cfg.keys_for("brave_api"), ["k1", "k2"]);
    let ddg = trawl_search::engines::duckduckgo::DuckDuckGo::default();
    assert_eq!(
        cfg.base_for(&ddg).unwrap().as_str(),
        "http://127.0.0.1:9001/"
    );
    let sx = trawl_search::engines::searxng::Searxng;
    assert!(cfg.base_for(&sx).is_some());
    let dbg = format!("{cfg:?}");
    assert!(!dbg.contains("k1") && dbg.contains("2 key(s)"));
    // The config file may name the SearXNG and the deadline too.
    let cfg = resolve(
        file("searxng_url = \"http://sx.file:8888/\"\nsearch_timeout_ms = 700\ntavily_keyless = true\n"),
        &MapEnv::empty(),
        &[],
    )
    .unwrap()
    .search_config();
    assert_eq!(cfg.base_for(&sx).unwrap().as_str(), "http://sx.file:8888/");
    assert_eq!(cfg.timeout, Duration::from_millis(700));
    assert!(cfg.tavily_keyless);
}

#[test]
fn crawl_config_gets_bounds_lease_map_ttl_and_extraction() {
    let env = MapEnv::of(&[
        (vars::MAX_CRAWLS, "2"),
        (vars::MAX_CRAWL_PAGES, "30"),
        (vars::CRAWL_LEASE, "7"),
        (vars::DOCUMENT_TTL, "600"),
        (vars::PDF_MAX_TIME, "3"),
    ]);
    let cfg = resolve(FileConfig::default(), &env, &[])
        .unwrap()
        .crawl_config(trawl_extract::ExtractOptions::default());
    assert_eq!(cfg.max_crawls, 2);
    assert_eq!(cfg.max_pages, 30);
    assert_eq!(cfg.lease, Duration::from_secs(7));
    assert_eq!(cfg.map_ttl, Duration::from_secs(600));
    assert_eq!(cfg.extract.pdf.max_time, Duration::from_secs(3));
}

#[test]
fn x_sessions_come_from_the_cookies_files_named() {
    let dir = std::env::temp_dir().join(format!("trawl-settings-x-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.txt");
    std::fs::write(&good, "auth_token=tok-9; ct0=csrf-8\n").unwrap();
    let files = format!("{},{}", good.display(), dir.join("missing.txt").display());
    let env = MapEnv::of(&[(vars::X_COOKIES_FILE, &files)]);
    let cfg = resolve(FileConfig::default(), &env, &[])
        .unwrap()
        .search_config();
    let expected = trawl_search::engines::x::cookie_key("auth_token=tok-9; ct0=csrf-8").unwrap();
    assert_eq!(cfg.keys_for("x"), [expected]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_shown_settings_read_back_as_the_same_settings() {
    let env = MapEnv::of(&[
        (vars::TIMEOUT, "14"),
        ("BRAVE_API_KEY", "brave-secret-123"),
        (vars::REDIS_URL, "redis://u:pw-secret@127.0.0.1:6379/0"),
        (&vars::engine_url("arxiv"), "http://127.0.0.1:9"),
    ]);
    let first = resolve(
        file("render = \"never\"\nallow_hosts = [\"10.0.0.0/8\"]\n[routes]\nmine = [\"arxiv\"]\n"),
        &env,
        &[],
    )
    .unwrap();
    let text = first.to_toml_text();
    assert!(text.contains("timeout = 14.0    # env"), "{text}");
    assert!(
        !text.contains("timeout_secs") && !text.contains("pw-secret"),
        "{text}"
    );
    let again = resolve(file(&text), &env, &[]).unwrap();
    let settings_only = |t: &str| {
        t.lines()
            .map(|l| l.split("    #").next().unwrap_or(l).to_owned())
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
    };
    assert_eq!(settings_only(&text), settings_only(&again.to_toml_text()));
    assert_eq!(
        again.redis_url(),
        first.redis_url(),
        "from the environment again"
    );
}

/// A value each flag that sets a setting accepts (a new flag needs one here).
fn sample(flag: &str) -> Option<&'static str> {
    Some(match flag {
        "--timeout" | "--queue-timeout" | "--shutdown-grace" | "--header-timeout" => "5",
        "--idle-timeout" | "--session-idle-timeout" => "20",
        "--max-bytes" | "--log-max-bytes" | "--max-message-bytes" => "1000",
        "--max-concurrent" | "--log-keep" | "--max-crawls" | "--max-crawl-pages" => "3",
        "--max-connections" | "--max-sessions" => "7",
        "--proxy" => "socks5h://127.0.0.1:9",
        "--allow-host" => "10.0.0.0/8",
        "--store" => ":memory:",
        "--redis" => "redis://127.0.0.1:6379/0",
        "--store-fallback" => "memory",
        "--render" => "never",
        "--ocr-lang" => "eng",
        "--cookies" | "--log-file" | "--token-file" => "/tmp/x",
        "--listen" => "127.0.0.1:0",
        "--allow-origin" => "https://app.example.com",
        "--public-host" => "trawl.example.com",
        "--public-url" => "https://trawl.example.com/",
        "--allow-private-hosts" | "--fetch-only" | "--log-quiet" | "--insecure-no-auth" => {
            return None;
        }
        other => panic!("{other} has no sample value: add one"),
    })
}

#[test]
fn every_flag_reaches_its_setting_typed() {
    let mut args = vec!["serve"];
    for d in table::DECLARED {
        if let Some(flag) = d.flag {
            args.push(flag);
            args.extend(sample(flag));
        }
    }
    let s = resolve_command(FileConfig::default(), &MapEnv::empty(), &args).unwrap();
    for shown in s.values.shown() {
        if shown.descriptor.flag.is_some() {
            assert_eq!(shown.source, Source::Flag, "{}", shown.descriptor.name);
        }
    }
    assert_eq!(s.store.value, Some(StoreLocation::Memory));
    assert_eq!(s.max_sessions.value, 7);
    assert_eq!(s.session_idle_timeout.value.0, Duration::from_secs(20));
    assert_eq!(s.listen.value, "127.0.0.1:0".parse().unwrap());
    assert_eq!(s.public_hosts.value.0, ["trawl.example.com"]);
    assert_eq!(s.token_file.value.as_deref(), Some(Path::new("/tmp/x")));
}

#[test]
fn server_settings_come_from_the_file_below_the_environment() {
    let f = file(
        "max_sessions = 1\nqueue_timeout = 0.5\nlisten = \"127.0.0.1:0\"\nstore = \":memory:\"\n\
         allowed_origins = [\"https://a.example\"]\nlog_file = \"/var/log/trawl.log\"\n",
    );
    let env = MapEnv::of(&[(vars::MAX_SESSIONS, "2")]);
    let s = resolve_command(f.clone(), &env, &["serve"]).unwrap();
    assert_eq!(
        (s.max_sessions.value, s.max_sessions.source),
        (2, Source::Env)
    );
    let s = resolve_command(f, &MapEnv::empty(), &["serve", "--max-sessions", "3"]).unwrap();
    assert_eq!(s.max_sessions.value, 3);
    assert_eq!(s.queue_timeout.value.0, Duration::from_millis(500));
    assert_eq!(s.queue_timeout.source, Source::File);
    assert_eq!(s.listen.value.port(), 0);
    assert_eq!(s.store_location().unwrap(), StoreLocation::Memory);
    assert_eq!(s.allowed_origins.value.0, ["https://a.example"]);
    assert_eq!(
        s.log_file.value.as_deref(),
        Some(Path::new("/var/log/trawl.log"))
    );
    let s = resolve_command(FileConfig::default(), &MapEnv::empty(), &["serve"]).unwrap();
    assert_eq!(s.listen.value, table::DEFAULT_LISTEN);
    assert_eq!(s.max_sessions.value, table::DEFAULT_MAX_SESSIONS);
    assert_eq!(s.listen.source, Source::Default);
    let err =
        resolve_command(file("header_timeout = -1"), &MapEnv::empty(), &["serve"]).unwrap_err();
    assert!(err.message.contains("header_timeout"), "{}", err.message);
}

#[test]
fn config_show_names_every_declared_setting() {
    let s = resolve_command(FileConfig::default(), &MapEnv::empty(), &["serve"]).unwrap();
    let text = s.to_toml_text();
    let json = s.redacted_json();
    for d in table::DECLARED {
        assert!(
            text.contains(&format!("\n{} = ", d.name))
                || text.contains(&format!("# {}: unset", d.name)),
            "{} missing from:\n{text}",
            d.name
        );
        assert!(json[d.name]["source"].is_string(), "{}", d.name);
    }
}
