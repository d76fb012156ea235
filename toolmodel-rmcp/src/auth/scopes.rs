//! Which scopes a request needs and whether a caller's token grants them: the scopes every
//! request needs ([`ResourceServer::with_scopes`]), the tool's
//! [`required_scopes`](toolmodel::Tool::required_scopes), and the scope hierarchy
//! ([`ResourceServer::with_scope_implying`]; MCP, "Step-Up Authorization Flow").

use toolmodel::Caller;

use super::config::ResourceServer;

/// Every scope a call of a tool that requires `tool_scopes` needs, each once, in order: the
/// server's, then the tool's (what a 403 `insufficient_scope` names, all in one challenge).
pub(crate) fn needed<'a>(
    auth: &'a ResourceServer,
    tool_scopes: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    let mut needed: Vec<String> = Vec::new();
    for scope in auth.scopes.iter().chain(tool_scopes) {
        if !needed.contains(scope) {
            needed.push(scope.clone());
        }
    }
    needed
}

/// Whether `caller`'s token grants `scope`, itself or through a broader scope that implies
/// it (chains followed, each broader scope visited once).
pub(crate) fn grants(auth: &ResourceServer, caller: &Caller, scope: &str) -> bool {
    let mut wanted = vec![scope];
    let mut seen: Vec<&str> = Vec::new();
    while let Some(scope) = wanted.pop() {
        if caller.has_scope(scope) {
            return true;
        }
        seen.push(scope);
        for (broader, narrower) in &auth.implied {
            if narrower.iter().any(|n| n == scope) && !seen.contains(&broader.as_str()) {
                wanted.push(broader);
            }
        }
    }
    false
}

/// Whether `caller` holds every scope of `needed`.
pub(crate) fn satisfied(auth: &ResourceServer, caller: &Caller, needed: &[String]) -> bool {
    needed.iter().all(|scope| grants(auth, caller, scope))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth() -> ResourceServer {
        ResourceServer::new("https://a.example", "https://m.example/mcp")
            .unwrap()
            .with_scopes(["mcp"])
            .with_scope_implying("notes:admin", ["notes:write"])
            .with_scope_implying("notes:write", ["notes:read"])
    }

    #[test]
    fn a_call_needs_the_servers_scopes_and_the_tools_each_once() {
        let tool = vec!["notes:write".to_owned(), "mcp".to_owned()];
        assert_eq!(needed(&auth(), &tool), vec!["mcp", "notes:write"]);
    }

    #[test]
    fn a_broader_scope_grants_the_narrower_ones_along_the_chain() {
        let auth = auth();
        let admin = Caller::new("i", "s").with_scopes(["notes:admin"]);
        assert!(grants(&auth, &admin, "notes:read"));
        assert!(!grants(&auth, &admin, "mcp"));
        let reader = Caller::new("i", "s").with_scopes(["notes:read", "mcp"]);
        assert!(!grants(&auth, &reader, "notes:write"));
        assert!(satisfied(
            &auth,
            &reader,
            &["mcp".into(), "notes:read".into()]
        ));
        assert!(!satisfied(
            &auth,
            &reader,
            &["mcp".into(), "notes:write".into()]
        ));
    }
}
