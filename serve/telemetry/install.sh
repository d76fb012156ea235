#!/usr/bin/env bash
# The Python side of serve/telemetry/traces.py: a virtualenv under .upstreams/otel-venv with
# the official MCP client (PyPI `mcp`, which puts trace context in `params._meta` through
# `opentelemetry-api`), the OpenTelemetry SDK and OTLP/HTTP exporter, and `opentelemetry-proto`
# (the receiver decodes the exports with it). Pinned; idempotent: a venv that already holds
# these pins is left as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=.upstreams/otel-venv
pins=(
    mcp==2.3.0
    opentelemetry-api==1.45.2
    opentelemetry-sdk==1.45.2
    opentelemetry-exporter-otlp-proto-http==1.45.2
    opentelemetry-proto==1.45.2
)
stamp="$venv/.pins"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "${pins[*]}" ]]; then
    exit 0
fi
python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "error: $python is older than 3.10, which mcp 2.3.0 needs" >&2
    exit 1
fi
rm -rf "$venv"
mkdir -p .upstreams
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}"
echo "${pins[*]}" >"$stamp"
