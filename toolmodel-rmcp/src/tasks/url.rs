//! What errors show of a task store's URL: the URL without its password.

/// `url` as errors show it: the password of its user information (`redis://:PASSWORD@HOST`,
/// RFC 3986 section 3.2.1) and the value of a `pass` or `password` query parameter (the
/// `redis` crate's Unix socket URLs) replaced by `***`.
pub(crate) fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, path) = rest
        .find(['/', '?', '#'])
        .map_or((rest, ""), |end| rest.split_at(end));
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => authority.to_owned(),
    };
    let path = match path.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((name @ ("pass" | "password"), _)) => format!("{name}=***"),
                    _ => pair.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => path.to_owned(),
    };
    format!("{scheme}://{authority}{path}")
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
