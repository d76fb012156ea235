//! The schema profile: how a Rust type's `schemars` schema becomes a tool schema that MCP clients
//! accept ([`SchemaProfile`]; each point and why is in the
//! [`define` module docs](crate::define#the-schema-profile)).

use schemars::{
    JsonSchema, Schema,
    generate::{SchemaGenerator, SchemaSettings},
    transform::{RecursiveTransform, RestrictFormats, Transform},
};
use serde_json::{Map, Value};

use crate::model::schema::ToolSchema;

/// Which changes to make to a `schemars` schema so that it suits MCP clients; see
/// [the schema profile](crate::define#the-schema-profile) for each point and why.
///
/// Each `keep_*` field, when `true`, keeps what `schemars` generates for that point. Build one
/// from [`SchemaProfile::MCP`] (everything changed) or [`SchemaProfile::SCHEMARS`] (nothing
/// changed) and set fields:
///
/// ```
/// use toolmodel::SchemaProfile;
///
/// let mut profile = SchemaProfile::MCP;
/// profile.keep_refs = true;
/// assert!(!profile.keep_formats);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(clippy::struct_excessive_bools)] // each field is one independent switch
pub struct SchemaProfile {
    /// Keep the root `$schema` key (the 2020-12 meta-schema URI).
    pub keep_schema_uri: bool,
    /// Keep the root `title` (the Rust type's name, or `#[schemars(title)]`).
    pub keep_title: bool,
    /// Keep the root `description` in the schema (it is returned as the tool description
    /// either way).
    pub keep_description: bool,
    /// Keep `$defs` and `$ref` for every named subschema, as `schemars` does by default,
    /// instead of inlining them.
    pub keep_refs: bool,
    /// Keep the integer widths as `schemars` writes them (a `format` such as `uint32`, with a
    /// partial or no range) instead of exact `minimum` and `maximum`.
    pub keep_integer_widths: bool,
    /// Keep every `format` value, including ones JSON Schema does not define.
    pub keep_formats: bool,
    /// Keep the input's object schemas open as `schemars` writes them (unknown keys accepted,
    /// and ignored by `serde`) instead of closing them with `"additionalProperties": false`
    /// ([`CloseObjects`]). `#[tool(schema(keep_open_objects))]` in the derive.
    pub keep_open_objects: bool,
}

impl Default for SchemaProfile {
    /// [`SchemaProfile::MCP`].
    fn default() -> Self {
        Self::MCP
    }
}

/// A schema produced through a [`SchemaProfile`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ProfiledSchema {
    /// The schema.
    pub schema: ToolSchema,
    /// The root `description` `schemars` wrote (from the type's doc comment or
    /// `#[schemars(description)]`), if any: the tool description when no other is given.
    pub description: Option<String>,
}

impl SchemaProfile {
    /// The MCP profile: every change of [the schema profile](crate::define#the-schema-profile)
    /// made.
    pub const MCP: Self = Self {
        keep_schema_uri: false,
        keep_title: false,
        keep_description: false,
        keep_refs: false,
        keep_integer_widths: false,
        keep_formats: false,
        keep_open_objects: false,
    };

    /// No change: the schema exactly as `schemars` generates it with
    /// [`SchemaSettings::draft2020_12`] (the root description is still returned as
    /// [`ProfiledSchema::description`]).
    pub const SCHEMARS: Self = Self {
        keep_schema_uri: true,
        keep_title: true,
        keep_description: true,
        keep_refs: true,
        keep_integer_widths: true,
        keep_formats: true,
        keep_open_objects: true,
    };

    /// The `schemars` settings of this profile: [`SchemaSettings::draft2020_12`] with
    /// `inline_subschemas` unless [`keep_refs`](Self::keep_refs), then the transforms
    /// [`IntegerBounds`] and [`RestrictFormats`] unless switched off. The root-only changes
    /// (`$schema`, `title`, `description`) are made by [`input_schema`](Self::input_schema) and
    /// [`output_schema`](Self::output_schema) after generation.
    #[must_use]
    pub fn settings(&self) -> SchemaSettings {
        let mut settings = SchemaSettings::draft2020_12();
        settings.inline_subschemas = !self.keep_refs;
        if !self.keep_integer_widths {
            settings = settings.with_transform(RecursiveTransform(IntegerBounds));
        }
        if !self.keep_formats {
            // Reads the `$schema` the generator writes (2020-12) to know the standard formats;
            // the key itself is removed afterwards unless `keep_schema_uri`.
            settings = settings.with_transform(RestrictFormats::default());
        }
        settings
    }

    /// The schema of `T` as tool arguments (`inputSchema`): how `T` *deserializes*; its
    /// objects closed by [`CloseObjects`] unless [`keep_open_objects`](Self::keep_open_objects).
    #[must_use]
    pub fn input_schema<T: JsonSchema + ?Sized>(&self) -> ProfiledSchema {
        // Only the schemars call is generic: a tool's code is that call and no more.
        self.finish(self.input_generator().into_root_schema_for::<T>())
    }

    /// The schema of `T` as a tool result (`outputSchema`): how `T` *serializes*.
    #[must_use]
    pub fn output_schema<T: JsonSchema + ?Sized>(&self) -> ProfiledSchema {
        self.finish(self.output_generator().into_root_schema_for::<T>())
    }

    /// The generator of [`input_schema`](Self::input_schema), once for every type.
    fn input_generator(&self) -> SchemaGenerator {
        let mut settings = self.settings();
        if !self.keep_open_objects {
            settings = settings.with_transform(RecursiveTransform(CloseObjects));
        }
        settings.for_deserialize().into_generator()
    }

    /// The generator of [`output_schema`](Self::output_schema), once for every type.
    fn output_generator(&self) -> SchemaGenerator {
        self.settings().for_serialize().into_generator()
    }

    /// The root-only changes.
    fn finish(&self, schema: Schema) -> ProfiledSchema {
        let mut object = match schema.to_value() {
            Value::Object(object) => object,
            // A boolean schema (`true` / `false`); `into_root_schema_for` always gives an
            // object, since it inserts a `title`.
            Value::Bool(accepts) => boolean_schema(accepts),
            _ => Map::new(),
        };
        if !self.keep_schema_uri {
            object.remove("$schema");
        }
        if !self.keep_title {
            object.remove("title");
        }
        let description = if self.keep_description {
            object
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned)
        } else {
            match object.remove("description") {
                Some(Value::String(text)) => Some(text),
                Some(other) => {
                    // Not a string: not a description a tool can use; leave it in place.
                    object.insert("description".into(), other);
                    None
                }
                None => None,
            }
        };
        ProfiledSchema {
            schema: ToolSchema::new(object),
            description,
        }
    }
}

/// The object form of a boolean schema: `true` is `{}`, `false` is `{"not": {}}`.
fn boolean_schema(accepts: bool) -> Map<String, Value> {
    let mut object = Map::new();
    if !accepts {
        object.insert("not".into(), Value::Object(Map::new()));
    }
    object
}

/// The largest integer every JSON reader holds exactly: 2^53 − 1 (JavaScript's
/// `Number.MAX_SAFE_INTEGER`; RFC 8259 §6 names the IEEE 754 double range as the interoperable
/// one). [`IntegerBounds`] writes no bound beyond ±`MAX_SAFE_INTEGER`.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// A `schemars` [`Transform`] that gives each integer schema carrying a width `format` (as
/// `schemars` writes them) the exact `minimum` and `maximum` of that width, keeping any bound
/// already there (from `#[schemars(range(...))]`, or `NonZero*`'s `minimum: 1`), and writing
/// none beyond ±[`MAX_SAFE_INTEGER`]: a reader that holds numbers as doubles would read
/// `u64::MAX` as 18446744073709552000.
///
/// Applies to one schema; wrap it in [`RecursiveTransform`] for subschemas too.
///
/// | `format` | Rust type | bounds written |
/// |---|---|---|
/// | `int8`, `int16`, `int32` | `i8` … `i32` | `iN::MIN ..= iN::MAX` |
/// | `uint8`, `uint16`, `uint32` | `u8` … `u32` | `0 ..= uN::MAX` |
/// | `int64`, `int` | `i64`, `isize` (64-bit targets) | none: both beyond 2^53 |
/// | `uint64`, `uint` | `u64`, `usize` (64-bit targets) | `minimum: 0` only |
/// | `int128`, `uint128` | `i128`, `u128` | unchanged: their bounds have no exact JSON number in `serde_json` |
///
/// The typed parse refuses what the schema no longer bounds (`2^64` for a `u64` is
/// `Error::Arguments` at its pointer).
///
/// ```
/// use schemars::{json_schema, transform::Transform};
/// use toolmodel::define::IntegerBounds;
///
/// let mut schema = json_schema!({"type": "integer", "format": "uint32", "minimum": 1});
/// IntegerBounds.transform(&mut schema);
/// assert_eq!(
///     schema,
///     json_schema!({"type": "integer", "format": "uint32", "minimum": 1, "maximum": 4294967295u32})
/// );
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct IntegerBounds;

impl IntegerBounds {
    /// The exact range of an integer width `format`, or `None` for any other format.
    #[must_use]
    pub fn range_of(format: &str) -> Option<(Value, Value)> {
        Some(match format {
            "int8" => (i8::MIN.into(), i8::MAX.into()),
            "int16" => (i16::MIN.into(), i16::MAX.into()),
            "int32" => (i32::MIN.into(), i32::MAX.into()),
            "int64" => (i64::MIN.into(), i64::MAX.into()),
            "int" => (isize::MIN.into(), isize::MAX.into()),
            "uint8" => (0.into(), u8::MAX.into()),
            "uint16" => (0.into(), u16::MAX.into()),
            "uint32" => (0.into(), u32::MAX.into()),
            "uint64" => (0.into(), u64::MAX.into()),
            "uint" => (0.into(), usize::MAX.into()),
            _ => return None,
        })
    }
}

impl Transform for IntegerBounds {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let Some((minimum, maximum)) = object
            .get("format")
            .and_then(Value::as_str)
            .and_then(Self::range_of)
        else {
            return;
        };
        if is_safe_integer(&minimum) {
            object.entry("minimum").or_insert(minimum);
        }
        if is_safe_integer(&maximum) {
            object.entry("maximum").or_insert(maximum);
        }
    }
}

/// Whether `bound` is an integer within ±[`MAX_SAFE_INTEGER`].
fn is_safe_integer(bound: &Value) -> bool {
    let safe = MAX_SAFE_INTEGER.unsigned_abs();
    bound
        .as_i64()
        .map(i64::unsigned_abs)
        .or_else(|| bound.as_u64())
        .is_some_and(|magnitude| magnitude <= safe)
}

/// A `schemars` [`Transform`] that closes an object schema: `"additionalProperties": false` on
/// a schema that lists `properties` and has none of `additionalProperties`,
/// `unevaluatedProperties`, `patternProperties`, or a keyword that brings properties from a
/// subschema (`allOf`, `anyOf`, `oneOf`, `if`, `$ref`, `$dynamicRef`, `dependentSchemas`),
/// which `additionalProperties` would not see. What [`SchemaProfile::input_schema`] applies,
/// through [`RecursiveTransform`], unless [`SchemaProfile::keep_open_objects`].
///
/// ```
/// use schemars::{json_schema, transform::Transform};
/// use toolmodel::define::CloseObjects;
///
/// let mut schema = json_schema!({"type": "object", "properties": {"q": {"type": "string"}}});
/// CloseObjects.transform(&mut schema);
/// assert_eq!(schema.get("additionalProperties"), Some(&serde_json::json!(false)));
///
/// let mut map = json_schema!({"type": "object", "additionalProperties": {"type": "integer"}});
/// CloseObjects.transform(&mut map);
/// assert_eq!(map.get("additionalProperties"), Some(&serde_json::json!({"type": "integer"})));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct CloseObjects;

impl CloseObjects {
    /// The keywords whose presence leaves an object schema as it is.
    pub const LEAVE_OPEN_WITH: &'static [&'static str] = &[
        "additionalProperties",
        "unevaluatedProperties",
        "patternProperties",
        "allOf",
        "anyOf",
        "oneOf",
        "if",
        "$ref",
        "$dynamicRef",
        "dependentSchemas",
    ];
}

impl Transform for CloseObjects {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        if !object.get("properties").is_some_and(Value::is_object)
            || Self::LEAVE_OPEN_WITH
                .iter()
                .any(|keyword| object.contains_key(*keyword))
        {
            return;
        }
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use serde_json::json;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Widths {
        a: u8,
        b: u16,
        c: u32,
        d: u64,
        e: usize,
        f: i8,
        g: i16,
        h: i32,
        i: i64,
        j: isize,
        k: f32,
        l: f64,
        m: std::num::NonZeroU32,
        n: Option<i32>,
        o: std::net::IpAddr,
        #[schemars(range(min = 1, max = 10))]
        p: u32,
    }

    #[test]
    fn integer_widths_become_exact_bounds_and_formats_go() {
        let schema = SchemaProfile::MCP.input_schema::<Widths>().schema;
        let props = &schema.as_value()["properties"];
        let range = |key: &str| (props[key]["minimum"].clone(), props[key]["maximum"].clone());
        assert_eq!(range("a"), (json!(0), json!(255)));
        assert_eq!(range("b"), (json!(0), json!(65535)));
        assert_eq!(range("c"), (json!(0), json!(4_294_967_295_u32)));
        // No bound beyond 2^53 - 1: a double-based reader would read u64::MAX as 2^64.
        assert_eq!(range("d"), (json!(0), Value::Null));
        assert_eq!(range("e"), (json!(0), Value::Null));
        assert_eq!(range("f"), (json!(-128), json!(127)));
        assert_eq!(range("g"), (json!(-32768), json!(32767)));
        assert_eq!(
            range("h"),
            (json!(-2_147_483_648_i64), json!(2_147_483_647))
        );
        assert_eq!(range("i"), (Value::Null, Value::Null));
        assert_eq!(range("j"), (Value::Null, Value::Null));
        assert_eq!(range("m"), (json!(1), json!(4_294_967_295_u32)));
        assert_eq!(
            range("n"),
            (json!(-2_147_483_648_i64), json!(2_147_483_647))
        );
        assert_eq!(range("p"), (json!(1), json!(10)));
        assert_eq!(props["k"], json!({"type": "number"}));
        assert_eq!(props["l"], json!({"type": "number"}));
        assert_eq!(props["n"]["type"], json!(["integer", "null"]));
        // `ip` is not a 2020-12 format; it goes too.
        assert_eq!(props["o"], json!({"type": "string"}));
        let text = schema.as_value().to_string();
        assert!(!text.contains("format"), "{text}");
        assert!(
            !text.contains("$schema") && !text.contains("title"),
            "{text}"
        );
    }

    #[test]
    fn switches_keep_what_schemars_wrote() {
        let mut profile = SchemaProfile::MCP;
        profile.keep_formats = true;
        profile.keep_integer_widths = true;
        profile.keep_schema_uri = true;
        profile.keep_title = true;
        let schema = profile.input_schema::<Widths>().schema;
        assert_eq!(
            schema.get("$schema"),
            Some(&json!("https://json-schema.org/draft/2020-12/schema"))
        );
        assert_eq!(schema.get("title"), Some(&json!("Widths")));
        assert_eq!(
            schema.as_value()["properties"]["c"],
            json!({"type": "integer", "format": "uint32", "minimum": 0})
        );
        assert_eq!(
            SchemaProfile::SCHEMARS
                .input_schema::<Widths>()
                .schema
                .as_value(),
            &schemars::generate::SchemaSettings::draft2020_12()
                .into_generator()
                .into_root_schema_for::<Widths>()
                .to_value()
        );
    }

    /// A shared address.
    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Address {
        city: String,
    }

    /// A tree.
    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Node {
        name: String,
        children: Vec<Node>,
        home: Address,
        work: Option<Address>,
    }

    #[test]
    fn subschemas_are_inlined_and_recursion_keeps_refs() {
        let profiled = SchemaProfile::MCP.input_schema::<Node>();
        assert_eq!(profiled.description.as_deref(), Some("A tree."));
        let schema = profiled.schema.as_value();
        assert_eq!(schema.get("description"), None);
        assert_eq!(
            schema["properties"]["children"]["items"],
            json!({"$ref": "#"})
        );
        assert_eq!(
            schema["properties"]["home"]["properties"]["city"],
            json!({"type": "string"})
        );
        assert!(schema.get("$defs").is_none());
        assert_eq!(schema["required"], json!(["name", "children", "home"]));
        let work = &schema["properties"]["work"];
        assert!(work.to_string().contains("\"null\""), "{work}");

        let mut profile = SchemaProfile::MCP;
        profile.keep_refs = true;
        profile.keep_description = true;
        let kept = profile.input_schema::<Node>();
        assert_eq!(kept.description.as_deref(), Some("A tree."));
        let schema = kept.schema.as_value();
        assert_eq!(schema["description"], json!("A tree."));
        assert_eq!(
            schema["properties"]["home"],
            json!({"$ref": "#/$defs/Address"})
        );
        assert!(schema["$defs"]["Address"].is_object());
    }

    #[allow(dead_code)]
    #[derive(Serialize, serde::Deserialize, JsonSchema)]
    struct Contract {
        #[serde(default)]
        always: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        sometimes: Option<String>,
        maybe: Option<String>,
    }

    #[test]
    fn bounds_stop_at_the_safe_integers() {
        let bound = |value: Value| is_safe_integer(&value);
        assert!(bound(json!(MAX_SAFE_INTEGER)));
        assert!(bound(json!(-MAX_SAFE_INTEGER)));
        assert!(!bound(json!(MAX_SAFE_INTEGER + 1)));
        assert!(!bound(json!(-MAX_SAFE_INTEGER - 1)));
        assert!(!bound(json!(u64::MAX)));
        assert!(!bound(json!(1.5)));
        // A bound written by hand is kept, even beyond.
        let mut schema =
            schemars::json_schema!({"type": "integer", "format": "uint64", "maximum": 1e300});
        IntegerBounds.transform(&mut schema);
        assert_eq!(schema.get("maximum"), Some(&json!(1e300)));
        assert_eq!(schema.get("minimum"), Some(&json!(0)));
        // Every bound the profile writes for any width is exact for a double reader.
        let text = SchemaProfile::MCP
            .input_schema::<Widths>()
            .schema
            .as_value()
            .to_string();
        for number in text.split(|c: char| !(c.is_ascii_digit() || c == '-')) {
            if let Ok(n) = number.parse::<i128>() {
                assert!(
                    n.unsigned_abs() <= u128::from(MAX_SAFE_INTEGER.unsigned_abs()),
                    "{n} in {text}"
                );
            }
        }
    }

    #[allow(dead_code)]
    #[derive(serde::Deserialize, JsonSchema)]
    struct Search {
        query: String,
        tags: Vec<String>,
        filter: Option<Filter>,
        counts: std::collections::BTreeMap<String, u8>,
    }

    #[allow(dead_code)]
    #[derive(serde::Deserialize, JsonSchema)]
    struct Filter {
        since: Option<u32>,
    }

    #[allow(dead_code)]
    #[derive(serde::Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Denying {
        a: u8,
    }

    #[test]
    fn input_objects_are_closed_unless_kept_open() {
        let closed = SchemaProfile::MCP.input_schema::<Search>().schema;
        let schema = closed.as_value();
        assert_eq!(schema["additionalProperties"], json!(false));
        // The nested struct, reached through the nullable `anyOf`, is closed too.
        let filter = schema["properties"]["filter"].to_string();
        assert!(
            filter.contains(r#""additionalProperties":false"#),
            "{filter}"
        );
        // A map keeps its value schema.
        assert_eq!(
            schema["properties"]["counts"]["additionalProperties"]["type"],
            json!("integer")
        );
        let mut open = SchemaProfile::MCP;
        open.keep_open_objects = true;
        let open = open.input_schema::<Search>().schema;
        assert_eq!(open.get("additionalProperties"), None);
        assert!(
            !open.as_value()["properties"]["filter"]
                .to_string()
                .contains("additionalProperties")
        );
        // The output is not closed.
        let output = SchemaProfile::MCP.output_schema::<Filter>().schema;
        assert_eq!(output.get("additionalProperties"), None);
        // `deny_unknown_fields` is closed already, once.
        let denying = SchemaProfile::MCP.input_schema::<Denying>().schema;
        assert_eq!(denying.get("additionalProperties"), Some(&json!(false)));
        // Composition keeps an object open: `additionalProperties` would not see its branches.
        let mut combined = schemars::json_schema!({
            "type": "object", "properties": {"a": {}}, "oneOf": [{"properties": {"b": {}}}]
        });
        CloseObjects.transform(&mut combined);
        assert_eq!(combined.get("additionalProperties"), None);
    }

    #[test]
    fn output_uses_the_serialize_contract() {
        let input = SchemaProfile::MCP.input_schema::<Contract>().schema;
        let output = SchemaProfile::MCP.output_schema::<Contract>().schema;
        assert_eq!(input.get("required"), None);
        assert_eq!(output.get("required"), Some(&json!(["always", "maybe"])));
    }
}
