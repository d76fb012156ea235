//! JSON Pointer reference tokens (RFC 6901), for the pointers configuration errors name.

/// `token` escaped as an RFC 6901 reference token (section 3: `~` as `~0`, `/` as `~1`).
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
