//! Keeping the secrets of an upstream's configuration out of what the gateway says about it.
//!
//! A failure's text is read by the gateway's clients (an `isError` result, a JSON-RPC error,
//! and through them a model's context) and by its operator ([`UpstreamStatus`], logs), while the
//! errors it is made from quote what the gateway sent: `reqwest` prints the full URL of a
//! request that failed, query string and all, and a careless server's error page may repeat
//! the request's headers. [`Redactor::text`] is applied to every upstream failure turned into
//! text (and to each line a child writes to its stderr, see `session`): every URL in it loses
//! its userinfo, query and fragment (`http://host:port/path?***`), and every configured secret
//! becomes `***`:
//!
//! - the value of each `headers` entry, and its credentials alone (what follows the scheme in
//!   `Bearer <token>`);
//! - the URL's userinfo, its query string and each of its values, as written and decoded;
//! - the value of each `env` entry of a stdio server;
//! - every value a `${VAR}` expansion put into the configuration, and what
//!   [`UpstreamConfig::with_secret`] adds ([`UpstreamConfig::secrets`]).
//!
//! A value shorter than [`MIN_SECRET_LEN`] characters is not searched for in free text (it
//! would mask ordinary words and numbers, and is too short to be a credential); a URL's query
//! and userinfo are removed whatever their length.
//!
//! [`UpstreamStatus`]: super::UpstreamStatus
//! [`UpstreamConfig::with_secret`]: super::UpstreamConfig::with_secret
//! [`UpstreamConfig::secrets`]: super::UpstreamConfig::secrets

use rmcp::{
    service::ClientInitializeError, transport::streamable_http_client::StreamableHttpError,
};

use crate::federation::config::{UpstreamConfig, UpstreamTransport};

/// What a secret is replaced with.
pub(crate) const MASK: &str = "***";

/// The shortest configured value searched for in free text.
pub const MIN_SECRET_LEN: usize = 6;

/// The secrets of one server's configuration, and how to remove them from a text.
#[derive(Clone, Debug, Default)]
pub(crate) struct Redactor {
    /// Every secret of at least [`MIN_SECRET_LEN`] characters, longest first (a secret that
    /// holds another is replaced whole).
    secrets: Vec<String>,
}

impl Redactor {
    /// The secrets of `server` (see the [module docs](self)).
    pub(crate) fn new(server: &UpstreamConfig) -> Self {
        let mut secrets: Vec<String> = server.secrets.iter().cloned().collect();
        match &server.transport {
            UpstreamTransport::Stdio(stdio) => secrets.extend(stdio.env.values().cloned()),
            UpstreamTransport::Http(http) => {
                for value in http.headers.values() {
                    secrets.push(value.clone());
                    if let Some((_scheme, credentials)) = value.split_once(' ') {
                        secrets.push(credentials.trim().to_owned());
                    }
                }
                secrets.extend(url_secrets(&http.url));
            }
        }
        secrets.retain(|secret| secret.chars().count() >= MIN_SECRET_LEN);
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Self { secrets }
    }

    /// `text` with every URL's userinfo, query and fragment, and every secret, replaced by
    /// `***`.
    pub(crate) fn text(&self, text: &str) -> String {
        let mut out = redact_urls(text);
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), MASK);
            }
        }
        out
    }

    /// `value` with every string in it redacted ([`text`](Self::text)): the `data` of an
    /// upstream's JSON-RPC error.
    pub(crate) fn json(&self, value: serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::String(text) => Value::String(self.text(&text)),
            Value::Array(items) => Value::Array(items.into_iter().map(|v| self.json(v)).collect()),
            Value::Object(members) => Value::Object(
                members
                    .into_iter()
                    .map(|(key, v)| (self.text(&key), self.json(v)))
                    .collect(),
            ),
            other => other,
        }
    }

    /// `err` as a sentence for a client or a log: its text, without the Rust type names of
    /// `rmcp`'s transports, followed by the cause an HTTP client error leaves out of its own
    /// text (`Connection refused (os error 111)`, a timeout, an HTTP status), then redacted
    /// ([`text`](Self::text)).
    pub(crate) fn error(&self, err: &(dyn std::error::Error + 'static)) -> String {
        let mut text = without_transport_names(&err.to_string());
        if let Some(cause) = http_cause(err)
            && !text.contains(&cause)
        {
            text = format!("{text} ({cause})");
        }
        self.text(&text)
    }
}

/// The secrets of an HTTP server's `url`: its userinfo, its query string, each query value,
/// as written in the configuration and as the URL is printed (normalized, percent-encoded) and
/// decoded.
fn url_secrets(url: &str) -> Vec<String> {
    let mut secrets = Vec::new();
    let mut written = |part: &str| {
        if let Some((_, query)) = part.split_once('?') {
            let query = query.split('#').next().unwrap_or_default();
            secrets.push(query.to_owned());
            secrets.extend(
                query
                    .split('&')
                    .filter_map(|pair| pair.split_once('=').map(|(_, value)| value.to_owned())),
            );
        }
    };
    written(url);
    if let Some((_, rest)) = url.split_once("://") {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if let Some((userinfo, _host)) = authority.rsplit_once('@') {
            secrets.push(userinfo.to_owned());
            secrets.extend(userinfo.split(':').map(str::to_owned));
        }
    }
    if let Ok(parsed) = url::Url::parse(url) {
        secrets.push(parsed.username().to_owned());
        secrets.extend(parsed.password().map(str::to_owned));
        if let Some(query) = parsed.query() {
            secrets.push(query.to_owned());
        }
        secrets.extend(parsed.query_pairs().map(|(_, value)| value.into_owned()));
        if let Some(fragment) = parsed.fragment() {
            secrets.push(fragment.to_owned());
        }
    }
    secrets
}

/// `text` with each `http://` or `https://` URL in it cut to its scheme, host, port and path:
/// userinfo becomes `***@`, a query or fragment `?***`.
fn redact_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = next_url(rest) {
        let (before, from_url) = rest.split_at(start);
        out.push_str(before);
        let end = from_url
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '<' | '>' | '`'))
            .unwrap_or(from_url.len());
        let (url, after) = from_url.split_at(end);
        out.push_str(&redact_url(url));
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Where the next `http://` or `https://` URL of `text` starts.
fn next_url(text: &str) -> Option<usize> {
    [text.find("http://"), text.find("https://")]
        .into_iter()
        .flatten()
        .min()
}

/// One URL without its userinfo, query and fragment.
fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let host = match authority.rsplit_once('@') {
        Some((_userinfo, host)) => format!("{MASK}@{host}"),
        None => authority.to_owned(),
    };
    let path = match tail.find(['?', '#']) {
        Some(cut) => format!("{}?{MASK}", &tail[..cut]),
        None => tail.to_owned(),
    };
    format!("{scheme}://{host}{path}")
}

/// `text` without `rmcp`'s `Transport [<Rust type>] error: ` prefixes, which name a type of
/// no use to a reader.
fn without_transport_names(text: &str) -> String {
    const START: &str = "Transport [";
    const END: &str = "] error: ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(START) {
        let after = &rest[start + START.len()..];
        let Some(end) = after.find(END) else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = &after[end + END.len()..];
    }
    out.push_str(rest);
    out
}

/// What the HTTP client error in `err`'s chain leaves out of its text: an HTTP status, a
/// timeout, or the deepest cause (`Connection refused (os error 111)`).
fn http_cause(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut next = Some(err);
    while let Some(current) = next {
        let client = match current.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::Client(client)) => Some(client),
            _ => current.downcast_ref::<reqwest::Error>(),
        };
        if let Some(client) = client {
            if let Some(status) = client.status() {
                return Some(format!("HTTP status {}", status.as_u16()));
            }
            if client.is_timeout() {
                return Some("timed out".to_owned());
            }
            let mut root: &(dyn std::error::Error + 'static) = client;
            while let Some(source) = root.source() {
                root = source;
            }
            return (!std::ptr::addr_eq(root, client)).then(|| root.to_string());
        }
        next = match current.downcast_ref::<ClientInitializeError>() {
            // Its transport error is in its text, not its source.
            Some(ClientInitializeError::TransportError { error, .. }) => Some(error),
            _ => current.source(),
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::federation::config::{HttpTransport, StdioTransport};

    fn http(url: &str) -> UpstreamConfig {
        UpstreamConfig::http(
            "docs",
            HttpTransport::new(url)
                .with_header("Authorization", "Bearer tok-123456789")
                .with_header("X-Debug", "1"),
        )
    }

    #[test]
    fn a_url_keeps_its_host_and_path_and_loses_userinfo_query_and_fragment() {
        let redactor = Redactor::default();
        assert_eq!(
            redactor.text("error sending request for url (http://u:p@127.0.0.1:9/mcp?key=k)"),
            "error sending request for url (http://***@127.0.0.1:9/mcp?***)"
        );
        assert_eq!(
            redactor.text("at https://h/a#frag and http://h2 done"),
            "at https://h/a?*** and http://h2 done"
        );
        assert_eq!(redactor.text("no url here"), "no url here");
    }

    #[test]
    fn every_configured_secret_is_masked_wherever_it_appears() {
        let server = http("http://user:pa55word-x@h:1/mcp?api_key=sk-live-abcdef&v=1")
            .with_secret("path-secret-99");
        let redactor = Redactor::new(&server);
        let text = redactor.text(
            "GET /mcp?api_key=sk-live-abcdef&v=1 Authorization: Bearer tok-123456789 \
             user pa55word-x path /path-secret-99/ version 1",
        );
        assert_eq!(
            text,
            "GET /mcp?*** Authorization: *** user *** path /***/ version 1"
        );
    }

    #[test]
    fn a_stdio_server_s_env_values_are_secrets_and_short_values_are_not_searched_for() {
        let server = UpstreamConfig::stdio(
            "s",
            StdioTransport::new("x")
                .with_env("TOKEN", "ghp_0123456789")
                .with_env("TZ", "UTC"),
        );
        let redactor = Redactor::new(&server);
        assert_eq!(
            redactor.text("token ghp_0123456789 in UTC"),
            "token *** in UTC"
        );
    }

    #[test]
    fn rmcp_s_transport_type_names_are_left_out() {
        assert_eq!(
            without_transport_names(
                "Transport send error: Transport [rmcp::a::B<c::D>] error: Client error: x"
            ),
            "Transport send error: Client error: x"
        );
        assert_eq!(without_transport_names("Transport [x"), "Transport [x");
    }
}
