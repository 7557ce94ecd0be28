//! The README's Usage block, run as written (issue 30): each documented `read`, `open`,
//! `cache`, `sites` and `config` command is run through the real binary against a
//! loopback server, so a documented command that stops working fails CI. Only the
//! addresses are swapped: example.com for the loopback server, the sample handle for the
//! one the read made, `paper.pdf` for a real PDF. A line this test cannot run fails it.

use crate::util::{run, run_with_stdin, temp_dir, trawl};

/// The indented commands of the README's first Usage block (up to its first blank line).
fn usage_commands() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let usage = readme
        .split_once("\n## Usage\n")
        .expect("a Usage section")
        .1;
    usage
        .lines()
        .skip_while(|l| !l.starts_with("    "))
        .take_while(|l| l.starts_with("    "))
        .map(|l| l.split(" # ").next().unwrap().trim().to_owned())
        .collect()
}

/// Words of a command line, with "double quotes" kept together.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
        rest = &rest[start..];
        let (word, after) = if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').expect("closing quote");
            (&quoted[..end], &quoted[end + 1..])
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            (&rest[..end], &rest[end..])
        };
        out.push(word.to_owned());
        rest = after;
    }
    out
}

/// An article of several pages (the Usage block opens page 3).
fn long_article() -> String {
    let mut html = String::from(
        "<!doctype html><html lang=\"en\"><head><title>Tides of the North Sea</title></head>\
         <body><main><article><h1>Tides of the North Sea</h1>",
    );
    for i in 0..1200 {
        html.push_str(&format!(
            "<p>At station {i} the tidal range was measured twice a day, with the wind, \
             the pressure and the height of the spring tide written beside it.</p>"
        ));
    }
    html.push_str("</article></main></body></html>");
    html
}

#[test]
fn every_usage_command_in_the_readme_works() {
    let article = long_article();
    let server = trawl_testkit::TestServer::start();
    for path in ["/article", "/", "/1", "/2", "/3"] {
        server.route(path, trawl_testkit::Reply::html(article.clone()));
    }
    let dir = temp_dir();
    std::fs::write(
        dir.join("paper.pdf"),
        trawl_testkit::minimal_pdf("Tidal range at Dover"),
    )
    .unwrap();
    let base = server.base();
    let mut handle: Option<String> = None;
    let commands = usage_commands();
    assert!(commands.len() >= 10, "{commands:#?}");
    let mut ran = 0;
    for line in &commands {
        // `a|b|c` in an argument documents choices: each is run.
        let (stdin, line) = match line.split_once(" | trawl ") {
            Some((curl, rest)) => {
                assert!(curl.starts_with("curl -s "), "{line}");
                (Some(article.as_bytes()), format!("trawl {rest}"))
            }
            None => (None, line.clone()),
        };
        let ws = words(&line);
        assert_eq!(ws[0], "trawl", "{line}");
        let choices: Vec<Vec<String>> = match ws.iter().position(|w| w.contains('|')) {
            Some(i) => ws[i]
                .split('|')
                .map(|choice| {
                    let mut v = ws.clone();
                    v[i] = choice.to_owned();
                    v
                })
                .collect(),
            None => vec![ws],
        };
        for ws in choices {
            let args: Vec<String> = ws[1..]
                .iter()
                .map(|w| {
                    let w = w
                        .replace("https://example.com/article", &format!("{base}/article"))
                        .replace("https://example.com/", &format!("{base}/"));
                    match w.as_str() {
                        "URL1" | "URL2" | "URL3" => format!("{base}/{}", &w[3..]),
                        "example.com~3f1a9c0b2d4e" => {
                            handle.clone().expect("a read before the first open")
                        }
                        _ => w,
                    }
                })
                .collect();
            // `cache clear` asks only on a terminal; here stdin is not one.
            let mut cmd = trawl(&dir);
            cmd.env("TRAWL_ALLOW_HOSTS", "127.0.0.1").args(&args);
            let r = run_with_stdin(&mut cmd, stdin);
            assert_eq!(
                r.code, 0,
                "README: {line}\n{args:?}\n{}{}",
                r.stdout, r.stderr
            );
            if args.iter().any(|a| a == "--json") && args[0] == "read" {
                handle = r.json()["data"]["handle"].as_str().map(str::to_owned);
            }
            ran += 1;
        }
    }
    assert!(ran >= commands.len(), "{ran}");
    // The pages were read from the loopback server, not from example.com.
    assert!(server.hits("/article") >= 1);
    let r = run(trawl(&dir).args(["cache", "stats", "--json"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
}
