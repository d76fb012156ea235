//! Google Gemini `FunctionDeclaration`s: the OpenAPI 3.0 subset of `parameters` (and
//! `response`, converted by [`openapi`](super::openapi)), the plain JSON Schema of
//! `parametersJsonSchema` (and `responseJsonSchema`), and back.

use serde_json::Value;

use super::context::{Ctx, check_depth};
use super::fields;
use super::keywords::{Holds, holds, is_assertion};
use super::openapi::from_openapi;
use super::options::{ConvertOptions, ReadOptions};
use super::read_schema::read_schema;
use super::results::Reading;
use super::target::Target;
use super::warning::Action;
use crate::error::Error;
use crate::model::schema::ToolSchema;
use crate::model::tool::Tool;
use crate::validate::violation::SchemaSlot;

/// JSON Schema keywords Gemini documents for `parametersJsonSchema` / `responseJsonSchema`
/// (Gemini API structured-output documentation and the November 2025 "JSON Schema support"
/// announcement, read 2026-11-21): unsupported keywords are ignored by the API.
const JSON_SCHEMA_FIELDS: &[&str] = &[
    "$id",
    "$defs",
    "definitions",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
];

/// Checks a schema sent as `parametersJsonSchema` / `responseJsonSchema`: it goes unchanged;
/// keywords Gemini does not document are reported as ignored.
pub(crate) fn check_json_schema(schema: &Value, ctx: &mut Ctx<'_, '_>) {
    let Value::Object(map) = schema else {
        return;
    };
    for keyword in map.keys() {
        if !JSON_SCHEMA_FIELDS.contains(&keyword.as_str()) {
            let widened = is_assertion(keyword);
            ctx.warn(
                Some(keyword),
                keyword.clone(),
                Action::Unsupported { widened },
                "not among the JSON Schema keywords Gemini documents; the API ignores it",
            );
        }
    }
    for (keyword, value) in map {
        match holds(keyword) {
            Some(Holds::Map) => {
                if let Value::Object(entries) = value {
                    for (name, child) in entries {
                        let a = ctx.enter(keyword);
                        ctx.enter(name);
                        check_json_schema(child, ctx);
                        ctx.leave(a);
                    }
                }
            }
            Some(_) => match value {
                Value::Array(items) => {
                    for (index, child) in items.iter().enumerate() {
                        let a = ctx.enter(keyword);
                        ctx.enter_index(index);
                        check_json_schema(child, ctx);
                        ctx.leave(a);
                    }
                }
                child => ctx.at(keyword, |ctx| check_json_schema(child, ctx)),
            },
            None => {}
        }
    }
}

/// Writes a `FunctionDeclaration` around already converted schemas.
pub(crate) fn write(
    tool: &Tool,
    name: &str,
    parameters: Value,
    response: Option<Value>,
    options: &ConvertOptions,
) -> Value {
    let mut out = fields::carried(tool, Target::Gemini);
    out.insert("name".into(), Value::from(name));
    if let Some(description) = &tool.description {
        out.insert("description".into(), Value::from(description.as_str()));
    }
    let (parameters_key, response_key) = if options.gemini_json_schema {
        ("parametersJsonSchema", "responseJsonSchema")
    } else {
        ("parameters", "response")
    };
    // `{"type": "OBJECT"}` is refused by Gemini's API; no `parameters` is a function without
    // arguments (`openapi::takes_no_parameters`).
    if options.gemini_json_schema || !super::openapi::takes_no_parameters(&parameters) {
        out.insert(parameters_key.into(), parameters);
    }
    if let Some(response) = response {
        out.insert(response_key.into(), response);
    }
    Value::Object(out)
}

/// Reads a `FunctionDeclaration`: `parameters` (OpenAPI subset, converted back) or
/// `parametersJsonSchema` into the input schema, `response` or `responseJsonSchema` into the
/// output schema; other keys go to [`Tool::extra`](crate::Tool::extra).
pub(crate) fn read(value: &Value, options: &ReadOptions) -> Result<Reading, Error> {
    let map = fields::expect_object(value, "", "a Gemini function declaration")?;
    let consumed = [
        "parameters",
        "parametersJsonSchema",
        "response",
        "responseJsonSchema",
    ];
    let common = fields::read_common(map, "", &consumed)?;
    let mut warnings = Vec::new();
    let mut schema =
        |openapi: &str, json: &str, slot: SchemaSlot| -> Result<Option<ToolSchema>, Error> {
            match (map.get(openapi), map.get(json)) {
                (Some(_), Some(_)) => Err(crate::json::json_error(
                    format!("/{json}"),
                    format!("{json} and {openapi} are mutually exclusive"),
                )),
                (Some(value), None) => {
                    let mut value = value.clone();
                    check_depth(&value, &format!("/{openapi}"))?;
                    from_openapi(&mut value);
                    read_schema(
                        Target::Gemini,
                        &value,
                        &format!("/{openapi}"),
                        slot,
                        options,
                        &mut warnings,
                    )
                    .map(Some)
                }
                (None, Some(value)) => read_schema(
                    Target::Gemini,
                    value,
                    &format!("/{json}"),
                    slot,
                    options,
                    &mut warnings,
                )
                .map(Some),
                (None, None) => Ok(None),
            }
        };
    let input = schema("parameters", "parametersJsonSchema", SchemaSlot::Input)?;
    let output = schema("response", "responseJsonSchema", SchemaSlot::Output)?;
    let mut tool = common.into_tool(input.unwrap_or_else(ToolSchema::empty_object));
    tool.output_schema = output;
    Ok(Reading { tool, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::context::pointers_and_actions;
    use serde_json::json;

    #[test]
    fn json_schema_mode_reports_the_keywords_gemini_does_not_document() {
        let mut warnings = Vec::new();
        let options = ConvertOptions::default();
        let mut ctx = Ctx::new(
            Target::Gemini,
            &options,
            None,
            "/inputSchema",
            &mut warnings,
        );
        check_json_schema(
            &json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 2, "examples": ["x"]}}}),
            &mut ctx,
        );
        let got = pointers_and_actions(&warnings);
        assert_eq!(
            got,
            [
                (
                    "/inputSchema/properties/a/examples",
                    Action::Unsupported { widened: false }
                ),
                (
                    "/inputSchema/properties/a/minLength",
                    Action::Unsupported { widened: true }
                ),
            ]
        );
    }

    /// Gemini's API answers 400 ("should be non-empty for OBJECT type") to an `OBJECT` without
    /// properties in `parameters`: a tool with none is declared without `parameters`, and a
    /// free-form object below the root is written as any value, each change a warning unless
    /// it says the same.
    #[test]
    fn objects_without_properties_never_reach_gemini_parameters() {
        use crate::adapters::{Action, Target, convert, read};
        let tool =
            |schema: Value| Tool::new("t", ToolSchema::new(schema.as_object().unwrap().clone()));
        let gemini = |schema: Value| {
            let conversion =
                convert(&tool(schema), Target::Gemini, &ConvertOptions::default()).unwrap();
            let actions: Vec<(String, Action)> = conversion
                .warnings
                .iter()
                .map(|w| (w.pointer.clone(), w.action))
                .collect();
            (conversion.value, actions)
        };

        // No arguments, said exactly: no parameters, no warning, and read back the same.
        let (value, actions) = gemini(json!({"type": "object", "additionalProperties": false}));
        assert_eq!(value, json!({"name": "t"}));
        assert!(actions.is_empty(), "{actions:?}");
        let back = read(
            Target::Gemini,
            &value,
            &crate::adapters::ReadOptions::default(),
        )
        .unwrap();
        assert_eq!(back.tool.input_schema, ToolSchema::empty_object());
        // The same, with empty `properties` and `required`: exact.
        let (value, actions) = gemini(
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false}),
        );
        assert_eq!(value, json!({"name": "t"}));
        assert_eq!(
            actions,
            [("/inputSchema".to_owned(), Action::Rewritten { exact: true })]
        );
        // An open object: the model can no longer send it arguments.
        let (value, actions) = gemini(json!({"type": "object"}));
        assert_eq!(value, json!({"name": "t"}));
        assert_eq!(actions, [("/inputSchema".to_owned(), Action::Narrowed)]);

        // Below the root: any value, its description kept.
        let (value, actions) = gemini(json!({"type": "object", "properties": {
            "options": {"type": "object", "description": "free-form"},
            "rows": {"type": "array", "items": {"type": "object"}},
            "map": {"type": "object", "additionalProperties": {"type": "boolean"}}
        }}));
        let properties = &value["parameters"]["properties"];
        assert_eq!(
            properties["options"],
            json!({"type": "TYPE_UNSPECIFIED", "description": "free-form"})
        );
        assert_eq!(
            properties["rows"]["items"],
            json!({"type": "TYPE_UNSPECIFIED"})
        );
        assert_eq!(
            properties["map"]["type"], "OBJECT",
            "a map is not free-form"
        );
        assert_eq!(
            actions,
            [
                (
                    "/inputSchema/properties/options".to_owned(),
                    Action::Rewritten { exact: false }
                ),
                (
                    "/inputSchema/properties/rows/items".to_owned(),
                    Action::Rewritten { exact: false }
                ),
            ]
        );

        // `parametersJsonSchema` takes them as they are.
        let json_schema = ConvertOptions::default().with_gemini_json_schema(true);
        let conversion = convert(
            &tool(json!({"type": "object"})),
            Target::Gemini,
            &json_schema,
        )
        .unwrap();
        assert_eq!(
            conversion.value["parametersJsonSchema"],
            json!({"type": "object"})
        );
    }
}
