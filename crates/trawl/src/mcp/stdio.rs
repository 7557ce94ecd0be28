//! The stdio transport of `trawl mcp`: one JSON-RPC message per line, each line at most
//! `--max-message-bytes` long.
//!
//! rmcp's own stdio transport reads lines of any length and drops a line it cannot parse
//! without a word, so a client that sent a broken message waited forever and a 50 MB line
//! was held in memory whole. Here a line that is not JSON is answered with a JSON-RPC parse
//! error (-32700), JSON that is not a message with an invalid-request error (-32600, with
//! its id when it has one), and a line over the limit is discarded as it streams in and
//! answered with -32600. Answers and these errors share one writer, so lines never
//! interleave.
//!
//! The line reader is written here because tokio-util's `FramedRead` ends the stream after
//! a codec's first error (such as a line over its length limit), which would end the
//! session instead of answering the one bad line.
//!
//! When stdin closes, every answer is still delivered: the end of input is reported to
//! rmcp only once each request read has been answered (or the drain timeout has passed;
//! rmcp's own drain gives up after 5 s), and closing waits for the writer to have written
//! and flushed every line. A 19 MB answer used to be lost, a 7 MB one cut mid-JSON.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::jsonrpc::{INVALID_REQUEST, Refused, parse_message};

/// How long, after stdin closes, calls still running may take to be answered, unless the
/// server sets it ([`BoundedStdio::with_drain_timeout`]; `trawl mcp` uses its shutdown grace).
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(60);

pub struct BoundedStdio<R> {
    input: BufReader<R>,
    partial: PartialLine,
    out: mpsc::Sender<Vec<u8>>,
    max_bytes: usize,
    /// Requests read and not yet answered, by id (as JSON).
    pending: Arc<Mutex<HashSet<String>>>,
    /// When stdin was found closed.
    ended: Option<Instant>,
    drain: Duration,
    writer: Option<JoinHandle<()>>,
}

/// One line read from the input.
enum Line {
    Complete(Vec<u8>),
    /// Longer than the limit; its bytes were read and dropped.
    TooLong,
    End,
}

/// The line being read, kept between calls: rmcp polls `receive` inside `select!` and drops
/// the future when another branch wins, so nothing read may live only in that future (a
/// line split over two reads would lose its first half and its request would go
/// unanswered).
#[derive(Default)]
struct PartialLine {
    bytes: Vec<u8>,
    too_long: bool,
}

/// Read up to and including the next `\n`, keeping at most `max` bytes of it. Cancel-safe:
/// every byte consumed from `input` is first moved into `partial`.
async fn read_bounded_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    partial: &mut PartialLine,
    max: usize,
) -> std::io::Result<Line> {
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            let line = std::mem::take(partial);
            return Ok(if line.too_long {
                Line::TooLong
            } else if line.bytes.is_empty() {
                Line::End
            } else {
                Line::Complete(line.bytes)
            });
        }
        let (chunk, found) = match memchr::memchr(b'\n', available) {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        if !partial.too_long {
            if partial.bytes.len() + chunk.len() > max {
                partial.too_long = true;
                partial.bytes = Vec::new();
            } else {
                partial.bytes.extend_from_slice(chunk);
            }
        }
        let consumed = found.unwrap_or(available.len());
        input.consume(consumed);
        if found.is_some() {
            let line = std::mem::take(partial);
            return Ok(if line.too_long {
                Line::TooLong
            } else {
                Line::Complete(line.bytes)
            });
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> BoundedStdio<R> {
    /// Read messages from `input` and write answers to `output` (on a task of its own).
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(
        input: R,
        mut output: W,
        max_bytes: usize,
    ) -> Self {
        let (out, mut rx) = mpsc::channel::<Vec<u8>>(64);
        let writer = tokio::spawn(async move {
            while let Some(line) = rx.recv().await {
                if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                    return;
                }
            }
        });
        BoundedStdio {
            input: BufReader::with_capacity(64 * 1024, input),
            partial: PartialLine::default(),
            out,
            max_bytes,
            pending: Arc::default(),
            ended: None,
            drain: DEFAULT_DRAIN_TIMEOUT,
            writer: Some(writer),
        }
    }

    /// How long calls running when stdin closes may take to be answered.
    pub fn with_drain_timeout(mut self, drain: Duration) -> Self {
        self.drain = drain;
        self
    }

    /// Wait until every request read has been answered, or the drain timeout since stdin
    /// closed has passed. Cancel-safe: the start of the wait is kept in `self`.
    async fn drain_pending(&mut self) {
        let ended = *self.ended.get_or_insert_with(Instant::now);
        while !self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
            && ended.elapsed() < self.drain
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn answer_error(out: &mpsc::Sender<Vec<u8>>, refused: Refused) {
        let mut line = refused.to_json().to_string().into_bytes();
        line.push(b'\n');
        let _ = out.send(line).await;
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for BoundedStdio<R> {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "stdio".into()
    }

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let answered = match &item {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if let Some(id) = answered.and_then(|id| serde_json::to_string(id).ok()) {
            self.pending
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
        }
        let out = self.out.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            line.push(b'\n');
            out.send(line)
                .await
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout closed"))
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            match read_bounded_line(&mut self.input, &mut self.partial, self.max_bytes).await {
                Ok(Line::Complete(chunk)) => {
                    let line = trim_line(&chunk);
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    match parse_message(line) {
                        Ok(message) => {
                            if let JsonRpcMessage::Request(r) = &message
                                && let Ok(id) = serde_json::to_string(&r.id)
                            {
                                self.pending
                                    .lock()
                                    .unwrap_or_else(|e| e.into_inner())
                                    .insert(id);
                            }
                            return Some(message);
                        }
                        Err(refused) => Self::answer_error(&self.out, refused).await,
                    }
                }
                Ok(Line::TooLong) => {
                    let message = format!(
                        "Invalid Request: message longer than {} bytes (--max-message-bytes); \
                         it was discarded",
                        self.max_bytes
                    );
                    let refused = Refused {
                        id: Value::Null,
                        code: INVALID_REQUEST,
                        message,
                    };
                    Self::answer_error(&self.out, refused).await;
                }
                Ok(Line::End) | Err(_) => {
                    self.drain_pending().await;
                    return None;
                }
            }
        }
    }

    /// Every line handed to `send` is written and flushed before this returns (the
    /// process exits right after).
    async fn close(&mut self) -> Result<(), Self::Error> {
        let (closed, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.out, closed));
        if let Some(writer) = self.writer.take() {
            let _ = tokio::time::timeout(self.drain, writer).await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::jsonrpc::PARSE_ERROR;

    /// rmcp drops `receive` when another `select!` branch wins: a line that arrived in two
    /// parts around such a drop must still come through whole.
    #[tokio::test]
    async fn a_dropped_receive_keeps_the_half_line_it_read() {
        let (mut client, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, _client_out) = tokio::io::duplex(1 << 16);
        let mut transport = BoundedStdio::new(server_in, server_out, 1024);
        let line = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
        client.write_all(&line[..20]).await.unwrap();
        // The first half is read, then the future is dropped (as `select!` does).
        let dropped =
            tokio::time::timeout(std::time::Duration::from_millis(50), transport.receive()).await;
        assert!(dropped.is_err(), "no whole line yet");
        client.write_all(&line[20..]).await.unwrap();
        let message = transport.receive().await.expect("the whole line");
        assert!(
            matches!(message, ClientJsonRpcMessage::Notification(_)),
            "{message:?}"
        );
    }

    #[tokio::test]
    async fn malformed_and_oversized_lines_are_answered_and_good_ones_pass() {
        let (mut client, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, client_out) = tokio::io::duplex(1 << 16);
        let mut transport = BoundedStdio::new(server_in, server_out, 1024);
        let writer = tokio::spawn(async move {
            client.write_all(b"{not json\n").await.unwrap();
            client
                .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"nonsense\":true}\n")
                .await
                .unwrap();
            client.write_all(&vec![b'x'; 5000]).await.unwrap();
            client.write_all(b"\n\n").await.unwrap();
            client
                .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
                .await
                .unwrap();
            client
        });
        let message = transport.receive().await.expect("the good line");
        assert!(
            matches!(message, ClientJsonRpcMessage::Notification(_)),
            "{message:?}"
        );
        let _client = writer.await.unwrap();
        let mut answers = BufReader::new(client_out).lines();
        let mut seen = Vec::new();
        for _ in 0..3 {
            let line = answers.next_line().await.unwrap().unwrap();
            seen.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        assert_eq!(seen[0]["error"]["code"], PARSE_ERROR);
        assert_eq!(seen[0]["id"], Value::Null);
        assert_eq!(seen[1]["error"]["code"], INVALID_REQUEST);
        assert_eq!(seen[1]["id"], 7);
        assert_eq!(seen[2]["error"]["code"], INVALID_REQUEST);
        assert!(
            seen[2]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("1024 bytes"),
            "{}",
            seen[2]
        );
    }
}
