//! Each user's own credentials upstream (JSON `toolmodelCredentials`): a call of a
//! credentialed server's tool runs as the caller, with a token the gateway obtained for it
//! from its authorization server; the caller's own token never goes upstream.
//!
//! - `config`: what the entry says ([`Credentials`], [`TokenExchange`]) and the gateway's
//!   own client ([`ExchangeClient`]);
//! - `exchange`: the requests to the token endpoint (RFC 8693 token exchange, Entra's
//!   on-behalf-of, `client_credentials` for the catalog); `cache`: the tokens obtained, per
//!   (issuer, subject, server, target), until shortly before they expire; `flight`: one
//!   request per key at a time (an exchange, a refresh), shared by the calls that need it;
//! - `bearer`: whose token a session sends, set on each HTTP request by rmcp's client;
//! - `authorization`: the gateway as a third-party upstream's own OAuth client (`oauth`):
//!   discovery from the upstream's `401`, each user's authorization through URL-mode
//!   elicitation, their tokens kept and refreshed; `callback`: the gateway's redirect
//!   endpoint, which receives the codes;
//! - `store` (feature `redis`): those tokens in Redis too, encrypted (AES-256-GCM);
//!   `shared`: the pending authorizations there too, so that a redirect may reach any
//!   replica;
//! - `users`: a session per (user, server), bounded, idle ones closed.

mod authorization;
mod bearer;
mod cache;
mod callback;
mod config;
mod exchange;
mod flight;
#[cfg(feature = "redis")]
mod shared;
#[cfg(feature = "redis")]
mod store;
mod users;

pub(crate) use authorization::Authorizer;
pub use authorization::{AUTHORIZATION_TTL, URL_ELICITATION_REQUIRED};
pub(crate) use bearer::{Bearer, BearerClient};
pub(crate) use callback::Callbacks;
pub use callback::REDIRECT_PATH;
pub use config::{
    Credentials, DEFAULT_EXCHANGE_TIMEOUT, DEFAULT_EXCHANGED_TOKENS, ExchangeClient, ExchangeGrant,
    OAuthClient, TokenExchange,
};
pub(crate) use exchange::Exchanger;
#[cfg(feature = "redis")]
pub(crate) use store::Sealed;
#[cfg(feature = "redis")]
pub use store::{STORED_REFRESH_TTL, TOKEN_STORE_KEY_ENV, TokenStore};
pub(crate) use users::{Issuing, Users};
pub use users::{MAX_USER_SESSIONS, USER_SESSION_IDLE};
