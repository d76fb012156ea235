//! The `x-mcp-header` rules of MCP 2026-07-28 (Streamable HTTP transport, "Custom Headers from
//! Tool Parameters", "Schema Extension"; `server/tools`, "x-mcp-header").

use std::collections::HashMap;

use serde_json::Value;

use crate::pointer::escape_pointer_token;
use crate::validate::expansion::{MANY, NAMED, ONE};
use crate::validate::violation::{HeaderProblem, Violation};

/// The keyword: `"x-mcp-header"`.
pub(crate) const KEYWORD: &str = "x-mcp-header";

/// RFC 9110 `tchar`: `"!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" /
/// "`" / "|" / "~" / DIGIT / ALPHA`.
fn is_tchar(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(ch)
}

/// The first rule a header name breaks among: not empty, no control character, `1*tchar`.
pub(crate) fn name_problem(name: &str) -> Option<HeaderProblem> {
    if name.is_empty() {
        return Some(HeaderProblem::Empty);
    }
    let (position, ch) = name.chars().enumerate().find(|(_, ch)| !is_tchar(*ch))?;
    Some(if ch.is_control() {
        HeaderProblem::ControlChar { ch, position }
    } else {
        HeaderProblem::NotToken { ch, position }
    })
}

/// Where a subschema sits, for the reachability rule.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The schema root.
    Root,
    /// A property reached from the root through `properties` keys alone.
    Reachable,
    /// Anywhere else.
    Elsewhere,
}

/// Whether a property schema's `type` allows a header: `integer`, `string` or `boolean`, or
/// an array of those with `null` (a `null` value omits the header).
fn type_allows_header(schema: &serde_json::Map<String, Value>) -> Result<(), HeaderProblem> {
    const ALLOWED: [&str; 3] = ["integer", "string", "boolean"];
    let found = schema.get("type");
    let ok = match found {
        Some(Value::String(name)) => ALLOWED.contains(&name.as_str()),
        Some(Value::Array(names)) => {
            let names: Vec<Option<&str>> = names.iter().map(Value::as_str).collect();
            names
                .iter()
                .all(|name| name.is_some_and(|n| ALLOWED.contains(&n) || n == "null"))
                && names
                    .iter()
                    .any(|name| name.is_some_and(|n| ALLOWED.contains(&n)))
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(HeaderProblem::Type(found.map(|value| {
            let text = value.to_string();
            match text.char_indices().nth(80) {
                Some((end, _)) => format!("{}…", text.get(..end).unwrap_or(&text)),
                None => text,
            }
        })))
    }
}

/// One step from a subschema to a child subschema.
enum Step<'a> {
    /// `keyword`.
    Key(&'static str),
    /// `keyword/name`.
    Member(&'static str, &'a str),
    /// `keyword/index`.
    Index(&'static str, usize),
}

/// The subschemas seen, each with its parent and the step from it, so that a pointer is
/// written only for what is reported (writing one per subschema would cost the depth each).
struct Trail<'a>(Vec<(usize, Step<'a>)>);

impl Trail<'_> {
    /// The JSON Pointer of node `index`, below `/inputSchema`.
    fn pointer(&self, mut index: usize) -> String {
        let mut steps = Vec::new();
        while let Some((parent, step)) = self.0.get(index) {
            if index == 0 {
                break;
            }
            steps.push(step);
            index = *parent;
        }
        let mut out = "/inputSchema".to_owned();
        for step in steps.into_iter().rev() {
            match step {
                Step::Key(keyword) => out.push_str(&format!("/{keyword}")),
                Step::Member(keyword, name) => {
                    out.push_str(&format!("/{keyword}/{}", escape_pointer_token(name)));
                }
                Step::Index(keyword, index) => out.push_str(&format!("/{keyword}/{index}")),
            }
        }
        out
    }
}

/// Calls `visit` with the JSON Pointer, the schema object and the place of every subschema of
/// `schema` (a tool's `inputSchema`, pointer `/inputSchema`) that holds `x-mcp-header`, in
/// document order. Walks the subschemas without recursion, each once; `x-mcp-header` inside a
/// value that is not a schema (`default`, `const`, ...) is not a keyword and is not looked at.
fn each_header<'a>(
    schema: &'a Value,
    mut visit: impl FnMut(String, &'a serde_json::Map<String, Value>, Place),
) {
    let mut trail = Trail(vec![(0, Step::Key(""))]);
    let mut pending = vec![(schema, 0usize, Place::Root)];
    while let Some((value, node, place)) = pending.pop() {
        let Value::Object(object) = value else {
            continue;
        };
        if object.contains_key(KEYWORD) {
            visit(format!("{}/{KEYWORD}", trail.pointer(node)), object, place);
        }
        // Children, pushed in reverse so that they are visited in document order.
        let mut children = Vec::new();
        for (keyword, _) in NAMED {
            if let Some(Value::Object(members)) = object.get(*keyword) {
                let child_place = if *keyword == "properties" && place != Place::Elsewhere {
                    Place::Reachable
                } else {
                    Place::Elsewhere
                };
                for (name, child) in members {
                    children.push((child, Step::Member(keyword, name), child_place));
                }
            }
        }
        for (keyword, _) in ONE {
            if let Some(child) = object.get(*keyword) {
                children.push((child, Step::Key(keyword), Place::Elsewhere));
            }
        }
        for (keyword, _) in MANY {
            if let Some(Value::Array(items)) = object.get(*keyword) {
                for (index, child) in items.iter().enumerate() {
                    children.push((child, Step::Index(keyword, index), Place::Elsewhere));
                }
            }
        }
        for (child, step, child_place) in children.into_iter().rev() {
            if child.is_object() {
                trail.0.push((node, step));
                pending.push((child, trail.0.len() - 1, child_place));
            }
        }
    }
}

/// The JSON Pointer of every `x-mcp-header` keyword in `schema` (an `inputSchema`).
pub(crate) fn header_pointers(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    each_header(schema, |pointer, _, _| out.push(pointer));
    out
}

/// Every `x-mcp-header` rule broken in `schema` (a tool's `inputSchema`), in document order.
pub(crate) fn header_violations(schema: &Value, out: &mut Vec<Violation>) {
    // Lowercased value → pointer of its first `x-mcp-header`.
    let mut seen: HashMap<String, String> = HashMap::new();
    each_header(schema, |pointer, object, place| {
        let mut report = |problem| {
            out.push(Violation::Header {
                pointer: pointer.clone(),
                problem,
            });
        };
        match object.get(KEYWORD) {
            Some(Value::String(name)) => {
                if let Some(problem) = name_problem(name) {
                    report(problem);
                } else if let Some(first) = seen.get(&name.to_ascii_lowercase()) {
                    report(HeaderProblem::Duplicate {
                        first: first.clone(),
                    });
                } else {
                    seen.insert(name.to_ascii_lowercase(), pointer.clone());
                }
            }
            other => report(HeaderProblem::NotString(
                other.map(ToString::to_string).unwrap_or_default(),
            )),
        }
        if place != Place::Reachable {
            report(HeaderProblem::Unreachable);
        }
        if let Err(problem) = type_allows_header(object) {
            report(problem);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(schema: Value) -> Vec<(String, HeaderProblem)> {
        let mut out = Vec::new();
        header_violations(&schema, &mut out);
        out.into_iter()
            .map(|v| match v {
                Violation::Header { pointer, problem } => (pointer, problem),
                other => panic!("{other}"),
            })
            .collect()
    }

    fn one(property: Value) -> Vec<HeaderProblem> {
        problems(json!({"type": "object", "properties": {"p": property}}))
            .into_iter()
            .map(|(_, problem)| problem)
            .collect()
    }

    #[test]
    fn a_string_integer_or_boolean_property_may_carry_a_header() {
        for ty in [
            json!("string"),
            json!("integer"),
            json!("boolean"),
            json!(["string", "null"]),
        ] {
            assert_eq!(one(json!({"type": ty, "x-mcp-header": "Region"})), []);
        }
        for ty in [
            json!("number"),
            json!("object"),
            json!("array"),
            json!(["number", "string"]),
            json!(["null"]),
        ] {
            assert_eq!(
                one(json!({"type": ty.clone(), "x-mcp-header": "Region"})),
                [HeaderProblem::Type(Some(ty.to_string()))]
            );
        }
        assert_eq!(
            one(json!({"x-mcp-header": "Region"})),
            [HeaderProblem::Type(None)]
        );
    }

    #[test]
    fn names_are_nonempty_tokens_without_control_characters() {
        for good in ["Region", "x", "A1!#$%&'*+-.^_`|~z"] {
            assert_eq!(
                one(json!({"type": "string", "x-mcp-header": good})),
                [],
                "{good}"
            );
        }
        let cases = [
            (json!(""), HeaderProblem::Empty),
            (
                json!("Re gion"),
                HeaderProblem::NotToken {
                    ch: ' ',
                    position: 2,
                },
            ),
            (
                json!("Région"),
                HeaderProblem::NotToken {
                    ch: 'é',
                    position: 1,
                },
            ),
            (
                json!("a:b"),
                HeaderProblem::NotToken {
                    ch: ':',
                    position: 1,
                },
            ),
            (
                json!("a\r\nb"),
                HeaderProblem::ControlChar {
                    ch: '\r',
                    position: 1,
                },
            ),
            (
                json!("\u{7f}"),
                HeaderProblem::ControlChar {
                    ch: '\u{7f}',
                    position: 0,
                },
            ),
            (json!(7), HeaderProblem::NotString("7".into())),
        ];
        for (name, problem) in cases {
            assert_eq!(
                one(json!({"type": "string", "x-mcp-header": name})),
                [problem]
            );
        }
    }

    #[test]
    fn names_are_unique_case_insensitively() {
        let found = problems(json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "b": {"type": "object", "properties": {"c": {"type": "integer", "x-mcp-header": "REGION"}}},
            "d": {"type": "string", "x-mcp-header": "Zone"}
        }}));
        assert_eq!(
            found,
            [(
                "/inputSchema/properties/b/properties/c/x-mcp-header".to_owned(),
                HeaderProblem::Duplicate {
                    first: "/inputSchema/properties/a/x-mcp-header".into()
                }
            )]
        );
    }

    #[test]
    fn only_properties_reached_through_properties_alone() {
        let found = problems(json!({
            "type": "object",
            "x-mcp-header": "Root",
            "properties": {
                "nested": {"type": "object", "properties": {"ok": {"type": "string", "x-mcp-header": "Ok"}}},
                "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
                "choice": {"anyOf": [{"type": "string", "x-mcp-header": "Any"}]},
                "viaRef": {"$ref": "#/$defs/r"},
                "cond": {"if": {"type": "string"}, "then": {"type": "string", "x-mcp-header": "Then"}},
                "deep": {"type": "object", "additionalProperties": {"type": "string", "x-mcp-header": "Extra"}},
                "data": {"type": "string", "default": {"x-mcp-header": "NotAKeyword"}}
            },
            "$defs": {"r": {"type": "string", "x-mcp-header": "Def"}},
            "allOf": [{"properties": {"z": {"type": "string", "x-mcp-header": "AllOf"}}}]
        }));
        let unreachable: Vec<&str> = found
            .iter()
            .filter(|(_, problem)| *problem == HeaderProblem::Unreachable)
            .map(|(pointer, _)| pointer.as_str())
            .collect();
        let mut sorted = unreachable.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            [
                "/inputSchema/$defs/r/x-mcp-header",
                "/inputSchema/allOf/0/properties/z/x-mcp-header",
                "/inputSchema/properties/choice/anyOf/0/x-mcp-header",
                "/inputSchema/properties/cond/then/x-mcp-header",
                "/inputSchema/properties/deep/additionalProperties/x-mcp-header",
                "/inputSchema/properties/list/items/x-mcp-header",
                "/inputSchema/x-mcp-header",
            ]
        );
        // The root also has type object: two problems there.
        assert_eq!(found.len(), unreachable.len() + 1);
    }
}
