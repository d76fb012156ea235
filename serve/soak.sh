#!/usr/bin/env bash
# Soak of the release servers (issue 21, items 4 and 9). First, over stdio, CANCEL_ROUNDS
# (default 8,000) rounds of `tools/call` of `examples/conformance_server`'s `test_sampling`,
# each cancelled by the client while the server waits for its never-answered
# `sampling/createMessage` (`examples/cancel_client`; line
#   cancel: rounds=<n> client_requests_cancelled=<k> rss_growth_mb=<x>
# and a failure unless every round's sampling request was cancelled by the server). Then it
# serves the release `examples/server` on a loopback port under the common open-file limit of
# 1,024, and runs `examples/soak_client` (slowloris on 200 connections, 10,000 idle sessions,
# 1,100 idle connections, call-plus-cancel storms, a fresh client every 200 ms) against it for
# SOAK_SECONDS (default 60), its admin listener (`--admin`) scraped every second by Prometheus
# (Debian's, serve/prometheus/prometheus.sh); after the attacks, two queries through
# Prometheus' HTTP API, printed as
#   prometheus: tools=<called tools> p50_s=<their median latency> refusals=<reason=count,...>
# fail the run unless the median latency by tool (`histogram_quantile` over
# `mcp_server_operation_duration_seconds_bucket`) names the probes' tool and the refusal
# counter (`toolmodel_http_refusals_total`) rose under the attacks.
#
# The run itself is bounded to 3 minutes (30 s for the rounds, 140 s for the soak; the build
# before it is not: on a clean clone it is a release build of the workspace). Everything
# started here is stopped on exit. Last line:
#   soak: lockouts=<n> rss_growth_mb=<x> unanswered=<k>
# and the exit status is non-zero when lockouts or unanswered is above 0.
#
# Open files: the server runs with a soft limit of 1,024 (`ulimit -n 1024` in its own
# subshell), the limit the attack was designed against; the client needs about 1,400 sockets
# at once, so its soft limit is raised to 4,096 (or the hard limit, when lower; the run stops
# with an error when even that is under 2,048).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${SOAK_SECONDS:-60}"
rounds="${CANCEL_ROUNDS:-8000}"
echo "== building the release servers and clients"
cargo build --release -p toolmodel-examples --example server --example soak_client \
    --example conformance_server --example cancel_client

target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
server_bin="$target_dir/release/examples/server"
client_bin="$target_dir/release/examples/soak_client"
conformance_bin="$target_dir/release/examples/conformance_server"
cancel_bin="$target_dir/release/examples/cancel_client"

# Item 4: call-plus-cancel rounds over stdio (the client starts and stops the server itself).
cancel_line="$(timeout 30 "$cancel_bin" "$conformance_bin" "$rounds" | tail -n 1)" || {
    echo "error: the call-plus-cancel rounds failed" >&2
    exit 1
}
echo "$cancel_line"
cancelled="$(sed -n 's/.*client_requests_cancelled=\([0-9]*\).*/\1/p' <<<"$cancel_line")"
if [ "${cancelled:-0}" -ne "$rounds" ]; then
    echo "error: the server cancelled $cancelled of its $rounds sampling requests" >&2
    exit 1
fi

server_pid=""
client_pid=""
log="$(mktemp)"
prometheus_dir="$(mktemp -d)"
cleanup() {
    for pid in $client_pid $server_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    bash serve/prometheus/prometheus.sh stop "$prometheus_dir" || true
    rm -rf "$log" "$prometheus_dir"
}
trap cleanup EXIT

# A free loopback port, chosen by the kernel.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port="$(free_port)"
# The admin listener (/metrics) on a port of its own, scraped by Prometheus every second.
admin_port="$(free_port)"
(ulimit -n 1024 && exec "$server_bin" --http "127.0.0.1:$port" --admin "127.0.0.1:$admin_port") 2>"$log" &
server_pid=$!
for _ in $(seq 1 100); do
    grep -q "listening on" "$log" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$log" >&2; echo "error: the server exited" >&2; exit 1; }
    sleep 0.1
done
grep -q "listening on" "$log" || { cat "$log" >&2; echo "error: the server did not start" >&2; exit 1; }
echo "server: pid $server_pid on 127.0.0.1:$port, open-file limit $(awk '/Max open files/ {print $4}' "/proc/$server_pid/limits")"

hard="$(ulimit -Hn)"
want=4096
if [ "$hard" != "unlimited" ] && [ "$hard" -lt "$want" ]; then want="$hard"; fi
if [ "$want" -lt 2048 ]; then
    echo "error: the client needs 2,048 open files; the hard limit is $hard" >&2
    exit 1
fi

prometheus="$(bash serve/prometheus/prometheus.sh start "$prometheus_dir" "127.0.0.1:$admin_port")"
echo "prometheus: $prometheus scraping http://127.0.0.1:$admin_port/metrics"

out="$(mktemp)"
(ulimit -n "$want" && exec timeout 140 "$client_bin" "127.0.0.1:$port" "$server_pid" "$seconds") >"$out" &
client_pid=$!
status=0
wait "$client_pid" || status=$?
client_pid=""
summary="$(tail -n 1 "$out")"
rm -f "$out"
if [ "$status" -ne 0 ] || [[ "$summary" != soak:* ]]; then
    echo "error: the soak client failed (status $status)" >&2
    exit 1
fi
kill -0 "$server_pid" 2>/dev/null || { echo "error: the server died during the soak" >&2; exit 1; }
# What an operator would ask Prometheus after the run: the tools' median latency (the MCP
# conventions' histogram) and the requests the front refused under the attacks, by reason.
sleep 2
query() {
    curl -fsS --get "$prometheus/api/v1/query" --data-urlencode "query=$1"
}
by_tool="$(query 'histogram_quantile(0.5, sum by (le, gen_ai_tool_name) (rate(mcp_server_operation_duration_seconds_bucket{mcp_method_name="tools/call"}[10m])))')"
tools="$(jq -r '[.data.result[].metric.gen_ai_tool_name] | sort | join(",")' <<<"$by_tool")"
p50="$(jq -r '[.data.result[].value[1]] | join(",")' <<<"$by_tool")"
refused="$(query 'sum by (toolmodel_refusal) (toolmodel_http_refusals_total)')"
refusals="$(jq -r '[.data.result[] | "\(.metric.toolmodel_refusal)=\(.value[1])"] | join(",")' <<<"$refused")"
total_refused="$(jq -r '[.data.result[].value[1] | tonumber] | add // 0' <<<"$refused")"
echo "prometheus: tools=${tools:-none} p50_s=${p50:-none} refusals=${refusals:-none}"
if [[ ",$tools," != *",weather.get_weather,"* ]]; then
    echo "error: Prometheus has no tools/call latency of weather.get_weather: $by_tool" >&2
    exit 1
fi
if [ "${total_refused%.*}" -lt 1 ]; then
    echo "error: Prometheus saw no refusal under the soak's attacks: $refused" >&2
    exit 1
fi
echo "$summary"
lockouts="$(sed -n 's/.*lockouts=\([0-9]*\).*/\1/p' <<<"$summary")"
unanswered="$(sed -n 's/.*unanswered=\([0-9]*\).*/\1/p' <<<"$summary")"
if [ "$lockouts" -gt 0 ] || [ "$unanswered" -gt 0 ]; then
    exit 1
fi
