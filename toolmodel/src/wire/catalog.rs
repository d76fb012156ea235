//! Finding the tools in a document, whatever shape a server or a capture gave it.

use serde_json::Value;

use crate::error::Error;
use crate::pointer::escape_pointer_token;

/// Parses a JSON document (a tool list, a capture, a tools/list response) from bytes, with the
/// rules [`Tool::from_mcp_slice`](crate::Tool::from_mcp_slice) reads tools by: one JSON value,
/// UTF-8, numbers within `f64`, nesting under 128 levels, and no object repeating a key
/// anywhere (JSON leaves a repeated key's meaning to each parser, so it is refused; see the
/// README's "Security" section). Hand the result to [`tool_values`].
///
/// Two passes over the text: one checks the keys, one builds the value.
///
/// # Errors
///
/// [`Error::Json`] with the 1-based line and column (and, for a repeated key, the JSON Pointer
/// of its object and the key in the message): malformed or truncated text, invalid UTF-8,
/// trailing text, a number beyond `f64`, nesting too deep, a repeated key.
///
/// # Examples
///
/// ```
/// use toolmodel::{Error, wire::catalog::parse_slice};
///
/// let doc = parse_slice(br#"{"tools": []}"#)?;
/// assert_eq!(doc["tools"], serde_json::json!([]));
///
/// let Err(Error::Json { path, line, column, message }) =
///     parse_slice(br#"{"tools": [{"name": "a", "name": "b"}]}"#)
/// else {
///     panic!("a repeated key is an error")
/// };
/// assert_eq!((path.as_str(), line, column), ("/tools/0", 1, 31));
/// assert!(message.starts_with("duplicate key \"name\""));
/// # Ok::<(), toolmodel::Error>(())
/// ```
pub fn parse_slice(bytes: &[u8]) -> Result<Value, Error> {
    crate::wire::json::from_slice(bytes)
}

/// The tool objects in a JSON document, each with its JSON Pointer, in document order.
///
/// Accepted shapes (the ones real MCP servers and captures use):
/// - one tool: an object with `inputSchema`, whatever other keys it has (a tool may carry
///   unknown keys, `tools` or `result` among them), or an object with `name` and neither
///   `tools` nor `result` (so that a tool missing its `inputSchema` is still returned, and
///   parsing it reports the problem);
/// - an array of tools;
/// - a `tools/list` result, `{"tools": [...]}` (other keys such as `nextCursor` or
///   `server_info` are ignored);
/// - a JSON-RPC response, `{"jsonrpc": "2.0", "result": {"tools": [...]}}`;
/// - a server list whose entries hold tools under `tools` as an array, or as an object of
///   server entries each with its own `tools` array (LiveMCPBench's `tools.json`);
/// - any nesting of the above (an array of `tools/list` results, ...).
///
/// Nothing is parsed here: turn each value into a [`Tool`](struct@crate::Tool) with
/// [`Tool::from_mcp_json`](crate::Tool::from_mcp_json), so that one bad tool does not hide the
/// others.
///
/// # Errors
///
/// [`Error::UnrecognizedDocument`] with the pointer of the first value that is none of these
/// shapes (for example an array element that is a string), or of the first value nested more
/// than [`ValidationLimits::max_depth`](crate::validate::ValidationLimits::max_depth) (128) levels.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use toolmodel::wire::catalog::tool_values;
///
/// let doc = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
///     {"name": "a", "inputSchema": {"type": "object"}},
///     {"name": "b", "inputSchema": {"type": "object"}}
/// ]}});
/// let found = tool_values(&doc)?;
/// assert_eq!(found[1].0, "/result/tools/1");
/// # Ok::<(), toolmodel::Error>(())
/// ```
pub fn tool_values(document: &Value) -> Result<Vec<(String, &Value)>, Error> {
    // The walk below recurses: bound it first.
    let limit = crate::validate::limits::ValidationLimits::DEFAULT.max_depth;
    if let Some(pointer) = crate::validate::limits::deeper_than(document, limit) {
        return Err(Error::UnrecognizedDocument {
            pointer,
            reason: format!("nested more than {limit} levels"),
        });
    }
    let mut out = Vec::new();
    collect(document, &mut String::new(), &mut out)?;
    Ok(out)
}

fn collect<'a>(
    value: &'a Value,
    pointer: &mut String,
    out: &mut Vec<(String, &'a Value)>,
) -> Result<(), Error> {
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&index.to_string());
                collect(item, pointer, out)?;
                pointer.truncate(len);
            }
            Ok(())
        }
        Value::Object(object) => {
            let key = ["tools", "result"]
                .into_iter()
                .find(|k| object.contains_key(*k));
            // `inputSchema` belongs to a tool only; `tools` or `result` beside it are unknown
            // keys of that tool, not a list to look into.
            if object.contains_key("inputSchema") || (key.is_none() && object.contains_key("name"))
            {
                out.push((pointer.clone(), value));
                return Ok(());
            }
            match (key, key.and_then(|k| object.get(k))) {
                (Some(key), Some(inner @ (Value::Array(_) | Value::Object(_)))) => {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&escape_pointer_token(key));
                    if key == "tools"
                        && let Value::Object(servers) = inner
                    {
                        // `tools` as an object of server entries: {"<server>": {"tools": [...]}}.
                        for (name, server) in servers {
                            let inner_len = pointer.len();
                            pointer.push('/');
                            pointer.push_str(&escape_pointer_token(name));
                            collect(server, pointer, out)?;
                            pointer.truncate(inner_len);
                        }
                    } else {
                        collect(inner, pointer, out)?;
                    }
                    pointer.truncate(len);
                    Ok(())
                }
                (Some(key), Some(other)) => Err(Error::UnrecognizedDocument {
                    pointer: format!("{pointer}/{key}"),
                    reason: format!(
                        "expected `{key}` to hold tools (an array or an object), found {}",
                        crate::model::schema::json_type(other)
                    ),
                }),
                _ => Err(Error::UnrecognizedDocument {
                    pointer: pointer.clone(),
                    reason: "expected a tool (an object with `name`), an array, or an object with `tools` or `result`".into(),
                }),
            }
        }
        other => Err(Error::UnrecognizedDocument {
            pointer: pointer.clone(),
            reason: format!(
                "expected a tool, an array of tools or a tools/list result, found {}",
                crate::model::schema::json_type(other)
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pointers(doc: &Value) -> Vec<String> {
        tool_values(doc)
            .unwrap()
            .into_iter()
            .map(|(pointer, _)| pointer)
            .collect()
    }

    #[test]
    fn a_tools_key_without_tools_is_reported_at_that_key() {
        assert_eq!(
            tool_values(&json!({"tools": 5})),
            Err(Error::UnrecognizedDocument {
                pointer: "/tools".into(),
                reason: "expected `tools` to hold tools (an array or an object), found integer"
                    .into(),
            })
        );
        assert!(matches!(
            tool_values(&json!([{"result": "text"}])),
            Err(Error::UnrecognizedDocument { pointer, .. }) if pointer == "/0/result"
        ));
    }

    #[test]
    fn a_tool_with_unknown_tools_or_result_keys_is_still_a_tool() {
        let doc = json!([
            {"name": "a", "inputSchema": {"type": "object"}, "result": "text"},
            {"name": "b", "inputSchema": {"type": "object"}, "tools": ["x"]}
        ]);
        assert_eq!(pointers(&doc), ["/0", "/1"]);
    }

    #[test]
    fn finds_tools_in_every_documented_shape() {
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}});
        assert_eq!(pointers(&tool), [""]);
        assert_eq!(pointers(&json!({"name": "no schema"})), [""]);
        assert_eq!(
            pointers(&json!({"tools": [tool], "nextCursor": "c"})),
            ["/tools/0"]
        );
        assert_eq!(
            pointers(&json!({"server_info": {"name": "s"}, "tools": [tool, tool]})),
            ["/tools/0", "/tools/1"]
        );
        assert_eq!(
            pointers(&json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool]}})),
            ["/result/tools/0"]
        );
        let servers = json!([{"name": "srv", "config": {}, "tools": {
            "a/b": {"server_name": "a", "tools": [tool]}
        }}]);
        assert_eq!(pointers(&servers), ["/0/tools/a~1b/tools/0"]);
    }

    #[test]
    fn other_values_are_errors_with_their_pointer() {
        let err = tool_values(&json!({"tools": [1]})).unwrap_err();
        assert!(
            matches!(&err, Error::UnrecognizedDocument { pointer, .. } if pointer == "/tools/0"),
            "{err:?}"
        );
        let err = tool_values(&json!({"arguments": {}})).unwrap_err();
        assert!(
            matches!(&err, Error::UnrecognizedDocument { pointer, .. } if pointer.is_empty()),
            "{err:?}"
        );
    }
}
