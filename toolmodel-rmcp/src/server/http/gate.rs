//! [`Gate`]: the stage that admits or refuses a request on its head alone, after the `Host`
//! and `Origin` checks and before the body is read or a session admitted, so a request it
//! refuses costs the server nothing but its head. Authorization (MCP, "Authorization": the
//! client's bearer token, checked on every request) goes here.

use http::request::Parts;

use super::refusal::Refusal;

/// What the gate checks. Today it is always open.
#[derive(Clone, Debug, Default)]
pub(super) enum Gate {
    /// Every request passes.
    #[default]
    Open,
}

impl Gate {
    /// Admits the request whose head is `head`.
    ///
    /// # Errors
    ///
    /// None while the gate is [`Open`](Self::Open); a refusal answers the request, before its
    /// body is read.
    pub(super) async fn admit(&self, _head: &Parts) -> Result<(), Refusal> {
        match self {
            Self::Open => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_open_gate_admits_every_request() {
        for request in [
            http::Request::post("/mcp").body(()).unwrap(),
            http::Request::get("/elsewhere")
                .header("authorization", "Bearer anything")
                .body(())
                .unwrap(),
        ] {
            let (head, ()) = request.into_parts();
            assert_eq!(Gate::Open.admit(&head).await, Ok(()));
        }
    }
}
