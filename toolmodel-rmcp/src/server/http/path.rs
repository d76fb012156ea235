//! The first stage: the path MCP is served at, when the front is told one
//! ([`McpHttpService::with_path`](super::McpHttpService::with_path); `serve_http` serves
//! [`MCP_PATH`]). Mounted in a router of your own, the router picks the path and this stage
//! checks none.

use http::Uri;

use super::refusal::Refusal;

/// The path [`ToolboxServer::serve_http`](crate::ToolboxServer::serve_http) serves MCP on.
pub const MCP_PATH: &str = "/mcp";

/// Passes a request for `served` (any path when `None`).
///
/// # Errors
///
/// [`Refusal::NotServedPath`] for another path (the query is not part of it).
pub(super) fn check(served: Option<&str>, uri: &Uri) -> Result<(), Refusal> {
    match served {
        Some(served) if uri.path() != served => Err(Refusal::NotServedPath(served.to_owned())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_served_path_passes_and_any_path_without_one() {
        let uri = |text: &str| text.parse::<Uri>().unwrap();
        assert_eq!(check(Some(MCP_PATH), &uri("/mcp")), Ok(()));
        assert_eq!(check(Some(MCP_PATH), &uri("/mcp?x=1")), Ok(()));
        assert_eq!(
            check(Some(MCP_PATH), &uri("/mcp/")),
            Err(Refusal::NotServedPath("/mcp".into()))
        );
        assert_eq!(
            check(Some(MCP_PATH), &uri("/")),
            Err(Refusal::NotServedPath("/mcp".into()))
        );
        assert_eq!(check(None, &uri("/anything")), Ok(()));
    }
}
