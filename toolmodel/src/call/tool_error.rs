//! [`ToolError`]: how a handler fails, and what each failure becomes (an `isError` result, a
//! JSON-RPC error, no response, or an `InputRequiredResult`).

use std::fmt;

use serde_json::Value;

use crate::call::input::InputRequired;
use crate::call::result::CallToolResult;
use crate::error::Error;

/// How a handler fails.
///
/// - [`ToolError::Execution`] (from [`ToolError::new`], or any `std::error::Error` through
///   `?`): the tool ran and failed. The caller gets a result with `isError: true` and the
///   message as text, so that the model can read it and correct itself (MCP 2025-11-25,
///   "Error Handling": errors from the tool are reported in the result).
/// - [`ToolError::Protocol`] (from [`ToolError::protocol`]): a JSON-RPC error instead of a
///   result, for what MCP says is not a tool error (the server cannot serve the request at
///   all); it becomes [`Error::Protocol`].
/// - [`ToolError::Cancelled`]: the handler stopped because the request was cancelled; it
///   becomes [`Error::Cancelled`], and no response is sent (MCP "Cancellation").
/// - [`ToolError::InputRequired`] (from [`CallContext::input`](crate::CallContext::input)):
///   MCP 2026-07-28, the client must answer requests first; it becomes
///   [`Error::InputRequired`].
///
/// Like `anyhow::Error`, it deliberately does not implement `std::error::Error`, so that
/// every error type converts into it with `?`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ToolError {
    /// The tool failed: an `isError` result with this message.
    Execution {
        /// What went wrong, for the model.
        message: String,
    },
    /// A JSON-RPC error instead of a result.
    Protocol {
        /// The JSON-RPC error code (e.g. `-32602` invalid params, `-32603` internal error).
        code: i64,
        /// The message.
        message: String,
        /// The error's `data`, if any.
        data: Option<Value>,
    },
    /// The handler stopped because the request was cancelled.
    Cancelled,
    /// The call needs input from the client first (MCP 2026-07-28 multi round-trip
    /// requests): what [`CallContext::input`](crate::CallContext::input) returns for requests
    /// the client has not answered yet. Return it with `?`; it becomes
    /// [`Error::InputRequired`], which the server answers with an `InputRequiredResult`.
    InputRequired(InputRequired),
}

impl ToolError {
    /// A tool failure with this message: an `isError: true` result.
    pub fn new(message: impl Into<String>) -> Self {
        Self::Execution {
            message: message.into(),
        }
    }

    /// A JSON-RPC error with this code and message instead of a result.
    pub fn protocol(code: i64, message: impl Into<String>) -> Self {
        Self::Protocol {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// What the failure becomes (MCP 2025-11-25, "Error Handling"): [`ToolError::Execution`]
    /// an `isError: true` result with the message as text; [`ToolError::Protocol`] an
    /// [`Error::Protocol`] (a JSON-RPC error); [`ToolError::Cancelled`] [`Error::Cancelled`]
    /// (no response); [`ToolError::InputRequired`] [`Error::InputRequired`] (an
    /// `InputRequiredResult`).
    pub(crate) fn into_result(self) -> Result<CallToolResult, Error> {
        match self {
            Self::Execution { message } => Ok(CallToolResult::error(message)),
            Self::Protocol {
                code,
                message,
                data,
            } => Err(Error::Protocol {
                code,
                message,
                data,
            }),
            Self::Cancelled => Err(Error::Cancelled),
            Self::InputRequired(required) => Err(Error::InputRequired(required)),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Execution { message } => f.write_str(message),
            Self::Protocol { code, message, .. } => write!(f, "protocol error {code}: {message}"),
            Self::Cancelled => f.write_str("the call was cancelled"),
            Self::InputRequired(required) => write!(
                f,
                "the call needs input from the client: {}",
                required.keys()
            ),
        }
    }
}

/// Any error becomes a tool failure whose message is the error's, followed by each of its
/// sources (`"reading config: file not found"`).
impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        let mut message = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        Self::Execution { message }
    }
}
