//! The command line: [`Cli`] and its subcommands, parsed by clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use toolmodel::{
    ProtocolVersion,
    adapters::{ConvertOptions, Profile, Target},
};
use toolmodel_rmcp::telemetry::otel::LogFormat;

/// The exit statuses, shown under every `--help`.
const EXIT_STATUS: &str = "\
Exit status:
  0  no problem found
  1  problems found: an MCP spec error (lint), a tool rejected by a --target (lint),
     arguments that do not match the schema (validate), a tool that cannot be converted (convert)
  2  the command could not run as asked: a usage error, a file that cannot be read, is not
     JSON or holds no MCP tools, a tool not found";

const FILES: &str = "\
Input: a file holding one JSON document with MCP tools in any of these shapes: one tool, an
array of tools, a tools/list result {\"tools\": [...]}, a JSON-RPC response
{\"result\": {\"tools\": [...]}}, a capture {\"server_info\": ..., \"tools\": [...]}, a server
list whose entries hold tools (LiveMCPBench). A folder stands for every *.json and *.snap file
under it, sorted; `-` is standard input. A file with several JSON values (JSON Lines, such as
BFCL's data) is not a tool document: it is reported at the line and column where the second
value starts.";

/// `toolmodel`: lint MCP tool catalogs, convert them to provider formats, validate arguments,
/// serve MCP servers as one gateway, list their live tools and search tools.
#[derive(Debug, Parser)]
#[command(
    name = "toolmodel",
    version,
    about = "Lint MCP tool definitions, convert them to OpenAI, Anthropic and Gemini formats, validate tool-call arguments; serve the MCP servers of a configuration file as one (gateway), list, lint or convert their live tools (tools); find the tools that fit a request (search)",
    after_help = EXIT_STATUS
)]
#[non_exhaustive]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum Command {
    /// Report MCP spec errors and portability to each provider, per tool.
    #[command(
        long_about = "Report, for every tool, the MCP spec errors of --protocol (default the newest, \
2026-07-28: name, schema dialect, invalid schema, external $ref, non-object schema root, bad \
icon URI, x-mcp-header rules, _meta key names, tool object of the wrong shape, duplicate names \
within one server), what each protocol version would lose or break of it, and what each \
provider target would reject or change. Each error is one line, `FILE#JSON-POINTER: error[KIND]: TOOL: MESSAGE`. Each path \
given ends with a summary table: per target, how many tools convert unchanged, changed or not \
at all, and how many warnings (and how many of them widen a schema); per protocol version, how \
many tools it carries whole, how many lose a field (left out when written for it) and how many \
break its rules. --verbose lists each loss and break, `FILE#JSON-POINTER: note[mcp-VERSION]: ...`.",
        after_help = format!("{FILES}\n\n{EXIT_STATUS}")
    )]
    Lint(LintArgs),
    /// Print tools converted to a provider's format (JSON on stdout, warnings on stderr).
    #[command(
        long_about = "Convert every tool of the files to one target and print a JSON array on \
stdout: the entries of the target's `tools` list (for Gemini, of `functionDeclarations`). \
Names are mapped to the target's rule, collision-free across all the files. Every change the \
conversion makes is a warning on stderr, `FILE#JSON-POINTER: warning[TARGET]: TOOL: FEATURE: \
ACTION: DETAIL`; a tool that cannot be converted is an error there and is left out of the array. \
The tools are not linted: run `toolmodel lint` for MCP spec errors.",
        after_help = format!("{FILES}\n\n{EXIT_STATUS}")
    )]
    Convert(ConvertArgs),
    /// Validate tool-call arguments against a tool's inputSchema.
    #[command(
        long_about = "Validate arguments against the inputSchema of the tool named --tool, and print \
every violation with the JSON Pointer of the offending value in the arguments and of the \
failing keyword in the schema.",
        after_help = format!("{FILES}\n\n{EXIT_STATUS}")
    )]
    Validate(ValidateArgs),
    /// Serve the tools, prompts, resources and completion of the MCP servers of a configuration
    /// file as one MCP server.
    #[command(
        long_about = "Start every enabled server of --config (the `mcpServers` JSON of Claude \
Desktop, Cursor and Claude Code, or VS Code's `servers`), import their tools, and serve them as \
one MCP server: over stdio (the default), or over Streamable HTTP at http://ADDR/mcp with \
--http ADDR. Tool names are the servers' own when they collide with nothing, `server__tool` \
otherwise (the top-level \"toolNames\": \"always\", \"onCollision\" or \"never\" changes \
it). Arguments are validated before they are sent; a server that fails answers its calls with \
an isError result naming it and is restarted with backoff; its tools list changes are passed \
on with notifications/tools/list_changed. Their prompts, resources (templates, subscriptions) \
and completion pass through too: prompts named as tools are, resource URIs unchanged (a URI \
two servers offer is an error naming both), and so do their tasks (the tasks extension): a \
task ID of the gateway is SERVER:ID, the upstream's ID behind its server's name, so that any \
replica routes it. Upstream servers receive only the headers of the \
configuration, never the gateway's clients' credentials. An upstream's requests for input \
(MCP 2026-07-28 InputRequiredResult, elicitation, sampling, roots) reach the gateway's client; \
set MCP_REQUEST_STATE_KEY (base64, at least 32 bytes) to the same key on every replica of the \
gateway so that any of them continues an input round another started, and \
MCP_SESSION_STORE=redis://HOST:PORT to the same Redis so that any of them serves any session \
of a 2025-era client (no sticky sessions needed). With --auth-issuer URL \
(and --http), the gateway is an OAuth 2.1 resource server (MCP Authorization): every request \
needs an access token from that authorization server for --resource, granting --scopes, and a \
call of a tool of a server with \"requiredScopes\" needs those too (403 insufficient_scope); \
the top-level \"toolmodelPolicy\" shows each user only the tools its rules allow it (by the \
token's sub, client_id, scope, groups, roles or another claim), a call of another tool \
answered as one of an unknown tool, and a rule with \"when\" needs --auth-issuer. \
A server's \"toolmodelCredentials\" has the gateway call it as each user: \"tokenExchange\" \
exchanges the caller's token at --auth-issuer for one of the server's audience (with \
--exchange-client-id), \"oauth\" asks each user to authorize the gateway at the server's own \
authorization server through URL-mode elicitation; the caller's token is never sent upstream. \
The top-level \"toolmodelLimits\" limits the rate of calls per user, tool or upstream (token \
buckets; shared by the replicas through the Redis of MCP_LIMIT_STORE, else of \
MCP_SESSION_STORE), and a server's \"maxConcurrentCalls\" the calls in flight on it. \
Over HTTP the Host header must name the gateway (against DNS rebinding): loopback names, the \
host of --resource, or --allowed-hosts. With --tool-search[=THRESHOLD] a catalog of more \
tools than THRESHOLD is listed as search_tools and call_tool (and --always-visible tools). \
Every child process is killed, with its process group, \
when the gateway stops (end of stdin, SIGINT or SIGTERM). The configuration reloads while the \
gateway serves, on SIGHUP and when the file changes (it is read every second): servers added, \
removed or changed, the toolmodelPolicy and the toolmodelLimits, without dropping sessions or calls in flight (a \
changed or removed server's calls finish before its session closes); unchanged servers keep \
their child process and their tools' names, and clients get notifications/tools/list_changed. \
A configuration that fails the checks of --check-config is refused with a log line naming each \
problem, and the running one kept; the options (the address, --auth-issuer, ...) do not \
reload. --check-config checks the configuration and the options, starts nothing and exits.",
        after_help = format!("{CONFIG}\n\n{GATEWAY_EXIT_STATUS}")
    )]
    Gateway(Box<GatewayArgs>),
    /// List, lint or convert the live tools of the MCP servers of a configuration file.
    #[command(
        long_about = "Start every enabled server of --config, import their tools under the \
gateway's names, and print them as a tools/list result (JSON on stdout); with --lint, report \
them as `toolmodel lint` reports a file; with --to TARGET, convert them as `toolmodel convert` \
does. Each server's state (its tool count, or why it is unavailable) is a line on stderr; an \
unavailable server makes the exit status 1.",
        after_help = format!("{CONFIG}\n\n{EXIT_STATUS}")
    )]
    Tools(ToolsArgs),
    /// Find the tools that fit a request, best first (BM25 over names, descriptions and
    /// parameters).
    #[command(
        long_about = "Search the tools of the files (or, with --config, the live tools of the \
MCP servers of a configuration file, started and stopped as `toolmodel tools` does) for \
--query TEXT, or for each query of --queries FILE, and print the --limit best, best first. A \
tool is searched by its name (split into words at _, -, ., / and case changes), title, \
description, parameter names and descriptions, tags and category, ranked with BM25. Every query \
is checked before anything is searched: an empty one, or one past the limits, is an error \
naming its line. With --format json, one line per query: {\"id\": ..., \"tools\": [names], \
\"scores\": [numbers]} (id null for --query).",
        after_help = format!("{FILES}\n\n{QUERIES}\n\n{EXIT_STATUS}")
    )]
    Search(SearchArgs),
}

const QUERIES: &str = "\
Queries (--queries): JSON Lines, one object a line, {\"id\": ..., \"query\": \"...\"}; the id any
JSON value (null when left out), other keys ignored, blank lines skipped; `-` is standard input.";

const CONFIG: &str = "\
Configuration: {\"mcpServers\": {\"NAME\": {\"command\": \"...\", \"args\": [...], \"env\": {...}, \"cwd\": \"...\"}}} \
for a child process, {\"url\": \"https://...\", \"headers\": {...}} for Streamable HTTP; \
\"type\" (or \"transport\", \"transportType\") stdio or http when the entry has both; \
\"disabled\": true; \"allowedTools\", \"hiddenTools\"; \"requiredScopes\": the OAuth scopes a \
token needs to call the server's tools (with --auth-issuer); \"timeout\", \"maxTotalTimeout\", \
\"startupTimeout\" in milliseconds; \"inheritEnv\": [names] or true, the gateway's variables a \
child sees besides HOME, LOGNAME, PATH, SHELL, TERM and USER. ${VAR}, ${VAR:-default} and ${env:VAR} are read from the \
environment. Top-level \"toolmodelPolicy\": {\"rules\": [{\"allow\": [\"notes.*\"], \
\"when\": {\"groups\": [\"eng\"]}}]}: each caller sees and may call only the tools (SERVER.TOOL, \
* any run of characters) a rule whose \"when\" (sub, client_id, scope, groups, roles, claims) \
it meets allows; a rule without \"when\" applies to everyone. An unknown key is an error naming \
the nearest known one (\"hidenTools\": did you \
mean \"hiddenTools\"?); other clients' own keys (autoApprove, dev...) are accepted in the form \
they are written in.";

/// The exit statuses of `toolmodel gateway`.
const GATEWAY_EXIT_STATUS: &str = "\
Exit status:
  0  the gateway stopped cleanly (end of stdin, SIGINT or SIGTERM); with --check-config, the
     configuration and the options are valid
  1  with --check-config: a problem in the configuration or the options, each named on stderr
  2  the gateway could not start or serve: a usage error, a configuration that cannot be used,
     an address that cannot be bound";

/// `toolmodel gateway`.
#[derive(Debug, Args)]
#[non_exhaustive]
pub struct GatewayArgs {
    /// The configuration file (`mcpServers` or `servers` JSON); reloaded on SIGHUP and when
    /// it changes.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,

    /// Check the configuration file and the other options as the gateway would start with
    /// them (keys, values, variables, --auth-issuer and --resource, MCP_REQUEST_STATE_KEY,
    /// the introspection and exchange secrets), print a summary on stdout and exit: 0 when valid, 1 naming
    /// each problem on stderr. No server is started, no address bound.
    #[arg(long)]
    pub check_config: bool,

    /// Serve over Streamable HTTP on this address (`127.0.0.1:8080`) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,

    /// With --http: the host names (or `host:port`) clients reach the gateway by,
    /// comma-separated; a request whose `Host` is none of them gets 403 (against DNS
    /// rebinding). Replaces the default: the loopback names (localhost, 127.0.0.1, ::1), and
    /// the host of --resource when it is not one of them. A name without a port admits any
    /// port.
    #[arg(long, value_name = "HOST[,HOST...]", value_delimiter = ',', requires = "http", value_parser = parse_host)]
    pub allowed_hosts: Vec<String>,

    /// With --http: browser origins allowed besides the loopback ones and the gateway's own
    /// (`http` and `https` on an allowed host), comma-separated, each `scheme://host[:port]`
    /// (`:*` for any port) or `null`. A request with another `Origin` gets 403; pages on these
    /// origins may call the gateway (CORS).
    #[arg(long, value_name = "ORIGIN[,ORIGIN...]", value_delimiter = ',', requires = "http", value_parser = parse_origin)]
    pub allowed_origins: Vec<String>,

    /// With --http: require OAuth 2.1 access tokens from this authorization server (MCP
    /// Authorization; its issuer identifier, e.g. `https://auth.example.com`). Requests
    /// without a valid token for --resource get 401 with a `WWW-Authenticate` challenge; the
    /// Protected Resource Metadata (RFC 9728) names this issuer. The tokens are never sent
    /// upstream.
    #[arg(long, value_name = "URL", requires = "http")]
    pub auth_issuer: Option<String>,

    /// With --auth-issuer: the audience tokens must be issued for (RFC 8707), the URL clients
    /// connect to [default: http://ADDR/mcp, with the port bound when ADDR's is 0]. Its
    /// origin followed by /oauth/callback is the gateway's OAuth redirect endpoint, where the
    /// users of a server with toolmodelCredentials.oauth come back after authorizing it; with
    /// MCP_TOKEN_STORE_KEY (32 bytes, base64) their tokens are kept encrypted in the Redis of
    /// MCP_SESSION_STORE too.
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    pub resource: Option<String>,

    /// With --auth-issuer: OAuth scopes every request's token must grant, comma-separated,
    /// beside each tool's own (a configured server's `requiredScopes`). Named in the 401
    /// challenge and in the metadata's `scopes_supported`.
    #[arg(long, value_name = "SCOPE[,SCOPE...]", value_delimiter = ',', requires = "auth_issuer", value_parser = parse_scope)]
    pub scopes: Vec<String>,

    /// With --auth-issuer: accept opaque access tokens too, asking the issuer's introspection
    /// endpoint (RFC 7662) as this client. Its secret is read from the environment variable
    /// MCP_INTROSPECTION_CLIENT_SECRET, never from the command line.
    #[arg(long, value_name = "CLIENT_ID", requires = "auth_issuer")]
    pub introspection_client_id: Option<String>,

    /// With --auth-issuer: the gateway's own OAuth client at that issuer, which exchanges each
    /// caller's token for one of an upstream's audience (RFC 8693 token exchange, for the
    /// servers whose entry has toolmodelCredentials). Its secret is read from the environment
    /// variable MCP_EXCHANGE_CLIENT_SECRET, never from the command line.
    #[arg(long, value_name = "CLIENT_ID", requires = "auth_issuer")]
    pub exchange_client_id: Option<String>,

    /// With --introspection-client-id: at most this many introspection requests a second
    /// (beyond it an unknown opaque token gets 503 with Retry-After) [default: 50].
    #[arg(long, value_name = "N", requires = "introspection_client_id")]
    pub introspection_rate: Option<u32>,

    /// Serve the tools by progressive disclosure once there are more than THRESHOLD of them
    /// (none given: any): clients are listed `search_tools` and `call_tool` (FastMCP's
    /// `BM25SearchTransform` names and shapes) and the --always-visible tools, search the
    /// catalog (the tools their token may call) and call a tool by name.
    #[arg(long, value_name = "THRESHOLD", num_args = 0..=1, require_equals = true, default_missing_value = "0")]
    pub tool_search: Option<usize>,

    /// With --tool-search: tools listed beside `search_tools` and `call_tool`, by the names
    /// the gateway serves them as, comma-separated or repeated.
    #[arg(
        long,
        value_name = "NAME[,NAME...]",
        value_delimiter = ',',
        requires = "tool_search"
    )]
    pub always_visible: Vec<String>,

    /// Serve `/healthz`, `/readyz` (ready once every upstream marked `"required": true` is
    /// up), `/metrics` (Prometheus) and `/status` (each upstream's state) on this address, a
    /// listener of its own: keep it off the public network (loopback, or a port only the
    /// orchestrator reaches).
    #[arg(long, value_name = "ADDR")]
    pub admin: Option<std::net::SocketAddr>,

    /// How the gateway's log lines are written to stderr: text or json (one object per
    /// line). Which lines: `RUST_LOG` (default `warn,toolmodel=info`).
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = parse_log_format)]
    pub log_format: LogFormat,

    /// Export traces and metrics over OTLP/HTTP (protobuf) to this collector, its base URL
    /// (`http://localhost:4318`; `/v1/traces` and `/v1/metrics` are appended). Without it,
    /// OTEL_EXPORTER_OTLP_ENDPOINT when set; OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and
    /// OTEL_TRACES_SAMPLER apply either way.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,

    /// Write a log line per tool call: tool, duration, outcome, the caller's subject (target
    /// `toolmodel_rmcp::access`).
    #[arg(long)]
    pub access_log: bool,

    /// Record each tool call's arguments and result on its span (OpenTelemetry's
    /// `gen_ai.tool.call.arguments` and `.result`, cut to 4 KiB). They may hold secrets: off
    /// unless given.
    #[arg(long)]
    pub record_tool_content: bool,
}

/// `toolmodel tools`.
#[derive(Debug, Args)]
#[non_exhaustive]
pub struct ToolsArgs {
    /// The configuration file (`mcpServers` or `servers` JSON).
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,

    /// Lint the tools (as `toolmodel lint` does) instead of printing them.
    #[arg(long, conflicts_with = "to")]
    pub lint: bool,

    /// Convert the tools to this target (as `toolmodel convert --to` does): mcp, openai-chat,
    /// openai-responses, anthropic, gemini.
    #[arg(long, value_name = "TARGET", value_parser = parse_target)]
    pub to: Option<Target>,
}

/// `toolmodel search`.
#[derive(Debug, Args)]
#[non_exhaustive]
#[command(group(clap::ArgGroup::new("input").required(true).args(["query", "queries"])))]
pub struct SearchArgs {
    /// Files or folders holding the catalog (`-` for standard input).
    #[arg(value_name = "CATALOG", required_unless_present = "config")]
    pub paths: Vec<PathBuf>,

    /// Search the live tools of the servers of this configuration file (`mcpServers` or
    /// `servers` JSON) instead of files.
    #[arg(long, value_name = "FILE", conflicts_with = "paths")]
    pub config: Option<PathBuf>,

    /// The query: what the tool should do, in words.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub query: Option<String>,

    /// A file of queries, JSON Lines `{"id": ..., "query": "..."}` (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub queries: Option<PathBuf>,

    /// How many tools to print per query, at most (1 to 10000).
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = parse_limit)]
    pub limit: usize,

    /// Output format: text (numbered lines) or json (one JSON line per query).
    #[arg(long, value_enum, default_value_t = Format::Text, hide_possible_values = true)]
    pub format: Format,
}

/// How a report is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Lines for people (and editors: `FILE#POINTER: error[kind]: ...`) and summary tables.
    #[default]
    Text,
    /// One JSON document, for machines.
    Json,
}

/// `toolmodel lint`.
#[derive(Debug, Args)]
#[non_exhaustive]
pub struct LintArgs {
    /// Files or folders to lint (`-` for standard input).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Focus on these targets (comma-separated or repeated): mcp, openai-chat,
    /// openai-chat-strict, openai-responses, openai-responses-strict, anthropic,
    /// anthropic-strict, gemini (openai and openai-strict are read as openai-chat). Their
    /// rejections and warnings are listed one per line, and a rejection counts as an error
    /// (exit status 1). Default: every provider target, counted in the table only.
    #[arg(long = "target", value_name = "TARGET", value_delimiter = ',', value_parser = parse_profile)]
    pub targets: Vec<Profile>,

    /// List every rejection and warning of every target, not only their counts, and what
    /// each protocol version loses or breaks of each tool.
    #[arg(short, long)]
    pub verbose: bool,

    /// The MCP protocol version whose rules are errors: 2024-11-05, 2025-03-26, 2025-06-18,
    /// 2025-11-25 or 2026-07-28 (the newest, the default). What every version loses or breaks
    /// of each tool is reported beside, in the version table.
    #[arg(long, value_name = "VERSION", value_parser = parse_protocol, default_value_t = ProtocolVersion::LATEST)]
    pub protocol: ProtocolVersion,

    /// Conversion options for the portability checks.
    #[command(flatten)]
    pub conversion: ConversionArgs,
}

/// `toolmodel convert`.
#[derive(Debug, Args)]
#[non_exhaustive]
pub struct ConvertArgs {
    /// The target format: mcp, openai-chat (Chat Completions; openai is read too),
    /// openai-responses, anthropic, gemini.
    #[arg(long, value_name = "TARGET", value_parser = parse_target)]
    pub to: Target,

    /// Apply the target's strict mode (openai-chat, openai-responses, anthropic).
    #[arg(long)]
    pub strict: bool,

    /// Print the JSON on one line.
    #[arg(long)]
    pub compact: bool,

    /// With `--to mcp`: write the tools for this MCP protocol version (2024-11-05, 2025-03-26,
    /// 2025-06-18, 2025-11-25 or 2026-07-28; default the newest). What it cannot carry is left
    /// out and reported as a warning; a tool it cannot express is an error.
    #[arg(long, value_name = "VERSION", value_parser = parse_protocol)]
    pub protocol: Option<ProtocolVersion>,

    /// Conversion options.
    #[command(flatten)]
    pub conversion: ConversionArgs,

    /// Files or folders holding the tools (`-` for standard input).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// `toolmodel validate`.
#[derive(Debug, Args)]
#[non_exhaustive]
pub struct ValidateArgs {
    /// The tool's name.
    #[arg(long, value_name = "NAME")]
    pub tool: String,

    /// The arguments: JSON text, or @FILE to read them from a file (@- for standard input).
    #[arg(long, value_name = "JSON|@FILE", allow_hyphen_values = true)]
    pub args: String,

    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Files or folders holding the tool (`-` for standard input).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Conversion options shared by `lint` and `convert`.
#[derive(Debug, Args)]
#[non_exhaustive]
pub struct ConversionArgs {
    /// Accept conversions that widen a schema where the alternative is an error (a recursive
    /// reference replaced by an unconstrained schema, an allOf that cannot be merged dropped).
    #[arg(long)]
    pub allow_widening: bool,

    /// Gemini: send schemas as parametersJsonSchema (plain JSON Schema) instead of the OpenAPI
    /// subset of `parameters`.
    #[arg(long)]
    pub gemini_json_schema: bool,
}

impl ConversionArgs {
    /// The [`ConvertOptions`] these flags ask for.
    #[must_use]
    pub fn options(&self) -> ConvertOptions {
        ConvertOptions::default()
            .with_allow_widening(self.allow_widening)
            .with_gemini_json_schema(self.gemini_json_schema)
    }
}

/// An entry of `--allowed-hosts`: `host` or `host:port` (an IPv6 address bare or in
/// brackets), not a URL.
fn parse_host(text: &str) -> Result<String, String> {
    let host = text.trim();
    if host.is_empty() {
        return Err("an empty host name".to_owned());
    }
    if let Some((_, rest)) = host.split_once("://") {
        let bare = rest.split('/').next().unwrap_or(rest);
        return Err(format!(
            "{host:?} is a URL: write the host name alone ({bare:?})"
        ));
    }
    if let Some(bad) = host
        .chars()
        .find(|c| matches!(c, '/' | '@' | '?' | '#') || c.is_whitespace())
    {
        return Err(format!(
            "{host:?} is not a host name or host:port (it holds {bad:?})"
        ));
    }
    Ok(host.to_owned())
}

/// An entry of `--allowed-origins`: `null`, or `http`/`https` `://host[:port]` (`:*` for any
/// port) with no path.
fn parse_origin(text: &str) -> Result<String, String> {
    let origin = text.trim();
    if origin == "null" {
        return Ok(origin.to_owned());
    }
    let Some((scheme, authority)) = origin.split_once("://") else {
        return Err(format!(
            "{origin:?} is not an origin: write scheme://host[:port], e.g. https://app.example.com"
        ));
    };
    if !matches!(scheme, "http" | "https") {
        return Err(format!("{origin:?}: the scheme is not http or https"));
    }
    if authority.is_empty() || authority.contains(['/', '?', '#', '@']) {
        return Err(format!(
            "{origin:?} is not an origin (scheme://host[:port], no path, query or user)"
        ));
    }
    Ok(origin.to_owned())
}

/// A scope of `--scopes`: an RFC 6749 §3.3 `scope-token`, checked by the rule of
/// [`Tool::required_scopes`](toolmodel::Tool::required_scopes).
fn parse_scope(text: &str) -> Result<String, String> {
    let mut probe = toolmodel::Tool::new("scope", toolmodel::ToolSchema::empty_object());
    probe.required_scopes = vec![text.to_owned()];
    match probe
        .violations()
        .into_iter()
        .find_map(|violation| match violation {
            toolmodel::Violation::Scope { problem, .. } => Some(problem),
            _ => None,
        }) {
        Some(problem) => Err(format!("scope {text:?} {problem}")),
        None => Ok(text.to_owned()),
    }
}

/// `--limit`: a count from 1 to 10,000.
fn parse_limit(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(limit @ 1..=10_000) => Ok(limit),
        _ => Err(format!("{text:?} is not a number from 1 to 10000")),
    }
}

fn parse_profile(text: &str) -> Result<Profile, toolmodel::Error> {
    text.parse()
}

fn parse_target(text: &str) -> Result<Target, toolmodel::Error> {
    text.parse()
}

fn parse_protocol(text: &str) -> Result<ProtocolVersion, toolmodel::Error> {
    text.parse()
}

/// `--log-format`: `text` or `json`.
fn parse_log_format(text: &str) -> Result<LogFormat, String> {
    text.parse()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn tool_search_takes_an_optional_threshold_and_always_visible_names() {
        use clap::Parser;
        let gateway = |args: &[&str]| match Cli::try_parse_from(
            ["toolmodel", "gateway", "--config", "mcp.json"]
                .iter()
                .chain(args),
        ) {
            Ok(Cli {
                command: Command::Gateway(args),
                ..
            }) => Some((args.tool_search, args.always_visible)),
            _ => None,
        };
        assert_eq!(gateway(&[]), Some((None, vec![])));
        assert_eq!(gateway(&["--tool-search"]), Some((Some(0), vec![])));
        assert_eq!(
            gateway(&[
                "--tool-search=40",
                "--always-visible",
                "a,b",
                "--always-visible=c"
            ]),
            Some((Some(40), vec!["a".into(), "b".into(), "c".into()]))
        );
        assert_eq!(gateway(&["--always-visible", "a"]), None);
        assert_eq!(gateway(&["--tool-search=many"]), None);
    }
}
