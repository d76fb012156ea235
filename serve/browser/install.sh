#!/usr/bin/env bash
# Installs what the browser test (toolmodel-tests' tests/browser.rs, running
# serve/browser/run.mjs) needs, once: Debian's chromium (apt-get, as root or with sudo) when
# missing, and the TypeScript MCP SDK and esbuild (serve/browser/package.json, pinned by
# package-lock.json) into serve/browser/node_modules (ignored by git). Needs node >= 20 and npm.
# When either cannot be installed it says so and exits 1 under CI, 0 elsewhere (the test then
# skips with a notice).
set -euo pipefail
cd "$(dirname "$0")"

as_root=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
    as_root=(sudo -n)
fi

unavailable() {
    echo "notice: $1; the browser test will be skipped" >&2
    if [ -n "${CI:-}" ]; then
        exit 1
    fi
    exit 0
}

if ! command -v chromium >/dev/null 2>&1; then
    echo "== installing chromium (Debian package)" >&2
    if [ "$(id -u)" -ne 0 ] && [ ${#as_root[@]} -eq 0 ]; then
        unavailable "chromium is missing, and installing it needs root or sudo"
    fi
    { "${as_root[@]}" apt-get update -q &&
        DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q --no-install-recommends chromium; } \
        >/dev/null || unavailable "chromium could not be installed"
fi
if [ ! -d node_modules/@modelcontextprotocol/sdk ] || [ ! -d node_modules/esbuild ]; then
    npm ci --no-audit --no-fund --loglevel=error || unavailable "npm ci failed in serve/browser"
fi
echo "ok: $(chromium --version 2>/dev/null), @modelcontextprotocol/sdk $(node -p "require('./node_modules/@modelcontextprotocol/sdk/package.json').version"), esbuild $(node -p "require('./node_modules/esbuild/package.json').version")"
