//! Authorization server metadata discovery: the issuer's `jwks_uri` and
//! `introspection_endpoint`, from RFC 8414 `/.well-known/oauth-authorization-server` or, failing
//! that, OpenID Connect Discovery `/.well-known/openid-configuration`, in the order MCP's
//! "Authorization Server Metadata Discovery" lists them, with the document's `issuer` checked
//! against the configured one (RFC 8414 §3.3).

use serde::Deserialize;
use url::Url;

use super::config::Authorization;

/// What the server uses of the issuer's metadata.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Endpoints {
    issuer: String,
    /// The issuer's JSON Web Key Set (RFC 8414 §2).
    pub(crate) jwks_uri: Option<String>,
    /// RFC 7662's endpoint (RFC 8414 §2).
    pub(crate) introspection_endpoint: Option<String>,
}

/// The metadata URLs to try for `issuer`, in order: for an issuer with a path, RFC 8414's
/// path-inserted form, OpenID's path-inserted form, then OpenID's path-appended form; for one
/// without, the two root forms.
fn candidates(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let at = |well_known: &str| {
        let mut url = issuer.clone();
        url.set_path(&format!("{well_known}{path}"));
        url
    };
    let mut urls = vec![
        at("/.well-known/oauth-authorization-server"),
        at("/.well-known/openid-configuration"),
    ];
    if !path.is_empty() {
        let mut appended = issuer.clone();
        appended.set_path(&format!("{path}/.well-known/openid-configuration"));
        urls.push(appended);
    }
    urls
}

/// The issuer's endpoints, from the first metadata document found whose `issuer` is the
/// configured one; `None` when none is (unreachable, not found, or a foreign `issuer`).
pub(crate) async fn discover(auth: &Authorization) -> Option<Endpoints> {
    let issuer = Url::parse(&auth.issuer).ok()?;
    for url in candidates(&issuer) {
        let response = auth.client.get(url).timeout(auth.http_timeout).send().await;
        let Ok(response) = response else { continue };
        if !response.status().is_success() {
            continue;
        }
        let Ok(endpoints) = response.json::<Endpoints>().await else {
            continue;
        };
        if endpoints.issuer == auth.issuer {
            return Some(endpoints);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn an_issuer_with_a_path_is_tried_at_three_urls_in_mcps_order() {
        let issuer = Url::parse("https://auth.example.com/tenant1").unwrap();
        assert_eq!(
            strings(candidates(&issuer)),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        let root = Url::parse("https://auth.example.com").unwrap();
        assert_eq!(
            strings(candidates(&root)),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }
}
