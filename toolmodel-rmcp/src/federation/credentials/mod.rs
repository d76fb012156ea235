//! Each user's own credentials upstream (JSON `toolmodelCredentials`): a call of a
//! credentialed server's tool runs as the caller, with a token the gateway obtained for it
//! from its authorization server; the caller's own token never goes upstream.
//!
//! - `config`: what the entry says ([`Credentials`], [`TokenExchange`]) and the gateway's
//!   own client ([`ExchangeClient`]);
//! - `exchange`: the requests to the token endpoint (RFC 8693 token exchange, Entra's
//!   on-behalf-of, `client_credentials` for the catalog); `cache`: the tokens obtained, per
//!   (issuer, subject, server, target), until shortly before they expire;
//! - `bearer`: whose token a session sends, set on each HTTP request by rmcp's client;
//! - `users`: a session per (user, server), bounded, idle ones closed.

mod bearer;
mod cache;
mod config;
mod exchange;
mod users;

pub(crate) use bearer::{Bearer, BearerClient};
pub use config::{
    Credentials, DEFAULT_EXCHANGE_TIMEOUT, DEFAULT_EXCHANGED_TOKENS, ExchangeClient, ExchangeGrant,
    TokenExchange,
};
pub(crate) use exchange::Exchanger;
pub(crate) use users::Users;
pub use users::{MAX_USER_SESSIONS, USER_SESSION_IDLE};
