//! [`Bearer`]: whose token a session to a credentialed server sends, obtained afresh when the
//! one kept expires; [`BearerClient`]: rmcp's Streamable HTTP client over reqwest with that
//! token set on each request (rmcp passes a fixed `auth_header`, which it replaces), so that
//! a session lasting longer than a token keeps working.

use std::{borrow::Cow, collections::HashMap, sync::Arc, time::Duration};

use futures_util::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::{
    model::ClientJsonRpcMessage,
    transport::streamable_http_client::{
        SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
        StreamableHttpResponseLimits,
    },
};
use sse_stream::Sse;
use toolmodel::AccessToken;

use super::authorization::{Authorizer, User};
use super::config::TokenExchange;
use super::exchange::{ExchangeError, Exchanger};
use crate::lock::lock;

/// Whose token a credentialed server's session sends, and where it comes from.
#[derive(Debug)]
pub(crate) struct Bearer {
    server: String,
    /// The longest one request waits for the authorization server.
    limit: Duration,
    source: Source,
}

#[derive(Debug)]
enum Source {
    /// Exchanged at the gateway's authorization server (`tokenExchange`).
    Exchange {
        exchanger: Arc<Exchanger>,
        exchange: TokenExchange,
        whose: Whose,
    },
    /// From the upstream's own authorization server (`oauth`): the gateway's own token
    /// (`None`) or a user's, which it authorized.
    OAuth {
        authorizer: Arc<Authorizer>,
        user: Option<User>,
    },
}

#[derive(Debug)]
enum Whose {
    /// The gateway's own token (its catalog session).
    Gateway,
    /// A caller's: its issuer and subject, and the access token it sent last (exchanged
    /// again when the token kept expires).
    User {
        issuer: String,
        subject: String,
        subject_token: std::sync::Mutex<AccessToken>,
    },
}

impl Bearer {
    /// The gateway's own token for `server`.
    pub(crate) fn gateway(
        exchanger: Arc<Exchanger>,
        server: &str,
        exchange: TokenExchange,
        limit: Duration,
    ) -> Self {
        Self {
            server: server.to_owned(),
            limit,
            source: Source::Exchange {
                exchanger,
                exchange,
                whose: Whose::Gateway,
            },
        }
    }

    /// The token of the caller `subject` of `issuer` for `server`, exchanged from
    /// `subject_token`.
    pub(crate) fn user(
        exchanger: Arc<Exchanger>,
        server: &str,
        exchange: TokenExchange,
        limit: Duration,
        (issuer, subject): (&str, &str),
        subject_token: AccessToken,
    ) -> Self {
        Self {
            server: server.to_owned(),
            limit,
            source: Source::Exchange {
                exchanger,
                exchange,
                whose: Whose::User {
                    issuer: issuer.to_owned(),
                    subject: subject.to_owned(),
                    subject_token: std::sync::Mutex::new(subject_token),
                },
            },
        }
    }

    /// The token of `authorizer`'s server: `user`'s, or the gateway's own (`None`).
    pub(crate) fn authorized(
        authorizer: Arc<Authorizer>,
        limit: Duration,
        user: Option<User>,
    ) -> Self {
        Self {
            server: authorizer.server().to_owned(),
            limit,
            source: Source::OAuth { authorizer, user },
        }
    }

    /// Keeps the caller's latest access token, for the next exchange.
    pub(crate) fn renew(&self, token: &AccessToken) {
        if let Source::Exchange {
            whose: Whose::User { subject_token, .. },
            ..
        } = &self.source
        {
            *lock(subject_token) = token.clone();
        }
    }

    /// The token to send now: the one kept, or a new one.
    ///
    /// # Errors
    ///
    /// [`ExchangeError`] when a new one is needed and the authorization server refuses it or
    /// does not answer in time; for a user of an `oauth` server, when the user must authorize
    /// again (their refresh token refused).
    pub(crate) async fn token(&self) -> Result<AccessToken, ExchangeError> {
        let (exchanger, exchange, whose) = match &self.source {
            Source::Exchange {
                exchanger,
                exchange,
                whose,
            } => (exchanger, exchange, whose),
            Source::OAuth { authorizer, user } => {
                let asked = async {
                    match user {
                        None => authorizer.for_gateway().await,
                        Some(user) => match authorizer.token(user).await {
                            Ok(Some(token)) => Ok(token),
                            Ok(None) => Err(ExchangeError::Refused {
                                error: "invalid_grant".into(),
                                description: Some("the user must authorize the gateway again: call the tool again".into()),
                            }),
                            Err(why) => Err(ExchangeError::Unreachable(why)),
                        },
                    }
                };
                return tokio::time::timeout(self.limit, asked)
                    .await
                    .unwrap_or_else(|_| Err(ExchangeError::no_answer_within(self.limit)));
            }
        };
        match whose {
            Whose::Gateway => {
                exchanger
                    .for_gateway(&self.server, exchange, self.limit)
                    .await
            }
            Whose::User {
                issuer,
                subject,
                subject_token,
            } => {
                let subject_token = lock(subject_token).clone();
                exchanger
                    .for_user(
                        &self.server,
                        exchange,
                        (issuer, subject),
                        &subject_token,
                        self.limit,
                    )
                    .await
            }
        }
    }
}

/// rmcp's reqwest client, each request with [`Bearer::token`] as its bearer token.
#[derive(Clone)]
pub(crate) struct BearerClient {
    pub(crate) http: reqwest::Client,
    pub(crate) bearer: Arc<Bearer>,
}

type Failed = StreamableHttpError<reqwest::Error>;

impl BearerClient {
    async fn token(&self) -> Result<Option<String>, Failed> {
        match self.bearer.token().await {
            Ok(token) => Ok(Some(token.secret().to_owned())),
            Err(err) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                err.to_string(),
            ))),
        }
    }
}

impl StreamableHttpClient for BearerClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Failed> {
        let token = self.token().await?;
        self.http
            .post_message(uri, message, session_id, token, custom_headers)
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Failed> {
        let token = self.token().await?;
        self.http
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                token,
                custom_headers,
                limits,
            )
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Failed> {
        let token = self.token().await?;
        self.http
            .delete_session(uri, session_id, token, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Failed> {
        let token = self.token().await?;
        self.http
            .get_stream(uri, session_id, last_event_id, token, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Failed> {
        let token = self.token().await?;
        self.http
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                token,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}
