//! Holding a derived tool against its github-mcp-server snapshot: every difference between the
//! two MCP `Tool` JSON objects, each either one of the known, documented kinds or a
//! [`Difference::Mismatch`].
//!
//! Before comparing, both input schemas are put in one canonical form, which changes no
//! schema's meaning: the `type` and `required` arrays are compared as sets, a one-element
//! `type` array as its element, and numbers by value (`1` equals `1.0`). Everything else must be
//! equal key by key: names, types, `enum`s (in order), `required`, descriptions (exact
//! strings), bounds, defaults, `additionalProperties`, and the tool's `name`, `title`,
//! `description`, `annotations` and `icons`.

use std::{
    fmt, io,
    path::{Path, PathBuf},
};

use serde_json::{Map, Value};

/// One difference between a derived tool and its snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// An optional property the derived schema also lets be `null` and the snapshot does not:
    /// `toolmodel`'s schema profile makes an `Option<T>` field optional *and* nullable
    /// (`"type": ["string", "null"]`), as `schemars` writes it. The pointer is the property's
    /// schema in the tool JSON.
    NullableOptional(String),
    /// A nullable property spelled differently, with the same meaning: the snapshot's
    /// `"anyOf": [S, {"type": "null"}]` and the derived `S` with `"null"` added to its `type`.
    NullSpelling(String),
    /// The snapshot has a `_meta` (github-mcp-server's UI resource link), which
    /// `#[derive(Tool)]` has no attribute for.
    Meta,
    /// Any other difference: the value at the pointer, in the snapshot and in the derived tool
    /// (`None`: the key is absent on that side).
    Mismatch {
        /// JSON Pointer into the tool JSON.
        pointer: String,
        /// The snapshot's value there.
        snapshot: Option<Value>,
        /// The derived tool's value there.
        derived: Option<Value>,
    },
}

impl Difference {
    /// `true` for a [`Difference::Mismatch`]; `false` for the known, documented kinds.
    #[must_use]
    pub fn is_mismatch(&self) -> bool {
        matches!(self, Self::Mismatch { .. })
    }
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |value: &Option<Value>| {
            value
                .as_ref()
                .map_or("(absent)".to_owned(), Value::to_string)
        };
        match self {
            Self::NullableOptional(pointer) => write!(f, "nullable optional {pointer}"),
            Self::NullSpelling(pointer) => write!(f, "null spelled as anyOf {pointer}"),
            Self::Meta => f.write_str("_meta not derived"),
            Self::Mismatch {
                pointer,
                snapshot,
                derived,
            } => write!(
                f,
                "mismatch at {pointer}: snapshot {}, derived {}",
                show(snapshot),
                show(derived)
            ),
        }
    }
}

/// Every difference between a derived tool's MCP JSON and its snapshot, sorted by their text.
#[must_use]
pub fn compare_tool(derived: &Value, snapshot: &Value) -> Vec<Difference> {
    let mut derived = derived.clone();
    let mut snapshot = snapshot.clone();
    let mut found = Vec::new();
    if let (Some(derived), Some(snapshot)) = (derived.as_object_mut(), snapshot.as_object_mut()) {
        if !derived.contains_key("_meta") && snapshot.remove("_meta").is_some() {
            found.push(Difference::Meta);
        }
        if let (Some(d), Some(s)) = (
            derived.get_mut("inputSchema"),
            snapshot.get_mut("inputSchema"),
        ) {
            let d_spelled = canonical(d, "/inputSchema");
            let s_spelled = canonical(s, "/inputSchema");
            found.extend(
                s_spelled
                    .into_iter()
                    .filter(|pointer| !d_spelled.contains(pointer))
                    .map(Difference::NullSpelling),
            );
            strip_nullable_optionals(d, s, "/inputSchema", &mut found);
        }
    }
    diff(&snapshot, &derived, String::new(), &mut found);
    found.sort_by_cached_key(ToString::to_string);
    found
}

/// Puts a schema and its subschemas in canonical form; returns the pointers where
/// `anyOf: [S, {"type": "null"}]` was rewritten as `S` with a nullable `type`.
fn canonical(schema: &mut Value, pointer: &str) -> Vec<String> {
    let mut rewritten = Vec::new();
    let Some(object) = schema.as_object_mut() else {
        return rewritten;
    };
    if merge_null_branch(object) {
        rewritten.push(pointer.to_owned());
    }
    for key in ["type", "required"] {
        if let Some(Value::Array(items)) = object.get_mut(key) {
            items.sort_by_key(Value::to_string);
            items.dedup();
        }
    }
    if let Some(Value::Array(types)) = object.get("type")
        && let [only] = types.as_slice()
    {
        let only = only.clone();
        object.insert("type".into(), only);
    }
    for (key, sub) in object.iter_mut() {
        let at = format!("{pointer}/{}", escape(key));
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" => {
                if let Some(map) = sub.as_object_mut() {
                    for (name, sub) in map.iter_mut() {
                        rewritten.extend(canonical(sub, &format!("{at}/{}", escape(name))));
                    }
                }
            }
            "items" | "additionalProperties" | "not" | "contains" | "if" | "then" | "else" => {
                rewritten.extend(canonical(sub, &at));
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Some(list) = sub.as_array_mut() {
                    for (index, sub) in list.iter_mut().enumerate() {
                        rewritten.extend(canonical(sub, &format!("{at}/{index}")));
                    }
                }
            }
            _ => {}
        }
    }
    rewritten
}

/// `anyOf: [S, {"type": "null"}]` (either order), where `S` has a single `type` and no other
/// combinator, enum or reference, becomes `S`'s keys with `"type": [t, "null"]`.
fn merge_null_branch(object: &mut Map<String, Value>) -> bool {
    let Some(Value::Array(branches)) = object.get("anyOf") else {
        return false;
    };
    let null = serde_json::json!({"type": "null"});
    let [first, second] = branches.as_slice() else {
        return false;
    };
    let other = match (first == &null, second == &null) {
        (true, false) => second,
        (false, true) => first,
        _ => return false,
    };
    let Some(other) = other.as_object() else {
        return false;
    };
    let simple = matches!(other.get("type"), Some(Value::String(_)))
        && [
            "anyOf", "oneOf", "allOf", "$ref", "enum", "const", "not", "if",
        ]
        .iter()
        .all(|key| !other.contains_key(*key));
    if !simple || other.keys().any(|key| object.contains_key(key)) {
        return false;
    }
    let mut merged = other.clone();
    if let Some(Value::String(kind)) = merged.remove("type") {
        merged.insert("type".into(), serde_json::json!([kind, "null"]));
    }
    object.remove("anyOf");
    object.extend(merged);
    true
}

/// For each property the derived schema does not require whose derived schema allows `null`
/// and whose snapshot schema does not, takes `null` out of the derived `type` and `enum` and
/// records a [`Difference::NullableOptional`]; the same inside matching subschemas.
fn strip_nullable_optionals(
    derived: &mut Value,
    snapshot: &Value,
    pointer: &str,
    found: &mut Vec<Difference>,
) {
    let (Some(derived), Some(snapshot)) = (derived.as_object_mut(), snapshot.as_object()) else {
        return;
    };
    let required: Vec<Value> = derived
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let (Some(Value::Object(d_props)), Some(Value::Object(s_props))) =
        (derived.get_mut("properties"), snapshot.get("properties"))
    {
        for (name, d_prop) in d_props.iter_mut() {
            let Some(s_prop) = s_props.get(name) else {
                continue;
            };
            let at = format!("{pointer}/properties/{}", escape(name));
            if !required.contains(&Value::String(name.clone()))
                && allows_null(d_prop)
                && !allows_null(s_prop)
            {
                remove_null(d_prop);
                found.push(Difference::NullableOptional(at.clone()));
            }
            strip_nullable_optionals(d_prop, s_prop, &at, found);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let (Some(d), Some(s)) = (derived.get_mut(key), snapshot.get(key)) {
            strip_nullable_optionals(d, s, &format!("{pointer}/{key}"), found);
        }
    }
}

/// Whether a canonical schema's `type` includes `null`.
fn allows_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "null"),
        _ => false,
    }
}

/// Takes `null` out of a schema's `type` and `enum`.
fn remove_null(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(kinds)) = object.get_mut("type") {
        kinds.retain(|kind| kind != "null");
        if let [only] = kinds.as_slice() {
            let only = only.clone();
            object.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
}

/// Records every place where two JSON values differ (numbers by value).
fn diff(snapshot: &Value, derived: &Value, pointer: String, found: &mut Vec<Difference>) {
    match (snapshot, derived) {
        (Value::Object(s), Value::Object(d)) => {
            for (key, s_value) in s {
                let at = format!("{pointer}/{}", escape(key));
                match d.get(key) {
                    Some(d_value) => diff(s_value, d_value, at, found),
                    None => found.push(Difference::Mismatch {
                        pointer: at,
                        snapshot: Some(s_value.clone()),
                        derived: None,
                    }),
                }
            }
            for (key, d_value) in d {
                if !s.contains_key(key) {
                    found.push(Difference::Mismatch {
                        pointer: format!("{pointer}/{}", escape(key)),
                        snapshot: None,
                        derived: Some(d_value.clone()),
                    });
                }
            }
        }
        (Value::Array(s), Value::Array(d)) if s.len() == d.len() => {
            for (index, (s_value, d_value)) in s.iter().zip(d).enumerate() {
                diff(s_value, d_value, format!("{pointer}/{index}"), found);
            }
        }
        (Value::Number(s), Value::Number(d)) if s.as_f64() == d.as_f64() => {}
        _ if snapshot == derived => {}
        _ => found.push(Difference::Mismatch {
            pointer,
            snapshot: Some(snapshot.clone()),
            derived: Some(derived.clone()),
        }),
    }
}

/// A JSON Pointer reference token (RFC 6901).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The snapshot file of a tool in the `github-mcp-server` folder of the corpus.
#[must_use]
pub fn snapshot_path(folder: &Path, tool: &str) -> PathBuf {
    folder.join(format!("{tool}.snap"))
}

/// Reads the snapshot of a tool: one MCP `Tool` JSON object.
///
/// # Errors
///
/// The file's I/O error, or its JSON error (as an [`io::Error`] of kind `InvalidData`).
pub fn read_snapshot(folder: &Path, tool: &str) -> io::Result<Value> {
    let text = std::fs::read_to_string(snapshot_path(folder, tool))?;
    Ok(serde_json::from_str(&text)?)
}
