//! The index's rules, and its BM25 checked against the `bm25` crate's.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::ToolSchema;

fn tool(name: &str, description: &str) -> Tool {
    let mut tool = Tool::new(name, ToolSchema::empty_object());
    tool.description = Some(description.to_owned());
    tool
}

fn names<'a>(hits: &[SearchHit<'a>]) -> Vec<&'a str> {
    hits.iter().map(|hit| hit.tool.name.as_str()).collect()
}

/// The crate's tokenizer, handed to the `bm25` crate so that both index the same terms.
#[derive(Default)]
struct Terms;

impl ::bm25::Tokenizer for Terms {
    fn tokenize(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokenize::terms(text, &mut |term| out.push(term.to_owned()));
        out
    }
}

const WORDS: [&str; 10] = [
    "river", "mountain", "forest", "desert", "ocean", "valley", "island", "canyon", "glacier",
    "meadow",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// For tools whose only searched field besides their name is the description, and queries
    /// that name no tool, the scores are those of the `bm25` crate's embedder and scorer with
    /// the same `k1`, `b`, average length and terms.
    #[test]
    fn scores_are_the_bm25_crates_for_one_field_tools(
        descriptions in proptest::collection::vec(proptest::collection::vec(0..WORDS.len(), 1..12), 2..20),
        query in proptest::collection::btree_set(0..WORDS.len(), 1..4),
    ) {
        let texts: Vec<String> = descriptions
            .iter()
            .map(|words| words.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" "))
            .collect();
        let tools: Vec<Tool> =
            texts.iter().enumerate().map(|(i, text)| tool(&format!("t{i}"), text)).collect();
        let index = ToolIndex::from_tools(&tools);
        let query: String = query.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" ");
        let ours = index.search(&query, usize::MAX).unwrap();

        let average =
            texts.iter().map(|t| t.split(' ').count()).sum::<usize>() as f32 / texts.len() as f32;
        let embedder = ::bm25::EmbedderBuilder::<u32, Terms>::with_avgdl(average)
            .k1(0.9)
            .b(0.4)
            .tokenizer(Terms)
            .build();
        let mut scorer = ::bm25::Scorer::<usize>::new();
        for (i, text) in texts.iter().enumerate() {
            scorer.upsert(&i, embedder.embed(text));
        }
        let theirs = scorer.matches(&embedder.embed(&query));

        prop_assert_eq!(ours.len(), theirs.len());
        for hit in &ours {
            let i: usize = hit.tool.name[1..].parse().unwrap();
            let expected = theirs.iter().find(|s| s.id == i).unwrap().score;
            prop_assert!((hit.score - expected).abs() <= 1e-4 * expected.max(1.0),
                "{}: ours {} theirs {}", hit.tool.name, hit.score, expected);
        }
    }

    /// Whatever the text, a search returns at most `limit` tools, best first, each once, or
    /// a typed error; it never panics.
    #[test]
    fn any_query_is_answered_or_refused(query in "\\PC{0,300}", limit in 0usize..8) {
        let index = ToolIndex::from_tools(&[
            tool("get_weather", "Current weather for a city"),
            tool("天気予報", "今日の天気"),
            tool("create_issue", "Open an issue"),
        ]);
        match index.search(&query, limit) {
            Ok(hits) => {
                prop_assert!(hits.len() <= limit);
                prop_assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
                let mut seen = names(&hits);
                seen.sort_unstable();
                seen.dedup();
                prop_assert_eq!(seen.len(), hits.len());
            }
            Err(Error::SearchQuery(QueryError::Empty)) => prop_assert!(query.trim().is_empty()),
            Err(other) => prop_assert!(false, "unexpected {other}"),
        }
    }
}

#[test]
fn a_tool_is_found_by_each_of_its_fields() {
    let mut t = Tool::new(
        "notes.searchNotes",
        ToolSchema::new(
            json!({"type": "object", "properties": {
                "folder": {"type": "string", "description": "Notebook to look in"},
                "sort": {"type": "string", "enum": ["newest", "oldest"]},
                "filter": {"type": "object", "properties": {"hashtag": {"type": "string"}}}
            }})
            .as_object()
            .unwrap()
            .clone(),
        ),
    );
    t.title = Some("Jotter lookup".into());
    t.description = Some("Full-text search over saved memos".into());
    t.tags = vec!["productivity".into()];
    t.category = Some("personal".into());
    let other = tool("get_weather", "Current weather for a city");
    let mut index = ToolIndex::from_tools([&other]);
    index.upsert_from(
        &t,
        &Server {
            name: "Evernote",
            description: Some("Cloud notebooks"),
        },
    );
    for query in [
        "search",
        "notes",
        "jotter",
        "memos",
        "folder",
        "notebook",
        "oldest",
        "hashtag",
        "productivity",
        "personal",
        "evernote",
        "cloud",
    ] {
        let hits = index.search(query, 5).unwrap();
        assert_eq!(names(&hits), ["notes.searchNotes"], "query {query:?}");
    }
}

#[test]
fn cjk_descriptions_are_found_by_cjk_queries() {
    let index = ToolIndex::from_tools(&[
        tool("weather", "都市の天気予報を返す"),
        tool("stock", "株価を調べる"),
        tool("translate", "번역: 한국어를 영어로"),
        tool("ticket", "订购火车票"),
    ]);
    assert_eq!(
        names(&index.search("明日の天気は？", 5).unwrap())[0],
        "weather"
    );
    assert_eq!(
        names(&index.search("한국어 번역", 5).unwrap())[0],
        "translate"
    );
    assert_eq!(
        names(&index.search("我想买一张火车票", 5).unwrap())[0],
        "ticket"
    );
}

/// A ranker that counts the tools it is handed.
struct Counting(Bm25, Arc<AtomicUsize>);

impl Ranker for Counting {
    fn upsert(&mut self, key: u32, document: &Document<'_>) {
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.upsert(key, document);
    }
    fn upsert_all(&mut self, documents: &[(u32, Document<'_>)]) {
        self.1.fetch_add(documents.len(), Ordering::Relaxed);
        self.0.upsert_all(documents);
    }
    fn remove(&mut self, key: u32) {
        self.0.remove(key);
    }
    fn rank(&self, query: &Query<'_>, limit: usize) -> Vec<(u32, f32)> {
        self.0.rank(query, limit)
    }
}

#[test]
fn sync_reindexes_only_what_changed() {
    let embedded = Arc::new(AtomicUsize::new(0));
    let mut index = ToolIndex::with_ranker(Counting(Bm25::new(), Arc::clone(&embedded)));
    let mut tools: Vec<Tool> = (0..100)
        .map(|i| tool(&format!("tool_{i}"), &format!("does thing number {i}")))
        .collect();
    let report = index.sync(&tools);
    assert_eq!(
        report,
        SyncReport {
            added: 100,
            ..SyncReport::default()
        }
    );
    assert_eq!(embedded.swap(0, Ordering::Relaxed), 100);

    // One description changes, one tool goes, one comes, one changes only its schema.
    tools[3].description = Some("forecasts the weather".into());
    tools[10].input_schema = ToolSchema::new(
        json!({"type": "object", "minProperties": 1})
            .as_object()
            .unwrap()
            .clone(),
    );
    tools.remove(7);
    tools.push(tool("brand_new", "translates text"));
    let report = index.sync(&tools);
    assert_eq!(
        report,
        SyncReport {
            added: 1,
            reindexed: 1,
            unchanged: 98,
            removed: 1
        }
    );
    assert_eq!(embedded.load(Ordering::Relaxed), 2);
    assert_eq!(index.len(), 100);
    assert_eq!(names(&index.search("weather", 5).unwrap()), ["tool_3"]);
    assert_eq!(names(&index.search("translate", 5).unwrap()), ["brand_new"]);
    assert!(index.get("tool_7").is_none());
    // The stored definition is the new one even when its searched text did not change.
    assert_eq!(
        index
            .get("tool_10")
            .unwrap()
            .input_schema
            .get("minProperties"),
        Some(&json!(1))
    );
}

#[test]
fn removed_tools_are_never_found_and_their_keys_are_reused() {
    let mut index = ToolIndex::new();
    assert_eq!(index.upsert(&tool("a_tool", "alpha river")), Change::Added);
    assert_eq!(index.upsert(&tool("b_tool", "beta river")), Change::Added);
    assert_eq!(
        index.upsert(&tool("b_tool", "beta river")),
        Change::Unchanged
    );
    assert!(index.remove("a_tool"));
    assert!(!index.remove("a_tool"));
    assert_eq!(names(&index.search("alpha river", 5).unwrap()), ["b_tool"]);
    assert_eq!(index.upsert(&tool("c_tool", "gamma river")), Change::Added);
    assert_eq!(
        index.upsert(&tool("c_tool", "delta river")),
        Change::Reindexed
    );
    assert_eq!(names(&index.search("delta", 5).unwrap()), ["c_tool"]);
    assert!(index.search("gamma", 5).unwrap().is_empty());
    assert_eq!(index.entries.len(), 2, "the removed tool's key was reused");
}

#[test]
fn equal_scores_come_by_name_and_limit_is_kept() {
    let tools: Vec<Tool> = ["zeta", "alpha", "mid"]
        .iter()
        .map(|n| tool(n, "same words here"))
        .collect();
    let index = ToolIndex::from_tools(&tools);
    assert_eq!(
        names(&index.search("same words", 5).unwrap()),
        ["alpha", "mid", "zeta"]
    );
    assert_eq!(
        names(&index.search("same words", 2).unwrap()),
        ["alpha", "mid"]
    );
    assert!(index.search("same words", 0).unwrap().is_empty());
}

#[test]
fn the_name_decides_between_equal_descriptions() {
    let index = ToolIndex::from_tools(&[
        tool("todo", "manage a list"),
        tool("todo_update", "manage a list"),
    ]);
    assert_eq!(
        names(&index.search("add to my todo list", 5).unwrap()),
        ["todo", "todo_update"]
    );
}

#[test]
fn bad_queries_are_refused_at_once() {
    let index = ToolIndex::from_tools(&[tool("get_weather", "Current weather")]);
    assert_eq!(
        index.search("", 5).unwrap_err(),
        Error::SearchQuery(QueryError::Empty)
    );
    assert_eq!(
        index.search(" \n\t ", 5).unwrap_err(),
        Error::SearchQuery(QueryError::Empty)
    );

    let long = "weather ".repeat(12_500); // 100,000 bytes
    let started = Instant::now();
    let err = index.search(&long, 5).unwrap_err();
    assert_eq!(
        err,
        Error::SearchQuery(QueryError::TooLong {
            bytes: 100_000,
            max: MAX_QUERY_BYTES
        })
    );
    assert!(err.to_string().contains("100000 bytes"), "{err}");

    let many: String = (0..10_000).map(|i| format!("w{i} ")).collect::<String>();
    let many = &many[..MAX_QUERY_BYTES.min(many.len())];
    let err = index.search(many, 5).unwrap_err();
    assert_eq!(
        err,
        Error::SearchQuery(QueryError::TooManyTerms {
            terms: MAX_QUERY_TERMS + 1,
            max: MAX_QUERY_TERMS
        })
    );
    assert!(
        started.elapsed().as_millis() < 1_000,
        "refusing took {:?}",
        started.elapsed()
    );

    // Only stop words and numbers: valid, and nothing matches.
    assert!(index.search("what is 2 + 2?", 5).unwrap().is_empty());
}

#[test]
fn a_schema_with_ten_thousand_properties_is_read_up_to_the_limit() {
    let properties: serde_json::Map<String, serde_json::Value> = (0..10_000)
        .map(|i| (format!("field{i}"), json!({"type": "string"})))
        .collect();
    let schema = json!({"type": "object", "properties": properties});
    let wide = Tool::new("wide", ToolSchema::new(schema.as_object().unwrap().clone()));
    let index = ToolIndex::from_tools([&wide]);
    assert_eq!(names(&index.search("field0", 5).unwrap()), ["wide"]);
    assert!(index.search("field9999", 5).unwrap().is_empty());
}

#[test]
fn a_toolbox_is_searched_by_its_served_names() {
    use crate::{CallToolResult, Toolbox};
    let mut weather = tool("forecast", "Weather forecast for a city");
    weather.namespace = Some("meteo".into());
    let toolbox = Toolbox::builder()
        .with_tool(weather, |_args, _cx| async {
            Ok(CallToolResult::text("sunny"))
        })
        .with_tool(tool("add", "Add two numbers"), |_args, _cx| async {
            Ok(CallToolResult::text("3"))
        })
        .build()
        .unwrap();
    let hits = toolbox
        .search("will it rain tomorrow? weather please", 5)
        .unwrap();
    assert_eq!(names(&hits), ["meteo.forecast"]);
    assert!(
        std::ptr::eq(toolbox.search_index(), toolbox.search_index()),
        "built once"
    );
}
