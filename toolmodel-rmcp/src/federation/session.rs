//! Opening one MCP client session to an upstream server: a child process (stdio) started as
//! the leader of its own process group, or a Streamable HTTP connection; then the
//! handshake, bounded by the server's startup timeout: `server/discover` for MCP 2026-07-28,
//! falling back to `initialize` (2025-11-25) when the server answers it with an error (rmcp's
//! `ClientLifecycleMode::Auto`; a server that does not answer `server/discover` at all is
//! given 10 seconds before the fallback). Under 2026-07-28 a server sends
//! `notifications/tools/list_changed` only on a `subscriptions/listen` stream: one is opened
//! for a server that declares `tools.listChanged`, and its notifications run the federation's
//! re-import until the session ends.

use std::{collections::HashMap, ffi::OsString, process::Stdio};

use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::{
    model::{ProtocolVersion, ServerNotification, SubscriptionFilter},
    service::{ClientLifecycleMode, ClientServiceExt, Peer, RoleClient, RunningService},
    transport::{
        StreamableHttpClientTransport, TokioChildProcess,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};

use crate::federation::config::{
    DEFAULT_INHERITED_ENV_VARS, HttpTransport, InheritEnv, StdioTransport, UpstreamConfig,
    UpstreamTransport,
};
use crate::federation::counting::Counting;
use crate::federation::credentials::{Bearer, BearerClient};
use crate::federation::redact::Redactor;
use crate::federation::relay::Relay;

/// An open session.
pub(crate) struct Session {
    /// The task reading the `subscriptions/listen` stream (MCP 2026-07-28), ended first.
    pub(crate) listener: Option<Listener>,
    /// The rmcp client.
    pub(crate) service: RunningService<RoleClient, Relay>,
    /// The child's process group, for a stdio server: killed when the session is dropped.
    pub(crate) group: Option<ProcessGroupGuard>,
}

/// Kills a process group (SIGKILL to every process in it) when dropped: no child process of a
/// stdio server outlives its session, even one the server started itself (`npx` starts
/// `node`, `uvx` starts `python`).
pub(crate) struct ProcessGroupGuard {
    /// The group's ID: the leader's process ID.
    pub(crate) pgid: u32,
    /// The task passing the child's stderr on: it ends with the group (the pipe closes when
    /// its processes are killed), after the last lines they wrote, so it is not aborted.
    _stderr: Option<tokio::task::JoinHandle<tokio::io::Stderr>>,
}

impl Drop for ProcessGroupGuard {
    fn drop(&mut self) {
        kill_group(self.pgid);
    }
}

/// SIGKILL to the process group `pgid` (nothing when it has already ended).
#[cfg(unix)]
fn kill_group(pgid: u32) {
    use nix::{sys::signal::Signal, unistd::Pid};
    if let Ok(pgid) = i32::try_from(pgid) {
        // ESRCH (the group is gone) is the expected outcome after a clean exit.
        let _ = nix::sys::signal::killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}

/// Without process groups, the child is killed by rmcp's transport when dropped.
#[cfg(not(unix))]
fn kill_group(_pgid: u32) {}

/// Opens a session to `server`, with `relay` as the client handler.
///
/// # Errors
///
/// A sentence naming the cause, the server's secrets removed by `redactor`: the program
/// could not start, the connection failed, the handshake failed or took longer than the
/// startup timeout.
pub(crate) async fn open(
    server: &UpstreamConfig,
    redactor: &Redactor,
    relay: Relay,
    bearer: Option<&std::sync::Arc<Bearer>>,
) -> Result<Session, String> {
    open_session(server, redactor, relay, bearer)
        .await
        .map_err(|cause| redactor.text(&cause))
}

/// [`open`], its error not redacted yet.
async fn open_session(
    server: &UpstreamConfig,
    redactor: &Redactor,
    relay: Relay,
    bearer: Option<&std::sync::Arc<Bearer>>,
) -> Result<Session, String> {
    let changed = std::sync::Arc::clone(&relay.list_changed);
    let calls = std::sync::Arc::clone(&relay.calls);
    let limit = server.timeouts.startup;
    let (served, group) = match &server.transport {
        UpstreamTransport::Stdio(stdio) => {
            let (transport, group) = spawn(&server.name, stdio, redactor)?;
            (handshake(relay, transport, calls, limit).await, group)
        }
        UpstreamTransport::Http(http) => {
            let config = http_config(http)?;
            let served = match bearer {
                // A credentialed server: each request with the session's current token.
                Some(bearer) => {
                    let client = BearerClient {
                        http: http_client()?,
                        bearer: std::sync::Arc::clone(bearer),
                    };
                    let transport = StreamableHttpClientTransport::with_client(client, config);
                    handshake(relay, transport, calls, limit).await
                }
                None => {
                    let transport =
                        StreamableHttpClientTransport::with_client(http_client()?, config);
                    handshake(relay, transport, calls, limit).await
                }
            };
            (served, None)
        }
    };
    match served {
        Ok(Ok(service)) => {
            let listener = listen_for_tool_changes(service.peer(), changed, limit).await;
            Ok(Session {
                listener,
                service,
                group,
            })
        }
        Ok(Err(err)) => Err(format!(
            "the MCP handshake failed: {}",
            redactor.error(&err)
        )),
        Err(_) => Err(format!(
            "no answer to initialize within {} ms (startupTimeout)",
            limit.as_millis()
        )),
    }
}

/// The session over `transport` (counted by `calls`), its handshake bounded by `limit`.
async fn handshake<T>(
    relay: Relay,
    transport: T,
    calls: std::sync::Arc<crate::federation::relay::InFlight>,
    limit: std::time::Duration,
) -> Result<
    Result<RunningService<RoleClient, Relay>, rmcp::service::ClientInitializeError>,
    tokio::time::error::Elapsed,
>
where
    T: rmcp::transport::Transport<RoleClient> + Send + 'static,
{
    tokio::time::timeout(
        limit,
        relay.serve_with_lifecycle(Counting::new(transport, calls), lifecycle()),
    )
    .await
}

/// Opens a `subscriptions/listen` stream for `notifications/tools/list_changed` (MCP
/// 2026-07-28) when the server of `peer` speaks 2026-07-28 and declares `tools.listChanged`,
/// waiting (up to `limit`) for the server to acknowledge it, then runs `changed` for each
/// notification on a task of its own until the stream ends (the session closed). Older
/// sessions get the notification without asking; a stream the server refuses leaves the
/// session without it.
async fn listen_for_tool_changes(
    peer: &Peer<RoleClient>,
    changed: std::sync::Arc<dyn Fn() + Send + Sync>,
    limit: std::time::Duration,
) -> Option<Listener> {
    let info = peer.peer_info()?;
    let lists_changes = info
        .capabilities
        .tools
        .as_ref()
        .and_then(|tools| tools.list_changed)
        == Some(true);
    if info.protocol_version < ProtocolVersion::V_2026_07_28 || !lists_changes {
        return None;
    }
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut subscription = tokio::time::timeout(limit, peer.listen(filter))
        .await
        .ok()?
        .ok()?;
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = &mut stopped => {
                    // `notifications/cancelled` for the listen request: the server ends the
                    // stream (and a stdio server can exit when its input closes).
                    let _ = subscription.cancel().await;
                    return;
                }
                next = subscription.next() => match next {
                    Ok(Some(ServerNotification::ToolListChangedNotification(_))) => changed(),
                    Ok(Some(_)) => {}
                    Ok(None) | Err(_) => return,
                },
            }
        }
    });
    Some(Listener {
        stop: Some(stop),
        task,
    })
}

/// The task of `listen_for_tool_changes`: [`close`](Self::close) cancels the stream; dropped,
/// the task is aborted.
pub(crate) struct Listener {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Listener {
    /// Cancels the stream (`notifications/cancelled` for the listen request) and waits for
    /// the task to end.
    pub(crate) async fn close(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = (&mut self.task).await;
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// MCP 2026-07-28 when the server speaks it, else 2025-11-25.
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

/// Starts the server's program as the leader of a new process group, stdin and stdout piped
/// to the session, stderr passed on to the gateway's ([`stderr`](super::stderr)), in the
/// environment [`child_env`] makes.
fn spawn(
    server: &str,
    stdio: &StdioTransport,
    redactor: &Redactor,
) -> Result<(TokioChildProcess, Option<ProcessGroupGuard>), String> {
    let mut command = tokio::process::Command::new(&stdio.command);
    command.args(&stdio.args);
    if let Some(env) = child_env(stdio, |name| std::env::var_os(name)) {
        command.env_clear().envs(env);
    }
    command.envs(&stdio.env);
    if let Some(cwd) = &stdio.cwd {
        command.current_dir(cwd);
    }
    let mut wrap = CommandWrap::from(command);
    wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let (child, stderr) = TokioChildProcess::builder(wrap)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| format!("cannot start {:?}: {err}", stdio.command))?;
    let stderr = stderr.map(|stderr| {
        super::stderr::forward(server, redactor.clone(), stderr, tokio::io::stderr())
    });
    let group = child.id().map(|pgid| ProcessGroupGuard {
        pgid,
        _stderr: stderr,
    });
    Ok((child, group))
}

/// The variables a child inherits from the gateway (`gateway` reads one of them): those of
/// [`DEFAULT_INHERITED_ENV_VARS`] and of [`InheritEnv::Named`] that are set, except a value
/// starting with `()` (a shell function, as the MCP TypeScript SDK skips); `None` for
/// [`InheritEnv::All`] (the whole environment). The configured `env` goes over them.
fn child_env(
    stdio: &StdioTransport,
    gateway: impl Fn(&str) -> Option<OsString>,
) -> Option<Vec<(String, OsString)>> {
    let InheritEnv::Named(named) = &stdio.inherit_env else {
        return None;
    };
    let names = DEFAULT_INHERITED_ENV_VARS
        .iter()
        .copied()
        .chain(named.iter().map(String::as_str));
    Some(
        names
            .filter_map(|name| {
                let value = gateway(name)?;
                let function = value.as_encoded_bytes().starts_with(b"()");
                (!function).then(|| (name.to_owned(), value))
            })
            .collect(),
    )
}

/// The most redirects followed for one request.
const MAX_REDIRECTS: usize = 10;

/// The HTTP client of a session to a Streamable HTTP server: its connections kept open and
/// reused from one request to the next (HTTP/1.1 persistent connections, RFC 9112 section 9.3),
/// `TCP_NODELAY` on each, and only same-origin `307`/`308` redirects followed (they keep the
/// method and body; another origin would receive the session ID and the configured headers).
///
/// `rmcp`'s default client opens a new TCP connection for every request (no idle pool): a
/// handshake and a new server connection per `tools/call`, and a socket left in `TIME-WAIT`
/// for each call a gateway relays.
///
/// # Errors
///
/// A sentence naming the cause when the client cannot be built (no TLS backend).
fn http_client() -> Result<reqwest::Client, String> {
    let redirects = reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .tcp_nodelay(true)
        .redirect(redirects)
        .build()
        .map_err(|err| format!("cannot build the HTTP client: {err}"))
}

/// rmcp's Streamable HTTP client settings: the configured headers only (a gateway never sends
/// its own clients' credentials upstream), a new session when the server answers 404 for an
/// expired one (MCP "Session Management").
fn http_config(http: &HttpTransport) -> Result<StreamableHttpClientTransportConfig, String> {
    let mut headers = HashMap::new();
    let mut bearer = None;
    for (name, value) in &http.headers {
        if name.eq_ignore_ascii_case("authorization")
            && let Some(token) = value.strip_prefix("Bearer ")
        {
            bearer = Some(token.to_owned());
            continue;
        }
        let name = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|err| format!("header {name:?}: {err}"))?;
        let value = http::HeaderValue::from_str(value)
            .map_err(|err| format!("the value of header {name}: {err}"))?;
        headers.insert(name, value);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(http.url.as_str())
        .custom_headers(headers)
        .reinit_on_expired_session(true);
    if let Some(token) = bearer {
        config = config.auth_header(token);
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gateway(name: &str) -> Option<OsString> {
        match name {
            "PATH" => Some("/bin".into()),
            "HOME" => Some("/home/gw".into()),
            "SHELL" => Some("() { evil; }".into()),
            "LANG" => Some("C.UTF-8".into()),
            "MCP_REQUEST_STATE_KEY" => Some("key".into()),
            _ => None,
        }
    }

    fn names(env: Option<Vec<(String, OsString)>>) -> Vec<String> {
        let mut names: Vec<String> = env.unwrap().into_iter().map(|(name, _)| name).collect();
        names.sort();
        names
    }

    #[test]
    fn a_child_inherits_the_default_set_and_the_names_it_is_given_only() {
        let plain = StdioTransport::new("x");
        assert_eq!(names(child_env(&plain, gateway)), ["HOME", "PATH"]);
        let more = StdioTransport::new("x").with_inherited_env(["LANG", "UNSET"]);
        assert_eq!(names(child_env(&more, gateway)), ["HOME", "LANG", "PATH"]);
        assert_eq!(child_env(&plain.with_all_env_inherited(), gateway), None);
    }
}
