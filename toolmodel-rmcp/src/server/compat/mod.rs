//! Every workaround of an `rmcp` 3.11 behaviour, in one place: what `rmcp` does, what the
//! server answers instead, and when the workaround can go. Each goes once an `rmcp` release
//! behaves as the "here" column says: delete the module (or the check) and its tests then
//! pass against `rmcp` alone.
//!
//! | where | `rmcp` 3.11 | here | can go when |
//! |---|---|---|---|
//! | `stdio` | a line that is not JSON is ignored (rust-sdk issue 938), so a request with an id waits forever | a JSON-RPC `-32700` Parse error, `id` null | `AsyncRwTransport` answers unparsable lines |
//! | `stdio` | JSON that is no JSON-RPC message gets `-32600` without its id | `-32600` with the line's `id` | its `-32600` carries the id |
//! | `stdio` | a notification, response or error before `initialize` ends the session (`ExpectedInitializeRequest`) | dropped; the server waits for `initialize` | the handshake skips what is not `initialize` |
//! | `misrouted` | a `tools/call` whose `params` do not fit (`arguments` not an object, no `name`) is a custom request, answered `-32601` Method not found | `-32602` Invalid params naming `/params/arguments` or `/params/name`, on every transport | `rmcp` answers `-32602` for params of a known method it cannot read |
//! | `json_errors` | a JSON body of a `POST` it cannot read as a message: 415 Unsupported Media Type, a text body | 400 with a JSON-RPC `-32700` (not JSON) or `-32600` (no message, with its `id`) | `StreamableHttpService` answers JSON-RPC errors for unreadable bodies |
//! | [`http`](super::http)'s `admission` | `DELETE` of a session it does not hold: 202 Accepted | 404 Not Found (MCP, Streamable HTTP, "Session Management") | it answers 404; the check stays in admission, which holds the sessions table it needs |
//! | [`http`](super::http)'s `host_origin` | two `Host` headers: served with the first | 400 Bad Request (RFC 9112, 3.2) | it refuses them; the check stays with the `Host` allow-list |
//! | [`http`](super::http)'s `body` | a body slower than the read timeout: waits | 408 Request Timeout | it bounds body reads |
//!
//! The last three are checks of a stage of the HTTP front that needs that stage's state, so
//! they stay there; this table is where each is listed.

pub(super) mod json_errors;
pub(super) mod misrouted;
pub(super) mod stdio;
