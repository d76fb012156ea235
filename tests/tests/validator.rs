//! The behaviours of [`DefaultValidator`] that MCP and toolmodel promise: dialects, schema
//! errors, references, every violation of an instance, and `format`.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolmodel::{
    DefaultValidator, Error, SchemaValidator,
    validate::{Dialect, InstanceError, SchemaIssue},
};

fn compile_err(validator: &DefaultValidator, schema: &Value) -> Error {
    match validator.compile(schema) {
        Ok(compiled) => panic!("{schema} compiled ({compiled:?})"),
        Err(err) => err,
    }
}

/// `(instance_path, schema_path, keyword)` of every violation, sorted.
fn violations(result: Result<(), Error>) -> Vec<(String, String, String)> {
    match result {
        Err(Error::InvalidInstance { errors }) => {
            let mut found: Vec<_> = errors
                .into_iter()
                .map(
                    |InstanceError {
                         instance_path,
                         schema_path,
                         keyword,
                         message,
                     }| {
                        assert!(!message.is_empty());
                        (instance_path, schema_path, keyword)
                    },
                )
                .collect();
            found.sort();
            found
        }
        other => panic!("expected InvalidInstance, got {other:?}"),
    }
}

fn triples(expected: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = expected
        .iter()
        .map(|(i, s, k)| ((*i).to_owned(), (*s).to_owned(), (*k).to_owned()))
        .collect();
    out.sort();
    out
}

#[test]
fn no_schema_keyword_means_2020_12_unless_the_default_is_changed() {
    let schema = json!({"prefixItems": [{"type": "integer"}], "items": false});
    let compiled = DefaultValidator::new().compile(&schema).unwrap();
    assert_eq!(compiled.dialect(), Dialect::Draft202012);
    assert!(compiled.is_valid(&json!([1])));
    assert!(!compiled.is_valid(&json!([1, 2])));
    assert!(!compiled.is_valid(&json!(["x"])));

    // The same schema in draft-07: `prefixItems` is unknown, `items: false` forbids any item.
    let draft7 = DefaultValidator::new().with_default_dialect(Dialect::Draft7);
    let compiled = draft7.compile(&schema).unwrap();
    assert_eq!(compiled.dialect(), Dialect::Draft7);
    assert!(!compiled.is_valid(&json!([1])));
    assert!(compiled.is_valid(&json!([])));

    // Draft-07's tuple `items` is not 2020-12.
    assert!(matches!(
        compile_err(&DefaultValidator::new(), &json!({"items": [{"type": "integer"}]})),
        Error::InvalidSchema { issues } if issues.iter().map(|i| i.pointer.as_str()).collect::<Vec<_>>() == ["/items"]
    ));
    // Boolean schemas, in either default dialect.
    for validator in [DefaultValidator::new(), draft7] {
        assert!(validator.compile(&json!(true)).unwrap().is_valid(&json!(1)));
        assert!(
            !validator
                .compile(&json!(false))
                .unwrap()
                .is_valid(&json!(1))
        );
    }
}

#[test]
fn both_dialects_are_read_from_every_spelling_of_their_uri() {
    // Each dialect in the other one's default, so that only `$schema` can pick it.
    let cases = [
        (
            Dialect::Draft202012,
            DefaultValidator::new().with_default_dialect(Dialect::Draft7),
            [
                "https://json-schema.org/draft/2020-12/schema",
                "https://json-schema.org/draft/2020-12/schema#",
                "http://json-schema.org/draft/2020-12/schema",
                "http://json-schema.org/draft/2020-12/schema#",
            ],
        ),
        (
            Dialect::Draft7,
            DefaultValidator::new(),
            [
                "http://json-schema.org/draft-07/schema#",
                "http://json-schema.org/draft-07/schema",
                "https://json-schema.org/draft-07/schema#",
                "https://json-schema.org/draft-07/schema",
            ],
        ),
    ];
    for (dialect, validator, uris) in cases {
        for uri in uris {
            let schema = json!({"$schema": uri, "prefixItems": [{"type": "integer"}]});
            let compiled = validator.compile(&schema).unwrap();
            assert_eq!(compiled.dialect(), dialect, "{uri}");
            assert_eq!(validator.dialect_of(&schema).unwrap(), dialect, "{uri}");
            // `prefixItems` only means something in 2020-12.
            assert_eq!(
                compiled.is_valid(&json!(["x"])),
                dialect == Dialect::Draft7,
                "{uri}"
            );
        }
    }
}

#[test]
fn draft7_tuple_items_additional_items_and_dependencies_keep_their_meaning() {
    let schema = json!({
        "items": [{"type": "integer"}, {"type": "string"}],
        "additionalItems": {"type": "boolean"},
    });
    let dependencies = json!({
        "dependencies": {"card": ["billing"], "vip": {"required": ["level"]}}
    });
    let by_uri = DefaultValidator::new();
    let by_default = DefaultValidator::new().with_default_dialect(Dialect::Draft7);
    for (validator, declare) in [(&by_uri, true), (&by_default, false)] {
        let with_uri = |schema: &Value| {
            let mut schema = schema.clone();
            if declare {
                schema["$schema"] = json!("http://json-schema.org/draft-07/schema#");
            }
            schema
        };
        let tuple = validator.compile(&with_uri(&schema)).unwrap();
        assert_eq!(tuple.dialect(), Dialect::Draft7);
        assert!(tuple.is_valid(&json!([1, "a", true, false])));
        assert!(tuple.is_valid(&json!([1])));
        assert_eq!(
            violations(tuple.validate(&json!(["a", "b", 3]))),
            triples(&[
                ("/0", "/items/0/type", "type"),
                ("/2", "/additionalItems/type", "type"),
            ])
        );

        let deps = validator.compile(&with_uri(&dependencies)).unwrap();
        assert!(deps.is_valid(&json!({"card": 1, "billing": 2})));
        assert!(deps.is_valid(&json!({"billing": 2, "level": 1})));
        assert!(!deps.is_valid(&json!({"card": 1})));
        assert!(!deps.is_valid(&json!({"vip": true})));
        assert!(deps.is_valid(&json!({"vip": true, "level": 3})));
    }
}

#[test]
fn other_dialects_are_unsupported_naming_the_uri() {
    let validator = DefaultValidator::new();
    for uri in [
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-06/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/schema#",
        "https://example.com/my-meta-schema",
        "http://localhost:1234/draft2020-12/metaschema-no-validation.json",
        "json-schema.org/draft-07/schema",
    ] {
        let expected = Error::UnsupportedSchema {
            uri: uri.to_owned(),
            pointer: "/$schema".to_owned(),
        };
        let schema = json!({"$schema": uri, "type": "string"});
        assert_eq!(compile_err(&validator, &schema), expected, "{uri}");
        assert_eq!(
            validator.validate(&schema, &json!("x")),
            Err(expected.clone())
        );
        assert_eq!(validator.dialect_of(&schema), Err(expected));
    }
    // A `$schema` that is not a string is no dialect at all.
    assert_eq!(
        compile_err(&validator, &json!({"$schema": 7})),
        Error::InvalidSchema {
            issues: vec![SchemaIssue {
                pointer: "/$schema".into(),
                message: "$schema must be a string, found 7".into()
            }]
        }
    );
}

#[test]
fn invalid_schemas_name_every_problem_with_its_pointer() {
    let validator = DefaultValidator::new();
    let pointers =
        |schema: Value, validator: &DefaultValidator| match compile_err(validator, &schema) {
            Error::InvalidSchema { issues } => {
                assert!(issues.iter().all(|issue| !issue.message.is_empty()));
                let mut pointers: Vec<String> =
                    issues.into_iter().map(|issue| issue.pointer).collect();
                pointers.sort();
                pointers
            }
            other => panic!("{schema}: expected InvalidSchema, got {other:?}"),
        };
    assert_eq!(pointers(json!({"type": 5}), &validator), ["/type"]);
    assert_eq!(pointers(json!({"minimum": "x"}), &validator), ["/minimum"]);
    assert_eq!(
        pointers(
            json!({"properties": {"a": {"type": "strin"}, "b": {"minLength": -1}}, "required": "a"}),
            &validator
        ),
        ["/properties/a/type", "/properties/b/minLength", "/required"]
    );
    let draft7 = DefaultValidator::new().with_default_dialect(Dialect::Draft7);
    assert_eq!(pointers(json!({"type": 5}), &draft7), ["/type"]);
    assert_eq!(
        pointers(json!({"items": [{"minimum": "x"}]}), &draft7),
        ["/items/0/minimum"]
    );
    // Through the tool-facing entry point too.
    assert!(matches!(
        validator.validate(&json!({"minimum": "x"}), &json!(1)),
        Err(Error::InvalidSchema { issues }) if issues.len() == 1 && issues[0].pointer == "/minimum"
    ));
}

#[test]
fn external_references_are_refused_naming_the_reference() {
    let validator = DefaultValidator::new();
    for (schema, reference) in [
        (
            json!({"$ref": "http://example.com/schema.json"}),
            "http://example.com/schema.json",
        ),
        (
            json!({"properties": {"a": {"$ref": "https://example.com/defs.json#/$defs/a"}}}),
            "https://example.com/defs.json",
        ),
        (json!({"$ref": "file:///etc/passwd"}), "file:///etc/passwd"),
        (json!({"$ref": "urn:example:widget"}), "urn:example:widget"),
        (json!({"items": {"$ref": "other.json"}}), "other.json"),
        (
            json!({"$id": "https://example.com/root.json", "$ref": "other.json#/$defs/x"}),
            "https://example.com/other.json",
        ),
        (
            json!({"$defs": {"a": {"$id": "a.json"}}, "$ref": "b.json"}),
            "b.json",
        ),
        (
            json!({"$dynamicRef": "https://example.com/tree#node"}),
            "https://example.com/tree",
        ),
    ] {
        let expected = Error::ExternalRef {
            reference: reference.to_owned(),
        };
        assert_eq!(compile_err(&validator, &schema), expected, "{schema}");
        assert_eq!(validator.validate(&schema, &json!(null)), Err(expected));
    }
    let draft7 = DefaultValidator::new().with_default_dialect(Dialect::Draft7);
    assert_eq!(
        compile_err(&draft7, &json!({"$ref": "http://example.com/x.json#"})),
        Error::ExternalRef {
            reference: "http://example.com/x.json".into()
        }
    );
}

#[test]
fn local_references_work() {
    let validator = DefaultValidator::new();
    let defs = validator
        .compile(&json!({
            "$defs": {"positive": {"type": "integer", "exclusiveMinimum": 0}},
            "properties": {"n": {"$ref": "#/$defs/positive"}}
        }))
        .unwrap();
    assert!(defs.is_valid(&json!({"n": 1})));
    assert_eq!(
        violations(defs.validate(&json!({"n": 0}))),
        // The schema path is where the keyword is in the document, past the `$ref`.
        triples(&[("/n", "/$defs/positive/exclusiveMinimum", "exclusiveMinimum")])
    );

    let tree = validator
        .compile(&json!({
            "type": "object",
            "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
            "additionalProperties": false
        }))
        .unwrap();
    assert!(tree.is_valid(&json!({"value": 1, "children": [{"value": 2, "children": []}]})));
    assert!(!tree.is_valid(&json!({"value": 1, "children": [{"value": "2"}]})));
    assert!(!tree.is_valid(&json!({"children": [{"extra": 1}]})));

    let embedded = validator
        .compile(&json!({
            "$id": "https://example.com/root.json",
            "$defs": {
                "a": {"$id": "item.json", "type": "string"},
                "b": {"$id": "urn:example:count", "type": "integer"},
                "c": {"$anchor": "flag", "type": "boolean"}
            },
            "properties": {
                "name": {"$ref": "item.json"},
                "full": {"$ref": "https://example.com/item.json"},
                "count": {"$ref": "urn:example:count"},
                "flag": {"$ref": "#flag"}
            }
        }))
        .unwrap();
    assert!(embedded.is_valid(&json!({"name": "a", "full": "b", "count": 1, "flag": true})));
    for bad in [
        json!({"name": 1}),
        json!({"full": 1}),
        json!({"count": "1"}),
        json!({"flag": 0}),
    ] {
        assert!(!embedded.is_valid(&bad), "{bad}");
    }

    // A local reference that leads nowhere is a schema error pointing at the `$ref`.
    assert!(matches!(
        compile_err(&validator, &json!({"properties": {"a": {"$ref": "#/$defs/missing"}}})),
        Error::InvalidSchema { issues } if issues.len() == 1 && issues[0].pointer == "/properties/a/$ref"
    ));
}

#[test]
fn a_failing_instance_reports_every_violation() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer", "minimum": 3},
            "b": {"type": "array", "items": {"type": "string"}},
            "c/d": {"enum": ["x"]}
        },
        "required": ["a", "e"],
        "additionalProperties": false
    });
    let instance = json!({"a": 1.5, "b": [1, "x", 2], "c/d": "y", "f": 0});
    let validator = DefaultValidator::new();
    let compiled = validator.compile(&schema).unwrap();
    assert!(!compiled.is_valid(&instance));
    let expected = triples(&[
        ("/a", "/properties/a/type", "type"),
        ("/a", "/properties/a/minimum", "minimum"),
        ("/b/0", "/properties/b/items/type", "type"),
        ("/b/2", "/properties/b/items/type", "type"),
        ("/c~1d", "/properties/c~1d/enum", "enum"),
        ("", "/required", "required"),
        ("/f", "/additionalProperties", "additionalProperties"),
    ]);
    assert_eq!(violations(compiled.validate(&instance)), expected);
    assert_eq!(violations(validator.validate(&schema, &instance)), expected);
}

#[test]
fn format_is_an_annotation_unless_asserted() {
    let annotating = DefaultValidator::new();
    let asserting = DefaultValidator::new().with_format_assertions(true);
    let draft7 = DefaultValidator::new().with_default_dialect(Dialect::Draft7);
    let draft7_asserting = DefaultValidator::new()
        .with_default_dialect(Dialect::Draft7)
        .with_format_assertions(true);
    for (format, good, bad) in [
        ("date", "2025-11-25", "25/11/2025"),
        ("date-time", "2025-11-25T10:00:00Z", "2025-11-25"),
        ("email", "a@example.com", "a.example.com"),
        ("ipv4", "192.0.2.1", "192.0.2.256"),
        ("uri", "https://example.com/x", "not a uri"),
    ] {
        let schema = json!({"format": format});
        for validator in [&annotating, &draft7] {
            assert_eq!(validator.validate(&schema, &json!(bad)), Ok(()), "{format}");
        }
        for validator in [&asserting, &draft7_asserting] {
            assert_eq!(
                validator.validate(&schema, &json!(good)),
                Ok(()),
                "{format}"
            );
            assert_eq!(
                violations(validator.validate(&schema, &json!(bad))),
                triples(&[("", "/format", "format")]),
                "{format}"
            );
            // `format` only applies to strings.
            assert_eq!(validator.validate(&schema, &json!(5)), Ok(()), "{format}");
        }
    }
    // Unknown formats are ignored, even as assertions; `uuid` is a format of 2019-09 and later,
    // unknown to draft-07.
    let uuid = json!({"format": "uuid"});
    assert_eq!(
        violations(asserting.validate(&uuid, &json!("123e4567"))),
        triples(&[("", "/format", "format")])
    );
    assert_eq!(draft7_asserting.validate(&uuid, &json!("123e4567")), Ok(()));
    assert_eq!(
        asserting.validate(&json!({"format": "no-such-format"}), &json!("anything")),
        Ok(())
    );
}

proptest! {
    /// Every property with a wrong value is reported once, at its escaped JSON Pointer.
    #[test]
    fn every_wrong_property_is_reported_at_its_pointer(
        keys in prop::collection::btree_set("[a-z~/]{1,6}", 1..8),
        wrong in prop::collection::vec(any::<bool>(), 8),
    ) {
        let escape = |key: &str| key.replace('~', "~0").replace('/', "~1");
        let properties: serde_json::Map<String, Value> =
            keys.iter().map(|key| (key.clone(), json!({"type": "integer"}))).collect();
        let schema = json!({"properties": properties});
        let instance: serde_json::Map<String, Value> = keys
            .iter()
            .zip(&wrong)
            .map(|(key, wrong)| (key.clone(), if *wrong { json!("x") } else { json!(1) }))
            .collect();
        let compiled = DefaultValidator::new().compile(&schema).unwrap();
        let mut expected: Vec<(String, String, String)> = keys
            .iter()
            .zip(&wrong)
            .filter(|(_, wrong)| **wrong)
            .map(|(key, _)| {
                let key = escape(key);
                (format!("/{key}"), format!("/properties/{key}/type"), "type".to_owned())
            })
            .collect();
        expected.sort();
        let result = compiled.validate(&Value::Object(instance));
        if expected.is_empty() {
            prop_assert_eq!(result, Ok(()));
        } else {
            prop_assert_eq!(violations(result), expected);
        }
    }
}
