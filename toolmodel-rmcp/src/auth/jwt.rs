//! JWT access tokens (RFC 9068) verified against the issuer's keys with `jsonwebtoken`: `typ`
//! `at+jwt` (RFC 9068 §2.1, or another the server accepts), the algorithm among those
//! accepted and the key's own, the signature, `iss` exactly the issuer, `aud` holding the
//! resource (RFC 8707), `sub` and `exp` (required, RFC 9068 §2.2) and `nbf` within the leeway.
//! What a token grants becomes a [`Caller`], its subject the token's `sub` and nothing else.

use serde::Deserialize;
use serde_json::{Map, Value};
use toolmodel::Caller;

use super::{
    config::ResourceServer,
    keys::{KeyError, Keys},
    rejection::Rejection,
};

/// The `typ` of a JWT access token (RFC 9068 §2.1).
pub(super) const AT_JWT: &str = "at+jwt";

/// The claims read from an access token (RFC 9068 §2.2).
#[derive(Deserialize)]
struct Claims {
    iss: String,
    /// Required (RFC 9068 §2.2): the subject, never taken from `client_id`, so that a client
    /// whose ID is a user's subject is not that user.
    sub: Option<String>,
    client_id: Option<String>,
    /// OpenID Connect's authorized party, which some issuers set instead of `client_id`.
    azp: Option<String>,
    /// RFC 9068 §2.2.3: space-separated.
    scope: Option<String>,
    /// A list or a space-separated string, as some issuers (Okta, Microsoft Entra) write it.
    scp: Option<Value>,
    exp: u64,
    /// Every other claim: those of strings become the caller's [`Caller::claim`]s.
    #[serde(flatten)]
    other: Map<String, Value>,
}

/// `caller` with each claim of `other` whose value is a string or an array of strings (a
/// `groups` or `roles` claim: what a tool policy selects callers by); other values are left
/// out.
pub(super) fn with_string_claims(mut caller: Caller, other: &Map<String, Value>) -> Caller {
    for (name, value) in other {
        let values: Option<Vec<&str>> = match value {
            Value::String(text) => Some(vec![text.as_str()]),
            Value::Array(items) => items.iter().map(Value::as_str).collect(),
            _ => None,
        };
        if let Some(values) = values {
            caller = caller.with_claim(name.as_str(), values);
        }
    }
    caller
}

/// Whether `token` looks like a compact JWS (three base64url parts), as opposed to an opaque
/// token.
pub(crate) fn is_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

/// `typ` as the media type it names (RFC 7515 §4.1.9): lowercase (media types are
/// case-insensitive), `application/` prepended when it has no `/`.
pub(super) fn media_type(typ: &str) -> String {
    let typ = typ.to_ascii_lowercase();
    if typ.contains('/') {
        typ
    } else {
        format!("application/{typ}")
    }
}

/// Whether a token whose header's `typ` is `typ` is taken for an access token: `at+jwt` or
/// another type `auth` accepts, or none when `auth` accepts that.
fn typ_accepted(auth: &ResourceServer, typ: Option<&str>) -> bool {
    match typ {
        Some(typ) => auth.typs.contains(&media_type(typ)),
        None => auth.missing_typ_accepted,
    }
}

/// The scopes of `claims`: `scope`, or else `scp`.
fn scopes(claims: &Claims) -> Vec<String> {
    if let Some(scope) = &claims.scope {
        return scope.split_whitespace().map(str::to_owned).collect();
    }
    match &claims.scp {
        Some(Value::String(scp)) => scp.split_whitespace().map(str::to_owned).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// Verifies the JWT `token`: its caller and its `exp`.
///
/// # Errors
///
/// [`Rejection::Invalid`] naming what failed (never the token), [`Rejection::Unavailable`]
/// when the issuer's keys cannot be had.
pub(crate) async fn verify(
    auth: &ResourceServer,
    keys: &Keys,
    token: &str,
) -> Result<(Caller, u64), Rejection> {
    let header = jsonwebtoken::decode_header(token)
        .map_err(|_| Rejection::Invalid("the token is no JWT with a known signature algorithm"))?;
    if !auth.algorithms.contains(&header.alg) {
        return Err(Rejection::Invalid(
            "the token's signature algorithm is not accepted",
        ));
    }
    if !typ_accepted(auth, header.typ.as_deref()) {
        return Err(Rejection::Invalid(
            "the token's typ is not at+jwt: it is no JWT access token (RFC 9068)",
        ));
    }
    let (key, jwk) = keys
        .key(auth, header.kid.as_deref())
        .await
        .map_err(|err| match err {
            KeyError::Unavailable => Rejection::Unavailable,
            KeyError::Unknown => Rejection::Invalid("the token is signed with an unknown key"),
        })?;
    if jwk
        .common
        .key_algorithm
        .is_some_and(|alg| alg != jsonwebtoken::jwk::KeyAlgorithm::from(header.alg))
    {
        return Err(Rejection::Invalid("the token's algorithm is not its key's"));
    }
    let mut validation = jsonwebtoken::Validation::new(header.alg);
    validation.algorithms = vec![header.alg];
    validation.leeway = auth.leeway.as_secs();
    validation.validate_nbf = true;
    validation.set_issuer(&[&auth.issuer]);
    let mut required = vec!["exp", "iss"];
    if auth.audience_check {
        validation.set_audience(&[auth.resource.as_str()]);
        required.push("aud");
    } else {
        validation.validate_aud = false;
    }
    validation.set_required_spec_claims(&required);
    let claims = jsonwebtoken::decode::<Claims>(token, &key, &validation)
        .map_err(|err| Rejection::Invalid(reason(err.kind())))?
        .claims;
    let subject = claims
        .sub
        .clone()
        .ok_or(Rejection::Invalid("the token lacks a required claim: sub"))?;
    let client_id = claims.client_id.clone().or_else(|| claims.azp.clone());
    let mut caller = with_string_claims(
        Caller::new(claims.iss.clone(), subject).with_scopes(scopes(&claims)),
        &claims.other,
    );
    if let Some(client_id) = client_id {
        caller = caller.with_client_id(client_id);
    }
    Ok((caller, claims.exp))
}

/// What a `jsonwebtoken` error says about the token, for `error_description`.
fn reason(kind: &jsonwebtoken::errors::ErrorKind) -> &'static str {
    use jsonwebtoken::errors::ErrorKind;
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired",
        ErrorKind::ImmatureSignature => "the token is not valid yet",
        ErrorKind::InvalidIssuer => "the token is from another issuer",
        ErrorKind::InvalidAudience => "the token is for another resource",
        ErrorKind::MissingRequiredClaim(_) => "the token lacks a required claim",
        ErrorKind::InvalidSignature => "the token's signature does not verify",
        ErrorKind::InvalidAlgorithm => "the token's algorithm is not its key's",
        _ => "the token is malformed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_of_strings_become_the_callers_and_others_are_left_out() {
        let other =
            serde_json::json!({"groups": ["eng", "ops"], "dept": "r&d", "n": 3, "mixed": ["a", 1]});
        let Value::Object(other) = other else {
            unreachable!()
        };
        let caller = with_string_claims(Caller::new("i", "s"), &other);
        assert_eq!(caller.claim("groups").collect::<Vec<_>>(), ["eng", "ops"]);
        assert_eq!(caller.claim("dept").collect::<Vec<_>>(), ["r&d"]);
        assert_eq!(caller.claim("n").count(), 0);
        assert_eq!(caller.claim("mixed").count(), 0);
    }

    #[test]
    fn scopes_come_from_scope_or_else_scp() {
        let claims = |scope: Option<&str>, scp: Option<Value>| Claims {
            iss: "i".into(),
            sub: None,
            client_id: None,
            azp: None,
            scope: scope.map(str::to_owned),
            scp,
            exp: 0,
            other: Map::new(),
        };
        assert_eq!(scopes(&claims(Some("a b"), None)), ["a", "b"]);
        assert_eq!(
            scopes(&claims(None, Some(serde_json::json!(["a", "b"])))),
            ["a", "b"]
        );
        assert_eq!(scopes(&claims(None, Some(Value::from("c")))), ["c"]);
        assert!(scopes(&claims(None, None)).is_empty());
    }

    #[test]
    fn typ_is_at_jwt_as_a_case_insensitive_media_type_unless_another_is_accepted() {
        let auth = ResourceServer::new("https://a.example", "https://m.example/mcp").unwrap();
        for typ in [
            "at+jwt",
            "AT+JWT",
            "application/at+jwt",
            "Application/At+Jwt",
        ] {
            assert!(typ_accepted(&auth, Some(typ)), "{typ}");
        }
        for typ in [Some("JWT"), Some("application/jwt"), Some("at+jwt2"), None] {
            assert!(!typ_accepted(&auth, typ), "{typ:?}");
        }
        let relaxed = auth
            .with_typ_accepted("JWT")
            .unwrap()
            .with_missing_typ_accepted();
        for typ in [Some("jwt"), Some("application/JWT"), Some("at+jwt"), None] {
            assert!(typ_accepted(&relaxed, typ), "{typ:?}");
        }
        assert!(!typ_accepted(&relaxed, Some("logout+jwt")));
    }

    #[test]
    fn only_three_part_tokens_are_read_as_jwts() {
        assert!(is_jwt("a.b.c"));
        assert!(!is_jwt("opaque-token"));
        assert!(!is_jwt("a.b.c.d.e"));
    }
}
