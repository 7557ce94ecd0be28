//! The guides match the code. In ARCHITECTURE.md every repository path in backticks exists
//! (`crates/…`, `scripts/…`, `bench/…`, `fuzz/…`, and paths relative to a crate's `src/`
//! under that crate's heading), every module path (`trawl_core::vars`) resolves to a module
//! file or a name defined in one, every `trawl-…` crate named is a workspace member and
//! every member has its section, and every engine of the engine table and every tool of the
//! tool table is named. In CONTRIBUTING.md and README.md the repository-rooted paths and
//! module paths are checked the same way; in CONTRIBUTING.md's recipes ("Adding …"), a
//! file named relative to the code the recipe is in (`docs/mod.rs`, `tools/declare.rs`)
//! must exist under a directory of a repository path named before it in that recipe.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Directories at the repository root a path may start with to be read from the root even
/// under a crate's heading.
const ROOTS: &[&str] = &[
    "crates/",
    "scripts/",
    "bench/",
    "fuzz/",
    ".ci/",
    ".cargo/",
    "integrations/",
];

/// Endings that make a backticked word a file name (without them, `text/html` is a MIME
/// type and `tools/list` an MCP method, not paths).
const FILE_ENDINGS: &[&str] = &[".rs", ".md", ".sh", ".toml", ".py", ".lua", ".lock"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

fn guide(name: &str) -> String {
    std::fs::read_to_string(repo_root().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// One inline code span: its line, its text, and the crate directory (`crates/trawl-fetch`)
/// whose section it is in, if any.
#[derive(Debug)]
struct Span {
    line: usize,
    text: String,
    crate_dir: Option<String>,
    /// The heading the span is under (empty before the first one).
    heading: String,
}

/// A guide read for checking: its inline code spans, and the text crate names are looked
/// for in (prose and diagrams, not code samples such as a client's JSON config).
struct Guide {
    spans: Vec<Span>,
    names_text: String,
}

/// Reads the inline code spans outside fenced blocks, each with the line it starts on.
/// Hand-written rather than a Markdown parser (a new dependency for a few lines): a span
/// may wrap across lines but not past its paragraph, as CommonMark has it; a heading naming
/// `crates/NAME` opens that crate's section and any other heading ends it.
fn read_guide(doc: &str) -> Guide {
    let mut spans = Vec::new();
    let mut names_text = String::new();
    let mut fence: Option<bool> = None; // Some(is a diagram: no info string)
    let mut crate_dir: Option<String> = None;
    let mut heading_text = String::new();
    let mut open: Option<(usize, String)> = None;
    for (i, line) in doc.lines().enumerate() {
        let number = i + 1;
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(info.trim().is_empty()),
            };
            open = None;
            continue;
        }
        if let Some(diagram) = fence {
            if diagram {
                names_text.push_str(line);
                names_text.push('\n');
            }
            continue;
        }
        names_text.push_str(line);
        names_text.push('\n');
        let heading = line.starts_with('#');
        if heading || trimmed.is_empty() {
            open = None;
        }
        let mut in_line = Vec::new();
        for (k, part) in line.split('`').enumerate() {
            if k > 0 {
                // A backtick: it closes the open span or opens one.
                match open.take() {
                    Some((start, text)) => in_line.push((start, text)),
                    None => open = Some((number, String::new())),
                }
            }
            if let Some((_, text)) = &mut open {
                text.push_str(part);
            }
        }
        if let Some((_, text)) = &mut open {
            text.push(' ');
        }
        if heading {
            open = None;
            heading_text = line.trim_start_matches('#').trim().to_owned();
            crate_dir = in_line.iter().find_map(|(_, t)| {
                let name = t.strip_prefix("crates/")?.trim_end_matches('/');
                (!name.is_empty() && !name.contains('/')).then(|| format!("crates/{name}"))
            });
        }
        spans.extend(in_line.into_iter().map(|(line, text)| Span {
            line,
            text,
            crate_dir: crate_dir.clone(),
            heading: heading_text.clone(),
        }));
    }
    Guide { spans, names_text }
}

/// Paths a run creates, which the root `.gitignore` names from the root (`/fuzz/artifacts/`):
/// a guide may name them though no checkout holds them.
fn made_by_runs(root: &Path) -> Vec<String> {
    std::fs::read_to_string(root.join(".gitignore"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().strip_prefix('/'))
        .map(str::to_owned)
        .collect()
}

fn rooted(text: &str) -> bool {
    ROOTS.iter().any(|r| text.starts_with(r))
}

/// Whether a span names a file or directory of the repository.
fn is_path(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
        && !text.starts_with('/')
        && !text.starts_with("../")
        && (rooted(text) || text.ends_with('/') || FILE_ENDINGS.iter().any(|e| text.ends_with(e)))
}

/// Where a path span may point: from the root, or under a crate's heading from its `src/`
/// or the crate's own directory (`tests/it/`, `examples/…`).
fn candidates(root: &Path, span: &Span) -> Vec<PathBuf> {
    match &span.crate_dir {
        Some(dir) if !rooted(&span.text) => vec![
            root.join(dir).join("src").join(&span.text),
            root.join(dir).join(&span.text),
        ],
        _ => vec![root.join(&span.text)],
    }
}

/// A module path such as `trawl_core::vars` or `trawl_testkit::ssrf::cases`, as segments.
fn module_path(text: &str) -> Option<Vec<&str>> {
    let text = text.trim_end_matches("()").trim_end_matches('!');
    let segments: Vec<&str> = text.split("::").collect();
    let ident =
        |s: &&str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (segments.len() >= 2 && segments[0].starts_with("trawl") && segments.iter().all(ident))
        .then_some(segments)
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// Why a module path does not resolve, if it does not: each segment is a module file
/// (`name.rs` or `name/mod.rs`) until one is not; that one and the rest must be names in
/// the last module's file (an item, an inline module, a re-export, a method).
fn module_problem(root: &Path, members: &BTreeSet<String>, segments: &[&str]) -> Option<String> {
    let krate = segments[0].replace('_', "-");
    if !members.contains(&krate) {
        return Some(format!("crate {krate} is not a workspace member"));
    }
    let mut dir = root.join("crates").join(&krate).join("src");
    let mut file = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| dir.join(f))
        .find(|f| f.is_file())?;
    let mut in_items = false;
    for seg in &segments[1..] {
        if !in_items {
            let flat = dir.join(format!("{seg}.rs"));
            let nested = dir.join(seg).join("mod.rs");
            if let Some(found) = [flat, nested].into_iter().find(|f| f.is_file()) {
                file = found;
                dir = dir.join(seg);
                continue;
            }
            in_items = true;
        }
        let text = std::fs::read_to_string(&file).ok()?;
        if !has_word(&text, seg) {
            return Some(format!(
                "`{seg}` is neither a module nor named in {}",
                file.display()
            ));
        }
    }
    None
}

/// The workspace's members by package name, from the root `Cargo.toml`'s `members` (a
/// trailing `/*` stands for every directory under it holding a `Cargo.toml`).
fn members(root: &Path) -> BTreeSet<String> {
    let manifest: toml::Table = guide("Cargo.toml").parse().expect("root Cargo.toml");
    let listed = manifest["workspace"]["members"]
        .as_array()
        .expect("workspace.members");
    let mut dirs = Vec::new();
    for entry in listed {
        let entry = entry.as_str().expect("member path");
        match entry.strip_suffix("/*") {
            Some(parent) => {
                for d in std::fs::read_dir(root.join(parent)).expect("members directory") {
                    let d = d.expect("directory entry").path();
                    if d.join("Cargo.toml").is_file() {
                        dirs.push(d);
                    }
                }
            }
            None => dirs.push(root.join(entry)),
        }
    }
    dirs.iter()
        .map(|d| {
            let text = std::fs::read_to_string(d.join("Cargo.toml")).expect("member Cargo.toml");
            let manifest: toml::Table = text.parse().expect("member Cargo.toml");
            manifest["package"]["name"]
                .as_str()
                .expect("name")
                .to_owned()
        })
        .collect()
}

/// Every `trawl-…` crate name written in `text`.
fn crate_names(doc: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in doc.match_indices("trawl-") {
        let before = doc[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            continue;
        }
        let rest = &doc[at + "trawl-".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase())
            .collect();
        if !name.is_empty() {
            out.insert(format!("trawl-{name}"));
        }
    }
    out
}

/// What is stale in `doc`: missing paths and module paths, unknown crates. With
/// `only_rooted`, only paths from the repository root are checked (guides without crate
/// headings, whose other paths are relative to something the prose names).
fn stale(doc: &str, only_rooted: bool) -> Vec<String> {
    let root = repo_root();
    let members = members(&root);
    let made = made_by_runs(&root);
    let guide = read_guide(doc);
    let mut problems = recipe_problems(&root, &guide);
    for span in &guide.spans {
        // A recipe's relative names are read by `recipe_problems`.
        let relative_in_recipe = is_recipe(&span.heading) && !rooted(&span.text);
        if is_path(&span.text) && (!only_rooted || rooted(&span.text)) && !relative_in_recipe {
            let exists = candidates(&root, span).iter().any(|p| p.exists());
            if !exists && !made.iter().any(|m| span.text.starts_with(m.as_str())) {
                let under = span.crate_dir.as_deref().unwrap_or(".");
                problems.push(format!(
                    "line {}: `{}` does not exist (read from {under})",
                    span.line, span.text
                ));
            }
        } else if let Some(segments) = module_path(&span.text)
            && let Some(why) = module_problem(&root, &members, &segments)
        {
            problems.push(format!("line {}: `{}`: {why}", span.line, span.text));
        }
    }
    for name in crate_names(&guide.names_text) {
        if !members.contains(&name) {
            problems.push(format!("{name} is not a workspace member"));
        }
    }
    problems
}

/// Whether a heading opens a recipe ("Adding a search engine").
fn is_recipe(heading: &str) -> bool {
    heading.starts_with("Adding ")
}

/// In each recipe, a file named relative to the code it is in (`engines/mojeek.rs`,
/// `settings/layers.rs`; a placeholder such as `<engine>` is no name) must exist under a
/// directory, or a parent of one, of a repository-rooted path named earlier in the same
/// recipe. Rooted paths are checked by [`stale`] itself.
fn recipe_problems(root: &Path, guide: &Guide) -> Vec<String> {
    let mut problems = Vec::new();
    let mut anchors: Vec<PathBuf> = Vec::new();
    let mut heading = None::<&str>;
    for span in &guide.spans {
        if heading != Some(span.heading.as_str()) {
            heading = Some(span.heading.as_str());
            anchors.clear();
        }
        if !is_recipe(&span.heading) {
            continue;
        }
        // A path with a placeholder (`crates/trawl-search/src/engines/<engine>.rs`) still
        // names the directory before it.
        let named = span.text.split('<').next().unwrap_or_default();
        // Data beside the clone (`../shared/fixtures/serp/`) anchors its own directory.
        if named.starts_with("../") {
            anchors.push(root.join(named));
            continue;
        }
        if rooted(named) && (is_path(&span.text) || named.len() < span.text.len()) {
            let mut dir = root.join(named);
            if !dir.is_dir() {
                dir.pop();
            }
            // The directories from the crate's own down to the named one.
            while dir.starts_with(root.join("crates")) && dir != root.join("crates") {
                anchors.push(dir.clone());
                dir.pop();
            }
            continue;
        }
        if !is_path(&span.text) || root.join(&span.text).exists() {
            continue;
        }
        if anchors.is_empty() {
            problems.push(format!(
                "line {}: `{}` in the recipe \"{}\" comes before any repository path it could be read from",
                span.line, span.text, span.heading
            ));
        } else if !anchors.iter().any(|a| a.join(&span.text).exists()) {
            problems.push(format!(
                "line {}: `{}` in the recipe \"{}\" is under no directory the recipe named before it",
                span.line, span.text, span.heading
            ));
        }
    }
    problems
}

fn assert_fresh(name: &str, only_rooted: bool) {
    let problems = stale(&guide(name), only_rooted);
    assert!(
        problems.is_empty(),
        "{name} names what is not there:\n{}",
        problems.join("\n")
    );
}

#[test]
fn architecture_names_only_what_exists() {
    assert_fresh("ARCHITECTURE.md", false);
}

#[test]
fn contributing_and_readme_name_only_what_exists() {
    assert_fresh("CONTRIBUTING.md", true);
    assert_fresh("README.md", true);
}

#[test]
fn every_crate_has_its_section_in_architecture() {
    let doc = guide("ARCHITECTURE.md");
    let missing: Vec<String> = members(&repo_root())
        .into_iter()
        .filter(|m| {
            !doc.lines()
                .any(|l| l.starts_with('#') && l.contains(&format!("`crates/{m}`")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md has no section for {missing:?}"
    );
}

#[test]
fn every_engine_and_tool_is_named_in_architecture() {
    let guide = read_guide(&guide("ARCHITECTURE.md"));
    let named: BTreeSet<&str> = guide.spans.iter().map(|s| s.text.as_str()).collect();
    let engines: Vec<&str> = trawl_search::engines::all()
        .iter()
        .map(|e| e.name())
        .filter(|n| !named.contains(n))
        .collect();
    assert!(
        engines.is_empty(),
        "ARCHITECTURE.md does not name the engines {engines:?}"
    );
    let tools: Vec<&str> = trawl_agent::tools::tools()
        .iter()
        .map(|t| t.name)
        .filter(|n| !named.contains(n))
        .collect();
    assert!(
        tools.is_empty(),
        "ARCHITECTURE.md does not name the tools {tools:?}"
    );
}

/// The checker itself finds what went stale: a moved file, a file under a crate heading, a
/// module path, an unknown crate (in prose or a diagram, not in a code sample).
#[test]
fn a_stale_guide_is_caught() {
    let doc = r#"## Code map

Files: `crates/trawl-fetch/src/fetcher.rs`, `crates/trawl-fetch/src/gone.rs`, `scripts/nope`.

### `crates/trawl-store`: the store

- `sqlite.rs` and `sqlite/schema.rs`, `tests/store/`, and `vanished.rs`.
- `trawl_core::vars`, `trawl_core::redact::Scrubber`, `trawl_core::nothing_here`.
- `trawl-store` and `trawl-nonexistent`.
- a span `wrapped
  across` lines, then `crates/trawl-store/src/lost.rs` on the next.

```
`crates/inside/a/fence.rs` is not read; trawl-indiagram is
```

```json
{ "trawl-http": "a client's name for its server" }
```

## Adding a thing

Start in `crates/trawl-extract/src/docs/mod.rs`; then `docs/sheet.rs`, `budget.rs` and
`docs/nowhere.rs`.
"#;
    let problems = stale(doc, false);
    let joined = problems.join("\n");
    for expected in [
        "`crates/trawl-fetch/src/gone.rs` does not exist",
        "`scripts/nope` does not exist",
        "`vanished.rs` does not exist (read from crates/trawl-store)",
        "`trawl_core::nothing_here`",
        "trawl-nonexistent is not a workspace member",
        "line 11: `crates/trawl-store/src/lost.rs` does not exist",
        "trawl-indiagram is not a workspace member",
        "`docs/nowhere.rs` in the recipe \"Adding a thing\" is under no directory",
    ] {
        assert!(joined.contains(expected), "{expected:?} not in:\n{joined}");
    }
    assert_eq!(problems.len(), 8, "{joined}");
    assert!(!joined.contains("docs/sheet.rs"), "{joined}");
    assert!(!joined.contains("budget.rs"), "{joined}");
    assert!(!joined.contains("trawl-http"), "{joined}");
    // Only what is stale is reported, and the fenced block is not read.
    assert!(!joined.contains("fetcher.rs"), "{joined}");
    assert!(!joined.contains("schema.rs"), "{joined}");
    assert!(!joined.contains("Scrubber"), "{joined}");
    assert!(!joined.contains("fence.rs"), "{joined}");
}

/// Every file under `crates/` with unsafe code is named in the root `Cargo.toml`'s unsafe
/// policy, and every crate root forbids unsafe code unless the policy names its crate's
/// exception (then it denies it).
#[test]
fn every_unsafe_block_is_on_the_list() {
    let root = repo_root();
    let policy = guide("Cargo.toml");
    let mut files = Vec::new();
    let mut stack = vec![root.join("crates")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("crates directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut unlisted = Vec::new();
    let mut roots_wrong = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("source file");
        let rel = path
            .strip_prefix(&root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        let code = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        // Spelled apart so that this file does not name itself.
        let has_unsafe = [
            concat!("unsafe", " {"),
            concat!("unsafe", " fn "),
            concat!("unsafe", " impl "),
        ]
        .iter()
        .any(|t| code.contains(t));
        if has_unsafe && !policy.contains(&rel) {
            unlisted.push(rel.clone());
        }
        let is_root = rel.ends_with("/src/lib.rs") || rel.ends_with("/src/main.rs");
        if is_root && rel.matches('/').count() == 3 {
            let crate_dir = rel.rsplitn(3, '/').nth(2).expect("crate directory");
            let excepted = policy
                .lines()
                .any(|l| l.starts_with('#') && l.contains(&format!("{crate_dir}/src/")));
            let wanted = if excepted {
                "#![deny(unsafe_code)]"
            } else {
                "#![forbid(unsafe_code)]"
            };
            if !text.contains(wanted) {
                roots_wrong.push(format!("{rel} lacks {wanted}"));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "unsafe code outside the root Cargo.toml's list: {unlisted:?}"
    );
    assert!(roots_wrong.is_empty(), "{roots_wrong:?}");
}

/// Each crate links into at most one integration test binary (each binary links the whole
/// crate again, which CI pays for): cargo makes one of every `tests/*.rs` and every
/// `tests/*/main.rs`, unless the manifest says `autotests = false` and lists `[[test]]`s.
#[test]
fn every_crate_has_at_most_one_test_binary() {
    let root = repo_root();
    let mut over = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).expect("crates directory") {
        let dir = entry.expect("directory entry").path();
        let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let manifest: toml::Table = text.parse().expect("member Cargo.toml");
        // Listed targets by path; an auto-found file a `[[test]]` names is that target.
        let listed: Vec<PathBuf> = manifest
            .get("test")
            .and_then(|t| t.as_array())
            .map(|targets| {
                targets
                    .iter()
                    .filter_map(|t| t.get("path").and_then(|p| p.as_str()))
                    .map(|p| dir.join(p))
                    .collect()
            })
            .unwrap_or_default();
        let auto = manifest["package"]
            .get("autotests")
            .and_then(|v| v.as_bool())
            .unwrap_or(true);
        let found = if auto {
            std::fs::read_dir(dir.join("tests"))
                .map(|entries| {
                    entries
                        .filter_map(Result::ok)
                        .map(|e| e.path())
                        .map(|p| if p.is_dir() { p.join("main.rs") } else { p })
                        .filter(|p| {
                            p.is_file()
                                && p.extension().is_some_and(|e| e == "rs")
                                && !listed.contains(p)
                        })
                        .count()
                })
                .unwrap_or(0)
        } else {
            0
        };
        if listed.len() + found > 1 {
            over.push(format!("{}: {}", dir.display(), listed.len() + found));
        }
    }
    assert!(over.is_empty(), "more than one test binary: {over:?}");
}
