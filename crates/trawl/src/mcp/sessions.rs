//! MCP sessions of `trawl serve`, bounded: rmcp's in-memory session manager with a cap on
//! live sessions, the longest-idle one closed to make room for a new one, and the freed
//! memory handed back to the operating system once sessions have ended.
//!
//! Without the cap, every `initialize` that a client abandons held ~59 KB until rmcp's idle
//! timeout, and 20,000 of them took the server past 1 GB. glibc keeps freed memory in its
//! arenas, so without a trim the resident size would not come down after they ended.

#![allow(
    unsafe_code,
    reason = "malloc_trim gives freed session memory back to the system; std has no wrapper"
)]

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use tokio_util::sync::CancellationToken;

/// rmcp's session manager, capped.
#[derive(Debug)]
pub struct BoundedSessions {
    inner: LocalSessionManager,
    max_sessions: usize,
    /// When each live session was last used.
    last_used: Mutex<HashMap<SessionId, Instant>>,
    evicted: AtomicU64,
    /// A session ended since the last trim.
    ended: Arc<AtomicBool>,
}

impl BoundedSessions {
    /// Sessions are closed after `idle_timeout` without a request, and at most
    /// `max_sessions` live at once.
    pub fn new(max_sessions: usize, idle_timeout: Duration) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle_timeout);
        BoundedSessions {
            inner,
            max_sessions: max_sessions.max(1),
            last_used: Mutex::default(),
            evicted: AtomicU64::new(0),
            ended: Arc::default(),
        }
    }

    pub fn live(&self) -> usize {
        self.last_used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    pub fn evicted(&self) -> u64 {
        self.evicted.load(Ordering::Relaxed)
    }

    fn touch(&self, id: &SessionId) {
        if let Some(at) = self
            .last_used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(id)
        {
            *at = Instant::now();
        }
    }

    /// Once a second, when sessions ended, return freed heap pages to the system.
    pub fn spawn_trimmer(&self, stop: CancellationToken) {
        let ended = self.ended.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    _ = tick.tick() => {}
                }
                if ended.swap(false, Ordering::SeqCst) {
                    let _ = tokio::task::spawn_blocking(trim_heap).await;
                }
            }
        });
    }
}

/// Give free heap memory back to the operating system (glibc keeps it otherwise).
fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

impl SessionManager for BoundedSessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        // Pick the sessions to end under the same lock as the insert, so concurrent
        // creations cannot all see room for themselves.
        let surplus: Vec<SessionId> = {
            let mut used = self.last_used.lock().unwrap_or_else(|p| p.into_inner());
            used.insert(id.clone(), Instant::now());
            let mut surplus = Vec::new();
            while used.len() > self.max_sessions {
                let Some(oldest) = used
                    .iter()
                    .filter(|(other, _)| **other != id)
                    .min_by_key(|(_, at)| **at)
                    .map(|(other, _)| other.clone())
                else {
                    break;
                };
                used.remove(&oldest);
                surplus.push(oldest);
            }
            surplus
        };
        for old in surplus {
            self.evicted.fetch_add(1, Ordering::Relaxed);
            self.ended.store(true, Ordering::SeqCst);
            let _ = self.inner.close_session(&old).await;
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let known = self
            .last_used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id)
            .is_some();
        if known {
            self.ended.store(true, Ordering::SeqCst);
        }
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }
}
