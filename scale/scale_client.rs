//! The client side of `scale/run.sh`: drives three replicas of `examples/conformance_server`
//! behind a load balancer (nginx, round-robin, no stickiness) with `rmcp`'s client in MCP
//! 2026-07-28 mode (`server/discover`, self-contained requests, multi round-trip calls), stops
//! one replica mid-run, and prints
//! `scale: replicas=<r> calls=<n> cross_replica_retries=<m> lost=<k>` as its last line.
//!
//! `scale_client free-port` prints a free loopback port (for the balancer) and exits.
//! `scale_client gateway BALANCER_URL` runs the gateway phase (see [`gateway`]) and prints
//! `gateway: replicas=2 calls=<n> cross_replica_retries=<m> lost=<k>`.
//! `scale_client BALANCER_URL STOP NAME=URL=PID...` runs the scale-out check, where each
//! `NAME=URL=PID` is one replica (its `MCP_REPLICA` name, its own `/mcp` URL, its process) and
//! `STOP` names the replica to stop mid-run (with `kill -TERM PID`).
//!
//! The run, every call through the balancer unless said otherwise:
//! 1. `tools/list` from each replica directly: the three lists must be identical, and the one
//!    the balancer serves equal to them (asked three times); `scale_replica` called directly on
//!    each replica must name that replica (the names in the results are real).
//! 2. Phase A, 8 workers: 60 calls of the conformance fixtures (`test_simple_text`,
//!    `test_input_required_result_request_state` driven through its input round by hand:
//!    `state-ok` proves that the replica serving the retry opened the state another sealed).
//! 3. Phase B, 8 workers: 240 calls of `scale_replica` (half with an input round), each waiting
//!    150 ms before its final answer. Halfway, with no other call running, 12 more start at
//!    once, waiting 1.2 s (3 with an input round, whose retry is the slow request); 300 ms
//!    later, their requests handed out in turn by round-robin, `STOP` is stopped
//!    (`kill -TERM`) with at least 2 of them in flight on it: those get 502 from nginx and are
//!    re-issued. The second half of phase B then runs on the replicas left while they finish.
//! 4. Phase C: 30 fixture calls again, served by the two replicas left. In all:
//!    60 + 240 + 12 + 30 = 342 calls.
//!
//! `calls` counts tool calls through the balancer that ended with a result (a call with input
//! rounds counts once); `cross_replica_retries` the `scale_replica` calls whose input round was
//! answered by one replica and whose retry by another (`_meta["toolmodel.example/replica"]`:
//! `askedBy` != `answeredBy`); `lost` the calls that ended without their expected result.
//!
//! **What is re-issued** (MCP 2026-07-28 "Multi Round-Trip Requests" and "Cancellation"): a
//! request that got no JSON-RPC response (the connection failed, the balancer answered 502,
//! 503 or 504, the response stream ended early, or no answer within 10 s) is sent again, with a
//! new JSON-RPC id, when the server cannot be hurt by running it twice: the tool says so
//! (`readOnlyHint` or `idempotentHint` in `tools/list`), or the request is an input-round retry
//! (it carries everything the server needs: the answers and the sealed `requestState`, which
//! any replica with the shared key opens until it expires; servers for which a state must be
//! used at most once must enforce that themselves, the spec says). Any other call is lost, not
//! re-issued: the client cannot know whether it ran. A JSON-RPC error is an answer and is never
//! re-issued. Each request is tried at most 5 times.
//!
//! Exit status: 0 when `lost` is 0, `cross_replica_retries` is above 0, at least one call was
//! re-issued after the stop, the tool lists matched and no answer came from the stopped
//! replica after it was stopped; 1 otherwise (the reason on stderr); 2 for a bad command line.
//! The whole run gives up after 100 s. A run that cannot start (a replica unreachable, tool
//! lists that differ) or gives up prints why on stderr and no `scale:` line.

use std::{
    collections::BTreeMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use rmcp::{
    ClientHandler, RoleClient,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig, InputRequiredResult,
        InputResponses, ProtocolVersion, Tool,
    },
    service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError},
    transport::StreamableHttpClientTransport,
};
use serde_json::{Value, json};

#[path = "replies.rs"]
mod replies;
#[path = "within_limit.rs"]
mod within_limit;

use replies::{form_content, text};
use within_limit::within_limit;

/// The `_meta` key of `scale_replica`'s results (`examples/conformance_server.rs`).
const REPLICA_META: &str = "toolmodel.example/replica";
const WORKERS: usize = 8;
const PHASE_A: usize = 60;
const PHASE_B: usize = 240;
const PHASE_C: usize = 30;
/// `scale_replica`'s wait before its final answer, in phase B.
const DELAY_MS: u64 = 150;
/// The slow calls started just before the stop, and their wait.
const PROBES: usize = 12;
const PROBES_ASKING: usize = 3;
const PROBE_DELAY_MS: u64 = 1_200;
const ATTEMPTS: usize = 5;
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
const RUN_LIMIT: Duration = Duration::from_secs(100);

type Service = RunningService<RoleClient, ScaleClient>;

/// The client: it declares form elicitation and sampling, and answers input requests itself
/// (see [`answers`]).
#[derive(Clone, Copy)]
struct ScaleClient;

impl ClientHandler for ScaleClient {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": {"elicitation": {"form": {}}, "sampling": {}},
            "clientInfo": {"name": "toolmodel-scale-client", "version": env!("CARGO_PKG_VERSION")}
        }))
        .expect("a client configuration")
    }
}

/// One replica from the command line.
struct Replica {
    name: String,
    url: String,
    pid: u32,
}

impl Replica {
    fn parse(text: &str) -> Result<Self, String> {
        let mut parts = text.splitn(3, '=');
        let (Some(name), Some(url), Some(pid)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("{text:?}: expected NAME=URL=PID"));
        };
        let pid = pid
            .parse()
            .map_err(|err| format!("{text:?}: PID {pid:?}: {err}"))?;
        Ok(Self {
            name: name.to_owned(),
            url: url.to_owned(),
            pid,
        })
    }
}

/// What the run counts.
#[derive(Default)]
struct Tally {
    calls: AtomicUsize,
    cross_replica_retries: AtomicUsize,
    lost: AtomicUsize,
    reissued: AtomicUsize,
    reissued_retries: AtomicUsize,
    after_stop_from_stopped: AtomicUsize,
    answered_by: Mutex<BTreeMap<String, usize>>,
    problems: Mutex<Vec<String>>,
}

impl Tally {
    fn problem(&self, text: String) {
        eprintln!("scale: {text}");
        if let Ok(mut problems) = self.problems.lock() {
            problems.push(text);
        }
    }
}

/// Shared by the workers.
struct Run {
    service: Service,
    /// Tools that may be re-issued: `readOnlyHint` or `idempotentHint`.
    reissuable: Vec<String>,
    tally: Tally,
    stop: Replica,
    /// When the stop was sent.
    stopped_at: Mutex<Option<Instant>>,
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    serde_json::from_value(json!({"name": name, "arguments": arguments}))
        .expect("tools/call params")
}

/// The client's answer to each of `required`'s input requests: an accepted form (strings
/// "Ada", booleans `true`, numbers 1), a model's text, an empty root list.
fn answers(required: &InputRequiredResult) -> InputResponses {
    let requests = serde_json::to_value(&required.input_requests).unwrap_or(Value::Null);
    let Some(requests) = requests.as_object() else {
        return InputResponses::new();
    };
    requests
        .iter()
        .map(|(key, request)| {
            let answer = match request["method"].as_str() {
                Some("elicitation/create") => json!({
                    "action": "accept",
                    "content": form_content(&request["params"]["requestedSchema"]),
                }),
                Some("sampling/createMessage") => json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": "Hello"},
                    "model": "scale-client",
                    "stopReason": "endTurn"
                }),
                _ => json!({"roots": []}),
            };
            (key.clone(), answer)
        })
        .collect()
}

/// How one attempt ended.
enum Attempt {
    Answer(CallToolResponse),
    /// A JSON-RPC error or a response of the wrong type: an answer, never re-issued.
    Refused(String),
    /// No response: re-issued when the call allows it.
    NoResponse(String),
}

async fn attempt(service: &Service, params: CallToolRequestParams) -> Attempt {
    match tokio::time::timeout(ATTEMPT_TIMEOUT, service.call_tool_once(params)).await {
        Ok(Ok(response)) => Attempt::Answer(response),
        Ok(Err(ServiceError::McpError(error))) => Attempt::Refused(format!(
            "JSON-RPC error {}: {}",
            error.code.0, error.message
        )),
        Ok(Err(ServiceError::UnexpectedResponse)) => {
            Attempt::Refused("a response of the wrong type".to_owned())
        }
        Ok(Err(other)) => Attempt::NoResponse(other.to_string()),
        Err(_) => Attempt::NoResponse(format!("no answer in {ATTEMPT_TIMEOUT:?}")),
    }
}

impl Run {
    /// Runs one tool call through its input rounds (at most 4), re-issuing requests that got
    /// no response when that is safe; the final result, or why there is none.
    async fn call(&self, name: &str, arguments: Value) -> Result<CallToolResult, String> {
        let mut params = params(name, arguments);
        let reissuable_tool = self.reissuable.iter().any(|tool| tool == name);
        for _round in 0..4 {
            let is_retry = params.request_state.is_some();
            let mut tries = 0;
            let response = loop {
                tries += 1;
                match attempt(&self.service, params.clone()).await {
                    Attempt::Answer(response) => break response,
                    Attempt::Refused(why) => return Err(why),
                    Attempt::NoResponse(why) => {
                        if !(reissuable_tool || is_retry) {
                            return Err(format!("no response, not re-issued: {why}"));
                        }
                        if tries == ATTEMPTS {
                            return Err(format!("no response in {ATTEMPTS} tries: {why}"));
                        }
                        self.tally.reissued.fetch_add(1, Ordering::Relaxed);
                        if is_retry {
                            self.tally.reissued_retries.fetch_add(1, Ordering::Relaxed);
                        }
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
            };
            match response {
                CallToolResponse::Complete(result) => return Ok(result),
                CallToolResponse::InputRequired(required) => {
                    params.input_responses = Some(answers(&required));
                    params.request_state = required.request_state;
                }
                other => return Err(format!("unexpected answer {other:?}")),
            }
        }
        Err("no result after 4 input rounds".to_owned())
    }

    /// One call of phase A or C: a conformance fixture, its text checked.
    async fn fixture(&self, index: usize) {
        let (name, expected) = if index.is_multiple_of(2) {
            (
                "test_input_required_result_request_state",
                "state-ok: confirmed=true",
            )
        } else {
            (
                "test_simple_text",
                "This is a simple text response for testing.",
            )
        };
        match self.call(name, json!({})).await {
            Ok(result) if text(&result) == expected => {
                self.tally.calls.fetch_add(1, Ordering::Relaxed);
            }
            Ok(result) => self.lose(format!("{name}: unexpected result {result:?}")),
            Err(why) => self.lose(format!("{name}: {why}")),
        }
    }

    /// One call of phase B: `scale_replica`, with an input round when `ask`, waiting `delay_ms`
    /// before its final answer.
    async fn replica_call(&self, ask: bool, delay_ms: u64) {
        let arguments = json!({"ask": ask, "delay_ms": delay_ms});
        let result = match self.call("scale_replica", arguments).await {
            Ok(result) => result,
            Err(why) => return self.lose(format!("scale_replica: {why}")),
        };
        let meta = replicas(&result);
        let Some(answered_by) = meta["answeredBy"].as_str() else {
            return self.lose(format!("scale_replica: no {REPLICA_META} in {result:?}"));
        };
        let asked_by = meta["askedBy"].as_str();
        if ask && (asked_by.is_none() || !text(&result).starts_with("Hello, Ada!")) {
            return self.lose(format!("scale_replica: no input round in {result:?}"));
        }
        if asked_by.is_some_and(|asked_by| asked_by != answered_by) {
            self.tally
                .cross_replica_retries
                .fetch_add(1, Ordering::Relaxed);
        }
        // An answer from the stopped replica that left it after the stop (allowing 1 s for
        // answers already on their way).
        let late = self
            .stopped_at
            .lock()
            .ok()
            .and_then(|at| *at)
            .is_some_and(|at| at.elapsed() > Duration::from_secs(1));
        if late && answered_by == self.stop.name {
            self.tally
                .after_stop_from_stopped
                .fetch_add(1, Ordering::Relaxed);
        }
        if let Ok(mut counts) = self.tally.answered_by.lock() {
            *counts.entry(answered_by.to_owned()).or_default() += 1;
        }
        self.tally.calls.fetch_add(1, Ordering::Relaxed);
    }

    fn lose(&self, why: String) {
        self.tally.lost.fetch_add(1, Ordering::Relaxed);
        self.tally.problem(format!("lost: {why}"));
    }

    /// Stops the `STOP` replica with calls surely in flight on it, while no other call runs:
    /// starts [`PROBES`] slow `scale_replica` calls at once ([`PROBES_ASKING`] of them with an
    /// input round, whose retry is the slow request), lets their last requests reach the
    /// replicas, then stops `STOP`. nginx's round-robin hands the 15 requests out in turn, so
    /// `STOP` gets 5, of which at most 3 are fast first rounds: at least 2 slow calls are in
    /// flight on it. Returns the probes, which must end (re-issued) like any other call.
    async fn stop_with_calls_in_flight(self: &Arc<Self>) -> Vec<tokio::task::JoinHandle<()>> {
        let probes: Vec<_> = (0..PROBES)
            .map(|index| {
                let run = Arc::clone(self);
                tokio::spawn(async move {
                    run.replica_call(index < PROBES_ASKING, PROBE_DELAY_MS)
                        .await;
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(PROBE_DELAY_MS / 4)).await;
        let status = std::process::Command::new("kill")
            .args(["-TERM", &self.stop.pid.to_string()])
            .status();
        if let Ok(mut at) = self.stopped_at.lock() {
            *at = Some(Instant::now());
        }
        match status {
            Ok(status) if status.success() => eprintln!(
                "scale: stopped replica {} (pid {}) halfway through phase B, {PROBES} slow calls in flight over the replicas",
                self.stop.name, self.stop.pid
            ),
            other => self.tally.problem(format!(
                "could not stop replica {} (pid {}): {other:?}",
                self.stop.name, self.stop.pid
            )),
        }
        probes
    }
}

/// `scale_replica`'s `_meta["toolmodel.example/replica"]` (`askedBy`, `answeredBy`), or null.
fn replicas(result: &CallToolResult) -> Value {
    result
        .meta
        .as_ref()
        .and_then(|meta| meta.get(REPLICA_META))
        .cloned()
        .unwrap_or(Value::Null)
}

async fn connect(url: &str) -> Result<Service, String> {
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    ScaleClient
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .map_err(|err| format!("{url}: {err}"))
}

async fn tool_list(service: &Service, from: &str) -> Result<Vec<Tool>, String> {
    service
        .list_all_tools()
        .await
        .map_err(|err| format!("tools/list from {from}: {err}"))
}

/// Runs `count` jobs on [`WORKERS`] workers.
async fn phase<F, Fut>(run: &Arc<Run>, count: usize, job: F)
where
    F: Fn(Arc<Run>, usize) -> Fut + Copy + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let next = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (run, next) = (Arc::clone(run), Arc::clone(&next));
            tokio::spawn(async move {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= count {
                        break;
                    }
                    job(Arc::clone(&run), index).await;
                }
            })
        })
        .collect();
    for worker in workers {
        if let Err(err) = worker.await {
            run.tally.problem(format!("a worker failed: {err}"));
        }
    }
}

/// Step 1: the tool lists and the replicas' names, each replica asked directly.
async fn check_replicas(service: &Service, replicas: &[Replica]) -> Result<Vec<Tool>, String> {
    let mut lists = Vec::new();
    for replica in replicas {
        let direct = connect(&replica.url).await?;
        let list = tool_list(&direct, &replica.name).await?;
        let result = direct
            .call_tool(params("scale_replica", json!({})))
            .await
            .map_err(|err| format!("scale_replica on {}: {err}", replica.name))?;
        let named = result
            .meta
            .as_ref()
            .and_then(|meta| meta.get(REPLICA_META))
            .and_then(|meta| meta["answeredBy"].as_str().map(str::to_owned));
        if named.as_deref() != Some(replica.name.as_str()) {
            return Err(format!(
                "{} at {} names itself {named:?}",
                replica.name, replica.url
            ));
        }
        let _ = direct.cancel().await;
        lists.push((replica.name.clone(), list));
    }
    let (first_name, first) = &lists[0];
    for (name, list) in &lists[1..] {
        if list != first {
            return Err(format!("tools/list of {name} differs from {first_name}'s"));
        }
    }
    for round in 1..=3 {
        if &tool_list(service, "the balancer").await? != first {
            return Err(format!(
                "tools/list through the balancer (round {round}) differs"
            ));
        }
    }
    eprintln!(
        "scale: tools/list identical from {} replicas and the balancer ({} tools)",
        lists.len(),
        first.len()
    );
    Ok(first.clone())
}

async fn scale(balancer: &str, stop: &str, replicas: Vec<Replica>) -> Result<Arc<Run>, String> {
    let service = connect(balancer).await?;
    let tools = check_replicas(&service, &replicas).await?;
    let reissuable = tools
        .iter()
        .filter(|tool| {
            tool.annotations.as_ref().is_some_and(|annotations| {
                annotations.read_only_hint == Some(true)
                    || annotations.idempotent_hint == Some(true)
            })
        })
        .map(|tool| tool.name.to_string())
        .collect();
    let replicas_count = replicas.len();
    let stop = replicas
        .into_iter()
        .find(|replica| replica.name == stop)
        .ok_or_else(|| format!("no replica named {stop:?}"))?;
    let run = Arc::new(Run {
        service,
        reissuable,
        tally: Tally::default(),
        stop,
        stopped_at: Mutex::new(None),
    });
    let started = Instant::now();
    phase(&run, PHASE_A, |run, index| async move {
        run.fixture(index).await
    })
    .await;
    phase(&run, PHASE_B / 2, |run, index| async move {
        run.replica_call(index.is_multiple_of(2), DELAY_MS).await;
    })
    .await;
    let probes = run.stop_with_calls_in_flight().await;
    phase(&run, PHASE_B - PHASE_B / 2, |run, index| async move {
        run.replica_call(index.is_multiple_of(2), DELAY_MS).await;
    })
    .await;
    for probe in probes {
        if let Err(err) = probe.await {
            run.tally.problem(format!("a probe failed: {err}"));
        }
    }
    phase(&run, PHASE_C, |run, index| async move {
        run.fixture(index).await
    })
    .await;
    let answered = run
        .tally
        .answered_by
        .lock()
        .map(|counts| counts.clone())
        .unwrap_or_default();
    eprintln!(
        "scale: {} replicas, phase B answered by {answered:?}; re-issued {} requests ({} of them input-round retries); {:.1} s",
        replicas_count,
        run.tally.reissued.load(Ordering::Relaxed),
        run.tally.reissued_retries.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64()
    );
    Ok(run)
}

/// The gateway phase: two `toolmodel gateway` replicas behind the balancer (one key), each in
/// front of its own `examples/conformance_server` (`MCP_REPLICA` `g1` and `g2`, one key of
/// their own). [`GATEWAY_CALLS`] calls of `scale_replica` with an input round, on
/// [`WORKERS`] workers: the upstream's `InputRequiredResult` reaches the client through the
/// gateway that served the first request, and the retry, round-robin, usually through the
/// other, which opens the first one's sealed state and sends the upstream's on. An upstream
/// replica serves one gateway only, so `askedBy` != `answeredBy` is a round continued on the
/// other gateway. Then [`GATEWAY_CALLS`] / 4 calls of the two-round
/// `test_input_required_result_multi_round`. No request is re-issued: every call must end
/// with its result. Returns `(calls, cross_replica_retries, lost)`.
async fn gateway(balancer: &str) -> Result<(usize, usize, usize), String> {
    let service = Arc::new(connect(balancer).await?);
    let (calls, cross, lost) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
    );
    let next = Arc::new(AtomicUsize::new(0));
    let total = GATEWAY_CALLS + GATEWAY_CALLS / 4;
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (service, next) = (Arc::clone(&service), Arc::clone(&next));
            let (calls, cross, lost) = (Arc::clone(&calls), Arc::clone(&cross), Arc::clone(&lost));
            tokio::spawn(async move {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= total {
                        break;
                    }
                    let (name, arguments) = if index < GATEWAY_CALLS {
                        ("scale_replica", json!({"ask": true}))
                    } else {
                        ("test_input_required_result_multi_round", json!({}))
                    };
                    match through_rounds(&service, name, arguments).await {
                        Ok(result) if name == "scale_replica" => {
                            let meta = replicas(&result);
                            let (asked, answered) =
                                (meta["askedBy"].as_str(), meta["answeredBy"].as_str());
                            if asked.is_none() || answered.is_none() {
                                eprintln!("gateway: lost: no input round in {result:?}");
                                lost.fetch_add(1, Ordering::Relaxed);
                                continue;
                            }
                            if asked != answered {
                                cross.fetch_add(1, Ordering::Relaxed);
                            }
                            calls.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(result) if text(&result) == "Ada likes Ada" => {
                            calls.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(result) => {
                            eprintln!("gateway: lost: {name}: unexpected result {result:?}");
                            lost.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(why) => {
                            eprintln!("gateway: lost: {name}: {why}");
                            lost.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        worker
            .await
            .map_err(|err| format!("a worker failed: {err}"))?;
    }
    Ok((
        calls.load(Ordering::Relaxed),
        cross.load(Ordering::Relaxed),
        lost.load(Ordering::Relaxed),
    ))
}

/// The calls of the gateway phase with an input round.
const GATEWAY_CALLS: usize = 40;

/// One call through its input rounds (at most 4), nothing re-issued.
async fn through_rounds(
    service: &Service,
    name: &str,
    arguments: Value,
) -> Result<CallToolResult, String> {
    let mut params = params(name, arguments);
    for _round in 0..4 {
        match attempt(service, params.clone()).await {
            Attempt::Answer(CallToolResponse::Complete(result)) => return Ok(result),
            Attempt::Answer(CallToolResponse::InputRequired(required)) => {
                params.input_responses = Some(answers(&required));
                params.request_state = required.request_state;
            }
            Attempt::Answer(other) => return Err(format!("unexpected answer {other:?}")),
            Attempt::Refused(why) | Attempt::NoResponse(why) => return Err(why),
        }
    }
    Err("no result after 4 input rounds".to_owned())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [command, balancer] = args.as_slice()
        && command == "gateway"
    {
        let (calls, cross, lost) = within_limit("gateway", RUN_LIMIT, gateway(balancer)).await;
        println!("gateway: replicas=2 calls={calls} cross_replica_retries={cross} lost={lost}");
        if lost > 0 || cross == 0 {
            std::process::exit(1);
        }
        return;
    }
    if args.first().map(String::as_str) == Some("free-port") {
        match std::net::TcpListener::bind("127.0.0.1:0").and_then(|socket| socket.local_addr()) {
            Ok(address) => println!("{}", address.port()),
            Err(err) => {
                eprintln!("scale: no free port: {err}");
                std::process::exit(1);
            }
        }
        return;
    }
    let usage = "usage: scale_client BALANCER_URL STOP NAME=URL=PID... | scale_client gateway BALANCER_URL | scale_client free-port";
    if args.len() < 4 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let replicas: Result<Vec<Replica>, String> =
        args[2..].iter().map(|arg| Replica::parse(arg)).collect();
    let replicas = replicas.unwrap_or_else(|err| {
        eprintln!("scale: {err}\n{usage}");
        std::process::exit(2);
    });
    let count = replicas.len();
    let run = within_limit("scale", RUN_LIMIT, scale(&args[0], &args[1], replicas)).await;
    let tally = &run.tally;
    let (calls, cross, lost) = (
        tally.calls.load(Ordering::Relaxed),
        tally.cross_replica_retries.load(Ordering::Relaxed),
        tally.lost.load(Ordering::Relaxed),
    );
    let mut failed = tally
        .problems
        .lock()
        .map(|problems| !problems.is_empty())
        .unwrap_or(true);
    if cross == 0 {
        eprintln!("scale: no input-round retry landed on another replica");
        failed = true;
    }
    if tally.reissued.load(Ordering::Relaxed) == 0 {
        eprintln!("scale: no call was in flight on the stopped replica (nothing re-issued)");
        failed = true;
    }
    let late = tally.after_stop_from_stopped.load(Ordering::Relaxed);
    if late > 0 {
        eprintln!("scale: {late} answers came from the stopped replica after its stop");
        failed = true;
    }
    println!("scale: replicas={count} calls={calls} cross_replica_retries={cross} lost={lost}");
    if failed || lost > 0 {
        std::process::exit(1);
    }
}
