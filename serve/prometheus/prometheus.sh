#!/usr/bin/env bash
# Prometheus for the telemetry proof (issue 41): installs Debian's prometheus when missing, and
# starts or stops a throwaway server on loopback that scrapes one target every second.
#
#   serve/prometheus/prometheus.sh install             install prometheus (apt-get; as root, or
#                                                      with sudo) when missing
#   serve/prometheus/prometheus.sh start DIR TARGET    start prometheus on 127.0.0.1 on a free port,
#                                                      scraping http://TARGET/metrics every second,
#                                                      its data, pid file and log in DIR; prints its
#                                                      URL once it is ready (within 30 s)
#   serve/prometheus/prometheus.sh stop DIR            stop the server started in DIR
#
# The package's own service is not started (a policy-rc.d answering 101 during the install, as
# scale/redis.sh does): the server runs as the current user, never as a system service.
set -euo pipefail

# shellcheck source=../debian_package.sh
source "$(dirname "${BASH_SOURCE[0]}")/../debian_package.sh"

find_prometheus() {
    command -v prometheus 2>/dev/null || { [ -x /usr/bin/prometheus ] && echo /usr/bin/prometheus; } || true
}

install() {
    install_debian_package prometheus prometheus
}

start() {
    local dir="$1" target="$2"
    install
    mkdir -p "$dir/data"
    local port
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: toolmodel
    static_configs:
      - targets: ["$target"]
YML
    "$(find_prometheus)" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
        --web.listen-address="127.0.0.1:$port" >"$dir/prometheus.log" 2>&1 &
    echo $! >"$dir/prometheus.pid"
    for _ in $(seq 1 300); do
        if curl -fsS "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; then
            echo "http://127.0.0.1:$port"
            return 0
        fi
        sleep 0.1
    done
    cat "$dir/prometheus.log" >&2
    echo "error: prometheus did not get ready within 30 s" >&2
    return 1
}

stop() {
    local dir="$1"
    [ -f "$dir/prometheus.pid" ] || return 0
    local pid
    pid="$(cat "$dir/prometheus.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/prometheus.pid"
}

case "${1:-}" in
    install) install ;;
    start) start "$2" "$3" ;;
    stop) stop "$2" ;;
    *)
        echo "usage: $0 install | start DIR TARGET | stop DIR" >&2
        exit 2
        ;;
esac
