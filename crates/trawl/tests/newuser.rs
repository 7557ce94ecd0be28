//! Issue 30: what a new user met in their first hour, each item through the real binary.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::util::{run, temp_dir, trawl};

/// A document long enough to span several pages and to overflow a pipe's buffer.
fn long_markdown() -> String {
    let mut text = String::from("# A long field report\n\n");
    for i in 0..1500 {
        text.push_str(&format!(
            "Paragraph {i} records the tide gauge at station {i}, its range and the wind that day.\n\n"
        ));
    }
    text
}

/// Run `trawl ARGS` with stdout a pipe that its reader closes after one line (`| head -1`);
/// `close_at_once` closes it before reading anything, so a write always meets EPIPE.
fn run_into_closed_pipe(
    dir: &std::path::Path,
    args: &[&str],
    close_at_once: bool,
) -> (i32, String) {
    let mut child = trawl(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn trawl");
    let stdout = child.stdout.take().unwrap();
    if !close_at_once {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
    } else {
        drop(stdout);
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Item 1: a reader that goes away is not a crash, for every command that prints a lot.
#[test]
fn a_closed_pipe_exits_quietly_with_0() {
    let dir = temp_dir();
    std::fs::write(dir.join("long.md"), long_markdown()).unwrap();
    let r = run(trawl(&dir).args(["read", "long.md", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let handle = r.json()["data"]["handle"].as_str().unwrap().to_owned();
    let commands: Vec<Vec<&str>> = vec![
        vec!["read", "long.md", "-q", "--page-size-tokens", "0"],
        vec![
            "read",
            "long.md",
            "--format",
            "text",
            "--page-size-tokens",
            "0",
        ],
        vec!["read", "long.md", "--raw", "--page-size-tokens", "0"],
        vec!["open", &handle, "--page-size-tokens", "0"],
        vec!["open", &handle, "--raw", "--page-size-tokens", "0"],
        vec!["engines"],
        vec!["config", "show"],
        vec!["config", "vars"],
    ];
    for run_no in 0..50 {
        for args in &commands {
            let (code, stderr) = run_into_closed_pipe(&dir, args, run_no % 2 == 0);
            assert_eq!(
                code, 0,
                "run {run_no}: trawl {args:?} exited {code}: {stderr}"
            );
            assert!(
                !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
                "run {run_no}: trawl {args:?} said: {stderr}"
            );
        }
    }
}

/// Item 2: `-q` prints the whole document unless pages are asked for; body-only output
/// that is one page of several says so on stderr, with the command for the next page.
#[test]
fn quiet_reads_the_whole_document_and_cut_output_says_so() {
    let dir = temp_dir();
    std::fs::write(dir.join("long.md"), long_markdown()).unwrap();
    let last = "Paragraph 1499 records";
    let r = run(trawl(&dir).args(["read", "long.md", "-q"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(last), "-q printed the whole document");
    assert!(!r.stderr.contains("page 1 of"), "{}", r.stderr);

    for args in [
        vec!["read", "long.md", "--format", "text"],
        vec!["read", "long.md", "-q", "--page", "1"],
        vec!["read", "long.md", "--raw"],
    ] {
        let r = run(trawl(&dir).args(&args));
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(!r.stdout.contains(last), "{args:?} printed one page");
        assert!(
            r.stderr.contains("this is page 1 of")
                && r.stderr.contains("trawl open ")
                && r.stderr.contains("--page 2"),
            "{args:?} said nothing of the other pages: {}",
            r.stderr
        );
    }
}

/// Item 5: hints name commands, not tool calls; a handle or a missing file given to
/// `trawl read` is recognised for what it is.
#[test]
fn hints_speak_cli_to_people() {
    let dir = temp_dir();
    std::fs::write(dir.join("long.md"), long_markdown()).unwrap();
    let r = run(trawl(&dir).args(["read", "long.md"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("More: trawl open "), "{}", r.stdout);
    assert!(r.stdout.contains("--page 2"), "{}", r.stdout);
    assert!(!r.stdout.contains("web_open"), "{}", r.stdout);
    let handle = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("handle: "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .to_owned();

    let r = run(trawl(&dir).args(["open", &handle, "--page", "2"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("--page 3") && !r.stdout.contains("web_open"),
        "{}",
        r.stdout
    );
    let r = run(trawl(&dir).args(["open", &handle, "--find", "station 7"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("trawl open HANDLE --page N"),
        "{}",
        r.stdout
    );

    let r = run(trawl(&dir).args(["open", "127.0.0.1~0123456789ab"]));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("trawl read URL") && !r.stderr.contains("web_fetch"),
        "{}",
        r.stderr
    );
    let r = run(trawl(&dir).args(["open", "--find", "tide"]));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("HANDLE") && !r.stderr.contains("all is true"),
        "{}",
        r.stderr
    );

    let r = run(trawl(&dir).args(["read", &handle]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("trawl open {handle}")),
        "{}",
        r.stderr
    );
    let r = run(trawl(&dir).args(["read", "paper.pdf"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no such file: paper.pdf"), "{}", r.stderr);
}

/// Item 4: `--read-top` says in human output, per hit, why a hit could not be read.
#[test]
fn read_top_failures_are_said_per_hit() {
    let pages = trawl_testkit::TestServer::start();
    pages.route(
        "/a",
        trawl_testkit::Reply::html("<html><body><p>a</p></body></html>"),
    );
    let saved = std::fs::read(format!(
        "{}/../../../shared/fixtures/serp/searxng/search-python-format-json.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    // The real saved response, its first hit pointed at a loopback page trawl may not read
    // without --allow-host.
    let mut answer: serde_json::Value = serde_json::from_slice(&saved).unwrap();
    answer["results"][0]["url"] = pages.url("/a").into();
    let engine = trawl_testkit::TestServer::start();
    engine.route(
        "/search",
        trawl_testkit::Reply::ok("application/json", serde_json::to_vec(&answer).unwrap()),
    );
    let dir = temp_dir();
    // Engines are configuration, not page reads: only the hit's page meets the guard.
    let r = run(trawl(&dir).env("TRAWL_SEARXNG_URL", engine.base()).args([
        "search",
        "python",
        "--engines",
        "searxng",
        "--read-top",
        "1",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let first_hit = r.stdout.split("\n 2. ").next().unwrap();
    assert!(first_hit.contains(&pages.url("/a")), "{}", r.stdout);
    assert!(first_hit.contains("not read: error["), "{}", r.stdout);
    assert!(
        r.stderr.contains("1 of the top hits could not be read"),
        "{}",
        r.stderr
    );
}

/// Item 6: a 403 whose body is Cloudflare's interstitial, its headers stripped by a proxy
/// in front, is reported as `blocked` (a challenge), not as `http_error: HTTP 403`.
#[test]
fn a_challenge_page_is_known_by_its_body() {
    const INTERSTITIAL: &str = r#"<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body><noscript><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></noscript><script>(function(){window._cf_chl_opt={cvId: '3',cZone: "127.0.0.1",cType: 'managed'};var cpo = document.createElement('script');cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8f1a2b3c4d5e6f70';document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>"#;
    let server = trawl_testkit::TestServer::start();
    server.route(
        "/guarded",
        trawl_testkit::Reply::status(403, INTERSTITIAL).with_header("Server", "nginx"),
    );
    let dir = temp_dir();
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/guarded"),
        "--allow-host",
        "127.0.0.1",
        "--render",
        "never",
        "--json",
    ]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["error"]["code"], "blocked", "{v}");
}

/// Item 9: `trawl engines` names no file a user does not have; it says what each parser
/// is tested on.
#[test]
fn engines_output_has_no_internal_paths() {
    let dir = temp_dir();
    let r = run(trawl(&dir).arg("engines"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    for internal in [
        "PROVENANCE",
        "ENGINES.md",
        "../shared",
        "fixtures",
        "crates/",
    ] {
        assert!(!r.stdout.contains(internal), "{internal} in:\n{}", r.stdout);
    }
    assert!(
        r.stdout
            .contains("tested on 5 real saved responses (captured 2020-07-16 to 2026-02-23)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("not tested on a real saved response"),
        "{}",
        r.stdout
    );
}

/// Item 10: the cache commands answer a person in words, `cache clear` asks on a
/// terminal (a pty here, through `script`) unless `--yes`, and `sites reset SITE` does not
/// claim that no site is remembered while others are.
#[test]
fn cache_and_sites_speak_to_people() {
    let dir = temp_dir();
    std::fs::write(dir.join("long.md"), long_markdown()).unwrap();
    assert_eq!(run(trawl(&dir).args(["read", "long.md", "-q"])).code, 0);
    let r = run(trawl(&dir).args(["cache", "stats"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.trim_start().starts_with('{'), "{}", r.stdout);
    assert!(r.stdout.contains("documents: 1 "), "{}", r.stdout);
    let r = run(trawl(&dir).args(["cache", "prune"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("pruned: 0 expired documents"),
        "{}",
        r.stdout
    );

    // On a terminal, "n" keeps everything.
    let mut on_a_terminal = trawl(&dir);
    on_a_terminal.env("TERM", "dumb");
    let mut cmd = std::process::Command::new("script");
    cmd.current_dir(&dir)
        .env_clear()
        .envs(on_a_terminal.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .args([
            "-qec",
            &format!("{} cache clear", env!("CARGO_BIN_EXE_trawl")),
            "/dev/null",
        ]);
    let r = crate::util::run_with_stdin(&mut cmd, Some(b"n\n"));
    assert!(
        r.stdout.contains("remove everything stored in"),
        "{}",
        r.stdout
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let r = run(trawl(&dir).args(["cache", "stats", "--json"]));
    assert_eq!(r.json()["data"]["stats"]["documents"], 1);
    let r = run(trawl(&dir).args(["cache", "clear", "--yes"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("removed "), "{}", r.stdout);
    let r = run(trawl(&dir).args(["cache", "stats", "--json"]));
    assert_eq!(r.json()["data"]["stats"]["documents"], 0);

    for site in ["docs.rs", "example.org"] {
        assert_eq!(
            run(trawl(&dir).args(["sites", "pin", site, "http"])).code,
            0
        );
    }
    let r = run(trawl(&dir).args(["sites", "reset", "docs.rs"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("No site is remembered"), "{}", r.stdout);
    let r = run(trawl(&dir).arg("sites"));
    assert!(
        r.stdout.contains("example.org") && !r.stdout.contains("docs.rs"),
        "{}",
        r.stdout
    );
}

/// Item 12 (part): deadlines are said as they were given, and `search --help` says what
/// `--timeout` bounds there.
#[test]
fn deadlines_are_said_plainly() {
    let dir = temp_dir();
    let r = run(trawl(&dir).args(["read", "https://example.org/", "--timeout", "0"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("more than 0 and at most 3600 seconds, got 0"),
        "{}",
        r.stderr
    );

    let server = trawl_testkit::TestServer::start();
    server.route("/slow", trawl_testkit::Reply::Hang);
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/slow"),
        "--allow-host",
        "127.0.0.1",
        "--render",
        "never",
        "--timeout",
        "1",
    ]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("exceeded 1 s"), "{}", r.stderr);

    let r = run(trawl(&dir).args(["search", "--help"]));
    assert!(
        r.stdout.contains("Deadline for each engine"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("per fetch"), "{}", r.stdout);
}

/// An article with a byline, a date and a reader's comment below it.
fn article_with_comments() -> String {
    let para = |topic: &str| {
        format!(
            "<p>{topic} is discussed here at length, with details, examples, and a few asides \
             that a reader would want to keep, because this is the body of the page.</p>"
        )
    };
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tide survey</title>
        <meta property="og:type" content="article">
        <meta name="author" content="Jane Doe">
        <meta property="article:published_time" content="2024-05-01T10:00:00Z">
        </head><body><main><article><h1>Tide survey</h1>{}{}{}</article>
        <div id="comments" class="comments"><h3>Comments</h3><div class="comment"><p>Commenter
        Bob says this article is wonderful and he will share it with all of his friends.</p></div></div>
        </main></body></html>"#,
        para("Alpha"),
        para("Beta"),
        para("Gamma")
    )
}

/// Item 3: the stored copy remembers whether comments were kept, so neither choice is
/// answered with the other's copy.
#[test]
fn comments_and_the_store_keep_to_what_was_asked() {
    let server = trawl_testkit::TestServer::start();
    server.route(
        "/story",
        trawl_testkit::Reply::html(article_with_comments()),
    );
    let url = server.url("/story");
    let dir = temp_dir();
    let read = |extra: &[&str]| {
        let mut args = vec![
            "read",
            &url,
            "--allow-host",
            "127.0.0.1",
            "--render",
            "never",
        ];
        args.extend_from_slice(extra);
        args.push("-q");
        let r = run(trawl(&dir).args(&args));
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        r.stdout.contains("Commenter")
    };
    assert!(!read(&[]), "a plain read keeps no comments");
    assert!(read(&["--comments"]), "--comments after a plain read");
    assert!(!read(&[]), "a plain read after --comments");
    assert!(read(&["--comments", "--fresh"]));
    assert!(!read(&[]), "a plain read after --comments --fresh");
    assert!(read(&["--comments"]));
    assert_eq!(
        server.hits("/story"),
        6,
        "each change of choice reads the page again"
    );
    // The same choice twice is answered from the store.
    assert!(read(&["--comments"]));
    assert_eq!(server.hits("/story"), 6);
}

/// Item 12 (rest): a store path that is a directory is the user's to fix, not an internal
/// error; the human read header shows the byline and date `--json` has (in the fence, as
/// the page's words); `open --find` ranks passages instead of printing `score 0.00`.
#[test]
fn store_faults_headers_and_passages_speak_plainly() {
    let dir = temp_dir();
    std::fs::create_dir(dir.join("a-directory")).unwrap();
    std::fs::write(dir.join("note.md"), "# A note\n\nShort.\n").unwrap();
    for args in [
        vec!["read", "note.md", "--store", "a-directory"],
        vec!["cache", "stats", "--store", "a-directory"],
        vec!["open", "example.com~0123456789ab", "--store", "a-directory"],
    ] {
        let r = run(trawl(&dir).args(&args));
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("internal"), "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("not a file (a directory)"),
            "{args:?}: {}",
            r.stderr
        );
    }
    let r = run(trawl(&dir).args(["read", "note.md", "--store", "a-directory", "--json"]));
    assert_eq!(r.json()["error"]["retryable"], false);

    let server = trawl_testkit::TestServer::start();
    server.route(
        "/story",
        trawl_testkit::Reply::html(article_with_comments()),
    );
    let r = run(trawl(&dir).args([
        "read",
        &server.url("/story"),
        "--allow-host",
        "127.0.0.1",
        "--render",
        "never",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let fenced = r.stdout.split("TRAWL_UNTRUSTED_BEGIN").nth(1).unwrap_or("");
    assert!(fenced.contains("\nby: Jane Doe\n"), "{}", r.stdout);
    assert!(fenced.contains("\npublished: 2024-05-01"), "{}", r.stdout);
    let header = r.stdout.split("TRAWL_UNTRUSTED_BEGIN").next().unwrap();
    assert!(!header.contains("Jane Doe"), "page words outside the fence");

    let handle = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("handle: "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .to_owned();
    for extra in [None, Some("--raw")] {
        let mut args = vec!["open", &handle, "--find", "discussed"];
        args.extend(extra);
        let r = run(trawl(&dir).args(&args));
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(!r.stdout.contains("score"), "{args:?}: {}", r.stdout);
        // Each passage names its document: title and URL (inside the fence), then handle.
        assert!(
            r.stdout.contains("[#1 · ") && r.stdout.contains(&format!("{handle} page 1]")),
            "{args:?}: {}",
            r.stdout
        );
    }
}

/// Item 7: a batch read shows a progress bar on a terminal (a pty, through `script`) while
/// its pages are still coming, nothing on a pipe; `-q` heads each document of a batch.
#[test]
fn batch_reads_show_progress_on_a_terminal_and_quiet_batches_are_told_apart() {
    let server = trawl_testkit::TestServer::start();
    let page = |word: &str| {
        format!(
            "<html><head><title>{word}</title></head><body><main><h1>{word}</h1><p>{word} \
             is the word of this page, said here in a sentence long enough to be read.</p>\
             </main></body></html>"
        )
    };
    for word in ["alpha", "beta"] {
        server.route(&format!("/{word}"), trawl_testkit::Reply::html(page(word)));
    }
    // One page that takes a second, so the bar is drawn before the batch ends.
    server.route(
        "/slow",
        trawl_testkit::Reply::Trickle {
            body: page("gamma").into_bytes(),
            piece: 16,
            pause: std::time::Duration::from_millis(80),
        },
    );
    let urls: Vec<String> = ["/alpha", "/beta", "/slow"]
        .iter()
        .map(|p| server.url(p))
        .collect();
    let dir = temp_dir();
    let mut args = vec![
        "read",
        "--allow-host",
        "127.0.0.1",
        "--render",
        "never",
        "-q",
    ];
    args.extend(urls.iter().map(String::as_str));

    let r = run(trawl(&dir).args(&args));
    assert_eq!(r.code, 0, "{}", r.stderr);
    // No progress bar on a pipe: only the notes that these short pages are thin.
    assert!(
        r.stderr.lines().all(|l| l.starts_with("note: thin (")),
        "a pipe got: {}",
        r.stderr
    );
    for (url, word) in urls.iter().zip(["alpha", "beta", "gamma"]) {
        let head = format!("==> {url} <==\n");
        let at = r
            .stdout
            .find(&head)
            .unwrap_or_else(|| panic!("{head}in {}", r.stdout));
        assert!(r.stdout[at..].contains(word), "{}", r.stdout);
    }
    assert!(r.stdout.starts_with("==> "), "{}", r.stdout);

    let mut on_a_terminal = trawl(&dir);
    on_a_terminal.env("TERM", "xterm");
    let command = std::iter::once(env!("CARGO_BIN_EXE_trawl").to_owned())
        .chain(args.iter().map(|a| a.to_string()))
        .chain(["--fresh".to_owned()])
        .collect::<Vec<_>>()
        .join(" ");
    let mut cmd = std::process::Command::new("script");
    cmd.current_dir(&dir)
        .env_clear()
        .envs(on_a_terminal.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .args(["-qec", &command, "/dev/null"]);
    let r = run(&mut cmd);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // The bar, drawn while the slow page was still coming (a count below 3 of 3).
    assert!(
        ["0/3 pages", "1/3 pages", "2/3 pages"]
            .iter()
            .any(|drawn| r.stdout.contains(drawn)),
        "no bar: {}",
        r.stdout
    );
}

/// Item 8: engines failing for one cause share one `doctor` line, the failed required
/// checks are named, and the last line says what to do; `search` prints a transport
/// failure's cause, the whole chain with `-v`.
#[test]
fn doctor_groups_causes_and_search_says_the_cause_once() {
    let dir = temp_dir();
    let closed = "http://127.0.0.1:9";
    let engines = ["arxiv", "stackexchange", "hackernews"];
    let mut doctor = trawl(&dir);
    doctor.args(["doctor", "--timeout", "3"]);
    for engine in engines {
        doctor.env(format!("TRAWL_{}_URL", engine.to_uppercase()), closed);
        doctor.args(["--engine", engine]);
    }
    let r = run(&mut doctor);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let fails: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(fails.len(), 1, "{}", r.stdout);
    assert!(
        fails[0].contains("3 engines")
            && fails[0].contains("cannot connect")
            && engines.iter().all(|e| fails[0].contains(e)),
        "{}",
        fails[0]
    );
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("required checks failed: engine ")
                && engines.iter().all(|e| l.contains(e))),
        "{}",
        r.stderr
    );
    let last = lines.last().copied().unwrap_or_default();
    assert!(
        last.starts_with("next: ") && last.contains("cannot connect"),
        "{last}"
    );

    let search = |verbose: bool| {
        let mut cmd = trawl(&dir);
        for engine in ["arxiv", "stackexchange"] {
            cmd.env(format!("TRAWL_{}_URL", engine.to_uppercase()), closed);
        }
        cmd.args(["search", "tides", "--engines", "arxiv,stackexchange"]);
        if verbose {
            cmd.arg("-v");
        }
        run(&mut cmd)
    };
    let r = search(false);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let arxiv = r.stdout.lines().find(|l| l.starts_with("arxiv")).unwrap();
    assert!(
        arxiv.contains("transport error: Connection refused")
            && !arxiv.contains("error sending request"),
        "{arxiv}"
    );
    assert!(r.stdout.contains("-v prints"), "{}", r.stdout);
    let r = search(true);
    let arxiv = r.stdout.lines().find(|l| l.starts_with("arxiv")).unwrap();
    assert!(arxiv.contains("error sending request"), "{arxiv}");
}

/// Item 8, offline as a new user met it (the loopback-only namespace: no name resolves):
/// one line for every engine that could not resolve, and one thing to do.
#[test]
fn doctor_offline_says_no_network_once() {
    trawl_testkit::require_isolation!();
    let dir = temp_dir();
    let r = run(trawl(&dir).args(["doctor", "--timeout", "3"]));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let grouped: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL no network: ") && l.contains("engines could not resolve"))
        .collect();
    assert_eq!(grouped.len(), 1, "{}", r.stdout);
    let fails = r.stdout.lines().filter(|l| l.starts_with("FAIL")).count();
    assert_eq!(fails, 2, "the group and the fetch: {}", r.stdout);
    assert!(
        r.stderr.contains("required checks failed: search") && r.stderr.contains("fetch"),
        "{}",
        r.stderr
    );
    let last = r.stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("next: no network"), "{last}");
    // OCR works offline: tesseract and its languages are named.
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("ok   ocr") && l.contains("tesseract") && l.contains("eng")),
        "{}",
        r.stdout
    );
    // Without tesseract, OCR warns with the install hint and fails nothing more.
    let r = run(trawl(&dir)
        .env("TRAWL_TESSERACT", dir.join("no-tesseract"))
        .args(["doctor", "--timeout", "3"]));
    let ocr = r
        .stdout
        .lines()
        .find(|l| l.contains(" ocr "))
        .unwrap_or_default();
    assert!(
        ocr.starts_with("warn") && ocr.contains("apt-get install tesseract-ocr"),
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stdout.lines().filter(|l| l.starts_with("FAIL")).count(),
        2
    );
}

/// `/proc/PID/stat`'s state and parent, or None when the process is gone.
fn state_and_parent(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces.
    let mut after = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = after.next()?.chars().next()?;
    Some((state, after.next()?.parse().ok()?))
}

/// Running (not zombie) descendants of `root`, with their command lines.
pub(crate) fn descendants(root: u32) -> Vec<(u32, String)> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| Some((p, state_and_parent(p)?.1)))
        .collect();
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    tree.into_iter()
        .skip(1)
        .filter(|p| alive(*p))
        .filter_map(|p| {
            let cmdline = std::fs::read(format!("/proc/{p}/cmdline")).ok()?;
            Some((p, String::from_utf8_lossy(&cmdline).replace('\0', " ")))
        })
        .collect()
}

/// Every process `child` started (pid → command line), watched every 10 ms until it exits,
/// then checked the moment it has: none may still run.
pub(crate) fn watch_until_exit(
    child: &mut std::process::Child,
) -> (
    std::process::ExitStatus,
    std::collections::BTreeMap<u32, String>,
) {
    let mut seen = std::collections::BTreeMap::new();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        seen.extend(descendants(child.id()));
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let left: Vec<_> = seen.iter().filter(|(pid, _)| alive(**pid)).collect();
    assert!(left.is_empty(), "processes left after exit: {left:#?}");
    (status, seen)
}

/// Whether `pid` still runs: a zombie is gone but for its exit status.
pub(crate) fn alive(pid: u32) -> bool {
    state_and_parent(pid).is_some_and(|(state, _)| state != 'Z')
}

/// Item 11: no browser process outlives a rendered `trawl read`, counted the moment it has
/// exited (not after a grace period). Every process the browser started is watched for
/// while trawl runs (the page comes slowly, so they are all up), then each is looked for
/// at once after exit.
#[test]
fn the_browser_is_reaped_before_read_exits() {
    trawl_testkit::require_isolation!();
    trawl_testkit::require_chromium!();
    let server = trawl_testkit::TestServer::start();
    server.route(
        "/story",
        trawl_testkit::Reply::Trickle {
            body: article_with_comments().into_bytes(),
            piece: 64,
            pause: std::time::Duration::from_millis(100),
        },
    );
    let dir = temp_dir();
    for _ in 0..3 {
        let mut child = trawl(&dir)
            .args([
                "read",
                &server.url("/story"),
                "--allow-host",
                "127.0.0.1",
                "--render",
                "always",
                "--fresh",
                "--json",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (status, seen) = watch_until_exit(&mut child);
        let renderers = seen
            .values()
            .filter(|c| c.contains("--type=renderer"))
            .count();
        assert!(renderers > 0, "no renderer was seen: {seen:#?}");
        let out = child.wait_with_output().unwrap();
        assert!(status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["data"]["fetched_via"], "render", "{v}");
    }
}
