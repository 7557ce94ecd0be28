//! The guard proxy: the browser's only way out. Chromium is told to send every request
//! (loopback included) to this loopback listener, which applies the same [`Guard`] as tier 0
//! (scheme, literal addresses, every resolved address checked, the connection pinned to
//! the checked addresses) before it connects, and relays through the user's proxy when one
//! is configured (failing closed when it cannot).
//!
//! Written by hand: a forward proxy that asks trawl's guard at connect time and records what
//! it refused is a few dozen lines over tokio, and no maintained crate offers that hook.
//! It speaks HTTP CONNECT (https, wss) and plain HTTP/1.1 forwarding with one request per
//! connection (`Connection: close` upstream), which Chromium handles.

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use trawl_core::TrawlError;
use url::Url;

use crate::guard::Guard;

/// Longest request head accepted from the browser.
const MAX_HEAD: usize = 64 * 1024;

/// What the proxy saw, shared with the page that uses it.
#[derive(Debug, Default)]
pub(crate) struct ProxyLog {
    /// One line per refused request, in order, without repeats.
    pub refused: Mutex<Vec<String>>,
    /// `host:port` the page itself asked for (recorded by request interception before the
    /// request leaves). Anything else is the browser's own background traffic.
    pub requested: Mutex<HashSet<String>>,
    /// Background connections refused (counted, not listed).
    pub background: AtomicUsize,
}

impl ProxyLog {
    pub(crate) fn page_requested(&self, url: &Url) {
        if let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) {
            self.requested
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(format!("{}:{port}", host.to_ascii_lowercase()));
        }
    }

    fn was_requested(&self, host: &str, port: u16) -> bool {
        self.requested
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&format!("{}:{port}", host.to_ascii_lowercase()))
    }

    pub(crate) fn refuse(&self, line: String) {
        let mut refused = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        if !refused.contains(&line) && refused.len() < 50 {
            refused.push(line);
        }
    }
}

/// How the proxy decides.
#[derive(Clone)]
pub(crate) enum Policy {
    /// Everything is refused: the browser's default context, which renders nothing and
    /// would otherwise phone home (component updates, safe browsing, …).
    DenyAll,
    /// The guard decides, as for tier 0.
    Guarded {
        guard: Guard,
        /// The user's proxy (http only), which then resolves names, as tier 0 does.
        upstream: Option<Url>,
        connect_timeout: Duration,
    },
}

/// A running proxy; stops (with every relayed connection) when dropped.
pub(crate) struct GuardProxy {
    addr: SocketAddr,
    pub(crate) log: Arc<ProxyLog>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for GuardProxy {
    fn drop(&mut self) {
        // Aborting the accept loop drops its JoinSet, which aborts every relay.
        self.task.abort();
    }
}

impl GuardProxy {
    pub(crate) async fn start(policy: Policy) -> Result<Self, TrawlError> {
        let listener = TcpListener::bind((IpAddr::from([127, 0, 0, 1]), 0))
            .await
            .map_err(|e| {
                TrawlError::internal(format!("render: could not bind the guard proxy: {e}"))
            })?;
        let addr = listener
            .local_addr()
            .map_err(|e| TrawlError::internal(format!("render: guard proxy address: {e}")))?;
        let log = Arc::new(ProxyLog::default());
        let task_log = log.clone();
        let task = tokio::spawn(async move {
            let mut relays = JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((stream, _)) = accepted else { continue };
                        let policy = policy.clone();
                        let log = task_log.clone();
                        relays.spawn(async move {
                            let _ = serve(stream, &policy, &log).await;
                        });
                    }
                    Some(_) = relays.join_next(), if !relays.is_empty() => {}
                }
            }
        });
        Ok(GuardProxy { addr, log, task })
    }

    /// `http://127.0.0.1:PORT`, for Chromium's proxy settings.
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// One request (or tunnel) from the browser.
async fn serve(mut client: TcpStream, policy: &Policy, log: &ProxyLog) -> std::io::Result<()> {
    let _ = client.set_nodelay(true);
    let (head, rest) = match read_head(&mut client).await? {
        Some(parts) => parts,
        None => return Ok(()),
    };
    let mut headers = [httparse::EMPTY_HEADER; 96];
    let mut request = httparse::Request::new(&mut headers);
    let Ok(httparse::Status::Complete(_)) = request.parse(&head) else {
        return reply(&mut client, 400, "bad request").await;
    };
    let method = request.method.unwrap_or("").to_owned();
    let target = request.path.unwrap_or("").to_owned();
    let Policy::Guarded {
        guard,
        upstream,
        connect_timeout,
    } = policy
    else {
        log.refuse(format!("refused {method} {target}: not part of the page"));
        return reply(&mut client, 403, "refused by trawl").await;
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        // A tunnel: https or a secure WebSocket, end to end between browser and origin.
        let checked = guard
            .check_raw(&format!("https://{target}/"), None)
            .map_err(|e| e.message);
        let (host, port) = match checked
            .as_ref()
            .map(|u| (u.host_str(), u.port_or_known_default()))
        {
            Ok((Some(h), Some(p))) => (h.to_owned(), p),
            Ok(_) => return reply(&mut client, 400, "bad CONNECT target").await,
            Err(why) => {
                log.refuse(format!("refused {target}: {why}"));
                return reply(&mut client, 403, "refused by trawl").await;
            }
        };
        if !log.was_requested(&host, port) {
            log.background.fetch_add(1, Ordering::Relaxed);
            return reply(&mut client, 403, "refused by trawl").await;
        }
        let upstream_conn = match upstream {
            Some(proxy) => tunnel_via(proxy, &target, *connect_timeout).await,
            None => connect_checked(guard, &host, port, *connect_timeout).await,
        };
        let mut origin = match upstream_conn {
            Ok(s) => s,
            Err(Refusal::Guard(why)) => {
                log.refuse(format!("refused {target}: {why}"));
                return reply(&mut client, 403, "refused by trawl").await;
            }
            Err(Refusal::Io(e)) => return bad_gateway(&mut client, &e).await,
        };
        client
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await?;
        origin.write_all(&rest).await?;
        let _ = tokio::io::copy_bidirectional(&mut client, &mut origin).await;
        return Ok(());
    }
    // Plain HTTP in absolute form (`GET http://host/path HTTP/1.1`).
    let url = match guard.check_raw(&target, None) {
        Ok(u) if u.scheme() == "http" => u,
        Ok(u) => {
            log.refuse(format!(
                "refused {}: only http is forwarded in the clear",
                u.scheme()
            ));
            return reply(&mut client, 403, "refused by trawl").await;
        }
        Err(e) => {
            log.refuse(format!("refused {}: {}", short(&target), e.message));
            return reply(&mut client, 403, "refused by trawl").await;
        }
    };
    let host = url.host_str().unwrap_or_default().to_owned();
    let port = url.port_or_known_default().unwrap_or(80);
    if !log.was_requested(&host, port) {
        log.background.fetch_add(1, Ordering::Relaxed);
        return reply(&mut client, 403, "refused by trawl").await;
    }
    let (mut origin, request_target) = match upstream {
        Some(proxy) => match connect_proxy(proxy, *connect_timeout).await {
            Ok(s) => (s, url.to_string()),
            Err(_) => return reply(&mut client, 502, "could not reach the proxy").await,
        },
        None => match connect_checked(guard, &host, port, *connect_timeout).await {
            Ok(s) => (s, origin_form(&url)),
            Err(Refusal::Guard(why)) => {
                log.refuse(format!("refused {}: {why}", short(url.as_str())));
                return reply(&mut client, 403, "refused by trawl").await;
            }
            Err(Refusal::Io(e)) => return bad_gateway(&mut client, &e).await,
        },
    };
    let mut out = format!("{method} {request_target} HTTP/1.1\r\n");
    for h in request.headers.iter() {
        let name = h.name.to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "connection" | "proxy-connection" | "proxy-authorization" | "keep-alive"
        ) {
            continue;
        }
        out.push_str(h.name);
        out.push_str(": ");
        out.push_str(&String::from_utf8_lossy(h.value));
        out.push_str("\r\n");
    }
    if let Some(auth) = upstream.as_ref().and_then(proxy_authorization) {
        out.push_str(&auth);
    }
    out.push_str("Connection: close\r\n\r\n");
    // One request per connection: only this request's body goes up (a second request
    // the browser might pipeline behind it must not reach the origin unchecked), and the
    // response tells the browser to close, so its next request comes through `serve` again.
    let body_len = request
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .and_then(|h| {
            std::str::from_utf8(h.value)
                .ok()?
                .trim()
                .parse::<u64>()
                .ok()
        })
        .unwrap_or(0);
    if request.headers.iter().any(|h| {
        h.name.eq_ignore_ascii_case("transfer-encoding")
            && !String::from_utf8_lossy(h.value).eq_ignore_ascii_case("identity")
    }) {
        return reply(&mut client, 411, "length required").await;
    }
    origin.write_all(out.as_bytes()).await?;
    let first = rest.len().min(body_len as usize);
    origin.write_all(&rest[..first]).await?;
    let remaining = body_len - first as u64;
    if remaining > 0 {
        let mut limited = (&mut client).take(remaining);
        tokio::io::copy(&mut limited, &mut origin).await?;
    }
    let Some((head, after)) = read_head(&mut origin).await? else {
        return bad_gateway(&mut client, &std::io::Error::other("no response")).await;
    };
    client.write_all(&close_head(&head)).await?;
    client.write_all(&after).await?;
    tokio::io::copy(&mut origin, &mut client).await?;
    let _ = client.shutdown().await;
    Ok(())
}

enum Refusal {
    Guard(String),
    Io(std::io::Error),
}

/// Resolve through the guard (every address checked) and connect to those addresses only.
async fn connect_checked(
    guard: &Guard,
    host: &str,
    port: u16,
    timeout: Duration,
) -> Result<TcpStream, Refusal> {
    let addrs = guard
        .resolve_checked(host)
        .await
        .map_err(|e| Refusal::Guard(e.message))?;
    let mut last = std::io::Error::other("no address");
    for ip in addrs {
        match tokio::time::timeout(timeout, TcpStream::connect(SocketAddr::new(ip, port))).await {
            Ok(Ok(s)) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Ok(Err(e)) => last = e,
            Err(_) => last = std::io::Error::from(std::io::ErrorKind::TimedOut),
        }
    }
    Err(Refusal::Io(last))
}

/// The user's proxy is their deliberate choice (it may be private), as in tier 0.
async fn connect_proxy(proxy: &Url, timeout: Duration) -> std::io::Result<TcpStream> {
    let host = proxy.host_str().unwrap_or_default().to_owned();
    let port = proxy.port_or_known_default().unwrap_or(8080);
    match tokio::time::timeout(timeout, TcpStream::connect((host.as_str(), port))).await {
        Ok(r) => r,
        Err(_) => Err(std::io::Error::from(std::io::ErrorKind::TimedOut)),
    }
}

/// CONNECT through the user's proxy; its refusal or absence is a failure (fail closed).
async fn tunnel_via(proxy: &Url, target: &str, timeout: Duration) -> Result<TcpStream, Refusal> {
    let mut s = connect_proxy(proxy, timeout).await.map_err(Refusal::Io)?;
    let auth = proxy_authorization(proxy).unwrap_or_default();
    let req = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n{auth}\r\n");
    s.write_all(req.as_bytes()).await.map_err(Refusal::Io)?;
    let (head, rest) = read_head(&mut s)
        .await
        .map_err(Refusal::Io)?
        .ok_or_else(|| Refusal::Io(std::io::Error::other("proxy closed")))?;
    let ok = head.starts_with(b"HTTP/1.1 200") || head.starts_with(b"HTTP/1.0 200");
    if !ok || !rest.is_empty() {
        return Err(Refusal::Io(std::io::Error::other(
            "proxy refused the tunnel",
        )));
    }
    Ok(s)
}

fn proxy_authorization(proxy: &Url) -> Option<String> {
    if proxy.username().is_empty() {
        return None;
    }
    use base64::Engine as _;
    let user = percent_decode(proxy.username());
    let pass = percent_decode(proxy.password().unwrap_or(""));
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
    Some(format!("Proxy-Authorization: Basic {token}\r\n"))
}

fn percent_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

fn origin_form(url: &Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    }
}

/// A URL shortened for a note (data in query strings is not worth repeating).
fn short(url: &str) -> String {
    let cut = url.find('?').unwrap_or(url.len()).min(200);
    url[..cut].to_owned()
}

/// A response head with its connection headers replaced by `Connection: close`.
fn close_head(head: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(head);
    let mut out = String::with_capacity(text.len() + 20);
    for line in text.trim_end_matches("\r\n").split("\r\n") {
        let name = line
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "connection" | "keep-alive" | "proxy-connection"
        ) {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    out.into_bytes()
}

/// Read up to the end of the request head; returns the head and any bytes after it.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<(Vec<u8>, Vec<u8>)>> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok(Some((buf, rest)));
        }
        if buf.len() > MAX_HEAD {
            return Ok(None);
        }
    }
}

async fn bad_gateway(client: &mut TcpStream, e: &std::io::Error) -> std::io::Result<()> {
    reply(client, 502, &format!("could not connect ({})", e.kind())).await
}

async fn reply(client: &mut TcpStream, status: u16, text: &str) -> std::io::Result<()> {
    let msg = format!(
        "HTTP/1.1 {status} {text}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    client.write_all(msg.as_bytes()).await?;
    client.shutdown().await
}
