//! The bearer token of a request: from its one `Authorization: Bearer <token>` header (RFC
//! 6750 §2.1), and from nowhere else (MCP, "Access Token Usage": never the query string,
//! never a form body).

use http::{HeaderMap, header};

use super::rejection::Rejection;

/// Whether `token` is an RFC 6750 §2.1 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~"
/// / "+" / "/" ) *"="`.
fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
        })
}

/// The bearer token of a request with `headers`.
///
/// # Errors
///
/// [`Rejection::Missing`] without an `Authorization` header or with one of another scheme
/// (`Basic`...); [`Rejection::Invalid`] for two `Authorization` headers, or a `Bearer` one
/// whose token is empty or no `b64token`.
pub(crate) fn token(headers: &HeaderMap) -> Result<&str, Rejection> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let value = match (values.next(), values.next()) {
        (None, _) => return Err(Rejection::Missing),
        (Some(value), None) => value,
        (Some(_), Some(_)) => {
            return Err(Rejection::Invalid("more than one Authorization header"));
        }
    };
    let value = value
        .to_str()
        .map_err(|_| Rejection::Invalid("the Authorization header is malformed"))?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Rejection::Missing);
    }
    let token = token.trim_matches(' ');
    if is_b64token(token) {
        Ok(token)
    } else {
        Err(Rejection::Invalid("the Authorization header is malformed"))
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    #[test]
    fn the_token_comes_from_one_bearer_authorization_header() {
        assert_eq!(
            token(&headers(&["Bearer abc.def-_~+/=="])),
            Ok("abc.def-_~+/==")
        );
        assert_eq!(token(&headers(&["bearer abc"])), Ok("abc"));
        assert_eq!(token(&headers(&[])), Err(Rejection::Missing));
        assert_eq!(
            token(&headers(&["Basic dXNlcjpwYXNz"])),
            Err(Rejection::Missing)
        );
        for malformed in [
            &["Bearer"][..],
            &["Bearer "],
            &["Bearer a b"],
            &["Bearer a\"b"],
            &["Bearer a", "Bearer b"],
        ] {
            assert!(
                matches!(token(&headers(malformed)), Err(Rejection::Invalid(_))),
                "{malformed:?}"
            );
        }
    }
}
