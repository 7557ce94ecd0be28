//! `trawl serve`: the MCP server over streamable HTTP at `/mcp`, plus `/healthz` and
//! `/metrics` (and the Firecrawl- and Jina-compatible routes of `crate::compat`), built from small routers and served on a listener the caller bound, so tests
//! bind port 0 and talk to a real socket.
//!
//! Who gets in: with a token, `/mcp` and `/metrics` need `Authorization: Bearer <token>`
//! (401 otherwise); `/healthz` stays open for load balancers. rmcp checks the `Host`
//! header against loopback names, the listen address and `--public-host`, and the `Origin`
//! header (when a browser sends one) against loopback origins and `--allow-origin`, which
//! answers a DNS-rebinding page with 403; `/metrics` gets the same checks from
//! [`super::rebinding`].
//!
//! What one client can hold is bounded: connections by [`super::conn`], MCP sessions by
//! [`super::sessions`], request bodies by `--max-message-bytes`.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::StreamExt;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::auth::BearerToken;
use super::conn::{self, ConnLimits, Registry};
use super::jsonrpc;
use super::metrics::HttpGauges;
use super::rebinding::RebindingPolicy;
use super::server::{ServerState, TrawlMcp};
use super::sessions::BoundedSessions;

/// How `/mcp` is guarded and what clients may hold.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub token: Option<BearerToken>,
    /// Extra `Host` header values accepted besides loopback names and the listen address.
    pub public_hosts: Vec<String>,
    /// Where clients reach the server, when it is not `http://` and the Host they send.
    pub public_url: Option<url::Url>,
    /// Extra browser origins accepted besides loopback ones.
    pub allowed_origins: Vec<String>,
    pub limits: ConnLimits,
    pub max_sessions: usize,
    pub session_idle_timeout: Duration,
    pub max_message_bytes: usize,
}

/// `Host` values accepted: loopback names, the listen address, and the operator's names.
fn allowed_hosts(listen: SocketAddr, extra: &[String]) -> Vec<String> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]
        .iter()
        .map(|h| (*h).to_owned())
        .collect();
    if !listen.ip().is_unspecified() {
        hosts.push(listen.ip().to_string());
    }
    hosts.extend(extra.iter().cloned());
    hosts
}

/// Origins accepted: loopback on any port, plus the operator's.
fn allowed_origins(extra: &[String]) -> Vec<String> {
    let mut origins: Vec<String> = [
        "http://localhost:*",
        "http://127.0.0.1:*",
        "http://[::1]:*",
        "https://localhost:*",
        "https://127.0.0.1:*",
        "https://[::1]:*",
    ]
    .iter()
    .map(|o| (*o).to_owned())
    .collect();
    origins.extend(extra.iter().cloned());
    origins
}

#[derive(Clone)]
struct AppState {
    server: Arc<ServerState>,
    token: Option<BearerToken>,
    tools: Arc<Vec<String>>,
    connections: Arc<Registry>,
    sessions: Arc<BoundedSessions>,
}

/// The HTTP app and what serving it needs besides.
pub struct App {
    pub router: Router,
    pub connections: Arc<Registry>,
    pub limits: ConnLimits,
}

/// The whole HTTP app: `/mcp`, `/healthz`, `/metrics`.
pub fn app(
    mcp: TrawlMcp,
    state: Arc<ServerState>,
    options: &HttpOptions,
    listen: SocketAddr,
    sessions_ct: CancellationToken,
) -> App {
    let mut rebinding = RebindingPolicy {
        hosts: allowed_hosts(listen, &options.public_hosts),
        origins: allowed_origins(&options.allowed_origins),
    };
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(rebinding.hosts.clone())
        .with_allowed_origins(rebinding.origins.clone())
        .with_max_request_body_bytes(options.max_message_bytes)
        .with_cancellation_token(sessions_ct.clone());
    // `--public-host '*'`: any Host (behind a reverse proxy that rewrites it).
    if options.public_hosts.iter().any(|h| h == "*") {
        config = config.disable_allowed_hosts();
        rebinding.hosts.clear();
    }
    let tools = Arc::new(mcp.tool_names());
    let compat_routes = crate::compat::router(
        mcp.agent().clone(),
        state.clone(),
        options.public_url.clone(),
    );
    let sessions = Arc::new(BoundedSessions::new(
        options.max_sessions,
        options.session_idle_timeout,
    ));
    sessions.spawn_trimmer(sessions_ct);
    let service = StreamableHttpService::new(move || Ok(mcp.clone()), sessions.clone(), config);
    let connections = Arc::new(Registry::default());
    let app_state = AppState {
        server: state.clone(),
        token: options.token.clone(),
        tools,
        connections: connections.clone(),
        sessions,
    };
    // `/mcp` gets these checks from rmcp; `/metrics` gets the same ones here.
    let rebinding = Arc::new(rebinding);
    let host_checks = rebinding.clone();
    // The Firecrawl- and Jina-compatible routes: the same checks and body limit as `/mcp`.
    let compat_routes = compat_routes
        .layer(middleware::from_fn_with_state(
            crate::compat::log::ApiLog {
                server: state.clone(),
                max_body_bytes: options.max_message_bytes,
            },
            crate::compat::log::log_call,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(
            options.max_message_bytes,
        ))
        .layer(middleware::from_fn(move |request: Request, next: Next| {
            let rebinding = host_checks.clone();
            async move {
                match rebinding.refusal(request.headers()) {
                    Some(why) => (StatusCode::FORBIDDEN, why).into_response(),
                    None => next.run(request).await,
                }
            }
        }));
    let metrics_route = Router::new()
        .route("/metrics", get(metrics))
        .layer(middleware::from_fn(move |request: Request, next: Next| {
            let rebinding = rebinding.clone();
            async move {
                match rebinding.refusal(request.headers()) {
                    Some(why) => (StatusCode::FORBIDDEN, why).into_response(),
                    None => next.run(request).await,
                }
            }
        }));
    let service = tower::ServiceBuilder::new()
        .layer(middleware::from_fn_with_state(
            options.max_message_bytes,
            jsonrpc::reject_malformed,
        ))
        .service(service);
    let guarded = Router::new()
        .nest_service("/mcp", service)
        .merge(metrics_route)
        .merge(compat_routes)
        .layer(middleware::from_fn_with_state(
            app_state.clone(),
            require_bearer,
        ));
    let router = Router::new()
        .route("/healthz", get(healthz))
        .merge(guarded)
        .layer(middleware::from_fn_with_state(
            app_state.clone(),
            count_requests,
        ))
        .layer(middleware::from_fn(one_host))
        .with_state(app_state);
    App {
        router,
        connections,
        limits: options.limits,
    }
}

/// A request names one host: more than one `Host` header, or an absolute-form target
/// (`GET http://other/...`) whose authority is not the `Host`, is refused (400) before any
/// route sees it, since the checks that read `Host` would see only one of the two.
async fn one_host(request: Request, next: Next) -> Response {
    let hosts: Vec<&HeaderValue> = request.headers().get_all(header::HOST).iter().collect();
    let refusal = if hosts.len() > 1 {
        Some("more than one Host header\n")
    } else if let Some(authority) = request.uri().authority() {
        let same = hosts.first().is_some_and(|host| {
            host.to_str()
                .is_ok_and(|h| h.eq_ignore_ascii_case(authority.as_str()))
        });
        (!same).then_some("the request target names another host than the Host header\n")
    } else {
        None
    };
    match refusal {
        Some(why) => (StatusCode::BAD_REQUEST, why).into_response(),
        None => next.run(request).await,
    }
}

async fn require_bearer(State(app): State<AppState>, request: Request, next: Next) -> Response {
    if let Some(token) = &app.token {
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes);
        // A browser-style WebSocket cannot set headers: Firecrawl's watchers offer the key
        // as the subprotocol instead, on the compatible routes only.
        let by_subprotocol = crate::compat::is_compat_path(request.uri().path())
            && request
                .headers()
                .get(header::SEC_WEBSOCKET_PROTOCOL)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|offered| {
                    offered
                        .split(',')
                        .any(|p| token.accepts(Some(format!("Bearer {}", p.trim()).as_bytes())))
                });
        if !token.accepts(presented) && !by_subprotocol {
            let why = "missing or wrong bearer token: send Authorization: Bearer <token>";
            // The compatible API's clients read Firecrawl's error shape (the SDKs show its
            // `error`); everyone else gets the line of text.
            let mut response = if crate::compat::is_compat_path(request.uri().path()) {
                let body = serde_json::json!({
                    "success": false,
                    "error": format!("Unauthorized: {why}"),
                });
                (
                    StatusCode::UNAUTHORIZED,
                    [(header::CONTENT_TYPE, "application/json")],
                    body.to_string(),
                )
                    .into_response()
            } else {
                (StatusCode::UNAUTHORIZED, format!("{why}\n")).into_response()
            };
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"trawl\""),
            );
            return response;
        }
    }
    next.run(request).await
}

async fn count_requests(State(app): State<AppState>, request: Request, next: Next) -> Response {
    let route = match request.uri().path() {
        "/healthz" => "/healthz",
        "/metrics" => "/metrics",
        p if p == "/mcp" || p.starts_with("/mcp/") => "/mcp",
        p if crate::compat::is_compat_path(p) => "compat",
        _ => "other",
    };
    let answer_stream = route == "/mcp" && request.method() == Method::POST;
    let response = next.run(request).await;
    // A compatible-API answer names its route template (`/v2/crawl/{id}`); one refused
    // before routing (a wrong token) stays `compat`.
    let route = response
        .extensions()
        .get::<crate::compat::log::ApiRoute>()
        .map_or(route, |r| r.0.as_str());
    app.server
        .metrics
        .http_request(route, response.status().as_u16());
    if !answer_stream {
        return response;
    }
    // Count the body as in flight until it has been sent (or the client went away).
    let sending = app.server.responses.enter();
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().map(move |chunk| {
        let _ = &sending;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(body))
}

async fn healthz(State(app): State<AppState>) -> Response {
    let body = serde_json::json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "tools": *app.tools,
        "inflight_calls": app.server.gate.inflight(),
        "uptime_secs": app.server.started.elapsed().as_secs(),
    });
    let mut response = Response::new(Body::from(body.to_string()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

async fn metrics(State(app): State<AppState>) -> Response {
    let mut gauges = app.server.gauges();
    let connections = app.connections.counts();
    gauges.http = Some(HttpGauges {
        open_connections: connections.open,
        connections_evicted: connections.evicted,
        connections_refused: connections.refused,
        live_sessions: app.sessions.live(),
        sessions_evicted: app.sessions.evicted(),
    });
    let mut text = app.server.metrics.render(gauges);
    // Store latency and errors (either backend), kept by trawl-store's metered wrapper.
    text.push_str(&trawl_store::render_metrics());
    let mut response = Response::new(Body::from(text));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

/// Serve `app` on `listener` until `shutdown` resolves, then shut down in order: stop
/// accepting connections, refuse new tool calls, give running calls up to `grace` to
/// finish, end the MCP sessions (their event streams), and return.
pub async fn serve(
    listener: TcpListener,
    app: App,
    state: Arc<ServerState>,
    sessions_ct: CancellationToken,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let stop_accepting = CancellationToken::new();
    let server = conn::serve(
        listener,
        app.router,
        app.limits,
        app.connections,
        stop_accepting.clone(),
    );
    let mut server = tokio::spawn(server);
    tokio::select! {
        result = &mut server => {
            return result.map_err(std::io::Error::other);
        }
        () = shutdown => {}
    }
    state.log.event(
        "shutdown",
        &[
            ("inflight_calls", state.gate.inflight().to_string()),
            ("grace_secs", format!("{:.1}", grace.as_secs_f64())),
        ],
    );
    state.gate.start_draining();
    stop_accepting.cancel();
    let started = std::time::Instant::now();
    let finished = state.gate.drained(grace).await;
    // The answers of the calls that finished still have to reach their clients.
    let left = grace
        .saturating_sub(started.elapsed())
        .max(Duration::from_secs(1));
    let _ = tokio::time::timeout(left, state.responses.idle()).await;
    sessions_ct.cancel();
    // Connections close once their streams end; a client that keeps one open is not
    // waited for long.
    let _ = tokio::time::timeout(Duration::from_secs(3), &mut server).await;
    server.abort();
    state.log.event(
        "stopped",
        &[
            ("all_calls_finished", finished.to_string()),
            ("inflight_calls", state.gate.inflight().to_string()),
        ],
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_and_origins_are_always_allowed() {
        let any: SocketAddr = "0.0.0.0:8787".parse().unwrap();
        let hosts = allowed_hosts(any, &["search.example.org".into()]);
        assert!(hosts.contains(&"127.0.0.1".to_owned()));
        assert!(hosts.contains(&"search.example.org".to_owned()));
        assert!(!hosts.contains(&"0.0.0.0".to_owned()));
        let lan: SocketAddr = "192.0.2.7:8787".parse().unwrap();
        assert!(allowed_hosts(lan, &[]).contains(&"192.0.2.7".to_owned()));
        let origins = allowed_origins(&["https://app.example.com".into()]);
        assert!(origins.contains(&"http://localhost:*".to_owned()));
        assert!(origins.contains(&"https://app.example.com".to_owned()));
    }
}
