//! A `tools/call` of a disclosed toolbox ([`ToolSearch`](super::ToolSearch)): `search_tools`
//! answered here, from the server's index; `call_tool` unwrapped into the call of the tool it
//! names, which then goes the way of any `tools/call` (a gateway's upstream, a task, input
//! rounds, an ordinary call). Both see only the tools the caller may call: with
//! authorization, those whose `required_scopes` (with the server's own scopes) its token
//! grants, as the HTTP front checks them for a direct call.

use std::borrow::Cow;

use rmcp::{
    ErrorData, RoleServer,
    model::{CallToolRequestParams, CallToolResponse},
    service::RequestContext,
};
use serde_json::Value;
use toolmodel::{CallToolResult, Caller, ProtocolVersion, Tool, Toolbox};

use super::{
    tool_call,
    tool_policy::View,
    tool_search::{
        CALL_TOOL, SEARCH_TOOLS, SearchSettings,
        synthetic::{self, is_synthetic},
    },
    toolbox_server::ToolboxServer,
};
use crate::convert::message::{self, error_data};

/// What becomes of a `tools/call` under tool search.
pub(super) enum Routed {
    /// Answered here: `search_tools`, or a `call_tool` refused.
    Answered(Result<CallToolResponse, ErrorData>),
    /// To be called: the request as it came, or the call `call_tool` names.
    Call(CallToolRequestParams),
}

impl ToolboxServer {
    /// Routes `request`, a `tools/call` on `toolbox`: while the search discloses `toolbox`,
    /// `search_tools` is answered and `call_tool` becomes the call of the tool it names;
    /// anything else is called as it came. `view` is the caller's under a policy: a tool it
    /// does not hold is neither found nor called.
    pub(super) fn route_disclosed(
        &self,
        toolbox: &Toolbox,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        view: Option<&View>,
    ) -> Routed {
        let settings = is_synthetic(&request.name)
            .then(|| self.search.settings())
            .flatten()
            .filter(|settings| settings.config.is_on_for(toolbox.len()));
        let Some(settings) = settings else {
            return Routed::Call(request);
        };
        let version = message::protocol_version(context.protocol_version());
        let caller = tool_call::caller(context);
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let answer = |result: CallToolResult| {
            Routed::Answered(
                message::result_to_rmcp(result, version).map(CallToolResponse::Complete),
            )
        };
        match settings
            .synthetic
            .check_arguments(&request.name, &arguments)
        {
            Ok(Some(refused)) => return answer(refused),
            Ok(None) => {}
            Err(err) => return Routed::Answered(Err(error_data(err))),
        }
        match &*request.name {
            SEARCH_TOOLS => {
                let query = arguments
                    .get("query")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                answer(self.search_tools(&settings, toolbox, query, (caller, view), version))
            }
            CALL_TOOL => {
                let name = arguments
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if is_synthetic(name) {
                    return answer(CallToolResult::error(format!(
                        "'{name}' is a synthetic search tool and cannot be called via the \
                         call_tool proxy"
                    )));
                }
                if !toolbox
                    .get(name)
                    .is_some_and(|tool| self.visible_to(tool, (caller, view)))
                {
                    return answer(CallToolResult::error(format!("Unknown tool: '{name}'")));
                }
                let mut call = request;
                call.name = Cow::Owned(name.to_owned());
                call.arguments = match arguments.get("arguments") {
                    Some(Value::Object(arguments)) => Some(arguments.clone()),
                    _ => None,
                };
                Routed::Call(call)
            }
            _ => Routed::Call(request),
        }
    }

    /// The result of `search_tools` for `query`: the definitions of the best tools of
    /// `toolbox` the caller may call, not always visible, written for `version`; an
    /// `isError` result for a query the index refuses.
    fn search_tools(
        &self,
        settings: &SearchSettings,
        toolbox: &Toolbox,
        query: &str,
        caller: (Option<&Caller>, Option<&View>),
        version: ProtocolVersion,
    ) -> CallToolResult {
        let keep = |name: &str| {
            !settings.config.is_always_visible(name)
                && toolbox
                    .get(name)
                    .is_some_and(|tool| self.visible_to(tool, caller))
        };
        match self.search.find(query, keep) {
            Ok(names) => synthetic::found(
                names
                    .iter()
                    .filter_map(|name| toolbox.get(name))
                    .filter_map(|tool| tool.to_mcp_json_for(version).ok())
                    .map(|written| written.json)
                    .collect(),
            ),
            Err(why) => CallToolResult::error(why),
        }
    }

    /// Whether `caller` may call `tool`: under a policy, when its view holds it; and with
    /// authorization, when its token grants the server's scopes and the tool's; without (or
    /// over stdio, where nothing is checked), always.
    #[cfg(feature = "auth")]
    fn visible_to(&self, tool: &Tool, (caller, view): (Option<&Caller>, Option<&View>)) -> bool {
        use crate::auth::{needed_scopes, scopes_satisfied};
        if view.is_some_and(|view| !view.sees(&tool.name)) {
            return false;
        }
        match (&self.http.authorization, caller) {
            (Some(auth), Some(caller)) => {
                scopes_satisfied(auth, caller, &needed_scopes(auth, &tool.required_scopes))
            }
            _ => true,
        }
    }

    /// Whether `caller` may call `tool`: under a policy, when its view holds it; always
    /// otherwise, without authorization (feature `auth`).
    #[cfg(not(feature = "auth"))]
    fn visible_to(&self, tool: &Tool, (_caller, view): (Option<&Caller>, Option<&View>)) -> bool {
        view.is_none_or(|view| view.sees(&tool.name))
    }
}
