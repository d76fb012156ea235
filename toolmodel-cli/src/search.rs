//! `toolmodel search`: the tools of a catalog that fit a request, best first
//! ([`toolmodel::search::ToolIndex`]), for one query (`--query`) or a file of them
//! (`--queries`, JSON Lines), from files or from the live tools of a gateway configuration
//! (`--config`).
//!
//! The catalog files are read as `lint`, `convert` and `validate` read them
//! ([`input::read_all`]: every document shape, folders, `-`). Every
//! query is checked before anything is searched ([`parse_queries`], then
//! [`Query::new`]): a line that is not JSON is reported at `FILE:LINE:COLUMN`, a line of the
//! wrong shape at `FILE:LINE#POINTER`, an empty or oversized query at `FILE:LINE` (or
//! `--query`), all of them at once, and nothing is searched.

use std::{
    collections::HashMap,
    io::{self, Write},
    path::Path,
};

use serde_json::Value;
use toolmodel::{
    Tool, Toolbox,
    search::{Query, QueryError, SearchHit, ToolIndex},
};
use toolmodel_rmcp::federation::Federation;

use crate::cli::{Format, SearchArgs};
use crate::input::{self, Document, STDIN};
use crate::lint;
use crate::report::clip;
use crate::status::Status;
use crate::text::{about_file, shorten, tool_label};

/// Characters of a tool's description shown after its name in the text format.
const DESCRIPTION_MAX: usize = 100;

/// Characters of a query shown above its tools in the text format.
const QUERY_MAX: usize = 100;

/// Names defined more than once that the warning names with their places.
const DUPLICATES_SHOWN: usize = 5;

/// Why the queries cannot be searched: each names where the query is, `FILE:LINE` of the
/// queries file (with the column or the JSON Pointer of the mistake) or `--query`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueriesError {
    /// The queries file cannot be read ([`Error::Io`](crate::Error::Io), naming it).
    #[error(transparent)]
    Read(Box<crate::Error>),

    /// A line of the queries file is not one JSON value (malformed, truncated, a repeated key,
    /// two values on one line, invalid UTF-8).
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        /// The queries file.
        path: String,
        /// 1-based line in the file.
        line: usize,
        /// Column on that line, as `serde_json` counts.
        column: usize,
        /// What is wrong.
        message: String,
    },

    /// A line is JSON but not `{"id": ..., "query": "..."}`.
    #[error("{path}:{line}#{pointer}: {message}")]
    Shape {
        /// The queries file.
        path: String,
        /// 1-based line in the file.
        line: usize,
        /// JSON Pointer of the wrong value in the line's object (`""`: the whole line).
        pointer: String,
        /// What was expected there.
        message: String,
    },

    /// A query that cannot be searched: empty or whitespace, or past the limits of
    /// [`toolmodel::search`].
    #[error("{origin}: {source}")]
    Query {
        /// `FILE:LINE`, or `--query`.
        origin: String,
        /// Why, from [`Query::new`].
        #[source]
        source: QueryError,
    },

    /// The queries file holds no query (only blank lines).
    #[error(
        "{path}: no queries: write one JSON object a line, {{\"id\": ..., \"query\": \"...\"}}"
    )]
    NoQueries {
        /// The queries file.
        path: String,
    },

    /// Standard input named twice (`-` as a catalog and `--queries -`).
    #[error("standard input can be read only once: `-` as a catalog and `--queries -` together")]
    StdinTwice,
}

/// One query to search, as read from `--query` or a line of `--queries`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct QueryLine {
    /// Its `"id"` as written (any JSON value; `null` when the line has none, and for
    /// `--query`).
    pub id: Value,
    /// Its `"query"` text.
    pub text: String,
    /// Where it is: `FILE:LINE`, or `--query`.
    pub origin: String,
}

/// Runs `toolmodel search`: checks every query, reads the catalog (files, or with `--config`
/// the live tools of the configuration's servers, started and stopped as `toolmodel tools
/// --config` does), searches it, and writes each query's tools, best first, to `out`: in the
/// text format a numbered line per tool (name, score, description), in the JSON format one
/// line per query, `{"id": ..., "tools": [names], "scores": [numbers]}`.
///
/// Returns [`Status::Failure`], having searched nothing, when a query or the catalog cannot be
/// used (every problem written to `errors`: a queries line that is not JSON or not
/// `{"id", "query"}`, an empty query, a catalog file that cannot be read, a tool object that
/// cannot be read); [`Status::Findings`] when a server of `--config` is unavailable (its tools
/// are then not searched); [`Status::Clean`] otherwise, whether or not a query found tools.
///
/// # Errors
///
/// Writing failed, or (`--config`) no tokio runtime could be built.
pub fn run(args: &SearchArgs, out: &mut dyn Write, errors: &mut dyn Write) -> io::Result<Status> {
    let lines = match query_lines(args) {
        Ok(lines) => lines,
        Err(list) => return write_errors(errors, list),
    };
    let checked = match check(&lines) {
        Ok(checked) => checked,
        Err(list) => return write_errors(errors, list),
    };
    let (catalog, status) = match &args.config {
        Some(config) => match live_catalog(config, errors)? {
            Some((toolbox, status)) => (Catalog::Live(toolbox), status),
            None => return Ok(Status::Failure),
        },
        None => match file_catalog(&args.paths, errors)? {
            Some(index) => (Catalog::Files(Box::new(index)), Status::Clean),
            None => return Ok(Status::Failure),
        },
    };
    let headed = args.queries.is_some();
    for (index, (line, query)) in lines.iter().zip(&checked).enumerate() {
        let hits = catalog.search(query, args.limit);
        match args.format {
            Format::Json => write_json(out, line, &hits)?,
            Format::Text => {
                if headed && index > 0 {
                    writeln!(out)?;
                }
                write_text(out, line, &hits, headed)?;
            }
        }
    }
    Ok(status)
}

/// Writes each error as `error: ...`; [`Status::Failure`].
fn write_errors(errors: &mut dyn Write, list: Vec<QueriesError>) -> io::Result<Status> {
    for err in list {
        writeln!(errors, "error: {err}")?;
    }
    Ok(Status::Failure)
}

/// The queries of `--query` or `--queries`, unchecked.
fn query_lines(args: &SearchArgs) -> Result<Vec<QueryLine>, Vec<QueriesError>> {
    match (&args.query, &args.queries) {
        (Some(text), _) => Ok(vec![QueryLine {
            id: Value::Null,
            text: text.clone(),
            origin: "--query".to_owned(),
        }]),
        (None, Some(path)) => {
            if path.as_os_str() == STDIN && args.paths.iter().any(|p| p.as_os_str() == STDIN) {
                return Err(vec![QueriesError::StdinTwice]);
            }
            let bytes =
                input::read_bytes(path).map_err(|err| vec![QueriesError::Read(Box::new(err))])?;
            parse_queries(&input::label(path), &bytes)
        }
        // clap requires one of the two.
        (None, None) => Ok(Vec::new()),
    }
}

/// Each line's query checked and cut into terms ([`Query::new`]); every problem, at its
/// origin, when there is one.
fn check(lines: &[QueryLine]) -> Result<Vec<Query<'_>>, Vec<QueriesError>> {
    let mut checked = Vec::with_capacity(lines.len());
    let mut problems = Vec::new();
    for line in lines {
        match Query::new(&line.text) {
            Ok(query) => checked.push(query),
            Err(source) => problems.push(QueriesError::Query {
                origin: line.origin.clone(),
                source,
            }),
        }
    }
    if problems.is_empty() {
        Ok(checked)
    } else {
        Err(problems)
    }
}

/// Reads a queries file: JSON Lines, each line an object `{"id": ..., "query": "..."}` (`id`
/// any JSON value, optional; other keys ignored, so a file of queries with their expected
/// tools can be searched as it is). Blank lines are skipped; a UTF-8 byte order mark at the
/// start is too. `label` names the file in errors. The query texts are not checked here (see
/// [`Query::new`]). Never panics, on any bytes.
///
/// # Errors
///
/// Every line that is not JSON ([`QueriesError::Syntax`], at its line and column) or not such
/// an object ([`QueriesError::Shape`], at its line and the JSON Pointer of the wrong value),
/// in order; [`QueriesError::NoQueries`] when no line holds a query.
///
/// # Examples
///
/// ```
/// use toolmodel_cli::search::parse_queries;
///
/// let queries = parse_queries("q.jsonl", b"{\"id\": 1, \"query\": \"weather in Paris\"}\n\n{\"query\": \"open an issue\"}\n")?;
/// assert_eq!(queries[1].text, "open an issue");
/// assert_eq!(queries[1].origin, "q.jsonl:3");
/// assert!(queries[1].id.is_null());
///
/// let errors = parse_queries("q.jsonl", b"{\"query\": \"a\"}\n{\"query\": 5}\n{\"query\": \"b\"\n").unwrap_err();
/// assert_eq!(errors[0].to_string(), "q.jsonl:2#/query: expected a string, found 5");
/// assert_eq!(errors[1].to_string(), "q.jsonl:3:13: EOF while parsing an object");
/// # Ok::<(), Vec<toolmodel_cli::search::QueriesError>>(())
/// ```
pub fn parse_queries(label: &str, bytes: &[u8]) -> Result<Vec<QueryLine>, Vec<QueriesError>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut queries = Vec::new();
    let mut problems = Vec::new();
    for (index, line) in bytes.split(|&byte| byte == b'\n').enumerate() {
        let number = index + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_line(label, number, line) {
            Ok(query) => queries.push(query),
            Err(err) => problems.push(err),
        }
    }
    if queries.is_empty() && problems.is_empty() {
        problems.push(QueriesError::NoQueries {
            path: label.to_owned(),
        });
    }
    if problems.is_empty() {
        Ok(queries)
    } else {
        Err(problems)
    }
}

/// One non-blank line of a queries file.
fn parse_line(label: &str, number: usize, line: &[u8]) -> Result<QueryLine, QueriesError> {
    let shape = |pointer: &str, message: String| QueriesError::Shape {
        path: label.to_owned(),
        line: number,
        pointer: pointer.to_owned(),
        message,
    };
    let value = toolmodel::wire::catalog::parse_slice(line).map_err(|err| match err {
        toolmodel::Error::Json {
            column, message, ..
        } => {
            let suffix = format!(" at line 1 column {column}");
            let mut message = message.strip_suffix(&suffix).unwrap_or(&message).to_owned();
            if message == "trailing characters" {
                message.push_str(": a line holds one JSON object");
            }
            QueriesError::Syntax {
                path: label.to_owned(),
                line: number,
                column,
                message,
            }
        }
        other => shape("", other.to_string()),
    })?;
    let Value::Object(mut object) = value else {
        return Err(shape(
            "",
            format!(
                "expected an object {{\"id\": ..., \"query\": \"...\"}}, found {}",
                clip(&shorten(&value.to_string(), 60))
            ),
        ));
    };
    let text = match object.remove("query") {
        Some(Value::String(text)) => text,
        Some(other) => {
            return Err(shape(
                "/query",
                format!(
                    "expected a string, found {}",
                    clip(&shorten(&other.to_string(), 60))
                ),
            ));
        }
        None => {
            return Err(shape(
                "",
                "no \"query\": each line is {\"id\": ..., \"query\": \"...\"}".to_owned(),
            ));
        }
    };
    Ok(QueryLine {
        id: object.remove("id").unwrap_or(Value::Null),
        text,
        origin: format!("{label}:{number}"),
    })
}

/// What is searched: the tools of files, or a configuration's live toolbox.
enum Catalog {
    Files(Box<ToolIndex>),
    Live(Toolbox),
}

impl Catalog {
    fn search(&self, query: &Query<'_>, limit: usize) -> Vec<SearchHit<'_>> {
        match self {
            Self::Files(index) => index.search_query(query, limit),
            Self::Live(toolbox) => toolbox.search_index().search_query(query, limit),
        }
    }
}

/// The index of every tool of the files; `None` when a file or a tool object cannot be read
/// (each written to `errors`, as `convert` writes them). A name met twice is a warning naming
/// its places: the later definition is searched.
fn file_catalog(
    paths: &[std::path::PathBuf],
    errors: &mut dyn Write,
) -> io::Result<Option<ToolIndex>> {
    let documents = match input::read_all(paths) {
        Ok(documents) => documents,
        Err(list) => {
            for err in list {
                writeln!(errors, "error: {err}")?;
            }
            return Ok(None);
        }
    };
    let Some(tools) = readable_tools(&documents, errors)? else {
        return Ok(None);
    };
    Ok(Some(ToolIndex::from_tools(tools)))
}

/// Every tool of the documents, in order; `None` when one cannot be read. Names defined more
/// than once are one warning, naming the first [`DUPLICATES_SHOWN`] with their places.
fn readable_tools<'a>(
    documents: &'a [Document],
    errors: &mut dyn Write,
) -> io::Result<Option<Vec<&'a Tool>>> {
    let mut tools = Vec::new();
    let mut places: HashMap<&str, Vec<String>> = HashMap::new();
    let mut duplicated: Vec<&str> = Vec::new();
    let mut readable = true;
    for document in documents {
        for entry in &document.entries {
            match &entry.tool {
                Ok(tool) => {
                    let seen = places.entry(&tool.name).or_default();
                    seen.push(entry.location(document));
                    if seen.len() == 2 {
                        duplicated.push(&tool.name);
                    }
                    tools.push(tool);
                }
                Err(err) => {
                    lint::write_unreadable(errors, document, entry, err)?;
                    readable = false;
                }
            }
        }
    }
    if readable && !duplicated.is_empty() {
        let shown: Vec<String> = duplicated
            .iter()
            .take(DUPLICATES_SHOWN)
            .map(|name| format!("{} ({})", tool_label(Some(name)), places[name].join(", ")))
            .collect();
        let more = duplicated.len().saturating_sub(DUPLICATES_SHOWN);
        writeln!(
            errors,
            "warning: {} tool names are defined more than once; the last definition of each is searched: {}{}",
            duplicated.len(),
            shown.join("; "),
            if more > 0 {
                format!("; and {more} more")
            } else {
                String::new()
            }
        )?;
    }
    Ok(readable.then_some(tools))
}

/// The live toolbox of the configuration's servers (started, listed, stopped), and
/// [`Status::Findings`] when one of them is unavailable (each server's state is a line on
/// `errors`, as `toolmodel tools` writes it); `None` when the configuration cannot be used or
/// the servers cannot be started.
fn live_catalog(config: &Path, errors: &mut dyn Write) -> io::Result<Option<(Toolbox, Status)>> {
    let Some((federation_config, runtime)) = crate::live::prepare(config, errors)? else {
        return Ok(None);
    };
    let live = runtime.block_on(async {
        let federation = Federation::start(federation_config).await?;
        let statuses = federation.status().await;
        let toolbox = federation.toolbox();
        federation.shutdown().await;
        Ok::<_, toolmodel_rmcp::Error>((statuses, toolbox))
    });
    let (statuses, toolbox) = match live {
        Ok(live) => live,
        Err(err) => {
            writeln!(errors, "error: {}", about_file(config, &err))?;
            return Ok(None);
        }
    };
    let mut status = Status::Clean;
    for server in &statuses {
        crate::live::write_status(errors, server)?;
        if !server.session.is_open() {
            status = Status::Findings;
        }
    }
    Ok(Some((toolbox, status)))
}

/// One query's line of the JSON format.
#[derive(serde::Serialize)]
struct JsonLine<'a> {
    id: &'a Value,
    tools: Vec<&'a str>,
    /// `f32`s serialized as such: `7.020087`, not the `7.020087242126465` of a widened `f64`.
    scores: Vec<f32>,
}

fn write_json(out: &mut dyn Write, query: &QueryLine, hits: &[SearchHit<'_>]) -> io::Result<()> {
    let line = JsonLine {
        id: &query.id,
        tools: hits.iter().map(|hit| hit.tool.name.as_str()).collect(),
        scores: hits.iter().map(|hit| hit.score).collect(),
    };
    serde_json::to_writer(&mut *out, &line)?;
    writeln!(out)
}

/// One query's tools in the text format, numbered, names aligned: `N. NAME  SCORE  DESCRIPTION`
/// (its first line, shortened); under a heading `ID: QUERY` (`headed`, for `--queries`) with
/// the tools indented.
fn write_text(
    out: &mut dyn Write,
    query: &QueryLine,
    hits: &[SearchHit<'_>],
    headed: bool,
) -> io::Result<()> {
    let indent = if headed { "  " } else { "" };
    if headed {
        let id = match &query.id {
            Value::Null => query.origin.clone(),
            Value::String(id) => id.clone(),
            other => other.to_string(),
        };
        let text = query.text.split_whitespace().collect::<Vec<_>>().join(" ");
        writeln!(out, "{}: {}", clip(&id), shorten(&text, QUERY_MAX))?;
    }
    if hits.is_empty() {
        return writeln!(out, "{indent}(no tool matches)");
    }
    let width = hits
        .iter()
        .map(|hit| hit.tool.name.chars().count())
        .max()
        .unwrap_or(0);
    let rank_width = hits.len().to_string().len();
    for (rank, hit) in hits.iter().enumerate() {
        let description = hit
            .tool
            .description
            .as_deref()
            .and_then(|text| text.lines().find(|line| !line.trim().is_empty()))
            .map(|line| shorten(line.trim(), DESCRIPTION_MAX).into_owned())
            .unwrap_or_default();
        let line = format!(
            "{indent}{:>rank_width$}. {:<width$}  {:>8.3}  {description}",
            rank + 1,
            hit.tool.name,
            hit.score,
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
