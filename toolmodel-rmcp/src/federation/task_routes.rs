//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) through the gateway: the
//! upstreams' tasks passed through, the gateway keeping none of its own.
//!
//! - **Capability:** the gateway advertises the extension while an upstream declared it at
//!   `initialize`.
//! - **Which calls:** a `tools/call` whose request declares the extension (in its `_meta`, or
//!   at the client's `initialize`) of a tool of such an upstream is sent to it as it came (the
//!   tool under its own name there, `arguments`, `inputResponses`, `requestState`), with the
//!   client's capabilities in the request's `_meta`, so that the upstream decides, as
//!   SEP-2663 has servers do, whether it becomes a task. Its answer comes back unchanged: a
//!   `CreateTaskResult` (its task ID wrapped, below), an `InputRequiredResult` (with the
//!   upstream's own `requestState`), a result, or the upstream's JSON-RPC error. rmcp 3.11
//!   reads a tool without its `execution`, so the gateway cannot tell which tools support
//!   tasks; it leaves that to the upstream. The server checks the arguments against the
//!   tool's `inputSchema` first
//!   ([`Toolbox::check_arguments`](toolmodel::Toolbox::check_arguments), with the schema
//!   the toolbox compiled), as on the federation's own path: bad arguments get the `isError`
//!   result naming every violation and never cross the network. Other calls take the
//!   federation's path ([`Federation`](super::Federation): progress and logs relayed too).
//! - **Task IDs:** `<server>:<upstream task ID>`, the server's name with `%` and `:`
//!   percent-encoded (`%25`, `%3A`) so that the first `:` ends it. The ID names its server,
//!   so any replica of a gateway routes `tasks/get`, `tasks/update` and `tasks/cancel`
//!   without state: each goes to that server with the upstream's ID, with the client's
//!   capabilities in its `_meta`, and the answer comes back with the ID wrapped again. An ID
//!   of no configured server, or not of this form, is `-32602` (unknown task), as SEP-2663
//!   has it; a server that is down is `-32603` naming it.
//! - **Ownership:** the upstream sees every task as the gateway's (one session, the
//!   gateway's credentials). Under authorization the gateway binds each task to the caller
//!   that created it: its ID is `<server>:<tag>:<upstream task ID>`, the tag a MAC of the
//!   server's name, the caller's issuer and subject and the upstream's task ID under the
//!   gateway's `requestState` key ([`Requester::tag`]: 128 bits of HMAC-SHA256), and is
//!   unknown (`-32602`) to anyone else: no caller can make the tag of another's task, or
//!   move a tag of its own onto another upstream ID. Every replica of a gateway given the
//!   same key (`MCP_REQUEST_STATE_KEY`) reads the IDs of the others. Without authorization a
//!   client that has another's task ID reaches that task. Upstream task IDs are unguessable
//!   when the upstream makes them so (toolmodel's: 128 random bits).
//! - **Not relayed:** `notifications/tasks` (optional in SEP-2663; clients poll), and the
//!   progress and log notifications an upstream sends while it answers a forwarded call.

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
};

use rmcp::{
    ErrorData,
    model::{
        CallToolRequest, CallToolRequestParams, CallToolResponse, CancelTaskParams,
        CancelTaskRequest, ClientCapabilities, ClientRequest, GetTaskParams, GetTaskRequest,
        GetTaskResult, RequestMetaObject, ResultType, ServerResult, UpdateTaskParams,
        UpdateTaskRequest,
    },
};
use toolmodel::{Backend, Tool};

use crate::federation::catalog::{Live, live};
use crate::federation::passthrough::{Declared, unexpected};
use crate::federation::servers::Servers;
use crate::federation::upstream::Upstream;
use crate::lock::lock;
use crate::reloadable::WeakReloadable;
use crate::server::upstream_tasks::{Forwarded, Requester, UpstreamTasks};

/// Each upstream tool's name on its server, by its name in the federation's toolbox (kept
/// by the federation as it builds the toolbox).
pub(crate) type RemoteNames = Arc<RwLock<HashMap<String, String>>>;

/// What separates the server's name from the upstream's task ID in a gateway's task ID.
const SEPARATOR: char = ':';

/// What a gateway's task-ID tag is for, in the key derivation of [`Requester::tag`]'s MAC.
const TAG_PURPOSE: &str = "toolmodel-rmcp gateway task owner v1";

impl Requester {
    /// The tag that binds `server`'s task `upstream_id` to this requester's owner: the MAC
    /// (`Sealer::tag`, HMAC-SHA256 under the server's `requestState` key) of the server's
    /// name, the owner and the upstream's ID; `None` without an owner (no authorization).
    ///
    /// # Errors
    ///
    /// `-32603` when the server has no key.
    fn tag(&self, server: &str, upstream_id: &str) -> Result<Option<String>, ErrorData> {
        self.owner
            .as_deref()
            .map(|owner| self.sealer.tag(TAG_PURPOSE, &[server, owner, upstream_id]))
            .transpose()
    }

    /// The upstream's ID in `rest` (a task ID of `server` after the server's name), when
    /// the task ID is this requester's: under authorization `rest` is `<tag>:<upstream ID>`
    /// and the tag must be the one [`tag`](Self::tag) makes for this owner and that upstream
    /// ID; `None` otherwise (another caller's task, or a forged ID: unknown to this one).
    fn upstream_id<'a>(&self, server: &str, rest: &'a str) -> Option<&'a str> {
        let id = match self.owner.as_deref() {
            Some(owner) => {
                let (tag, id) = rest.split_once(SEPARATOR)?;
                self.sealer
                    .verify_tag(TAG_PURPOSE, &[server, owner, id], tag)
                    .then_some(id)?
            }
            None => rest,
        };
        (!id.is_empty()).then_some(id)
    }
}

/// The gateway's ID of `server`'s task `upstream_id`: `<server>:<upstream_id>`, or
/// `<server>:<tag>:<upstream_id>` under authorization (`tag` from [`Requester::tag`]: the
/// owner's MAC, base64url, which has no `:`), with `%` and `:` of the server's name
/// percent-encoded.
pub(crate) fn task_id(server: &str, tag: Option<&str>, upstream_id: &str) -> String {
    let server = server.replace('%', "%25").replace(SEPARATOR, "%3A");
    match tag {
        Some(tag) => format!("{server}{SEPARATOR}{tag}{SEPARATOR}{upstream_id}"),
        None => format!("{server}{SEPARATOR}{upstream_id}"),
    }
}

/// The server's name and the upstream's task ID of a gateway's task ID; `None` for an ID
/// that is not of that form.
pub(crate) fn parse_task_id(task_id: &str) -> Option<(String, &str)> {
    let (server, upstream_id) = task_id.split_once(SEPARATOR)?;
    // Every `%` of an encoded name starts `%25` or `%3A`: `%3A` first, then `%25`.
    let decoded = server.replace("%3A", ":").replace("%25", "%");
    (!upstream_id.is_empty()).then_some((decoded, upstream_id))
}

/// SEP-2663, "Protocol Errors": an unknown task ID is `-32602`.
fn unknown_task(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task: {task_id}"), None)
}

/// The `_meta` of a forwarded request: the client's capabilities.
fn meta(capabilities: ClientCapabilities) -> RequestMetaObject {
    let mut meta = RequestMetaObject::default();
    meta.set_client_capabilities(capabilities);
    meta
}

/// The upstreams' tasks, routed by the gateway (see the [module docs](self)); installed on
/// a [`ToolboxServer`](crate::ToolboxServer) by
/// [`ToolboxServer::gateway`](crate::ToolboxServer::gateway).
#[derive(Clone)]
pub(crate) struct UpstreamTaskRoutes {
    /// The servers in force, read by each request.
    servers: WeakReloadable<Servers>,
    declared: Declared,
    /// Each upstream tool's name on its server, by its name in the toolbox.
    remote_names: RemoteNames,
}

impl std::fmt::Debug for UpstreamTaskRoutes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamTaskRoutes")
            .field(
                "upstreams",
                &self.servers.get().map(|servers| servers.upstreams.len()),
            )
            .finish_non_exhaustive()
    }
}

impl UpstreamTaskRoutes {
    pub(crate) fn new(
        servers: WeakReloadable<Servers>,
        declared: Declared,
        remote_names: RemoteNames,
    ) -> Self {
        Self {
            servers,
            declared,
            remote_names,
        }
    }

    /// The server's name for the tool the toolbox serves as `name` (they differ when the
    /// name policy prefixed it).
    fn remote_name(&self, name: &str) -> Option<String> {
        self.remote_names.read().ok()?.get(name).cloned()
    }

    /// Whether `server` declared the extension at its last `initialize`.
    fn declares_tasks(&self, server: &str) -> bool {
        let declared = lock(&self.declared);
        declared
            .get(server)
            .is_some_and(rmcp::model::ServerCapabilities::supports_tasks)
    }

    /// The upstream named `server`, if configured.
    fn upstream(&self, server: &str) -> Option<Arc<Upstream>> {
        // A credentialed server's tasks are not served (its shared session is the gateway's).
        self.servers
            .get()?
            .named(server)
            .filter(|upstream| upstream.config.credentials.is_none())
            .cloned()
    }

    /// `server`'s open session.
    ///
    /// # Errors
    ///
    /// `-32603` naming the server when its session is not open.
    async fn live(&self, server: &str) -> Result<Live, ErrorData> {
        let upstream = self.upstream(server).ok_or_else(|| {
            ErrorData::internal_error(format!("server {server:?} is not configured"), None)
        })?;
        live(&[upstream], |_| true)
            .await
            .into_iter()
            .next()
            .ok_or_else(|| {
                ErrorData::internal_error(format!("server {server:?} is unavailable"), None)
            })
    }

    /// The session of the server of the gateway's `task_id`, and the upstream's ID, when the
    /// task is `from`'s (its tag verified, [`Requester::upstream_id`]).
    ///
    /// # Errors
    ///
    /// `-32602` for an ID of no configured server or of another owner; `-32603` when its
    /// session is not open.
    async fn task_server<'a>(
        &self,
        task_id: &'a str,
        from: &Requester,
    ) -> Result<(Live, &'a str), ErrorData> {
        let (server, rest) = parse_task_id(task_id).ok_or_else(|| unknown_task(task_id))?;
        let upstream_id = from
            .upstream_id(&server, rest)
            .ok_or_else(|| unknown_task(task_id))?;
        if self.upstream(&server).is_none() {
            return Err(unknown_task(task_id));
        }
        Ok((self.live(&server).await?, upstream_id))
    }

    /// `tasks/update` or `tasks/cancel` (`request`, about the upstream's task) of `server`,
    /// whose answer is an empty acknowledgement.
    async fn acknowledged(
        server: &Live,
        request: ClientRequest,
        capabilities: ClientCapabilities,
        method: &str,
    ) -> Result<(), ErrorData> {
        match server.ask_with(request, Some(meta(capabilities))).await? {
            ServerResult::TaskAckResult(_) | ServerResult::EmptyResult(_) => Ok(()),
            _ => Err(unexpected(server, method)),
        }
    }
}

impl UpstreamTasks for UpstreamTaskRoutes {
    fn offered(&self) -> bool {
        let declared = lock(&self.declared);
        declared
            .values()
            .any(rmcp::model::ServerCapabilities::supports_tasks)
    }

    fn forwards(&self, tool: &Tool) -> bool {
        tool.backends.iter().any(|backend| match backend {
            Backend::Mcp(mcp) => self.declares_tasks(&mcp.server_name),
            _ => false,
        })
    }

    fn names(&self, task_id: &str) -> bool {
        parse_task_id(task_id).is_some_and(|(server, _)| self.upstream(&server).is_some())
    }

    fn call_tool<'a>(
        &'a self,
        tool: &'a Tool,
        mut request: CallToolRequestParams,
        from: Requester,
    ) -> Forwarded<'a, CallToolResponse> {
        Box::pin(async move {
            let server = tool
                .backends
                .iter()
                .find_map(|backend| match backend {
                    Backend::Mcp(mcp) => Some(mcp.server_name.as_str()),
                    _ => None,
                })
                .ok_or_else(|| {
                    ErrorData::internal_error(
                        format!("tool {:?} has no MCP server", tool.name),
                        None,
                    )
                })?;
            let live = self.live(server).await?;
            let remote = self
                .remote_name(&request.name)
                .unwrap_or_else(|| tool.name.clone());
            request.name = remote.into();
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(request));
            match live
                .ask_with(request, Some(meta(from.capabilities.clone())))
                .await?
            {
                ServerResult::CreateTaskResult(mut created) => {
                    let tag = from.tag(server, &created.task.task_id)?;
                    created.task.task_id = task_id(server, tag.as_deref(), &created.task.task_id);
                    Ok(CallToolResponse::Task(created))
                }
                ServerResult::CallToolResult(mut result) => {
                    result.result_type.get_or_insert(ResultType::COMPLETE);
                    Ok(CallToolResponse::Complete(result))
                }
                ServerResult::InputRequiredResult(input) => {
                    Ok(CallToolResponse::InputRequired(input))
                }
                _ => Err(unexpected(&live, "tools/call")),
            }
        })
    }

    fn get_task(&self, request: GetTaskParams, from: Requester) -> Forwarded<'_, GetTaskResult> {
        Box::pin(async move {
            let (live, upstream_id) = self.task_server(&request.task_id, &from).await?;
            let asked =
                ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(upstream_id)));
            match live.ask_with(asked, Some(meta(from.capabilities))).await? {
                ServerResult::GetTaskResult(mut result) => {
                    result.task.task.task_id.clone_from(&request.task_id);
                    Ok(result)
                }
                _ => Err(unexpected(&live, "tasks/get")),
            }
        })
    }

    fn update_task(&self, request: UpdateTaskParams, from: Requester) -> Forwarded<'_, ()> {
        Box::pin(async move {
            let (live, upstream_id) = self.task_server(&request.task_id, &from).await?;
            let asked = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(
                UpdateTaskParams::new(upstream_id, request.input_responses.clone()),
            ));
            Self::acknowledged(&live, asked, from.capabilities, "tasks/update").await
        })
    }

    fn cancel_task(&self, request: CancelTaskParams, from: Requester) -> Forwarded<'_, ()> {
        Box::pin(async move {
            let (live, upstream_id) = self.task_server(&request.task_id, &from).await?;
            let asked = ClientRequest::CancelTaskRequest(CancelTaskRequest::new(
                CancelTaskParams::new(upstream_id),
            ));
            Self::acknowledged(&live, asked, from.capabilities, "tasks/cancel").await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_id_names_its_server_and_reads_back_whatever_the_server_is_called() {
        for server in ["conformance", "a:b", "50%", "%3A", ""] {
            let id = task_id(server, None, "Zx9-_:tail");
            assert_eq!(
                parse_task_id(&id),
                Some((server.to_owned(), "Zx9-_:tail")),
                "{id}"
            );
        }
        assert_eq!(task_id("a:b", None, "t"), "a%3Ab:t");
    }

    fn requester(owner: Option<&str>, key: u8) -> Requester {
        let key = crate::server::RequestStateKey::from_bytes(vec![key; 32]).expect("a key");
        Requester {
            capabilities: ClientCapabilities::default(),
            owner: owner.map(str::to_owned),
            sealer: crate::server::request_state::Sealer::new(Some(key)),
        }
    }

    /// The owner tag of the security review's finding: a hash of the owner that anyone
    /// can compute for themselves.
    fn unkeyed_tag(owner: &str) -> String {
        use sha2::Digest as _;
        sha2::Sha256::digest(owner.as_bytes())[..16]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }

    #[test]
    fn a_task_id_made_for_an_owner_is_unknown_to_anyone_else() {
        let alice = requester(Some(r#"["https://issuer.example","alice"]"#), 7);
        let bob = requester(Some(r#"["https://issuer.example","bob"]"#), 7);
        let nobody = requester(None, 7);
        let tag = alice.tag("jobs", "up:1").unwrap();
        let id = task_id("jobs", tag.as_deref(), "up:1");
        let (server, rest) = parse_task_id(&id).expect("a gateway task ID");
        assert_eq!(server, "jobs");
        assert_eq!(alice.upstream_id(&server, rest), Some("up:1"));
        // Another replica with the same key reads it; one with another key does not.
        let replica = requester(alice.owner.as_deref(), 7);
        assert_eq!(replica.upstream_id(&server, rest), Some("up:1"));
        let stranger = requester(alice.owner.as_deref(), 8);
        assert_eq!(stranger.upstream_id(&server, rest), None);
        assert_eq!(bob.upstream_id(&server, rest), None);
        // Without authorization the whole rest is the upstream's ID, which the upstream does
        // not know: the task stays unreachable.
        assert_ne!(nobody.upstream_id(&server, rest), Some("up:1"));
        // An ID made without an owner is not one of alice's.
        let unowned = task_id("jobs", None, "up:1");
        let (_, rest) = parse_task_id(&unowned).expect("a gateway task ID");
        assert_eq!(alice.upstream_id("jobs", rest), None);
        assert!(!id.contains("alice"), "{id}");
    }

    #[test]
    fn no_caller_can_make_a_tag_for_another_callers_upstream_task() {
        let alice = requester(Some(r#"["https://issuer.example","alice"]"#), 7);
        let bob = requester(Some(r#"["https://issuer.example","bob"]"#), 7);
        // Bob's tag of his own task does not carry over to Alice's upstream ID, nor does a
        // hash of his own name (the review's forgery), nor Alice's tag to another server.
        let own = bob.tag("jobs", "up:bob").unwrap().unwrap();
        let owner = bob.owner.as_deref().unwrap();
        for tag in [own, unkeyed_tag(owner)] {
            let forged = task_id("jobs", Some(&tag), "up:alice");
            let (server, rest) = parse_task_id(&forged).unwrap();
            assert_eq!(bob.upstream_id(&server, rest), None, "{forged}");
        }
        let tag = alice.tag("jobs", "up:alice").unwrap().unwrap();
        assert_eq!(alice.upstream_id("other", &format!("{tag}:up:alice")), None);
        assert_eq!(tag.len(), 22, "{tag}");
        assert!(!tag.contains(SEPARATOR), "{tag}");
    }

    #[test]
    fn an_id_without_a_server_or_an_upstream_id_names_no_task() {
        assert_eq!(parse_task_id("tasks-conformance-nonexistent-12345"), None);
        assert_eq!(parse_task_id("server:"), None);
    }
}
