//! The cost of hostile input, printed as plain figures (best of several runs):
//!
//! - validating a large `tools/call` arguments document (rows of small objects) of 5, 25 and
//!   50 MB, valid and with one bad row: time per MB, which stays flat when validation is linear;
//! - reading a large tool from text with `Tool::from_mcp_str` (which refuses repeated keys, a
//!   second pass) against `serde_json::from_str::<Value>` alone;
//! - the catastrophic pattern `(a+)+$` against 30,000 characters (linear-time engine), and, with
//!   backtracking allowed, the lookahead pattern `(?=a)(a+)+$`, whose time grows with the
//!   square of the string;
//! - compiling a 100,000-property schema, and refusing a "billion laughs";
//! - converting a tool with 100,000 optional properties, and one with a `oneOf` of 100,000
//!   branches, to every provider profile (linear: each under a second; OpenAI strict refuses
//!   the first after the walk, beyond its documented 5,000 properties).
//!
//! Run with `cargo bench -p toolmodel --bench hostile`.

use std::{
    fmt::Write as _,
    hint::black_box,
    time::{Duration, Instant},
};

use serde_json::{Map, Value, json};
use toolmodel::{
    DefaultValidator, SchemaValidator, Tool, ToolSchema,
    adapters::{ConvertOptions, Profile, Target, convert},
    validate::ValidationLimits,
};

/// The best of `runs` timings of `f`.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// An arguments document of about `megabytes` MB: `{"rows": [...]}`.
fn arguments_text(megabytes: usize) -> (String, usize) {
    let mut text = String::from("{\"rows\": [");
    let mut rows = 0usize;
    while text.len() < megabytes << 20 {
        if rows > 0 {
            text.push(',');
        }
        let _ = write!(
            text,
            r#"{{"id": {rows}, "name": "row number {rows} of the document", "tags": ["alpha", "beta"], "score": {}.5}}"#,
            rows % 1000
        );
        rows += 1;
    }
    text.push_str("]}");
    (text, rows)
}

fn large_arguments() {
    let tool = Tool::new(
        "rows",
        ToolSchema::try_from(json!({
            "type": "object",
            "properties": {"rows": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "minimum": 0},
                    "name": {"type": "string", "maxLength": 64},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "score": {"type": "number"}
                },
                "required": ["id", "name"],
                "additionalProperties": false
            }}},
            "required": ["rows"]
        }))
        .unwrap_or_else(|_| unreachable!()),
    );
    let validator = DefaultValidator::new();
    for megabytes in [5, 25, 50] {
        let (text, rows) = arguments_text(megabytes);
        let size = text.len() as f64 / f64::from(1 << 20);
        let parse = best(3, || serde_json::from_str::<Value>(&text).map(|_| ()));
        let mut arguments: Value = serde_json::from_str(&text).unwrap_or_default();
        let valid = best(5, || validator.validate_arguments(&tool, &arguments));
        assert!(validator.validate_arguments(&tool, &arguments).is_ok());
        arguments["rows"][rows / 2]["id"] = json!(-1);
        let invalid = best(5, || validator.validate_arguments(&tool, &arguments));
        println!(
            "arguments {size:5.1} MB ({rows} rows): validate valid {:7.1} ms = {:5.2} ms/MB, one bad row {:7.1} ms = {:5.2} ms/MB (serde_json parse {:6.2} ms/MB)",
            ms(valid),
            ms(valid) / size,
            ms(invalid),
            ms(invalid) / size,
            ms(parse) / size
        );
    }
}

fn tool_text() {
    let properties: Map<String, Value> = (0..20_000)
        .map(|i| {
            (
                format!("property_{i}"),
                json!({"type": "string", "description": format!("The property number {i}"), "maxLength": 64}),
            )
        })
        .collect();
    let text = json!({"name": "wide", "inputSchema": {"type": "object", "properties": properties}})
        .to_string();
    let size = text.len() as f64 / f64::from(1 << 20);
    let plain = best(5, || serde_json::from_str::<Value>(&text).map(|_| ()));
    let tool = best(5, || Tool::from_mcp_str(&text).map(|_| ()));
    println!(
        "tool text {size:4.1} MB: Tool::from_mcp_str {:6.2} ms/MB, serde_json::from_str::<Value> {:6.2} ms/MB (ratio {:.2})",
        ms(tool) / size,
        ms(plain) / size,
        ms(tool) / ms(plain)
    );
}

fn patterns() {
    let linear = DefaultValidator::new();
    let compiled = linear
        .compile(&json!({"type": "string", "pattern": "(a+)+$"}))
        .unwrap_or_else(|_| unreachable!());
    let mut subject = "a".repeat(30_000);
    subject.push('!');
    let subject = Value::String(subject);
    let time = best(5, || compiled.validate(&subject).is_err());
    println!(
        "pattern (a+)+$ against 30,000 characters, linear-time engine: {:.3} ms",
        ms(time)
    );
    let mut limits = ValidationLimits::default();
    limits.pattern_backtrack_limit = Some(1_000_000);
    let backtracking = DefaultValidator::new().with_limits(limits);
    let compiled = backtracking
        .compile(&json!({"type": "string", "pattern": "(?=a)(a+)+$"}))
        .unwrap_or_else(|_| unreachable!());
    for length in [1_000, 2_000, 4_000, 8_000] {
        let mut subject = "a".repeat(length);
        subject.push('!');
        let subject = Value::String(subject);
        let time = best(3, || compiled.validate(&subject).is_err());
        println!(
            "pattern (?=a)(a+)+$ against {length:5} characters, backtracking allowed: {:8.2} ms",
            ms(time)
        );
    }
}

fn schemas() {
    let properties: Map<String, Value> = (0..100_000)
        .map(|i| (format!("p{i}"), json!({"type": "integer", "minimum": 0})))
        .collect();
    let schema = json!({"type": "object", "properties": properties});
    let validator = DefaultValidator::new();
    let time = best(3, || validator.compile(&schema).is_ok());
    println!("compile a 100,000-property schema: {:.1} ms", ms(time));
    let mut defs = Map::new();
    for k in 0..40 {
        let next = format!("#/$defs/a{}", k + 1);
        defs.insert(
            format!("a{k}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert("a40".into(), json!({"type": "integer"}));
    let laughs = json!({"$defs": defs, "$ref": "#/$defs/a0"});
    let time = best(5, || validator.compile(&laughs).is_err());
    println!(
        "refuse a billion laughs (40 levels, 2^40 expanded): {:.3} ms",
        ms(time)
    );
}

fn conversions() {
    let properties: Map<String, Value> = (0..100_000)
        .map(|i| {
            let schema = match i % 3 {
                0 => json!({"type": "string", "description": format!("Property {i}"), "minLength": 1}),
                1 => json!({"type": ["integer", "null"], "minimum": 0, "default": 3}),
                _ => json!({"type": "string", "enum": ["a", "b"]}),
            };
            (format!("p{i}"), schema)
        })
        .collect();
    let wide = Tool::new(
        "wide",
        ToolSchema::try_from(json!({"type": "object", "properties": properties}))
            .unwrap_or_else(|_| unreachable!()),
    );
    let branches: Vec<Value> = (0..100_000)
        .map(|i| json!({"type": "object", "properties": {"kind": {"const": i}}, "required": ["kind"], "additionalProperties": false}))
        .collect();
    let union = Tool::new(
        "union",
        ToolSchema::try_from(
            json!({"type": "object", "properties": {"v": {"oneOf": branches}}, "required": ["v"]}),
        )
        .unwrap_or_else(|_| unreachable!()),
    );
    let profiles = [
        Profile::plain(Target::OpenAiChat),
        Profile::strict(Target::OpenAiChat),
        Profile::plain(Target::Anthropic),
        Profile::strict(Target::Anthropic),
        Profile::plain(Target::Gemini),
    ];
    for (what, tool) in [
        ("100,000 properties", &wide),
        ("a oneOf of 100,000 branches", &union),
    ] {
        for profile in profiles {
            let options = ConvertOptions::default().with_strict(profile.strict);
            let outcome = match convert(tool, profile.target, &options) {
                Ok(out) => format!("converted, {} warnings", out.warnings.len()),
                Err(err) => {
                    let text = err.to_string();
                    format!("refused: {}", text.get(..90).unwrap_or(&text))
                }
            };
            let time = best(3, || convert(tool, profile.target, &options));
            println!(
                "convert {what} to {profile:<16}: {:7.1} ms ({outcome})",
                ms(time)
            );
        }
    }
}

fn main() {
    conversions();
    large_arguments();
    tool_text();
    patterns();
    schemas();
}
