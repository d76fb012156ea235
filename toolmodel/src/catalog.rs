//! Finding the tools in a document, whatever shape a server or a capture gave it.

use serde_json::Value;

use crate::{Error, error::escape_pointer_token};

/// The tool objects in a JSON document, each with its JSON Pointer, in document order.
///
/// Accepted shapes (the ones real MCP servers and captures use):
/// - one tool: an object with `name` and neither `tools` nor `result` (a tool missing its
///   `inputSchema` is still returned, so that parsing it reports the problem);
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
/// shapes (for example an array element that is a string).
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use toolmodel::catalog::tool_values;
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
            if key.is_none() && object.contains_key("name") {
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
                crate::schema::json_type(other)
            ),
        }),
    }
}
