//! A tiny HTTP/1.1 responder on 127.0.0.1:0 for fake engines: enough HTTP to answer one
//! request per connection, with faults on demand (hang, huge body, any status).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The request as the fake engine saw it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// How a fake engine answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A full response.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Arc<Vec<u8>>,
    },
    /// Never answers.
    Hang,
    /// 200 with a body of this many bytes, written in chunks.
    Huge(usize),
}

impl Reply {
    pub fn ok(body: Vec<u8>) -> Self {
        Self::status(200, body)
    }

    pub fn status(status: u16, body: Vec<u8>) -> Self {
        Self::Full {
            status,
            headers: Vec::new(),
            body: Arc::new(body),
        }
    }

    pub fn with_header(self, k: &str, v: &str) -> Self {
        match self {
            Self::Full {
                status,
                mut headers,
                body,
            } => {
                headers.push((k.into(), v.into()));
                Self::Full {
                    status,
                    headers,
                    body,
                }
            }
            other => other,
        }
    }
}

/// A running fake engine.
pub struct Fake {
    pub addr: SocketAddr,
    pub hits: Arc<AtomicUsize>,
    pub seen: Arc<std::sync::Mutex<Vec<Request>>>,
}

impl Fake {
    pub fn url(&self) -> url::Url {
        url::Url::parse(&format!("http://{}", self.addr)).unwrap()
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// Start a fake engine that answers every request with `reply(request)`.
pub async fn serve<F>(reply: F) -> Fake
where
    F: Fn(&Request) -> Reply + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let reply = Arc::new(reply);
    let (h, s) = (hits.clone(), seen.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let (reply, h, s) = (reply.clone(), h.clone(), s.clone());
            tokio::spawn(async move {
                let Some(req) = read_request(&mut sock).await else {
                    return;
                };
                h.fetch_add(1, Ordering::SeqCst);
                s.lock().unwrap().push(req.clone());
                match reply(&req) {
                    Reply::Hang => {
                        tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                    }
                    Reply::Full {
                        status,
                        headers,
                        body,
                    } => {
                        let mut head = format!(
                            "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                            body.len()
                        );
                        for (k, v) in headers {
                            head.push_str(&format!("{k}: {v}\r\n"));
                        }
                        head.push_str("\r\n");
                        let _ = sock.write_all(head.as_bytes()).await;
                        let _ = sock.write_all(&body).await;
                        let _ = sock.shutdown().await;
                    }
                    Reply::Huge(n) => {
                        let head = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {n}\r\nconnection: close\r\n\r\n"
                        );
                        let _ = sock.write_all(head.as_bytes()).await;
                        let chunk = vec![b'a'; 64 * 1024];
                        let mut left = n;
                        while left > 0 {
                            let k = left.min(chunk.len());
                            // The client stops reading at its cap and hangs up; stop then.
                            if sock.write_all(&chunk[..k]).await.is_err() {
                                return;
                            }
                            left -= k;
                        }
                    }
                }
            });
        }
    });
    Fake { addr, hits, seen }
}

async fn read_request(sock: &mut tokio::net::TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_owned();
    let target = first.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut tmp).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&tmp[..n]);
    }
    Some(Request {
        method,
        target,
        headers,
        body,
    })
}

/// A fixture from ../shared/fixtures/serp, read in place.
pub fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/../../../shared/fixtures/serp/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

/// A fresh empty directory under the system temp dir.
pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "trawl-search-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
