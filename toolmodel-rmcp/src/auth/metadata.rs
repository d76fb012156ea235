//! OAuth 2.0 Protected Resource Metadata (RFC 9728; MCP, "Authorization Server Discovery"):
//! the document that tells a client which authorization server issues tokens for this
//! server, and the two well-known URIs it is served at (path-inserted and root).

use serde_json::{Value, json};

use super::config::ResourceServer;

/// The well-known URI suffix of RFC 9728 §3.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The path of the metadata for `auth`'s resource: the suffix inserted before the resource's
/// path (RFC 9728 §3.1), or the suffix alone for a resource at the root.
fn inserted_path(auth: &ResourceServer) -> String {
    match auth.resource.path() {
        "" | "/" => WELL_KNOWN.to_owned(),
        path => format!("{WELL_KNOWN}{path}"),
    }
}

/// Whether a request for `path` asks for the metadata: the path-inserted form or the root one
/// (MCP, "Authorization Server Discovery": clients try both).
pub(crate) fn is_metadata_path(auth: &ResourceServer, path: &str) -> bool {
    path == WELL_KNOWN || path == inserted_path(auth)
}

/// The URL of the metadata document (path-inserted), for `resource_metadata` (RFC 9728
/// §5.1).
pub(crate) fn url(auth: &ResourceServer) -> String {
    let mut url = auth.resource.clone();
    url.set_path(&inserted_path(auth));
    url.set_query(None);
    url.into()
}

/// The metadata document (RFC 9728 §2): `resource`, `authorization_servers`, `scopes_supported`
/// (the server's scopes, then every scope a tool requires: `tool_scopes`, each once),
/// `bearer_methods_supported` (`header` only: MCP forbids tokens in the query).
pub(crate) fn document<'a>(
    auth: &'a ResourceServer,
    tool_scopes: impl IntoIterator<Item = &'a String>,
) -> Value {
    let scopes = super::scopes::needed(auth, tool_scopes);
    json!({
        "resource": auth.resource.as_str(),
        "authorization_servers": [auth.issuer],
        "scopes_supported": scopes,
        "bearer_methods_supported": ["header"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_is_served_at_both_well_known_forms() {
        let auth =
            ResourceServer::new("https://a.example", "https://m.example/public/mcp").unwrap();
        assert_eq!(
            url(&auth),
            "https://m.example/.well-known/oauth-protected-resource/public/mcp"
        );
        assert!(is_metadata_path(
            &auth,
            "/.well-known/oauth-protected-resource/public/mcp"
        ));
        assert!(is_metadata_path(
            &auth,
            "/.well-known/oauth-protected-resource"
        ));
        assert!(!is_metadata_path(
            &auth,
            "/.well-known/oauth-protected-resource/other"
        ));
        let root = ResourceServer::new("https://a.example", "https://m.example").unwrap();
        assert_eq!(
            url(&root),
            "https://m.example/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn the_document_names_the_issuer_and_every_scope() {
        let auth = ResourceServer::new("https://a.example", "https://m.example/mcp")
            .unwrap()
            .with_scopes(["mcp"]);
        let tool = ["notes:write".to_owned()];
        assert_eq!(
            document(&auth, &tool),
            json!({
                "resource": "https://m.example/mcp",
                "authorization_servers": ["https://a.example"],
                "scopes_supported": ["mcp", "notes:write"],
                "bearer_methods_supported": ["header"],
            })
        );
    }
}
