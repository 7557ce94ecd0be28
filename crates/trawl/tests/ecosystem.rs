//! The files agent harnesses read (integrations/README.md): the MCP registry's server.json
//! against the registry's published schema (vendored), the Claude Code plugin manifest and
//! each harness's snippet against its documented format, and every stdio entry started for
//! a real MCP handshake with this build of trawl.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn json_file(path: &str) -> Value {
    let text = std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"))
}

/// Start `command args` (with `trawl` meaning this build) and complete an MCP handshake.
fn handshake(what: &str, command: &str, args: &[String]) {
    assert_eq!(command, "trawl", "{what}: the command is the trawl binary");
    let home = std::env::temp_dir().join(format!("trawl-ecosystem-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(args)
        .current_dir(&home)
        .env_clear()
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("TRAWL_STORE", ":memory:")
        .env("TRAWL_LOG_QUIET", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start trawl: {e}"));
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": what, "version": "0"}}
    });
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{initialize}").unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    drop(stdin);
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
        panic!(
            "{what}: no handshake ({e}): {line}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(
        answer["result"]["serverInfo"]["name"], "trawl",
        "{what}: {answer}"
    );
}

/// An HTTP entry points at `trawl serve`'s default address and sends a bearer token.
fn check_http(what: &str, url: &str, authorization: Option<&str>) {
    let url = url::Url::parse(url).unwrap_or_else(|e| panic!("{what}: {url}: {e}"));
    assert_eq!(
        (url.host_str(), url.port(), url.path()),
        (Some("127.0.0.1"), Some(8787), "/mcp"),
        "{what}"
    );
    if let Some(value) = authorization {
        assert!(value.starts_with("Bearer "), "{what}: {value}");
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn server_json_follows_the_registry_schema() {
    let schema_url = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json";
    let schema = json_file("integrations/schemas/server.schema.json");
    assert_eq!(schema["$id"], schema_url);
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    compiler.add_resource(schema_url, schema).unwrap();
    let mut schemas = boon::Schemas::new();
    let index = compiler.compile(schema_url, &mut schemas).unwrap();
    let server = json_file("server.json");
    if let Err(e) = schemas.validate(&server, index) {
        panic!("server.json does not follow the registry schema: {e:#}");
    }
    assert_eq!(server["$schema"], schema_url);
    assert_eq!(server["version"], env!("CARGO_PKG_VERSION"));
    // The packages scripts/package writes: the wheel and the npm launcher, both `trawl`,
    // both run as `trawl mcp`.
    let packages = server["packages"].as_array().expect("packages");
    let registries: Vec<&str> = packages
        .iter()
        .map(|p| p["registryType"].as_str().unwrap())
        .collect();
    assert_eq!(registries, ["pypi", "npm"]);
    for package in packages {
        assert_eq!(package["identifier"], "trawl", "{package}");
        assert_eq!(package["version"], env!("CARGO_PKG_VERSION"), "{package}");
        assert_eq!(package["packageArguments"][0]["value"], "mcp", "{package}");
    }
    // The schema can fail: a name without its namespace is refused.
    let mut wrong = server.clone();
    wrong["name"] = json!("trawl");
    assert!(schemas.validate(&wrong, index).is_err());
}

#[test]
fn the_claude_code_plugin_manifest_starts_trawl_mcp() {
    let plugin = json_file(".claude-plugin/plugin.json");
    let name = plugin["name"].as_str().unwrap();
    // The documented rule for plugin names: kebab-case, starting with a letter.
    let kebab = name.starts_with(|c: char| c.is_ascii_lowercase())
        && !name.ends_with('-')
        && !name.contains("--")
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    assert!(kebab, "{name}");
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    let server = &plugin["mcpServers"]["trawl"];
    handshake(
        "claude-code-plugin",
        server["command"].as_str().unwrap(),
        &strings(&server["args"]),
    );
}

#[test]
fn each_harness_snippet_has_a_working_stdio_entry_and_the_http_entry() {
    // Claude Code .mcp.json and Cursor mcp.json: {"mcpServers": {name: entry}}.
    for (what, path, auth_var) in [
        (
            "claude-code",
            "integrations/claude-code/.mcp.json",
            "${TRAWL_TOKEN}",
        ),
        (
            "cursor",
            "integrations/cursor/mcp.json",
            "${env:TRAWL_TOKEN}",
        ),
    ] {
        let config = json_file(path);
        let stdio = &config["mcpServers"]["trawl"];
        handshake(
            what,
            stdio["command"].as_str().unwrap(),
            &strings(&stdio["args"]),
        );
        let http = &config["mcpServers"]["trawl-http"];
        let auth = http["headers"]["Authorization"].as_str();
        assert_eq!(auth, Some(format!("Bearer {auth_var}").as_str()), "{what}");
        check_http(what, http["url"].as_str().unwrap(), auth);
    }
    // VS Code .vscode/mcp.json: {"servers": …, "inputs": […]}, entries typed.
    let vscode = json_file("integrations/vscode/mcp.json");
    let stdio = &vscode["servers"]["trawl"];
    assert_eq!(stdio["type"], "stdio");
    handshake(
        "vscode",
        stdio["command"].as_str().unwrap(),
        &strings(&stdio["args"]),
    );
    let http = &vscode["servers"]["trawl-http"];
    assert_eq!(http["type"], "http");
    let auth = http["headers"]["Authorization"].as_str().unwrap();
    let input = auth
        .strip_prefix("Bearer ${input:")
        .and_then(|s| s.strip_suffix('}'))
        .unwrap();
    assert!(
        vscode["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == input && i["password"] == true),
        "the token input {input} is declared as a password"
    );
    check_http("vscode", http["url"].as_str().unwrap(), Some(auth));
    // Zed settings.json: {"context_servers": {name: {"command", "args"} or {"url"}}}.
    let zed = json_file("integrations/zed/settings.json");
    let stdio = &zed["context_servers"]["trawl"];
    handshake(
        "zed",
        stdio["command"].as_str().unwrap(),
        &strings(&stdio["args"]),
    );
    let http = &zed["context_servers"]["trawl-http"];
    check_http(
        "zed",
        http["url"].as_str().unwrap(),
        http["headers"]["Authorization"].as_str(),
    );
    // Codex ~/.codex/config.toml: [mcp_servers.NAME] tables.
    let text = std::fs::read_to_string(root().join("integrations/codex/config.toml")).unwrap();
    let codex: toml::Table = toml::from_str(&text).unwrap();
    let servers = codex["mcp_servers"].as_table().unwrap();
    let stdio = servers["trawl"].as_table().unwrap();
    let args: Vec<String> = stdio["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    handshake("codex", stdio["command"].as_str().unwrap(), &args);
    let http = servers["trawl-http"].as_table().unwrap();
    assert_eq!(http["bearer_token_env_var"].as_str(), Some("TRAWL_TOKEN"));
    check_http("codex", http["url"].as_str().unwrap(), None);
}
