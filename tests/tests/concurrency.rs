//! One `DefaultValidator` shared by 16 threads gives, for 100,000 validations, exactly the
//! results one thread gets: the cache (compiled on first use, under a lock) neither loses nor
//! mixes up schemas when threads race to compile them, and failures (schemas that do not
//! compile, instances too deep) are cached and reported the same way.

use std::sync::Barrier;

use serde_json::{Value, json};
use toolmodel::{DefaultValidator, Error, SchemaValidator, Tool, ToolSchema};

const INSTANCES: usize = 100_000;
const THREADS: usize = 16;

/// Tools whose schemas exercise different paths: plain, `$ref`s, recursion, patterns,
/// formats, and three that do not compile.
fn tools() -> Vec<Tool> {
    let schemas = [
        json!({"type": "object", "properties": {"city": {"type": "string", "minLength": 1}}, "required": ["city"]}),
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 100}},
               "additionalProperties": false}),
        json!({"type": "object", "$defs": {"port": {"type": "integer", "minimum": 1, "maximum": 65535}},
               "properties": {"from": {"$ref": "#/$defs/port"}, "to": {"$ref": "#/$defs/port"}}}),
        json!({"type": "object", "required": ["v"], "properties": {"v": {"type": "integer"},
               "children": {"type": "array", "items": {"$ref": "#"}}}}),
        json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]+-[0-9]{1,4}$"}},
               "patternProperties": {"^x-": {"type": "boolean"}}}),
        json!({"type": "object", "properties": {"mode": {"enum": ["fast", "safe", 3]},
               "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 3}}}),
        json!({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
               "properties": {"a": {"type": "string"}, "b": {"type": "number"}}}),
        json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}}),
        json!({"type": "object", "properties": {"x": {"pattern": "(?=a)b"}}}),
        json!({"type": "object", "minProperties": "two"}),
    ];
    schemas
        .into_iter()
        .enumerate()
        .map(|(i, schema)| {
            let mut tool = Tool::new(format!("t{i}"), ToolSchema::try_from(schema).unwrap());
            if i.is_multiple_of(3) {
                tool.output_schema = Some(
                    ToolSchema::try_from(json!({"type": "object", "required": ["ok"]})).unwrap(),
                );
            }
            tool
        })
        .collect()
}

/// The `i`-th instance: valid or not for the various tools, some of them nested too deep.
fn instance(i: usize) -> Value {
    let k = i / 7;
    match i % 11 {
        0 => json!({"city": format!("c{k}")}),
        1 => json!({"city": ""}),
        2 => json!({"n": k % 150}),
        3 => json!({"from": k % 70_000, "to": 0}),
        4 => {
            let mut tree = json!({"v": if k.is_multiple_of(5) { json!("x") } else { json!(k) }});
            for _ in 0..(k % 9) {
                tree = json!({"v": 1, "children": [tree, {"v": 2}]});
            }
            tree
        }
        5 => {
            json!({"id": if k.is_multiple_of(2) { format!("ab-{}", k % 10_000) } else { format!("AB{k}") }, "x-on": k.is_multiple_of(3)})
        }
        6 => {
            let mode = [json!("fast"), json!("slow"), json!(3), json!(4)][k % 4].clone();
            json!({"mode": mode, "tags": ["a", "b", if k.is_multiple_of(2) { "a" } else { "c" }]})
        }
        7 => json!({"a": "s", "b": if k.is_multiple_of(2) { json!(1) } else { json!(null) }}),
        8 => {
            let mut deep = json!(k);
            for _ in 0..(120 + k % 20) {
                deep = Value::Array(vec![deep]);
            }
            json!({"deep": deep})
        }
        9 => json!({"ok": k.is_multiple_of(2)}),
        _ => json!([k, "not an object"]),
    }
}

/// Validates instance `i` against the tool it goes to, by the path `i` selects: arguments,
/// result, or a one-off `validate` (which compiles every time).
fn run(validator: &DefaultValidator, tools: &[Tool], i: usize) -> Result<(), Error> {
    let tool = &tools[(i / 11) % tools.len()];
    let instance = instance(i);
    match i % 5 {
        0 => validator.validate_result(tool, &instance),
        _ if i.is_multiple_of(997) => validator.validate(tool.input_schema.as_value(), &instance),
        _ => validator.validate_arguments(tool, &instance),
    }
}

#[test]
fn sixteen_threads_sharing_one_validator_agree_with_one_thread() {
    let tools = tools();
    let alone = DefaultValidator::new();
    let expected: Vec<Result<(), Error>> = (0..INSTANCES).map(|i| run(&alone, &tools, i)).collect();
    // The run covers every outcome.
    let count = |f: &dyn Fn(&Result<(), Error>) -> bool| expected.iter().filter(|r| f(r)).count();
    assert!(count(&|r| r.is_ok()) > 10_000);
    assert!(count(&|r| matches!(r, Err(Error::InvalidInstance { .. }))) > 10_000);
    for kind in [
        |r: &Result<(), Error>| matches!(r, Err(Error::ExternalRef { .. })),
        |r: &Result<(), Error>| matches!(r, Err(Error::InvalidSchema { .. })),
        |r: &Result<(), Error>| matches!(r, Err(Error::InstanceTooDeep { .. })),
    ] {
        assert!(count(&kind) > 100);
    }

    let shared = DefaultValidator::new();
    let barrier = Barrier::new(THREADS);
    let mut found: Vec<Option<Result<(), Error>>> = vec![None; INSTANCES];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (shared, tools, barrier) = (&shared, &tools, &barrier);
                scope.spawn(move || {
                    // Odd threads go backwards, so that threads race to compile each schema.
                    let mine: Vec<usize> = if t.is_multiple_of(2) {
                        (t..INSTANCES).step_by(THREADS).collect()
                    } else {
                        (t..INSTANCES).step_by(THREADS).rev().collect()
                    };
                    barrier.wait();
                    mine.into_iter()
                        .map(|i| (i, run(shared, tools, i)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            for (i, result) in handle.join().unwrap() {
                found[i] = Some(result);
            }
        }
    });
    for (i, (found, expected)) in found.into_iter().zip(&expected).enumerate() {
        assert_eq!(found.as_ref(), Some(expected), "instance {i}");
    }
}
