#!/usr/bin/env bash
# Stateless scale-out behind a real load balancer (issue 21, item 7): three replicas of the
# release examples/conformance_server on loopback ports, sharing one MCP_REQUEST_STATE_KEY,
# behind nginx (round-robin, no stickiness), driven by scale/scale_client.rs (rmcp's client,
# MCP 2026-07-28): tools/list from every replica, 342 tool calls, multi round-trip calls whose
# retry lands on another replica, and one replica stopped mid-run (SIGTERM) with its in-flight
# calls re-issued by the client. What the client checks and re-issues: scale/scale_client.rs.
#
# nginx: installed from the Debian packages when missing (apt-get install nginx-light, or nginx
# where there is no nginx-light; as root, or with sudo when not root). The package's own service
# is not started (a policy-rc.d answering 101 during the install, when none exists). nginx runs
# in the foreground as the current user, with its configuration, pid file, logs and temp dirs
# in a mktemp directory (-p/-c/-e), never as a system service.
#
# Bounds: the build before the run is not bounded (on a clean clone it is a release build);
# the run is: replicas and nginx must be up within 30 s, and the client is killed after
# SCALE_TIME_LIMIT seconds (default 120; it gives up by itself after 100). Everything started
# here is stopped on exit (trap). The last line is the client's:
#   scale: replicas=3 calls=<n> cross_replica_retries=<m> lost=<k>
# and the exit status is non-zero unless lost=0 and cross_replica_retries > 0 (and the client's
# other checks pass: identical tool lists, calls re-issued after the stop).
#
# Tasks phase (issue 31): the replicas share one Redis task store (MCP_TASK_STORE; Redis from
# Debian's redis-server, installed when missing and started on loopback by scale/redis.sh). The
# stopped replica is started again on its port, then scale/tasks_client.rs drives task calls
# through the balancer: 50 tasks created, polled, answered and cancelled; 12 more running when
# one replica is killed (SIGKILL); 14 left pending while every replica is restarted (on the same
# ports). Its line comes last, and the exit status is non-zero unless it ends unknown=0 stuck=0:
#   tasks: replicas=3 tasks=<n> completed=<c> failed_worker_lost=<f> unknown=<u> stuck=<s>
# The tasks phase is bounded too: each client run by 100 s, each restart by 30 s.
#
# Gateway phase (issue 32): two `toolmodel gateway` replicas (release toolmodel-cli) sharing one
# MCP_REQUEST_STATE_KEY, each in front of its own conformance_server child (MCP_REPLICA g1, g2,
# sharing a key of their own), behind a second nginx (round-robin). `scale_client gateway` calls
# scale_replica with an input round 40 times and the two-round
# test_input_required_result_multi_round 10 times through it; a round asked through one gateway
# and answered through the other shows askedBy != answeredBy. Its line comes last, and the exit
# status is non-zero unless lost=0 and cross_replica_retries > 0:
#   gateway: replicas=2 calls=<n> cross_replica_retries=<m> lost=<k>
# Bounded: the gateways must be up within 30 s, the client gives up after 100 s.
#
# Legacy-gateway run (issue 43), right after it on the same gateways and nginx: the gateways are
# started with MCP_SESSION_STORE naming the Redis of the tasks phase (their 2025-era sessions;
# the 2026-07-28 calls above have none) and this nginx names the gateway serving each response
# (X-Upstream: $upstream_addr). `legacy_client gateway` (scale/legacy_client.rs, protocol
# 2025-11-25) runs 4 sessions at once, each 8 rounds of test_simple_text, test_elicitation and
# test_sampling (tool names as the upstream's: a gateway over one server prefixes none); the
# gateway passes the upstream's elicitation and sampling requests on to the client, and the
# client's answer, a POST nginx may hand to the other gateway, back to the asking one's upstream
# session. Then DELETE for each session; a request with a deleted id must get 404 from both
# gateways. Nothing is killed. Its line comes just before the legacy phase's, and the exit
# status is non-zero unless lost=0, reinitialized=0 and cross_replica_answers > 0:
#   legacy-gateway: replicas=2 sessions=<n> calls=<c> cross_replica_answers=<a> lost=<l> reinitialized=<r>
# Bounded: the client gives up after 60 s (killed after 70).
#
# Limits run (issue 44), right after it on the same gateways and nginx: their configuration has a
# rate limit (toolmodelLimits: 4 calls/s, burst 8) on test_image_content, which no other client
# calls, shared through the Redis of the tasks phase (MCP_LIMIT_STORE). Four curl loops call it
# through nginx for 4 s (sessionless MCP 2026-07-28 requests, half on each gateway); a call is
# admitted (the tool's image) or refused (an isError result naming the rule). The line, and a
# non-zero exit status when more were admitted than burst + rate x the run's seconds (what one
# shared bucket allows; two unshared would admit up to twice that), when none was refused, or
# when a call failed (not HTTP 200):
#   limits: replicas=2 admitted=<n> allowed_max=<m> refused=<k> calls=<c> failed=<f> secs=4
#
# Legacy phase (issue 43): MCP 2025-11-25 sessions on any replica. The three replicas are
# restarted (same ports) with MCP_SESSION_STORE naming the Redis of the tasks phase (sessions
# and tasks in one Redis), behind a third nginx like the first (round-robin, no stickiness, no
# routing by header) that also names the replica serving each response (X-Upstream:
# $upstream_addr). scale/legacy_client.rs (rmcp's client, protocol 2025-11-25) opens sessions
# (initialize, Mcp-Session-Id, a GET stream), calls test_simple_text, scale_replica,
# test_elicitation and test_sampling in each (the elicitation and sampling answers are POSTs the
# balancer hands to any replica), checks that tools/list_changed raised on one replica reaches a
# GET stream held by another, kills one replica (SIGKILL) mid-run with calls in flight on it
# (re-issued when safe: see the client's docs), and ends every session with DELETE (a later
# request with its id must get 404 from each live replica). Its line comes last, and the exit
# status is non-zero unless lost=0, reinitialized=0 and cross_replica_answers > 0 (and the
# client's other checks pass):
#   legacy: replicas=3 sessions=<n> calls=<c> cross_replica_answers=<a> lost=<l> reinitialized=<r>
# Bounded: the replicas and nginx must be up within 30 s, the client gives up after 100 s.
set -euo pipefail
cd "$(dirname "$0")/.."

time_limit="${SCALE_TIME_LIMIT:-120}"
replica_names=(r1 r2 r3)
stop_name=r2

# nginx from the Debian packages when missing (serve/install_nginx.sh: the same steps for the
# gateway test behind nginx); it prints the binary's path.
nginx_bin="$(bash serve/install_nginx.sh)"
echo "== $("$nginx_bin" -v 2>&1)"

echo "== building the release conformance server, scale clients and toolmodel (gateway)"
cargo build --quiet --release -p toolmodel-examples --example conformance_server --example scale_client \
    --example tasks_client --example legacy_client
cargo build --quiet --release -p toolmodel-cli --bin toolmodel
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
server_bin="$target_dir/release/examples/conformance_server"
client_bin="$target_dir/release/examples/scale_client"
tasks_bin="$target_dir/release/examples/tasks_client"
legacy_bin="$target_dir/release/examples/legacy_client"
cli_bin="$target_dir/release/toolmodel"

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    bash scale/redis.sh stop "$work/redis"
    rm -rf "$work"
}
trap cleanup EXIT
deadline=$((SECONDS + 30))

# One key for every replica: any of them opens the requestState another sealed.
MCP_REQUEST_STATE_KEY="$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
export MCP_REQUEST_STATE_KEY

# One task store for every replica: any of them answers for any task.
MCP_TASK_STORE="$(bash scale/redis.sh start "$work/redis")"
export MCP_TASK_STORE
echo "== redis task store at $MCP_TASK_STORE"

declare -A url pid
# start_replica NAME ADDRESS: starts the replica on ADDRESS (port 0: a free one), its log in
# $work/NAME.log.
start_replica() {
    MCP_REPLICA="$1" "$server_bin" --http "$2" 2>"$work/$1.log" &
    pid[$1]=$!
    pids+=("$!")
}
# wait_replica NAME: waits (until $deadline) for the replica to listen; sets its URL.
wait_replica() {
    local name="$1"
    until grep -q "listening on" "$work/$name.log" 2>/dev/null; do
        kill -0 "${pid[$name]}" 2>/dev/null || { cat "$work/$name.log" >&2; echo "error: replica $name exited" >&2; exit 1; }
        [ "$SECONDS" -lt "$deadline" ] || { echo "error: replica $name did not start in 30 s" >&2; exit 1; }
        sleep 0.1
    done
    url[$name]="$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/$name.log" | head -n1)"
}
for name in "${replica_names[@]}"; do
    start_replica "$name" 127.0.0.1:0
done
for name in "${replica_names[@]}"; do
    wait_replica "$name"
done

port="$("$client_bin" free-port)"
upstreams=""
for name in "${replica_names[@]}"; do
    authority="${url[$name]#http://}"
    upstreams+="        server ${authority%/mcp} max_fails=1 fail_timeout=10s;  # $name"$'\n'
done
user_line=""
if [ "$(id -u)" -eq 0 ]; then
    # As root nginx would switch its workers to `nobody`; keep the current user.
    user_line="user $(id -un) $(id -gn);"
fi
# write_nginx_conf DIR PORT UPSTREAMS [DIRECTIVES]: nginx's configuration in DIR/nginx.conf,
# listening on PORT and balancing over the `server` lines UPSTREAMS, with DIRECTIVES (if any) in
# its `location /mcp`.
write_nginx_conf() {
local dir="$1" port="$2" upstreams="$3" directives="${4:-}"
mkdir -p "$dir"
cat >"$dir/nginx.conf" <<EOF
# Round-robin over the replicas (nginx's default), no stickiness: every request, a retry with
# its requestState included, may reach any replica.
$user_line
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
    log_format upstream '\$status|\$upstream_addr|\$upstream_status|\$request_time';
    access_log $dir/access.log upstream;
    client_body_temp_path $dir/client_body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    upstream mcp_replicas {
$upstreams        keepalive 32;
    }
    server {
        listen 127.0.0.1:$port;
        location /mcp {
            proxy_pass http://mcp_replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # The replicas accept loopback Host headers only (DNS rebinding): pass the client's.
            proxy_set_header Host \$http_host;
            # Responses may be event streams (SSE): pass them on as they come.
            proxy_buffering off;
            proxy_read_timeout 60s;
            proxy_connect_timeout 2s;
            # A replica that refuses the connection: the request goes to the next one (a POST is
            # never re-sent once it reached a replica; the client decides about those).
            proxy_next_upstream error timeout;
            $directives
        }
    }
}
EOF
}
# start_nginx DIR PORT: starts nginx with DIR/nginx.conf (write_nginx_conf) and waits (until
# $deadline) for it to listen on PORT; sets nginx_pid.
start_nginx() {
    local dir="$1" port="$2"
    "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" &
    nginx_pid=$!
    pids+=("$nginx_pid")
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        kill -0 "$nginx_pid" 2>/dev/null || { cat "$dir/error.log" >&2; echo "error: nginx ($dir) exited" >&2; exit 1; }
        [ "$SECONDS" -lt "$deadline" ] || { cat "$dir/error.log" >&2; echo "error: nginx ($dir) did not start in 30 s" >&2; exit 1; }
        sleep 0.1
    done
}
# access_summary DIR: the requests of nginx's access log in DIR by status and replica(s) tried.
access_summary() {
    awk -F'|' '{print $1 " " $2}' "$1/access.log" | sort | uniq -c | sort -rn | head -n 12
}
# gone NAME WHAT: fails, with a line on stderr, when replica NAME still runs after the client
# should have WHAT it (stopped, killed).
gone() {
    if kill -0 "${pid[$1]}" 2>/dev/null; then
        echo "error: replica $1 was not $2" >&2
        return 1
    fi
}
write_nginx_conf "$work/nginx" "$port" "$upstreams"
start_nginx "$work/nginx" "$port"
echo "== nginx (pid $nginx_pid) on 127.0.0.1:$port, round-robin over:"
for name in "${replica_names[@]}"; do
    echo "   $name pid ${pid[$name]} ${url[$name]}"
done

args=()
for name in "${replica_names[@]}"; do
    args+=("$name=${url[$name]}=${pid[$name]}")
done
status=0
timeout --kill-after=5 "$time_limit" "$client_bin" "http://127.0.0.1:$port/mcp" "$stop_name" "${args[@]}" \
    >"$work/client.out" || status=$?
gone "$stop_name" stopped || status=1
echo "== nginx access log: requests by status and replica(s) tried (502: in flight on the stopped one)"
access_summary "$work/nginx"
summary="$(tail -n 1 "$work/client.out")"
if [[ "$summary" != scale:* ]]; then
    echo "error: the scale client failed (status $status) and printed no summary" >&2
    exit 1
fi
echo "$summary"
lost="$(sed -n 's/.* lost=\([0-9]*\).*/\1/p' <<<"$summary")"
cross="$(sed -n 's/.* cross_replica_retries=\([0-9]*\).*/\1/p' <<<"$summary")"
if [ "$status" -ne 0 ] || [ "$lost" != 0 ] || [ "${cross:-0}" -eq 0 ]; then
    exit 1
fi

# restart_replica NAME: stops the replica (if it still runs) and starts it on the same address.
restart_replica() {
    local name="$1" address="${url[$1]#http://}"
    address="${address%/mcp}"
    kill "${pid[$name]}" 2>/dev/null || true
    wait "${pid[$name]}" 2>/dev/null || true
    mv "$work/$name.log" "$work/$name.log.$SECONDS"
    start_replica "$name" "$address"
}
# restart_replicas: every replica again on its port (with the environment as it is now), all
# up within 30 s.
restart_replicas() {
    deadline=$((SECONDS + 30))
    for name in "${replica_names[@]}"; do
        restart_replica "$name"
    done
    for name in "${replica_names[@]}"; do
        wait_replica "$name"
    done
}

echo "== tasks phase: the stopped replica $stop_name back on its port"
deadline=$((SECONDS + 30))
restart_replica "$stop_name"
wait_replica "$stop_name"
kill_name=r1
tasks_status=0
timeout --kill-after=5 100 "$tasks_bin" run "http://127.0.0.1:$port/mcp" "${pid[$kill_name]}" \
    "$work/tasks.json" || tasks_status=$?
if [ "$tasks_status" -eq 0 ]; then
    echo "== every replica restarted with tasks pending (one was killed: $kill_name)"
    restart_replicas
    timeout --kill-after=5 100 "$tasks_bin" resume "http://127.0.0.1:$port/mcp" "$work/tasks.json" \
        >"$work/tasks.out" || tasks_status=$?
fi
tasks_summary="$(tail -n 1 "$work/tasks.out" 2>/dev/null || true)"
if [[ "$tasks_summary" != tasks:* ]]; then
    echo "error: the tasks client failed (status $tasks_status) and printed no summary" >&2
    exit 1
fi
if [ "$tasks_status" -ne 0 ] || [[ "$tasks_summary" != *" unknown=0 stuck=0" ]]; then
    echo "$summary"
    echo "$tasks_summary"
    exit 1
fi

echo "== gateway phase: two toolmodel gateways behind nginx, each in front of its own conformance server"
deadline=$((SECONDS + 30))
gateway_key="$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
upstream_key="$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
gateway_names=(g1 g2)
limits_tool=test_image_content limits_rate=4 limits_burst=8 limits_secs=4
for name in "${gateway_names[@]}"; do
    # The limits run's rule (below) names a tool no other client calls.
    cat >"$work/$name.json" <<EOF
{"mcpServers": {"conformance": {"command": "$server_bin",
  "env": {"MCP_REPLICA": "$name", "MCP_REQUEST_STATE_KEY": "$upstream_key"}}},
 "toolmodelLimits": {"rules": [{"per": ["tool"], "tools": ["conformance.$limits_tool"],
  "rate": $limits_rate, "burst": $limits_burst}]}}
EOF
    # Their 2025-era sessions (the legacy-gateway run below) and their rate limits in the
    # Redis of the tasks phase.
    MCP_REQUEST_STATE_KEY="$gateway_key" MCP_SESSION_STORE="$MCP_TASK_STORE" \
        MCP_LIMIT_STORE="$MCP_TASK_STORE" "$cli_bin" gateway \
        --config "$work/$name.json" --http 127.0.0.1:0 2>"$work/$name.log" &
    pid[$name]=$!
    pids+=("$!")
done
gateway_upstreams=""
for name in "${gateway_names[@]}"; do
    until grep -q "serving MCP on" "$work/$name.log" 2>/dev/null; do
        kill -0 "${pid[$name]}" 2>/dev/null || { cat "$work/$name.log" >&2; echo "error: gateway $name exited" >&2; exit 1; }
        [ "$SECONDS" -lt "$deadline" ] || { echo "error: gateway $name did not start in 30 s" >&2; exit 1; }
        sleep 0.1
    done
    authority="$(sed -n 's|.*serving MCP on http://\([^/]*\)/mcp.*|\1|p' "$work/$name.log" | head -n1)"
    echo "   $name pid ${pid[$name]} http://$authority/mcp"
    gateway_upstreams+="        server $authority max_fails=1 fail_timeout=10s;  # $name"$'\n'
done
gateway_port="$("$client_bin" free-port)"
# Each response names the gateway that served it (for the legacy-gateway run's count).
write_nginx_conf "$work/nginx-gateway" "$gateway_port" "$gateway_upstreams" 'add_header X-Upstream $upstream_addr always;'
start_nginx "$work/nginx-gateway" "$gateway_port"
gateway_status=0
timeout --kill-after=5 110 "$client_bin" gateway "http://127.0.0.1:$gateway_port/mcp" \
    >"$work/gateway.out" || gateway_status=$?
gateway_summary="$(tail -n 1 "$work/gateway.out" 2>/dev/null || true)"
if [[ "$gateway_summary" != gateway:* ]]; then
    echo "error: the gateway client failed (status $gateway_status) and printed no summary" >&2
    exit 1
fi
if [ "$gateway_status" -ne 0 ]; then
    echo "$summary"
    echo "$tasks_summary"
    echo "$gateway_summary"
    exit 1
fi

echo "== legacy-gateway run: 2025-11-25 sessions through the same two gateways and nginx"
legacy_gateway_status=0
timeout --kill-after=5 70 "$legacy_bin" gateway "http://127.0.0.1:$gateway_port/mcp" \
    >"$work/legacy-gateway.out" || legacy_gateway_status=$?
legacy_gateway_summary="$(tail -n 1 "$work/legacy-gateway.out" 2>/dev/null || true)"
if [[ "$legacy_gateway_summary" != legacy-gateway:* ]] || [ "$legacy_gateway_status" -ne 0 ]; then
    echo "== gateway nginx access log: requests by status and gateway(s) tried"
    access_summary "$work/nginx-gateway"
    echo "$summary"
    echo "$tasks_summary"
    echo "$gateway_summary"
    if [[ "$legacy_gateway_summary" != legacy-gateway:* ]]; then
        echo "error: the legacy-gateway client failed (status $legacy_gateway_status) and printed no summary" >&2
    else
        echo "$legacy_gateway_summary"
    fi
    exit 1
fi

echo "== limits run: one rate limit shared by the two gateways through Redis, calls through nginx for ${limits_secs} s"
# Four loops of sessionless (MCP 2026-07-28) calls of $limits_tool through nginx (round-robin:
# half on each gateway); each reply is admitted (the tool's image) or refused (an isError
# result naming the rule). Shared, the two admit at most burst + rate x (the run's seconds) in
# all; each on its own would admit up to twice that.
limits_body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'"$limits_tool"'","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"limits","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}'
limits_loop() {
    local until=$1 out=$2
    while [ "$(date +%s%N)" -lt "$until" ]; do
        curl -s -m 5 -X POST "http://127.0.0.1:$gateway_port/mcp" \
            -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
            -H 'Mcp-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
            -H "Mcp-Name: $limits_tool" -d "$limits_body" -w '\nstatus=%{http_code}\n' >>"$out" || echo "status=curl" >>"$out"
    done
}
limits_start="$(date +%s%N)"
limits_until=$((limits_start + limits_secs * 1000000000))
limits_loops=()
for i in 1 2 3 4; do
    limits_loop "$limits_until" "$work/limits.$i.out" &
    limits_loops+=("$!")
done
wait "${limits_loops[@]}"
limits_end="$(date +%s%N)"
cat "$work"/limits.*.out >"$work/limits.out"
limits_admitted="$(grep -c '"type":"image"' "$work/limits.out" || true)"
limits_refused="$(grep -c 'rate limit /toolmodelLimits/rules/0' "$work/limits.out" || true)"
limits_calls="$(grep -c '^status=' "$work/limits.out" || true)"
limits_failed="$(grep '^status=' "$work/limits.out" | grep -vc '^status=200$' || true)"
limits_max="$(awk -v b="$limits_burst" -v r="$limits_rate" -v ns="$((limits_end - limits_start))" \
    'BEGIN { printf "%d", b + r * ns / 1e9 }')"
limits_summary="limits: replicas=2 admitted=$limits_admitted allowed_max=$limits_max refused=$limits_refused calls=$limits_calls failed=$limits_failed secs=$limits_secs"
echo "$limits_summary"
if [ "$limits_admitted" -gt "$limits_max" ] || [ "$limits_refused" -eq 0 ] || [ "$limits_failed" -ne 0 ] \
    || [ "$((limits_admitted + limits_refused))" -ne "$limits_calls" ]; then
    echo "error: the limits run: more admitted than the shared limit allows, nothing refused, or calls failed" >&2
    echo "$summary"
    echo "$tasks_summary"
    echo "$gateway_summary"
    echo "$legacy_gateway_summary"
    exit 1
fi

echo "== legacy phase: 2025-11-25 sessions on any replica, the replicas restarted on one Redis session store"
# Sessions in the Redis of the tasks phase, beside the tasks.
MCP_SESSION_STORE="$MCP_TASK_STORE"
export MCP_SESSION_STORE
restart_replicas
legacy_port="$("$client_bin" free-port)"
# As the first nginx, and each response names the replica that served it (the client counts
# the answers that reached another replica than the call that asked).
write_nginx_conf "$work/nginx-legacy" "$legacy_port" "$upstreams" 'add_header X-Upstream $upstream_addr always;'
start_nginx "$work/nginx-legacy" "$legacy_port"
legacy_kill=r3
kill_address="${url[$legacy_kill]#http://}"
kill_address="${kill_address%/mcp}"
echo "   nginx (pid $nginx_pid) on 127.0.0.1:$legacy_port; $legacy_kill ($kill_address, pid ${pid[$legacy_kill]}) killed mid-run"
legacy_status=0
timeout --kill-after=5 110 "$legacy_bin" "http://127.0.0.1:$legacy_port/mcp" "$kill_address" \
    "${pid[$legacy_kill]}" >"$work/legacy.out" || legacy_status=$?
gone "$legacy_kill" killed || legacy_status=1
echo "== legacy nginx access log: requests by status and replica(s) tried"
access_summary "$work/nginx-legacy"
legacy_summary="$(tail -n 1 "$work/legacy.out" 2>/dev/null || true)"
echo "$summary"
echo "$tasks_summary"
echo "$gateway_summary"
echo "$legacy_gateway_summary"
echo "$limits_summary"
if [[ "$legacy_summary" != legacy:* ]]; then
    echo "error: the legacy client failed (status $legacy_status) and printed no summary" >&2
    exit 1
fi
echo "$legacy_summary"
if [ "$legacy_status" -ne 0 ]; then
    exit 1
fi
