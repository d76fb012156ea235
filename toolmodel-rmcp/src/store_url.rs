//! The URL of a task or session store: which store it names ([`parse`]), and what errors
//! show of it, the URL without its password ([`without_password`]).

/// The store a URL names.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum StoreUrl {
    /// None or empty: the memory store.
    Memory,
    /// `redis://...` or `rediss://...`, trimmed (only in a build with the `redis` feature).
    #[cfg(feature = "redis")]
    Redis(String),
}

/// The store `url` names.
///
/// # Errors
///
/// Another scheme, or a Redis URL in a build without the `redis` feature: the URL as errors
/// show it and what is wrong.
pub(crate) fn parse(url: Option<&str>) -> Result<StoreUrl, (String, String)> {
    let url = url.map(str::trim).unwrap_or_default();
    if url.is_empty() {
        return Ok(StoreUrl::Memory);
    }
    if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
        return Err((
            without_password(url),
            "expected redis://HOST:PORT[/DB], or nothing for the memory store".to_owned(),
        ));
    }
    #[cfg(feature = "redis")]
    return Ok(StoreUrl::Redis(url.to_owned()));
    #[cfg(not(feature = "redis"))]
    Err((
        without_password(url),
        "this build of toolmodel-rmcp has no Redis store (its `redis` feature is off)".to_owned(),
    ))
}

/// `url` as errors show it: the password of its user information (`redis://:PASSWORD@HOST`,
/// RFC 3986 section 3.2.1) and the value of a `pass` or `password` query parameter (the
/// `redis` crate's Unix socket URLs) replaced by `***`; a text that is no URL as it is.
/// Parsed with the `url` crate (WHATWG URL).
pub(crate) fn without_password(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_owned();
    };
    if parsed.password().is_some() {
        let _ = parsed.set_password(Some("***"));
    }
    if parsed.query().is_some() {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(name, value)| {
                let value = if matches!(&*name, "pass" | "password") {
                    "***".to_owned()
                } else {
                    value.into_owned()
                };
                (name.into_owned(), value)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    parsed.into()
}

#[cfg(test)]
mod tests {
    use super::without_password;

    #[test]
    fn errors_show_a_url_without_its_password() {
        assert_eq!(
            without_password("redis://:s3cret@127.0.0.1:6379/2"),
            "redis://:***@127.0.0.1:6379/2"
        );
        assert_eq!(
            without_password("rediss://alice:p@ss:w0rd@redis.example/0"),
            "rediss://alice:***@redis.example/0"
        );
        assert_eq!(
            without_password("redis+unix:///run/redis.sock?db=1&pass=s3cret"),
            "redis+unix:///run/redis.sock?db=1&pass=***"
        );
        assert_eq!(
            without_password("redis://alice@127.0.0.1"),
            "redis://alice@127.0.0.1"
        );
        assert_eq!(without_password("not a url"), "not a url");
    }
}
