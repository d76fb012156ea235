//! The stdio transport of [`ToolboxServer::serve_stdio`](crate::ToolboxServer::serve_stdio):
//! `rmcp`'s, with the lines a client gets wrong answered instead of ignored or fatal.
//!
//! Upstream behaviour of `rmcp` 3.11 (its `AsyncRwTransport` and handshake), worked around
//! here until a release changes it:
//!
//! | line from the client | `rmcp` 3.11 | here |
//! |---|---|---|
//! | not JSON | ignored (rust-sdk issue 938), so a request with an id waits forever | a JSON-RPC `-32700` Parse error, `id` null (JSON-RPC 2.0, 5.1) |
//! | JSON but no JSON-RPC message | `-32600` without the id | `-32600` Invalid Request with the line's `id` when it has one |
//! | a notification, response or error before `initialize` (say `notifications/initialized` first) | the server exits (`ExpectedInitializeRequest`) | dropped; the server waits for `initialize` |
//!
//! Answering a line that is not JSON cannot start an error storm with a well-behaved peer:
//! the answer is valid JSON, a response the peer does not wait for.

use std::borrow::Cow;

use crate::task_set::TaskSet;
use rmcp::{
    RoleServer,
    model::{
        ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage,
    },
    transport::{Transport, async_rw::AsyncRwTransport},
};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, BufReader};

/// `rmcp`'s limit on a line (16 MiB): a longer one is dropped with an error.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Newline-delimited JSON-RPC on `R` and `W` (MCP "stdio" transport).
pub(in crate::server) struct StdioTransport<R, W: AsyncWrite> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Skipping the rest of a line longer than [`MAX_LINE_BYTES`].
    discarding: bool,
    /// `rmcp`'s transport, used to write (its reading half reads nothing).
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
    /// Whether `initialize` (or a 2026-07-28 request, which needs none) went through.
    started: bool,
    /// The answers to lines that were no message, on their way (ended with the transport).
    answering: TaskSet,
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(in crate::server) fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: AsyncRwTransport::new(tokio::io::empty(), write),
            started: false,
            answering: TaskSet::default(),
        }
    }

    /// Writes an error for a line that was no message, without waiting (it answers nobody
    /// the server is serving, and `receive` must stay cancel-safe).
    fn answer(&mut self, error: ErrorData, id: Option<RequestId>) {
        let send = self.write.send(ServerJsonRpcMessage::error(error, id));
        self.answering.spawn(async move {
            let _ = send.await;
        });
    }

    /// What to do with one whole line: `Some` message for `rmcp`, or `None` once answered or
    /// dropped.
    fn message(&mut self, line: &[u8]) -> Option<ClientJsonRpcMessage> {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let message = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
            Ok(message) => message,
            Err(err) if err.is_syntax() || err.is_eof() => {
                self.answer(
                    ErrorData::new(ErrorCode::PARSE_ERROR, format!("Parse error: {err}"), None),
                    None,
                );
                return None;
            }
            Err(err) => {
                let id = serde_json::from_slice::<Value>(line)
                    .ok()
                    .and_then(|value| value.get("id").cloned())
                    .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
                self.answer(
                    ErrorData::invalid_request(
                        Cow::Owned(format!("Invalid Request: not a JSON-RPC message: {err}")),
                        None,
                    ),
                    id,
                );
                return None;
            }
        };
        if !self.started {
            match &message {
                ClientJsonRpcMessage::Request(request) => {
                    self.started = matches!(request.request, ClientRequest::InitializeRequest(_))
                        || starts_without_handshake(&request.request);
                }
                // `rmcp` stops the session on anything but a request before the handshake.
                _ => return None,
            }
        }
        Some(message)
    }
}

/// A 2026-07-28 request carrying its protocol version and capabilities in `_meta`: `rmcp`
/// serves it without a handshake (SEP-2567), and the session has begun.
fn starts_without_handshake(request: &ClientRequest) -> bool {
    use rmcp::model::{GetMeta as _, ProtocolVersion};
    !matches!(
        request,
        ClientRequest::DiscoverRequest(_) | ClientRequest::PingRequest(_)
    ) && request
        .get_meta()
        .missing_required_keys(&ProtocolVersion::V_2026_07_28)
        .is_empty()
}

impl<R, W> Transport<RoleServer> for StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            // Cancel-safe: a partly read line stays in `self.line` for the next call.
            let (take, newline, oversized) = {
                let available = self.read.fill_buf().await.ok()?;
                if available.is_empty() {
                    return None;
                }
                let newline = available.iter().position(|byte| *byte == b'\n');
                let take = newline.map_or(available.len(), |at| at + 1);
                let mut oversized = false;
                if self.discarding {
                    self.discarding = newline.is_none();
                } else if self.line.len().saturating_add(take) > MAX_LINE_BYTES {
                    self.line.clear();
                    self.discarding = newline.is_none();
                    oversized = true;
                } else {
                    self.line
                        .extend_from_slice(available.get(..take).unwrap_or_default());
                }
                (take, newline, oversized)
            };
            self.read.consume(take);
            if oversized {
                let error = ErrorData::invalid_request(
                    format!("Invalid Request: a line longer than {MAX_LINE_BYTES} bytes"),
                    None,
                );
                self.answer(error, None);
            }
            if newline.is_none() || self.line.is_empty() {
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let message = if text.iter().all(u8::is_ascii_whitespace) {
                None
            } else {
                self.message(text)
            };
            line.clear();
            self.line = line;
            if let Some(message) = message {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.close().await
    }
}
