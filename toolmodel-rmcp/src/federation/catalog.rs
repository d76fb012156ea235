//! What the upstreams offer besides tools, read live: their prompts under flat names, their
//! resources and resource templates, and which server a resource URI or a prompt name
//! belongs to. The gateway's [`Passthrough`](super::passthrough::Passthrough) answers with it.
//!
//! **Prompts** are named as tools are ([`NamePolicy`]): over one
//! server a prompt keeps its name; two servers' prompts of one name are `<server>__<prompt>`
//! under the default policy; a collision left is an error naming both.
//!
//! **Resources** keep their URIs: a URI names the resource, and prompts, tool results and
//! other resources refer to it by that URI, so the gateway never rewrites one. A URI is routed
//! to a server by these rules, in order:
//! 1. the servers whose `resources/list` holds the URI;
//! 2. else the servers with a resource template the URI matches
//!    ([`uri_template`]);
//! 3. else, when one server offers resources, that one (it may serve URIs it lists nowhere).
//!
//! One server found: it answers. Two or more at rule 1 or 2: the request fails with JSON-RPC
//! `-32602` naming the URI and every server that offers it (never one of them picked
//! silently); `resources/list` lists each server's entry. None: `-32002` (resource not
//! found) naming the URI.

use std::{collections::BTreeSet, sync::Arc};

use rmcp::{
    ErrorData,
    model::{
        ClientRequest, ListPromptsRequest, ListPromptsResult, ListResourceTemplatesRequest,
        ListResourceTemplatesResult, ListResourcesRequest, ListResourcesResult,
        PaginatedRequestParams, Prompt, RequestMetaObject, Resource, ResourceTemplate,
        ServerCapabilities, ServerResult,
    },
    service::{Peer, PeerRequestOptions, RoleClient, ServiceError},
};
use serde_json::json;

use crate::federation::names::{
    Flat, NamePolicy, SEPARATOR, Upstream as Named, flat_names, holds_separator,
};
use crate::federation::pages::{CacheHint, Page, all_pages};
use crate::federation::upstream::Upstream;
use crate::federation::uri_template;

/// An upstream whose session is open.
pub(crate) struct Live {
    pub(crate) upstream: Arc<Upstream>,
    pub(crate) peer: Peer<RoleClient>,
}

impl Live {
    /// The server's name.
    pub(crate) fn name(&self) -> &str {
        &self.upstream.config.name
    }

    /// Sends `request` with the server's timeouts (`timeout` restarted by progress,
    /// `maxTotalTimeout`) and awaits the answer.
    ///
    /// # Errors
    ///
    /// The server's own JSON-RPC error, unchanged (a transparent gateway); `-32603` naming
    /// the server for a timeout or a failed connection.
    pub(crate) async fn ask(&self, request: ClientRequest) -> Result<ServerResult, ErrorData> {
        self.ask_with(request, None).await
    }

    /// [`ask`](Self::ask) with `meta` added to the request's `_meta` (over what the session
    /// puts there itself: under MCP 2026-07-28, its client capabilities).
    ///
    /// # Errors
    ///
    /// As [`ask`](Self::ask).
    pub(crate) async fn ask_with(
        &self,
        request: ClientRequest,
        meta: Option<RequestMetaObject>,
    ) -> Result<ServerResult, ErrorData> {
        let timeouts = self.upstream.config.timeouts;
        let mut options = PeerRequestOptions::with_timeout(timeouts.request)
            .reset_timeout_on_progress()
            .with_max_total_timeout(timeouts.max_total);
        if let Some(meta) = meta {
            options = options.with_meta(meta);
        }
        let answer = match self.peer.send_request_with_option(request, options).await {
            Ok(handle) => handle.await_response().await,
            Err(err) => Err(err),
        };
        answer.map_err(|err| self.failed(err))
    }

    /// `err` as the JSON-RPC error the downstream client gets, the server's secrets removed:
    /// the server's own error as it sent it, any other failure `-32603` naming the server.
    pub(crate) fn failed(&self, err: ServiceError) -> ErrorData {
        let redactor = &self.upstream.redactor;
        match err {
            ServiceError::McpError(error) => ErrorData {
                message: redactor.text(&error.message).into(),
                data: error.data.map(|data| redactor.json(data)),
                ..error
            },
            other => ErrorData::internal_error(
                format!("server {:?}: {}", self.name(), redactor.error(&other)),
                Some(json!({"server": self.name()})),
            ),
        }
    }

    /// Every page of the list `L` of this server, and the list's cache hint.
    async fn list<L: Listing>(&self) -> Result<(Vec<L::Item>, CacheHint), ErrorData> {
        let timeouts = self.upstream.config.timeouts;
        let redactor = &self.upstream.redactor;
        all_pages(
            L::METHOD,
            timeouts.max_total,
            "maxTotalTimeout",
            redactor,
            |cursor| {
                let request = L::request(PaginatedRequestParams::default().with_cursor(cursor));
                async move {
                    let answer = self
                        .peer
                        .send_request_with_option(
                            request,
                            PeerRequestOptions::with_timeout(timeouts.request),
                        )
                        .await?
                        .await_response()
                        .await?;
                    L::page(answer).ok_or(ServiceError::UnexpectedResponse)
                }
            },
        )
        .await
        .map_err(|cause| {
            ErrorData::internal_error(
                format!("server {:?}: {cause}", self.name()),
                Some(json!({"server": self.name()})),
            )
        })
    }

    /// Every prompt of this server.
    pub(crate) async fn prompts(&self) -> Result<(Vec<Prompt>, CacheHint), ErrorData> {
        self.list::<ListPromptsResult>().await
    }

    /// Every resource of this server.
    pub(crate) async fn resources(&self) -> Result<(Vec<Resource>, CacheHint), ErrorData> {
        self.list::<ListResourcesResult>().await
    }

    /// Every resource template of this server.
    pub(crate) async fn templates(&self) -> Result<(Vec<ResourceTemplate>, CacheHint), ErrorData> {
        self.list::<ListResourceTemplatesResult>().await
    }
}

/// A list the gateway reads of a server: its method, how to ask for a page, and the page in
/// the answer.
trait Listing {
    type Item;
    const METHOD: &'static str;
    fn request(params: PaginatedRequestParams) -> ClientRequest;
    fn page(answer: ServerResult) -> Option<Page<Self::Item>>;
}

/// `Listing` for the result type `$result` of `$method`, its items in the field `$items`.
macro_rules! listing {
    ($result:ident, $request:ident, $method:literal, $items:ident: $item:ty) => {
        impl Listing for $result {
            type Item = $item;
            const METHOD: &'static str = $method;
            fn request(params: PaginatedRequestParams) -> ClientRequest {
                ClientRequest::$request($request::with_param(params))
            }
            fn page(answer: ServerResult) -> Option<Page<$item>> {
                match answer {
                    ServerResult::$result(page) => Some((
                        page.$items,
                        page.next_cursor,
                        CacheHint::new(page.ttl_ms, page.cache_scope),
                    )),
                    _ => None,
                }
            }
        }
    };
}

listing!(ListPromptsResult, ListPromptsRequest, "prompts/list", prompts: Prompt);
listing!(ListResourcesResult, ListResourcesRequest, "resources/list", resources: Resource);
listing!(
    ListResourceTemplatesResult,
    ListResourceTemplatesRequest,
    "resources/templates/list",
    resource_templates: ResourceTemplate
);

/// The upstreams of `upstreams` with an open session (one is opened where the backoff delay
/// allows) that declared what `offers` looks for, in configuration order. A credentialed
/// server (`toolmodelCredentials`) is never one: its shared session runs as the gateway, not
/// as the caller, so its prompts, resources, completion and tasks are not served.
pub(crate) async fn live(
    upstreams: &[Arc<Upstream>],
    offers: impl Fn(&ServerCapabilities) -> bool,
) -> Vec<Live> {
    let mut all = Vec::new();
    for upstream in upstreams {
        if upstream.config.credentials.is_some() {
            continue;
        }
        let Ok(opened) = upstream.peer().await else {
            continue;
        };
        let Some(info) = opened.peer.peer_info() else {
            continue;
        };
        if offers(&info.capabilities) {
            all.push(Live {
                upstream: Arc::clone(upstream),
                peer: opened.peer,
            });
        }
    }
    all
}

/// One prompt as the gateway lists it.
pub(crate) struct NamedPrompt {
    /// Which of the servers given to [`prompts`] serves it.
    pub(crate) server: usize,
    /// Its name there.
    pub(crate) upstream_name: String,
    /// The prompt, under its flat name.
    pub(crate) prompt: Prompt,
}

/// Every prompt of `servers` under its flat name, in server order, and the lists' merged
/// cache hint.
///
/// # Errors
///
/// A server's listing failed (`-32603` naming it); two prompts would share a flat name
/// (`-32603` naming both).
pub(crate) async fn prompts(
    servers: &[Live],
    policy: NamePolicy,
) -> Result<(Vec<NamedPrompt>, CacheHint), ErrorData> {
    let mut listed = Vec::new();
    let mut hints = Vec::new();
    for (index, server) in servers.iter().enumerate() {
        let (prompts, hint) = server.prompts().await?;
        hints.push(hint);
        listed.extend(prompts.into_iter().map(|prompt| (index, prompt)));
    }
    let named: Vec<Named<'_>> = listed
        .iter()
        .filter_map(|(index, prompt)| {
            Some(Named {
                server: servers.get(*index)?.name(),
                tool: &prompt.name,
            })
        })
        .collect();
    let mut flat = Vec::with_capacity(named.len());
    for (named, outcome) in named.iter().zip(flat_names(policy, &[], &named)) {
        match outcome {
            Flat::Served(name) | Flat::Prefixed(name) => flat.push(name),
            Flat::Collision { name, others } => {
                let first = format!("{}:{}", named.server, named.tool);
                return Err(ErrorData::internal_error(
                    format!(
                        "prompts {first} and {} would both be served as {name:?}",
                        others.join(" and ")
                    ),
                    Some(json!({"name": name, "prompts": [first, others]})),
                ));
            }
            Flat::Separator => {
                return Err(ErrorData::internal_error(
                    format!(
                        "prompt {}:{} cannot be served: its name holds {SEPARATOR:?}, the separator of the gateway's prefixed names, and toolNames \"never\" prefixes nothing",
                        named.server, named.tool
                    ),
                    Some(json!({"name": named.tool})),
                ));
            }
        }
    }
    let named = listed
        .into_iter()
        .zip(flat)
        .map(|((server, mut prompt), name)| {
            let upstream_name = std::mem::replace(&mut prompt.name, name);
            NamedPrompt {
                server,
                upstream_name,
                prompt,
            }
        })
        .collect();
    Ok((named, CacheHint::all(hints)))
}

/// The server of `servers` that serves the prompt the gateway lists as `name`, and its name
/// there. Over one server under a policy that keeps names, that server and `name` unchanged
/// (no listing).
///
/// # Errors
///
/// As [`prompts`]; `-32602` naming the prompt when no server has it.
pub(crate) async fn prompt_named<'a>(
    servers: &'a [Live],
    policy: NamePolicy,
    name: &str,
) -> Result<(&'a Live, String), ErrorData> {
    // A name holding the separator is never the server's own (see `names`).
    if let ([only], false) = (
        servers,
        policy == NamePolicy::Always || holds_separator(name),
    ) {
        return Ok((only, name.to_owned()));
    }
    prompts(servers, policy)
        .await?
        .0
        .into_iter()
        .find(|named| named.prompt.name == name)
        .and_then(|named| Some((servers.get(named.server)?, named.upstream_name)))
        .ok_or_else(|| {
            ErrorData::invalid_params(
                format!("no upstream server has the prompt {name:?}"),
                Some(json!({"name": name})),
            )
        })
}

/// The server of `servers` that serves the resource `uri` (the rules of the
/// [module docs](self)).
///
/// # Errors
///
/// `-32602` naming the URI and the servers when two or more offer it, or naming the bound
/// when no server lists the URI and it is longer than templates are matched against
/// ([`MAX_URI_BYTES`](uri_template::MAX_URI_BYTES)); `-32002` when none offers it; a
/// server's listing failed (`-32603` naming it).
pub(crate) async fn resource_server<'a>(
    servers: &'a [Live],
    uri: &str,
) -> Result<&'a Live, ErrorData> {
    if let [only] = servers {
        return Ok(only);
    }
    let mut listing = offering(
        servers,
        async |server| server.resources().await,
        |resource: &Resource| resource.uri == uri,
    )
    .await?;
    if listing.is_empty() {
        if uri.len() > uri_template::MAX_URI_BYTES {
            return Err(ErrorData::invalid_params(
                format!(
                    "the URI has {} bytes; no resource lists it, and URIs over {} bytes are not \
                     matched against the servers' resource templates",
                    uri.len(),
                    uri_template::MAX_URI_BYTES
                ),
                Some(json!({"bytes": uri.len(), "limit": uri_template::MAX_URI_BYTES})),
            ));
        }
        listing = offering(
            servers,
            async |server| server.templates().await,
            |template: &ResourceTemplate| uri_template::matches(&template.uri_template, uri),
        )
        .await?;
    }
    one_of(listing, "resource", uri)
}

/// The server of `servers` that lists the resource template `uri_template` (for
/// `completion/complete`), or the only one.
///
/// # Errors
///
/// As [`resource_server`].
pub(crate) async fn template_server<'a>(
    servers: &'a [Live],
    uri_template: &str,
) -> Result<&'a Live, ErrorData> {
    if let [only] = servers {
        return Ok(only);
    }
    let listing = offering(
        servers,
        async |server| server.templates().await,
        |template: &ResourceTemplate| template.uri_template == uri_template,
    )
    .await?;
    one_of(listing, "resource template", uri_template)
}

/// The servers of `servers` whose list (`list` reads one) has an item `offers` accepts.
async fn offering<'a, T>(
    servers: &'a [Live],
    list: impl AsyncFn(&Live) -> Result<(Vec<T>, CacheHint), ErrorData>,
    offers: impl Fn(&T) -> bool,
) -> Result<Vec<&'a Live>, ErrorData> {
    let mut found = Vec::new();
    for server in servers {
        if list(server).await?.0.iter().any(&offers) {
            found.push(server);
        }
    }
    Ok(found)
}

/// The one server of `found` that offers the `what` `uri`.
fn one_of<'a>(found: Vec<&'a Live>, what: &str, uri: &str) -> Result<&'a Live, ErrorData> {
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(ErrorData::resource_not_found(
            format!("no upstream server offers the {what} {uri}"),
            Some(json!({"uri": uri})),
        )),
        several => {
            let names: BTreeSet<&str> = several.iter().map(|server| server.name()).collect();
            Err(ErrorData::invalid_params(
                format!(
                    "the {what} {uri} is offered by the servers {}: the gateway cannot tell which one to ask",
                    names
                        .iter()
                        .map(|n| format!("{n:?}"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
                Some(json!({"uri": uri, "servers": names})),
            ))
        }
    }
}
