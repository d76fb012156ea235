#!/usr/bin/env bash
# One trace across three processes (issue 41): the official Python MCP client with the
# OpenTelemetry SDK, `toolmodel gateway` and its upstreams (the example server over
# Streamable HTTP and over stdio), every span exported over OTLP/HTTP to a receiver in
# serve/telemetry/traces.py, which asserts the parent chain
#   client > gateway SERVER > gateway CLIENT > upstream SERVER
# in one trace with the MCP conventions' names and attributes, error.type on failed calls,
# network.transport=pipe for stdio, and the handling of a malformed traceparent and an
# oversized tracestate. Bounded to 90 s after the build. Last line:
#   traces: processes=3 spans=<n> one_trace=yes chain=client>gateway.server>gateway.client>upstream.server pipe=yes errors=tool_error,-32602
# and a non-zero exit status on any failed assertion.
set -euo pipefail
cd "$(dirname "$0")/../.."

echo "== installing the Python MCP client and OpenTelemetry SDK (.upstreams/otel-venv)"
bash serve/telemetry/install.sh
echo "== building the release gateway and example server"
cargo build --release -p toolmodel-cli --bin toolmodel
cargo build --release -p toolmodel-examples --example server
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
echo "== one trace across the Python client, the gateway and its upstreams"
timeout 90 .upstreams/otel-venv/bin/python serve/telemetry/traces.py \
    "$target_dir/release/toolmodel" "$target_dir/release/examples/server"
