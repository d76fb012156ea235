//! [`Gate`]: the stage that admits or refuses a request on who sends it, after the `Host`
//! and `Origin` checks. Open by default; with
//! [`ToolboxServer::with_authorization`](crate::ToolboxServer::with_authorization) it makes
//! the server an OAuth 2.1 resource server (MCP, "Authorization"; the checks themselves are
//! [`crate::auth`]'s):
//!
//! - [`metadata`](Gate::metadata): a `GET` of a Protected Resource Metadata URI (RFC 9728,
//!   both well-known forms) is answered here, with no token, before the path stage;
//! - [`admit`](Gate::admit), on the head alone, before the body is read or a session
//!   admitted, so a refused request costs the server nothing but its head: the bearer token
//!   verified (401 with `WWW-Authenticate` when missing or invalid, 503 when the issuer
//!   cannot be reached), the scopes the server needs and, under MCP 2026-07-28, those of the
//!   tool named by `Mcp-Method: tools/call` and `Mcp-Name` (403 `insufficient_scope`); the
//!   verified [`Caller`] goes into the request's extensions (an `Arc<Caller>`), where the handler's
//!   [`CallContext`](toolmodel::CallContext) and the session stage find it;
//! - [`admit_body`](Gate::admit_body), once the body is read and before `rmcp` starts a
//!   response: the scopes of each tool a `tools/call` in the body names (MCP 2025-11-25 sends
//!   no `Mcp-Name`; under 2026-07-28 `rmcp` holds the header to the body), 403 when missing.
//!
//! Without a tool policy every authenticated caller sees every tool in `tools/list`: the list
//! does not vary by caller (so its `cacheScope` stays as the toolbox sets it), and a client
//! learns the scopes a tool needs from the 403 challenge of its call, the step-up MCP
//! describes. Under a policy ([`ToolPolicy`](crate::server::ToolPolicy)) the scopes of a tool
//! the caller may not see are not checked here: its call is answered as that of an unknown
//! tool, which a 403 naming its scopes would betray.

use std::sync::Arc;

use http::{HeaderMap, HeaderValue, Method, StatusCode, header, request::Parts};
use toolmodel::{Caller, Toolbox};

use super::{
    message::Envelope,
    refusal::Refusal,
    response::{Body, json, plain},
};
use crate::auth::{
    Rejection, Verifier, is_metadata_path, metadata_document, needed_scopes, scopes_satisfied,
};

/// What the gate checks.
#[derive(Clone, Debug, Default)]
pub(super) enum Gate {
    /// Every request passes.
    #[default]
    Open,
    /// Every request needs a bearer token the verifier accepts.
    Bearer(Arc<Verifier>),
}

/// The `Mcp-Method` header (MCP 2026-07-28, Streamable HTTP, "Standard Request Headers").
const MCP_METHOD: &str = "mcp-method";
/// The `Mcp-Name` header (same section): the tool a `tools/call` calls.
const MCP_NAME: &str = "mcp-name";

impl Gate {
    /// Whether a request for `path` asks for the Protected Resource Metadata (RFC 9728 §3,
    /// either well-known URI): never when the gate is open.
    pub(super) fn serves_metadata(&self, path: &str) -> bool {
        match self {
            Self::Open => false,
            Self::Bearer(verifier) => is_metadata_path(verifier.authorization(), path),
        }
    }

    /// The answer to a `method` request for the metadata: `200` with the document for a
    /// `GET`, `scopes_supported` listing the server's scopes and those of every tool of
    /// `toolbox`; `405 Method Not Allowed` for any other method.
    pub(super) fn metadata(&self, method: &Method, toolbox: &Toolbox) -> http::Response<Body> {
        match self {
            Self::Bearer(verifier) if method == Method::GET => {
                let scopes = toolbox
                    .tools()
                    .iter()
                    .flat_map(|tool| &tool.required_scopes);
                json(
                    StatusCode::OK,
                    &metadata_document(verifier.authorization(), scopes),
                )
            }
            _ => {
                let mut response = plain(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "Method Not Allowed: the resource metadata is read with GET",
                );
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("GET"));
                response
            }
        }
    }

    /// Admits the request whose head is `head`, `toolbox` naming the tools' scopes of those
    /// the caller `sees` (module docs); the verified [`Caller`] goes into `head.extensions`.
    ///
    /// # Errors
    ///
    /// [`Refusal::Unauthorized`] for a missing or invalid token, [`Refusal::AuthorizationUnavailable`]
    /// when the issuer cannot be reached, [`Refusal::InsufficientScope`] when the token lacks
    /// a scope the server or the tool of `Mcp-Name` needs.
    pub(super) async fn admit(
        &self,
        head: &mut Parts,
        toolbox: &Toolbox,
        sees: Sees<'_>,
    ) -> Result<(), Refusal> {
        let Self::Bearer(verifier) = self else {
            return Ok(());
        };
        let caller = verifier
            .caller(&head.headers)
            .await
            .map_err(|rejection| match rejection {
                Rejection::Unavailable => Refusal::AuthorizationUnavailable,
                Rejection::Busy => Refusal::IntrospectionBusy,
                rejection => Refusal::Unauthorized(verifier.unauthorized(&rejection)),
            })?;
        let named = header_tool(&head.headers);
        check(
            verifier,
            &caller,
            toolbox,
            named.filter(|name| sees(&caller, name)),
        )?;
        head.extensions.insert(caller);
        Ok(())
    }

    /// Whether the gate checks tools' scopes (a bearer gate): then the front pins the
    /// toolbox it checked a body against for the handler.
    pub(super) fn checks_scopes(&self) -> bool {
        matches!(self, Self::Bearer(_))
    }

    /// Checks the scopes of each tool a `tools/call` in `body` (read once by the front) names,
    /// for the caller
    /// [`admit`](Self::admit) put in `head`.
    ///
    /// # Errors
    ///
    /// [`Refusal::InsufficientScope`] naming every scope the call needs.
    pub(super) fn admit_body(
        &self,
        head: &Parts,
        body: &Envelope,
        toolbox: &Toolbox,
        sees: Sees<'_>,
    ) -> Result<(), Refusal> {
        let Self::Bearer(verifier) = self else {
            return Ok(());
        };
        let Some(caller) = head.extensions.get::<Arc<Caller>>() else {
            return Ok(());
        };
        // A body that is no JSON-RPC message calls no tool (`rmcp` refuses it).
        for name in body.tools_called() {
            check(
                verifier,
                caller,
                toolbox,
                name.filter(|name| sees(caller, name)),
            )?;
        }
        Ok(())
    }
}

/// Whether a caller may see the tool served as a name (a tool policy's answer; always
/// without one).
pub(super) type Sees<'a> = &'a (dyn Fn(&Caller, &str) -> bool + Sync);

/// The tool a request's `Mcp-Method: tools/call` and `Mcp-Name` headers name.
fn header_tool(headers: &HeaderMap) -> Option<&str> {
    let method = headers.get(MCP_METHOD)?.to_str().ok()?;
    if method != "tools/call" {
        return None;
    }
    headers.get(MCP_NAME)?.to_str().ok()
}

/// Whether `caller` holds the server's scopes and those of the tool `name` (when it is one
/// of `toolbox`'s).
fn check(
    verifier: &Verifier,
    caller: &Caller,
    toolbox: &Toolbox,
    name: Option<&str>,
) -> Result<(), Refusal> {
    let auth = verifier.authorization();
    let tool_scopes = name
        .and_then(|name| toolbox.get(name))
        .map(|tool| tool.required_scopes.as_slice())
        .unwrap_or_default();
    let needed = needed_scopes(auth, tool_scopes);
    if scopes_satisfied(auth, caller, &needed) {
        Ok(())
    } else {
        Err(Refusal::InsufficientScope(
            verifier.insufficient_scope(needed),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toolbox() -> Toolbox {
        Toolbox::builder().build().unwrap()
    }

    #[tokio::test]
    async fn an_open_gate_admits_every_request_and_serves_no_metadata() {
        for request in [
            http::Request::post("/mcp").body(()).unwrap(),
            http::Request::get("/elsewhere")
                .header("authorization", "Bearer anything")
                .body(())
                .unwrap(),
        ] {
            let (mut head, ()) = request.into_parts();
            assert_eq!(
                Gate::Open.admit(&mut head, &toolbox(), &|_, _| true).await,
                Ok(())
            );
            assert!(head.extensions.get::<Arc<Caller>>().is_none());
        }
        assert!(!Gate::Open.serves_metadata("/.well-known/oauth-protected-resource"));
    }

    #[tokio::test]
    async fn a_bearer_gate_refuses_a_request_without_a_token_before_any_fetch() {
        let auth =
            crate::auth::ResourceServer::new("https://a.example", "https://m.example/mcp").unwrap();
        let gate = Gate::Bearer(Arc::new(Verifier::new(auth)));
        let (mut head, ()) = http::Request::post("/mcp").body(()).unwrap().into_parts();
        let refusal = gate
            .admit(&mut head, &toolbox(), &|_, _| true)
            .await
            .unwrap_err();
        let response = refusal.response();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            response.headers()[header::WWW_AUTHENTICATE],
            "Bearer resource_metadata=\"https://m.example/.well-known/oauth-protected-resource/mcp\""
        );
        assert!(gate.serves_metadata("/.well-known/oauth-protected-resource/mcp"));
        let put = gate.metadata(&Method::PUT, &toolbox());
        assert_eq!(put.status(), StatusCode::METHOD_NOT_ALLOWED);
    }
}
