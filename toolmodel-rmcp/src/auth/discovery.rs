//! Authorization server metadata discovery: the issuer's `jwks_uri` and
//! `introspection_endpoint`, from RFC 8414 `/.well-known/oauth-authorization-server` or, failing
//! that, OpenID Connect Discovery `/.well-known/openid-configuration`, in the order MCP's
//! "Authorization Server Metadata Discovery" lists them, with the document's `issuer` checked
//! against the configured one (RFC 8414 §3.3), and the endpoints it names kept only when they
//! are `https` ([`endpoint_allowed`]).

use serde::Deserialize;
use url::Url;

use super::config::{ResourceServer, on_loopback};

/// The members of the issuer's metadata document (RFC 8414 §2) the server reads.
#[derive(Deserialize)]
struct Metadata {
    issuer: String,
    jwks_uri: Option<String>,
    introspection_endpoint: Option<String>,
    token_endpoint: Option<String>,
    authorization_endpoint: Option<String>,
}

/// What the server uses of the issuer's metadata: the endpoints it may fetch.
#[derive(Clone, Debug)]
pub(crate) struct Endpoints {
    /// The issuer's JSON Web Key Set (RFC 8414 §2); `None` when the document names none, or
    /// one that is not [allowed](endpoint_allowed).
    pub(crate) jwks_uri: Option<Url>,
    /// RFC 7662's endpoint (RFC 8414 §2); `None` as for `jwks_uri`.
    pub(crate) introspection_endpoint: Option<Url>,
    /// RFC 6749's token endpoint (RFC 8414 §2), for a gateway's token exchange (RFC 8693);
    /// `None` as for `jwks_uri`.
    #[cfg_attr(not(feature = "federation"), allow(dead_code))]
    pub(crate) token_endpoint: Option<Url>,
    /// RFC 6749's authorization endpoint (RFC 8414 §2), where a gateway sends a user to
    /// authorize it at a third-party upstream's authorization server; `None` as for
    /// `jwks_uri`.
    #[cfg_attr(not(feature = "federation"), allow(dead_code))]
    pub(crate) authorization_endpoint: Option<Url>,
}

/// Whether the server may fetch `endpoint`, named by the metadata of `issuer`: `https` (RFC
/// 8414 §2 requires it of `jwks_uri`, RFC 7662 §4 of introspection), or `http` on a loopback
/// host when the issuer itself is `http` (which [`ResourceServer::new`] allows on a loopback
/// host only: a local or test issuer). So an `https` issuer's keys never come over plain
/// HTTP, and a local issuer cannot send the server to fetch off the machine without TLS.
pub(crate) fn endpoint_allowed(issuer: &Url, endpoint: &Url) -> bool {
    match endpoint.scheme() {
        "https" => true,
        "http" => issuer.scheme() == "http" && on_loopback(endpoint),
        _ => false,
    }
}

/// `endpoint` of `issuer`'s metadata, when it is a URL the server may fetch.
fn allowed(issuer: &Url, endpoint: Option<String>) -> Option<Url> {
    let endpoint = Url::parse(&endpoint?).ok()?;
    endpoint_allowed(issuer, &endpoint).then_some(endpoint)
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
pub(crate) async fn discover(auth: &ResourceServer) -> Option<Endpoints> {
    discover_at(&auth.client, &auth.issuer, auth.http_timeout).await
}

/// [`discover`] for the issuer `issuer` with `client`, each request bounded by `timeout`.
pub(crate) async fn discover_at(
    client: &reqwest::Client,
    issuer_id: &str,
    timeout: std::time::Duration,
) -> Option<Endpoints> {
    let issuer = Url::parse(issuer_id).ok()?;
    for url in candidates(&issuer) {
        let response = client.get(url).timeout(timeout).send().await;
        let Ok(response) = response else { continue };
        if !response.status().is_success() {
            continue;
        }
        let Ok(metadata) = response.json::<Metadata>().await else {
            continue;
        };
        if metadata.issuer == issuer_id {
            return Some(Endpoints {
                jwks_uri: allowed(&issuer, metadata.jwks_uri),
                introspection_endpoint: allowed(&issuer, metadata.introspection_endpoint),
                token_endpoint: allowed(&issuer, metadata.token_endpoint),
                authorization_endpoint: allowed(&issuer, metadata.authorization_endpoint),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_https_or_loopback_http_of_a_loopback_http_issuer() {
        let url = |text: &str| Url::parse(text).unwrap();
        let https_issuer = url("https://auth.example.com");
        let local_issuer = url("http://127.0.0.1:9000");
        for (issuer, endpoint, allowed) in [
            (&https_issuer, "https://keys.example.net/jwks", true),
            (&https_issuer, "http://auth.example.com/jwks", false),
            (&https_issuer, "http://127.0.0.1:9000/jwks", false),
            (&https_issuer, "ftp://auth.example.com/jwks", false),
            (&local_issuer, "http://127.0.0.1:9000/jwks", true),
            (&local_issuer, "http://localhost:9001/jwks", true),
            (&local_issuer, "http://[::1]:9001/jwks", true),
            (&local_issuer, "https://keys.example.net/jwks", true),
            (&local_issuer, "http://keys.example.net/jwks", false),
            (&local_issuer, "http://192.0.2.7:9000/jwks", false),
            (&local_issuer, "http://[::ffff:127.0.0.1]:9000/jwks", false),
        ] {
            assert_eq!(
                endpoint_allowed(issuer, &url(endpoint)),
                allowed,
                "{endpoint} of {issuer}"
            );
        }
        assert_eq!(allowed(&local_issuer, Some("not a url".to_owned())), None);
    }

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
