//! `trawl searxng up|status|down` with fake `docker`, `git` and `python3` on the PATH
//! recording their calls, and a loopback stand-in answering as SearXNG on the port `up`
//! is given. The written settings.yml is read back with a YAML parser.

use std::path::{Path, PathBuf};

use trawl_testkit::{Reply, TestServer};
use yaml_rust2::{Yaml, YamlLoader};

use crate::util::{run, temp_dir, trawl};

/// A directory of fake tools, each appending its name and arguments to `calls.log`.
fn fake_tools(dir: &Path, names: &[&str]) -> PathBuf {
    let bin = dir.join("fakebin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("calls.log");
    for name in names {
        // git's clone leaves a checkout; python3's venv leaves a python and a pip that log
        // too (the server "starts" and exits at once: the stand-in answers for it).
        let extra = match *name {
            "git" => "[ \"$1\" = clone ] && mkdir -p \"$5/.git\"\n",
            "python3" => concat!(
                "if [ \"$1\" = -m ] && [ \"$2\" = venv ]; then mkdir -p \"$3/bin\"\n",
                "  for t in python pip; do printf '#!/bin/sh\\necho \"venv-%s $*\" >> \"%s\"\\n' \"$t\" \"$LOG\" > \"$3/bin/$t\"; chmod +x \"$3/bin/$t\"; done\n",
                "fi\n"
            ),
            _ => "",
        };
        let script = format!(
            "#!/bin/sh\nLOG='{}'\necho \"{name} $*\" >> \"$LOG\"\n{extra}exit 0\n",
            log.display()
        );
        let path = bin.join(name);
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

fn searxng_stand_in() -> TestServer {
    let s = TestServer::start();
    s.route(
        "/search?q=trawl&format=json",
        Reply::ok("application/json", r#"{"query":"trawl","results":[]}"#),
    );
    s
}

fn port_of(s: &TestServer) -> String {
    s.base()
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .to_owned()
}

/// PATH with the fake tools first and no other docker, git or python3 (sh, mkdir, chmod
/// and kill stay reachable).
fn path_with(bin: &Path) -> String {
    format!("{}:/usr/bin:/bin", bin.display())
}

fn yaml_of(home: &Path) -> Yaml {
    let text =
        std::fs::read_to_string(home.join(".local/share/trawl/searxng/settings.yml")).unwrap();
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

#[test]
fn up_with_docker_writes_a_hardened_config_and_points_trawl_at_it() {
    let dir = temp_dir();
    let bin = fake_tools(&dir, &["docker"]);
    let s = searxng_stand_in();
    let port = port_of(&s);
    let searxng = |args: &[&str]| {
        run(trawl(&dir)
            .env("PATH", path_with(&bin))
            .env("TRAWL_PROXY", "socks5h://127.0.0.1:1080")
            .arg("searxng")
            .args(args)
            .arg("--json"))
    };
    let out = searxng(&["up", "--port", &port, "--wait", "5"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let calls = std::fs::read_to_string(dir.join("calls.log")).unwrap();
    assert!(calls.contains("docker rm -f trawl-searxng"), "{calls}");
    assert!(
        calls.contains("docker run -d --name trawl-searxng --network host"),
        "{calls}"
    );
    assert!(calls.contains(&format!("SEARXNG_PORT={port}")), "{calls}");

    let y = yaml_of(&dir);
    let server = &y["server"];
    assert_eq!(server["bind_address"].as_str(), Some("127.0.0.1"));
    assert_eq!(
        server["port"].as_i64().map(|p| p.to_string()),
        Some(port.clone())
    );
    assert_eq!(server["limiter"].as_bool(), Some(false));
    assert_eq!(server["public_instance"].as_bool(), Some(false));
    let secret = server["secret_key"].as_str().unwrap();
    assert!(secret.len() == 64 && secret.chars().all(|c| c.is_ascii_hexdigit()));
    let formats: Vec<&str> = y["search"]["formats"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(Yaml::as_str)
        .collect();
    assert!(formats.contains(&"json"), "{formats:?}");
    assert_eq!(
        y["outgoing"]["proxies"]["all://"][0].as_str(),
        Some("socks5h://127.0.0.1:1080")
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.join(".local/share/trawl/searxng/settings.yml"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "the secret is readable by its owner only");

    // trawl now asks it: the config file names it and `trawl engines` has it configured.
    let config = std::fs::read_to_string(dir.join(".config/trawl/config.toml")).unwrap();
    assert!(
        config.contains(&format!(
            "searxng_url = \"{}\"",
            s.base().trim_end_matches('/')
        )),
        "{config}"
    );
    let engines = run(trawl(&dir).args(["engines", "--json"])).json();
    let sx = engines["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "searxng")
        .unwrap()
        .clone();
    assert_eq!(sx["configured"], true, "{sx}");

    let status = searxng(&["status"]);
    assert_eq!(status.code, 0, "{}", status.stdout);
    assert_eq!(status.json()["data"]["answering"], true);
    assert_eq!(status.json()["data"]["state"]["mode"], "docker");

    let down = searxng(&["down"]);
    assert_eq!(down.code, 0, "{}", down.stderr);
    let calls = std::fs::read_to_string(dir.join("calls.log")).unwrap();
    assert_eq!(
        calls.matches("docker rm -f trawl-searxng").count(),
        2,
        "{calls}"
    );
    let config = std::fs::read_to_string(dir.join(".config/trawl/config.toml")).unwrap();
    assert!(!config.contains("searxng_url"), "{config}");
    assert_eq!(searxng(&["status"]).code, 1, "nothing runs after down");
}

#[test]
fn up_without_docker_uses_a_git_checkout_in_a_venv() {
    let dir = temp_dir();
    let bin = fake_tools(&dir, &["git", "python3"]);
    let s = searxng_stand_in();
    let port = port_of(&s);
    let out = run(trawl(&dir)
        .env("PATH", path_with(&bin))
        .args(["searxng", "up", "--port", &port, "--wait", "5", "--json"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let calls = std::fs::read_to_string(dir.join("calls.log")).unwrap();
    let home = dir.join(".local/share/trawl/searxng");
    assert!(
        calls.contains(&format!(
            "git clone --depth 1 https://github.com/searxng/searxng {}",
            home.join("src").display()
        )),
        "{calls}"
    );
    assert!(
        calls.contains(&format!("python3 -m venv {}", home.join("venv").display())),
        "{calls}"
    );
    assert!(calls.contains("venv-pip install --quiet -r"), "{calls}");
    assert!(calls.contains("venv-python -m searx.webapp"), "{calls}");
    assert!(
        yaml_of(&dir)["outgoing"]["proxies"].is_badvalue(),
        "no proxy, none written"
    );
    let v = out.json();
    assert_eq!(v["data"]["state"]["mode"], "venv");
    assert!(v["data"]["state"]["pid"].as_u64().is_some());
    // A second `up` reuses the checkout and the venv.
    let again = run(trawl(&dir)
        .env("PATH", path_with(&bin))
        .args(["searxng", "up", "--port", &port, "--wait", "5"]));
    assert_eq!(again.code, 0, "{}", again.stderr);
    let calls = std::fs::read_to_string(dir.join("calls.log")).unwrap();
    assert_eq!(calls.matches("git clone").count(), 1, "{calls}");
    assert_eq!(
        calls.matches("venv-python -m searx.webapp").count(),
        2,
        "{calls}"
    );
}

#[test]
fn up_says_when_searxng_never_answers() {
    let dir = temp_dir();
    let bin = fake_tools(&dir, &["docker"]);
    let out = run(trawl(&dir)
        .env("PATH", path_with(&bin))
        .args(["searxng", "up", "--port", "9", "--wait", "0.5", "--json"]));
    assert_eq!(out.code, 1, "{}", out.stdout);
    let v = out.json();
    assert_eq!(v["error"]["code"], "timeout");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("docker logs trawl-searxng")
    );
    assert!(
        !dir.join(".config/trawl/config.toml").exists(),
        "trawl is not pointed at it"
    );
}

/// Issue 42 item 16: a docker CLI whose daemon is down is passed over for the git
/// checkout in a venv, and the note says why.
#[test]
fn up_with_a_docker_daemon_down_falls_back_to_the_venv() {
    let dir = temp_dir();
    let bin = fake_tools(&dir, &["git", "python3"]);
    let docker = bin.join("docker");
    std::fs::write(
        &docker,
        format!(
            "#!/bin/sh\necho \"docker $*\" >> '{}'\n[ \"$1\" = info ] && {{ echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock' >&2; exit 1; }}\nexit 0\n",
            dir.join("calls.log").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&docker, std::fs::Permissions::from_mode(0o755)).unwrap();
    let s = searxng_stand_in();
    let port = port_of(&s);
    let out = run(trawl(&dir)
        .env("PATH", path_with(&bin))
        .args(["searxng", "up", "--port", &port, "--wait", "5", "--json"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("Cannot connect to the Docker daemon"),
        "{}",
        out.stderr
    );
    assert_eq!(out.json()["data"]["state"]["mode"], "venv");
    let calls = std::fs::read_to_string(dir.join("calls.log")).unwrap();
    assert!(!calls.contains("docker run"), "{calls}");
}
