//! Properties of the JSON forms and of tool IDs, on generated input.
//!
//! - MCP form: `Tool::from_mcp_json(&t.to_mcp_json()) == t` for any tool without extensions,
//!   unknown keys (at the tool, annotations, icon and execution levels) included.
//! - Full form: `Tool::from_json(&t.to_json()) == t` for any tool, extensions included.
//! - A tool that [`Tool::validate`] accepts is a valid `#/$defs/Tool` of the official MCP
//!   2025-11-25 schema (when `../shared` is present).
//! - [`ToolId`]: the `Display` of any valid ID parses back to it; more than one `:` never parses.
//!
//! Case counts are fixed so that the run time stays bounded.

use std::sync::OnceLock;

use proptest::{collection, option, prelude::*};
use serde_json::{Map, Value, json};
use toolmodel::{
    Backend, Tool, ToolAnnotations, ToolId, ToolSchema,
    model::{Icon, IconTheme, TaskSupport, ToolExecution},
};

const CASES: u32 = 256;

/// A tool name or namespace: 1–128 characters of `[A-Za-z0-9_.-]`.
const NAME: &str = "[A-Za-z0-9_.-]{1,128}";

/// A key no tool, annotations, icon or execution object defines.
fn unknown_key() -> impl Strategy<Value = String> {
    "x-[a-z]{1,8}"
}

/// Any JSON value, nested a little, with finite numbers.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1.0e9f64..1.0e9).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            collection::btree_map("\\PC{0,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Unknown keys with any values.
fn extra() -> impl Strategy<Value = Map<String, Value>> {
    collection::btree_map(unknown_key(), json_value(), 0..3).prop_map(|m| m.into_iter().collect())
}

/// A simple object schema: typed properties, some required, maybe closed.
fn object_schema() -> impl Strategy<Value = ToolSchema> {
    let property = (
        prop_oneof![
            Just("string"),
            Just("integer"),
            Just("number"),
            Just("boolean")
        ],
        option::of("\\PC{0,20}"),
    );
    (
        collection::btree_map("[a-z_]{1,10}", (property, any::<bool>()), 0..5),
        option::of(any::<bool>()),
    )
        .prop_map(|(properties, additional)| {
            let mut props = Map::new();
            let mut required = Vec::new();
            for (name, ((kind, description), is_required)) in properties {
                let mut property = json!({"type": kind});
                if let Some(description) = description {
                    property["description"] = Value::from(description);
                }
                if is_required {
                    required.push(Value::from(name.clone()));
                }
                props.insert(name, property);
            }
            let mut schema = json!({"type": "object", "properties": props});
            if !required.is_empty() {
                schema["required"] = Value::Array(required);
            }
            if let Some(additional) = additional {
                schema["additionalProperties"] = Value::Bool(additional);
            }
            ToolSchema::try_from(schema).unwrap()
        })
}

fn annotations() -> impl Strategy<Value = ToolAnnotations> {
    (
        option::of("\\PC{0,20}"),
        std::array::from_fn::<_, 4, _>(|_| option::of(any::<bool>())),
        extra(),
    )
        .prop_map(
            |(title, [read_only, destructive, idempotent, open_world], extra)| {
                let mut annotations = ToolAnnotations::default();
                annotations.title = title;
                annotations.read_only_hint = read_only;
                annotations.destructive_hint = destructive;
                annotations.idempotent_hint = idempotent;
                annotations.open_world_hint = open_world;
                annotations.extra = extra;
                annotations
            },
        )
}

fn icon() -> impl Strategy<Value = Icon> {
    (
        prop_oneof![
            "https://example\\.com/[a-z]{1,8}\\.png",
            "data:image/png;base64,[A-Za-z0-9+/]{0,16}",
        ],
        option::of(prop_oneof![Just("image/png"), Just("image/svg+xml")]),
        option::of(collection::vec(
            prop_oneof![Just("any".to_owned()), "[1-9][0-9]{0,2}x[1-9][0-9]{0,2}"],
            0..3,
        )),
        option::of(prop_oneof![Just(IconTheme::Light), Just(IconTheme::Dark)]),
        extra(),
    )
        .prop_map(|(src, mime_type, sizes, theme, extra)| {
            let mut icon = Icon::new(src);
            icon.mime_type = mime_type.map(str::to_owned);
            icon.sizes = sizes;
            icon.theme = theme;
            icon.extra = extra;
            icon
        })
}

fn execution() -> impl Strategy<Value = ToolExecution> {
    (
        option::of(prop_oneof![
            Just(TaskSupport::Forbidden),
            Just(TaskSupport::Optional),
            Just(TaskSupport::Required),
        ]),
        extra(),
    )
        .prop_map(|(task_support, extra)| {
            let mut execution = ToolExecution::default();
            execution.task_support = task_support;
            execution.extra = extra;
            execution
        })
}

/// A tool with every MCP field drawn (and unknown keys), no extensions.
fn mcp_tool() -> impl Strategy<Value = Tool> {
    (
        (
            NAME,
            option::of("\\PC{0,20}"),
            option::of("\\PC{0,60}"),
            object_schema(),
            option::of(object_schema()),
        ),
        (
            option::of(annotations()),
            option::of(collection::vec(icon(), 0..3)),
            option::of(execution()),
            option::of(
                // Keys in the `_meta` key format (MCP "General fields: `_meta`"): an optional
                // prefix of dot-separated labels and a slash, then a name.
                collection::btree_map(
                    "([a-z]([a-z0-9-]{0,4}[a-z0-9])?(\\.[a-z]([a-z0-9-]{0,4}[a-z0-9])?){0,2}/)?([a-z0-9]([a-z0-9._-]{0,6}[a-z0-9])?)?",
                    json_value(),
                    0..3,
                )
                    .prop_map(|m| m.into_iter().collect::<Map<String, Value>>()),
            ),
            extra(),
        ),
    )
        .prop_map(
            |(
                (name, title, description, input, output),
                (annotations, icons, execution, meta, extra),
            )| {
                let mut tool = Tool::new(name, input);
                tool.title = title;
                tool.description = description;
                tool.output_schema = output;
                tool.annotations = annotations;
                tool.icons = icons;
                tool.execution = execution;
                tool.meta = meta;
                tool.extra = extra;
                tool
            },
        )
}

fn backend() -> impl Strategy<Value = Backend> {
    prop_oneof![
        "[a-z-]{1,12}".prop_map(Backend::mcp),
        ("[a-z]{1,8}", "[a-z_]{1,12}").prop_map(|(p, t)| Backend::provider(p, t)),
        "[a-z_]{1,12}".prop_map(Backend::local),
    ]
}

/// A tool with the extensions set too.
fn full_tool() -> impl Strategy<Value = Tool> {
    (
        mcp_tool(),
        option::of(NAME),
        option::of((0u8..20, 0u8..20, 0u8..20).prop_map(|(a, b, c)| format!("{a}.{b}.{c}"))),
        collection::vec("[a-z][a-z0-9-]{0,10}", 0..4),
        collection::vec(backend(), 0..3),
    )
        .prop_map(|(mut tool, namespace, version, tags, backends)| {
            tool.namespace = namespace;
            tool.version = version;
            tool.tags = tags;
            tool.backends = backends;
            tool
        })
}

/// `#/$defs/Tool` of the official MCP 2025-11-25 schema, when `../shared` is present.
fn mcp_tool_schema() -> Option<&'static jsonschema::Validator> {
    static SPEC: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    SPEC.get_or_init(|| {
        let path = toolmodel_tests::shared_dir("mcp-spec")?.join("2025-11-25/schema.json");
        let spec: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let wrapper =
            json!({"$schema": spec["$schema"], "$ref": "#/$defs/Tool", "$defs": spec["$defs"]});
        Some(jsonschema::draft202012::new(&wrapper).unwrap())
    })
    .as_ref()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn mcp_json_round_trips(tool in mcp_tool()) {
        prop_assert_eq!(Tool::from_mcp_json(&tool.to_mcp_json()), Ok(tool));
    }

    #[test]
    fn mcp_json_leaves_the_extensions_out(tool in full_tool()) {
        let mut mcp_only = tool.clone();
        mcp_only.namespace = None;
        mcp_only.version = None;
        mcp_only.tags.clear();
        mcp_only.backends.clear();
        prop_assert_eq!(Tool::from_mcp_json(&tool.to_mcp_json()), Ok(mcp_only));
    }

    #[test]
    fn full_json_round_trips(tool in full_tool()) {
        prop_assert_eq!(Tool::from_json(&tool.to_json()), Ok(tool.clone()));
        let text = serde_json::to_string(&tool).unwrap();
        prop_assert_eq!(Tool::from_json_str(&text), Ok(tool));
    }

    #[test]
    fn a_valid_tool_is_a_valid_mcp_tool(tool in mcp_tool()) {
        prop_assert_eq!(tool.validate(), Ok(()));
        if let Some(spec) = mcp_tool_schema() {
            let written = tool.to_mcp_json();
            let errors: Vec<String> = spec.iter_errors(&written).map(|e| e.to_string()).collect();
            prop_assert!(errors.is_empty(), "{written}: {errors:?}");
        }
    }

    #[test]
    fn a_tool_id_parses_back_from_its_display(namespace in NAME, name in NAME) {
        let id = ToolId::new(Some(&namespace), &name).unwrap();
        prop_assert_eq!((id.namespace(), id.name()), (Some(namespace.as_str()), name.as_str()));
        prop_assert_eq!(id.to_string().parse::<ToolId>(), Ok(id.clone()));

        let bare = ToolId::new(None, &name).unwrap();
        prop_assert_eq!((bare.namespace(), bare.name()), (None, name.as_str()));
        prop_assert_eq!(bare.to_string(), name);
        prop_assert_eq!(bare.to_string().parse::<ToolId>(), Ok(bare));
    }

    #[test]
    fn a_second_colon_never_parses(a in NAME, b in NAME, c in "[A-Za-z0-9_.:-]{0,8}") {
        let text = format!("{a}:{b}:{c}");
        prop_assert!(text.parse::<ToolId>().is_err(), "{}", text);
    }
}

#[test]
fn malformed_tool_ids_fail() {
    for text in ["a::b", ":x", "x:", "a:b:c", ""] {
        assert!(text.parse::<ToolId>().is_err(), "{text:?} parsed");
    }
}
