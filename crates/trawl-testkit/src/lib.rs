//! trawl-testkit: loopback HTTP servers that trawl's tests start on 127.0.0.x, so engines,
//! readers and pages are exercised through real HTTP without touching the internet.
//!
//! Plain std threads and blocking sockets, written by hand: the tests need byte-level
//! control (hangs, trickles, endless bodies, raw headers) that framework servers hide.
//!
//! [`pdf`] builds PDFs for tests, hostile shapes included (decompression bombs, forms
//! that draw themselves).
//!
//! [`TestNames`] is the tests' one name resolver: fixed addresses, never real DNS.
//!
//! [`RedisServer`] starts a private `redis-server` on a free loopback port for the tests
//! of the shared store.

#![forbid(unsafe_code)]

mod names;
pub mod pdf;
mod redis;
pub use names::TestNames;
pub use redis::{RedisServer, free_port};

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How a route answers.
#[derive(Clone)]
pub enum Reply {
    /// A complete response.
    Full {
        /// HTTP status code.
        status: u16,
        /// Response headers, in order.
        headers: Vec<(String, String)>,
        /// The whole body (sent with `Content-Length`).
        body: Vec<u8>,
    },
    /// Accept the request, then never answer (until the client goes away).
    Hang,
    /// Headers, then `chunk` repeated forever (chunked encoding) until the client closes.
    Endless {
        /// `Content-Type` of the stream.
        content_type: String,
        /// What is sent again and again.
        chunk: Vec<u8>,
    },
    /// Headers, then the body one piece at a time with a pause between pieces.
    Trickle {
        /// The whole body (its length is announced up front).
        body: Vec<u8>,
        /// Bytes per piece.
        piece: usize,
        /// Pause before each piece.
        pause: Duration,
    },
    /// Bytes written as they are, then the connection is closed.
    Raw(Vec<u8>),
    /// A different answer per hit: the first for hit 1, and so on; the last repeats.
    Sequence(Vec<Reply>),
}

impl Reply {
    /// 200 with `content_type` and `body`.
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    /// 200 HTML (UTF-8).
    pub fn html(body: impl Into<Vec<u8>>) -> Self {
        Self::ok("text/html; charset=utf-8", body)
    }

    /// `status` with an HTML body.
    pub fn status(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Reply::Full {
            status,
            headers: vec![("Content-Type".into(), "text/html".into())],
            body: body.into(),
        }
    }

    /// A redirect (`status` 301/302/303/307/308) to `location`.
    pub fn redirect(status: u16, location: &str) -> Self {
        Reply::Full {
            status,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
        }
    }

    /// Add a header to a `Full` reply.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        if let Reply::Full { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Request method (`GET`, `POST`, …).
    pub method: String,
    /// Path including the query string.
    pub path: String,
    /// Request headers (names lower-cased).
    pub headers: HashMap<String, String>,
    /// When it had arrived (head and body read).
    pub at: std::time::Instant,
}

struct Shared {
    routes: Mutex<HashMap<String, Reply>>,
    seen: Mutex<Vec<Seen>>,
    hits: Mutex<HashMap<String, usize>>,
    /// Bytes of body written by `Endless` and `Trickle` replies, to prove a client stopped.
    body_bytes_sent: AtomicU64,
    stop: AtomicBool,
}

/// A running loopback server; stops when dropped.
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl TestServer {
    /// Start on `127.0.0.1` with an OS-chosen port.
    pub fn start() -> Self {
        Self::start_on("127.0.0.1")
    }

    /// Start on a given loopback address (e.g. `127.0.0.2`, to tell hosts apart).
    pub fn start_on(ip: &str) -> Self {
        let listener = TcpListener::bind((ip, 0)).expect("bind loopback test server");
        Self::serve_on(listener)
    }

    /// Start on an exact address (e.g. the same port as another server on another
    /// loopback address, for DNS-rebinding tests); fails when the port is taken.
    pub fn try_start_at(addr: SocketAddr) -> std::io::Result<Self> {
        Ok(Self::serve_on(TcpListener::bind(addr)?))
    }

    fn serve_on(listener: TcpListener) -> Self {
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Shared {
            routes: Mutex::new(HashMap::new()),
            seen: Mutex::new(Vec::new()),
            hits: Mutex::new(HashMap::new()),
            body_bytes_sent: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        let accept_shared = shared.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_shared.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let shared = accept_shared.clone();
                std::thread::spawn(move || serve(stream, shared));
            }
        });
        TestServer { addr, shared }
    }

    /// Add or replace a route (path including the query string, e.g. `/a?x=1`; a path
    /// without a query also matches requests with any query).
    pub fn route(&self, path: &str, reply: Reply) -> &Self {
        self.shared
            .routes
            .lock()
            .unwrap()
            .insert(path.to_owned(), reply);
        self
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://IP:PORT` with no trailing slash.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `base()` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base(), path)
    }

    /// Every request seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.shared.seen.lock().unwrap().clone()
    }

    /// How many requests hit `path`.
    pub fn hits(&self, path: &str) -> usize {
        self.seen().iter().filter(|s| s.path == path).count()
    }

    /// Body bytes written so far by `Endless` and `Trickle` replies (how much was sent
    /// before the client stopped reading).
    pub fn body_bytes_sent(&self) -> u64 {
        self.shared.body_bytes_sent.load(Ordering::SeqCst)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_owned();
        let path = parts.next().unwrap_or("/").to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        if let Some(len) = headers
            .get("content-length")
            .and_then(|v| v.parse::<usize>().ok())
        {
            let mut body = vec![0; len];
            if std::io::Read::read_exact(&mut reader, &mut body).is_err() {
                return;
            }
        }
        shared.seen.lock().unwrap().push(Seen {
            method,
            path: path.clone(),
            headers,
            at: std::time::Instant::now(),
        });
        let reply = {
            let routes = shared.routes.lock().unwrap();
            let bare = path.split('?').next().unwrap_or("");
            routes.get(&path).or_else(|| routes.get(bare)).cloned()
        };
        let hit = {
            let mut hits = shared.hits.lock().unwrap();
            let n = hits.entry(path.clone()).or_insert(0);
            *n += 1;
            *n
        };
        let reply = match reply {
            Some(Reply::Sequence(list)) => list
                .get(hit - 1)
                .or(list.last())
                .cloned()
                .unwrap_or_else(|| Reply::status(404, "empty sequence")),
            Some(r) => r,
            None => Reply::status(404, "<h1>Not Found</h1>"),
        };
        if !answer(&mut writer, reply, &shared) {
            return;
        }
    }
}

/// Write one reply; returns whether the connection may serve another request.
fn answer(w: &mut TcpStream, reply: Reply, shared: &Shared) -> bool {
    match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            for (k, v) in &headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
            w.write_all(head.as_bytes()).is_ok() && w.write_all(&body).is_ok()
        }
        Reply::Hang => {
            std::thread::sleep(Duration::from_secs(60));
            false
        }
        Reply::Endless {
            content_type,
            chunk,
        } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\r\n"
            );
            if w.write_all(head.as_bytes()).is_err() {
                return false;
            }
            let framed = [
                format!("{:x}\r\n", chunk.len()).into_bytes(),
                chunk.clone(),
                b"\r\n".to_vec(),
            ]
            .concat();
            // Bounded so a broken client cannot make the test run forever.
            for _ in 0..(1 << 20) {
                if w.write_all(&framed).is_err() {
                    return false;
                }
                shared
                    .body_bytes_sent
                    .fetch_add(chunk.len() as u64, Ordering::SeqCst);
            }
            false
        }
        Reply::Trickle { body, piece, pause } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            if w.write_all(head.as_bytes()).is_err() {
                return false;
            }
            for part in body.chunks(piece.max(1)) {
                std::thread::sleep(pause);
                if w.write_all(part).is_err() || w.flush().is_err() {
                    return false;
                }
                shared
                    .body_bytes_sent
                    .fetch_add(part.len() as u64, Ordering::SeqCst);
            }
            true
        }
        Reply::Raw(bytes) => {
            let _ = w.write_all(&bytes);
            false
        }
        Reply::Sequence(_) => false,
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Whether this test process runs in a network namespace with only loopback (set by
/// `scripts/test`): tests whose failure could send packets off this machine run only then.
pub fn isolated_network() -> bool {
    std::env::var("TRAWL_TEST_NETNS").is_ok_and(|v| v == "1")
}

/// Whether this is a CI run (`CI` set to anything but `false` or `0`): nothing may be
/// skipped then, because a skipped safety test would read as a passed one.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Return early from a test (with a note) unless [`isolated_network`] holds: for tests whose
/// failure would send packets to a non-loopback address. Under CI ([`in_ci`]) it fails the
/// test instead, so the SSRF tests cannot go green without having run.
#[macro_export]
macro_rules! require_isolation {
    () => {
        if !$crate::isolated_network() {
            if $crate::in_ci() {
                panic!("needs scripts/test's loopback-only network namespace; under CI this is not skipped");
            }
            eprintln!("skipped: needs scripts/test's loopback-only network namespace");
            return;
        }
    };
}

/// Whether Debian's `chromium` is on the PATH (the rendering tests drive it).
pub fn chromium_on_path() -> bool {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|d| d.join("chromium").is_file())
}

/// Return early from a test (with a note) when no `chromium` is on the PATH. Under CI
/// ([`in_ci`]) it fails the test instead: `.ci/run` installs chromium, so a skip would hide
/// a missing install step.
#[macro_export]
macro_rules! require_chromium {
    () => {
        if !$crate::chromium_on_path() {
            if $crate::in_ci() {
                panic!("CI: this test needs Debian's chromium (apt-get install chromium)");
            }
            eprintln!("skipped: no chromium on the PATH");
            return;
        }
    };
}

/// A tiny valid one-page PDF whose text is `text` (ASCII), built with correct xref offsets.
pub fn minimal_pdf(text: &str) -> Vec<u8> {
    let stream = format!("BT /F1 18 Tf 72 720 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_owned(),
        format!("<< /Length {} >>\nstream\n{stream}\nendstream", stream.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_owned(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, obj) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{obj}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// The SSRF table shared by trawl-fetch's library tests and the CLI tests: URLs the read
/// path must refuse. See [`ssrf::cases`].
pub mod ssrf {
    /// One URL that must be refused.
    #[derive(Debug, Clone)]
    pub struct Case {
        /// What it tries (`v4`, `v6`, `spelling`, `userinfo`, `scheme`, `name`).
        pub class: &'static str,
        /// The URL to refuse.
        pub url: String,
        /// The host is one of [`NAMES`]: only a test lookup knows it (no real DNS).
        pub fake_dns: bool,
    }

    /// Test names and what a test lookup answers for them.
    pub const NAMES: &[(&str, &[&str])] = &[
        ("intranet.test", &["10.0.0.1"]),
        ("metadata.test", &["169.254.169.254"]),
        ("loop.test", &["127.0.0.1"]),
        ("mixed.test", &["93.184.216.34", "192.168.0.10"]),
        ("mixed6.test", &["2606:4700:4700::1111", "fd00::1"]),
        ("v6local.test", &["fd00::1"]),
        ("mapped.test", &["::ffff:127.0.0.1"]),
        ("nat64.test", &["64:ff9b::a9fe:a9fe"]),
        ("sixtofour.test", &["2002:7f00:1::1"]),
        ("cgnat.test", &["100.64.1.1"]),
    ];

    /// Every case, with loopback ones aimed at `port` (where a test keeps a decoy server on
    /// 127.0.0.1), so a guard failure shows up as a request the decoy saw.
    pub fn cases(port: u16) -> Vec<Case> {
        let mut out = Vec::new();
        let mut add = |class: &'static str, urls: &[&str]| {
            for u in urls {
                out.push(Case {
                    class,
                    url: u.replace("{p}", &port.to_string()),
                    fake_dns: false,
                });
            }
        };
        // Every special-purpose IPv4 range, as plain literals.
        add(
            "v4",
            &[
                "http://0.0.0.0:{p}/",
                "http://0.1.2.3/",
                "http://10.0.0.1/",
                "http://10.255.255.254/",
                "http://100.64.0.1/",
                "http://100.127.255.254/",
                "http://127.0.0.1:{p}/",
                "http://127.255.255.254/",
                "http://169.254.169.254/latest/meta-data/",
                "http://169.254.0.1/",
                "http://172.16.0.1/",
                "http://172.31.255.254/",
                "http://192.0.0.170/",
                "http://192.0.2.1/",
                "http://192.88.99.1/",
                "http://192.168.0.1/",
                "http://192.168.255.254/",
                "http://198.18.0.1/",
                "http://198.19.255.254/",
                "http://198.51.100.1/",
                "http://203.0.113.1/",
                "http://224.0.0.1/",
                "http://239.255.255.250/",
                "http://240.0.0.1/",
                "http://255.255.255.255/",
                "https://10.0.0.1:8443/admin",
            ],
        );
        // Every special-purpose IPv6 range, and the forms that carry an IPv4 address.
        add(
            "v6",
            &[
                "http://[::]:{p}/",
                "http://[::1]:{p}/",
                "http://[::ffff:127.0.0.1]:{p}/",
                "http://[::ffff:7f00:1]:{p}/",
                "http://[0:0:0:0:0:ffff:127.0.0.1]:{p}/",
                "http://[::ffff:10.0.0.1]/",
                "http://[::ffff:a9fe:a9fe]/",
                "http://[::127.0.0.1]/",
                "http://[64:ff9b::7f00:1]/",
                "http://[64:ff9b::a9fe:a9fe]/",
                "http://[64:ff9b:1::1]/",
                "http://[2002:7f00:1::1]/",
                "http://[2002:a9fe:a9fe::1]/",
                "http://[2002:c0a8:101::1]/",
                "http://[100::1]/",
                "http://[2001::1]/",
                "http://[2001:db8::1]/",
                "http://[3fff::1]/",
                "http://[5f00::1]/",
                "http://[fc00::1]/",
                "http://[fd00:ec2::254]/",
                "http://[fe80::1]/",
                "http://[fe80::1%25eth0]/",
                "http://[fe80::1%eth0]/",
                "http://[fec0::1]/",
                "http://[ff02::1]/",
                "http://[4000::1]/",
            ],
        );
        // Odd spellings of loopback and private addresses.
        add(
            "spelling",
            &[
                "http://2130706433:{p}/",
                "http://0x7f000001:{p}/",
                "http://0x7f.1:{p}/",
                "http://0x7f.0.0.1:{p}/",
                "http://0177.0.0.1:{p}/",
                "http://0177.1:{p}/",
                "http://017700000001:{p}/",
                "http://127.1:{p}/",
                "http://127.0.1:{p}/",
                "http://0:{p}/",
                "http://0x0:{p}/",
                "http://127.0.0.1.:{p}/",
                "http://127.000.000.001:{p}/",
                "http://0x7F.0X0.00.1:{p}/",
                "http://%31%32%37.0.0.1:{p}/",
                "http://\u{ff11}\u{ff12}\u{ff17}.0.0.1:{p}/",
                "http://10.1/",
                "http://167772161/",
                "http://0xa9fea9fe/",
                "http://0251.0376.0251.0376/",
                "http://0xA9.0xFE.0xA9.0xFE/",
                "http://3232235521/",
                "http://192.168.1/",
                "HTTP://127.0.0.1:{p}/",
            ],
        );
        // Userinfo and backslash tricks.
        add(
            "userinfo",
            &[
                "http://public.example@127.0.0.1:{p}/",
                "http://user:pass@public.example/",
                "http://:@127.0.0.1:{p}/",
                "http://public.example\\@127.0.0.1:{p}/",
                "http://127.0.0.1:{p}\\@public.example/",
                "http:\\\\127.0.0.1:{p}\\",
                "http:/127.0.0.1:{p}/",
                "http:127.0.0.1:{p}/",
                "http://public.example%40127.0.0.1:{p}/",
            ],
        );
        // Schemes other than http(s).
        add(
            "scheme",
            &[
                "file:///etc/passwd",
                "file://localhost/etc/passwd",
                "gopher://127.0.0.1:{p}/_GET%20/",
                "ftp://127.0.0.1:{p}/",
                "ftp://public.example/file",
                "data:text/html,<h1>hi</h1>",
                "javascript:alert(1)",
                "dict://127.0.0.1:{p}/info",
                "ws://127.0.0.1:{p}/",
                "view-source:http://127.0.0.1:{p}/",
            ],
        );
        // Names that always mean this machine.
        add(
            "name",
            &[
                "http://localhost:{p}/",
                "http://LOCALHOST.:{p}/",
                "http://api.localhost:{p}/",
            ],
        );
        for (name, _) in NAMES {
            out.push(Case {
                class: "name",
                url: if *name == "loop.test" {
                    format!("http://{name}:{port}/")
                } else {
                    format!("http://{name}/")
                },
                fake_dns: true,
            });
        }
        out
    }

    /// Where a redirect may point to try to escape: each must be refused at its hop.
    /// Relative forms included (a backslash path is protocol-relative to the URL parser).
    pub fn redirect_targets(port: u16) -> Vec<String> {
        [
            "http://127.0.0.1:{p}/",
            "//127.0.0.1:{p}/",
            "/\\127.0.0.1:{p}/",
            "\\\\127.0.0.1:{p}\\",
            "//2130706433:{p}/",
            "http://0x7f.1:{p}/",
            "http://[::ffff:127.0.0.1]:{p}/",
            "http://169.254.169.254/latest/meta-data/",
            "http://10.0.0.1/",
            "http://[fd00::1]/",
            "http://localhost:{p}/",
            "http://public.example@127.0.0.1:{p}/",
            "file:///etc/passwd",
            "gopher://127.0.0.1:{p}/_x",
            "ftp://127.0.0.1:{p}/",
            "data:text/plain,hi",
            "javascript:alert(1)",
        ]
        .iter()
        .map(|u| u.replace("{p}", &port.to_string()))
        .collect()
    }
}
