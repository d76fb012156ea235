#!/usr/bin/env bash
# Installs the real MCP servers the federation tests and serve/federation.sh use, into
# .upstreams/ (ignored by git): @modelcontextprotocol/server-everything and
# @modelcontextprotocol/server-memory from npm (the machine's Node 20), mcp-server-time from PyPI
# in a virtual environment. Idempotent; prints the commands to run each server as
#   NAME=COMMAND
# lines in .upstreams/env. Exit status non-zero when something could not be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/.upstreams"
mkdir -p "$root/npm"
if [[ ! -x "$root/npm/node_modules/.bin/mcp-server-everything" || ! -x "$root/npm/node_modules/.bin/mcp-server-memory" ]]; then
    [[ -f "$root/npm/package.json" ]] || echo '{"name":"toolmodel-upstreams","private":true}' >"$root/npm/package.json"
    npm install --prefix "$root/npm" --no-audit --no-fund --loglevel=error \
        @modelcontextprotocol/server-everything @modelcontextprotocol/server-memory >&2
fi
if [[ ! -x "$root/venv/bin/mcp-server-time" ]]; then
    python3 -m venv "$root/venv"
    "$root/venv/bin/pip" install --quiet --disable-pip-version-check mcp-server-time >&2
fi
{
    echo "EVERYTHING=$root/npm/node_modules/.bin/mcp-server-everything"
    echo "MEMORY=$root/npm/node_modules/.bin/mcp-server-memory"
    echo "TIME=$root/venv/bin/mcp-server-time"
} >"$root/env"
cat "$root/env"
