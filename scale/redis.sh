#!/usr/bin/env bash
# Redis for the task store (issue 31): installs Debian's redis-server when missing, and starts
# or stops a throwaway server on loopback.
#
#   scale/redis.sh install     install redis-server (apt-get; as root, or with sudo) when missing
#   scale/redis.sh start DIR   install when missing, start redis-server on 127.0.0.1 on a free
#                              port with no persistence, its pid file and log in DIR; prints its
#                              URL (redis://127.0.0.1:PORT) once it answers PING (within 10 s)
#   scale/redis.sh stop DIR    stop the server started in DIR
#
# The package's own service is not started (a policy-rc.d answering 101 during the install,
# when none exists), as scale/run.sh does for nginx: the server runs as the current user, never
# as a system service.
set -euo pipefail

# shellcheck source=../serve/debian_package.sh
source "$(dirname "${BASH_SOURCE[0]}")/../serve/debian_package.sh"

find_redis() {
    command -v redis-server 2>/dev/null || { [ -x /usr/bin/redis-server ] && echo /usr/bin/redis-server; } || true
}

install() {
    install_debian_package redis-server redis-server || true
    if [ -z "$(find_redis)" ]; then
        echo "error: apt-get could not install redis-server" >&2
        return 1
    fi
}

start() {
    local dir="$1" bin port
    install
    bin="$(find_redis)"
    mkdir -p "$dir"
    for _ in 1 2 3 4 5; do
        port=$((20000 + RANDOM % 40000))
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            continue
        fi
        "$bin" --bind 127.0.0.1 --port "$port" --save "" --appendonly no --daemonize yes \
            --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" >/dev/null
        for _ in $(seq 1 100); do
            if { exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'PING\r\n' >&3 && read -r -t 1 reply <&3 &&
                [[ "$reply" == +PONG* ]]; } 2>/dev/null; then
                echo "redis://127.0.0.1:$port"
                return 0
            fi
            sleep 0.1
        done
        stop "$dir"
    done
    echo "error: redis-server did not start on loopback (log: $dir/redis.log)" >&2
    return 1
}

stop() {
    local dir="$1"
    if [ -f "$dir/redis.pid" ]; then
        kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
        rm -f "$dir/redis.pid"
    fi
}

case "${1:-}" in
    install) install ;;
    start) start "${2:?usage: redis.sh start DIR}" ;;
    stop) stop "${2:?usage: redis.sh stop DIR}" ;;
    *) echo "usage: scale/redis.sh install | start DIR | stop DIR" >&2; exit 2 ;;
esac
