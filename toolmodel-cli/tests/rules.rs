//! Property tests of the library behind the `toolmodel` command: the reader never panics and
//! places syntax errors inside the text; duplicate names are found exactly within a server.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolmodel::DefaultValidator;
use toolmodel_cli::{
    Error,
    input::parse_document,
    lint::{Kind, LintOptions, lint_document},
};

const SAMPLE: &str = r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [
  {"name": "search", "description": "Find things",
   "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
  {"name": "fetch", "inputSchema": {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}}}
]}}"#;

/// Checks where a syntax error says it is: a real line of the text, a column within it.
fn assert_inside(text: &[u8], err: &Error) {
    if let Error::Syntax { line, column, .. } = err {
        let lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
        assert!(
            *line >= 1 && *line <= lines.len(),
            "line {line} of {}",
            lines.len()
        );
        assert!(*column <= lines[*line - 1].len() + 1, "column {column}");
    }
}

proptest! {
    #[test]
    fn any_bytes_are_read_or_rejected_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        match parse_document("fuzz.json", &bytes) {
            Ok(document) => prop_assert_eq!(document.path, "fuzz.json"),
            Err(err) => {
                assert_inside(&bytes, &err);
                prop_assert!(err.to_string().starts_with("fuzz.json"));
            }
        }
    }

    #[test]
    fn every_truncation_is_a_syntax_error_inside_the_text(cut in 0..SAMPLE.len()) {
        let text = &SAMPLE.as_bytes()[..cut];
        let err = parse_document("cut.json", text).unwrap_err();
        prop_assert!(matches!(err, Error::Syntax { .. }), "{err}");
        assert_inside(text, &err);
    }

    #[test]
    fn mutated_documents_never_panic(index in 0..SAMPLE.len(), byte in any::<u8>()) {
        let mut bytes = SAMPLE.as_bytes().to_vec();
        bytes[index] = byte;
        if let Err(err) = parse_document("m.json", &bytes) {
            assert_inside(&bytes, &err);
        }
    }

    #[test]
    fn duplicate_names_are_reported_within_each_server_only(
        servers in proptest::collection::vec(proptest::collection::vec(0u8..4, 0..6), 1..4)
    ) {
        // Server i holds tools named "t<n>"; expected: every repeat of a name within a server.
        let mut expected = 0;
        let mut document = Vec::new();
        for (i, names) in servers.iter().enumerate() {
            let mut seen = Vec::new();
            let tools: Vec<Value> = names.iter().map(|n| {
                if seen.contains(n) { expected += 1 } else { seen.push(*n) }
                json!({"name": format!("t{n}"), "inputSchema": {"type": "object"}})
            }).collect();
            document.push(json!({"name": format!("server{i}"), "tools": {format!("s{i}"): {"tools": tools}}}));
        }
        let text = serde_json::to_vec(&document).unwrap();
        let parsed = parse_document("servers.json", &text).unwrap();
        let mut options = LintOptions::default();
        options.profiles.clear();
        let reports = lint_document(&parsed, &options, &DefaultValidator::new());
        let found = reports.iter().flat_map(|r| &r.errors).filter(|f| f.kind == Kind::DuplicateName).count();
        prop_assert_eq!(found, expected);
        prop_assert!(reports.iter().flat_map(|r| &r.errors).all(|f| f.kind == Kind::DuplicateName));
    }
}
