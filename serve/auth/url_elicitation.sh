#!/usr/bin/env bash
# Per-user authorization of a third-party upstream through URL-mode elicitation (issue 44),
# driven by the official Python MCP client (PyPI `mcp`, in the venv of serve/telemetry/install.sh)
# against the release `toolmodel gateway` and example server, with two oidc-provider instances
# (serve/auth/install.sh): serve/auth/url_elicitation.py. Bounded to 90 s after the build.
# Last line:
#   url-elicitation: authorized=yes whoami_subject=alice declined=tool_error
# and a non-zero exit status on any failed assertion.
set -euo pipefail
cd "$(dirname "$0")/../.."

echo "== installing the Python MCP client (.upstreams/otel-venv) and oidc-provider (serve/auth)"
bash serve/telemetry/install.sh
bash serve/auth/install.sh
echo "== building the release gateway and example server"
cargo build --release -p toolmodel-cli --bin toolmodel
cargo build --release -p toolmodel-examples --example server
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
echo "== a user authorizes a third-party upstream through URL-mode elicitation"
timeout 90 .upstreams/otel-venv/bin/python serve/auth/url_elicitation.py \
    "$target_dir/release/toolmodel" "$target_dir/release/examples/server"
