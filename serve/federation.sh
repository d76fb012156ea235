#!/usr/bin/env bash
# Federation under faults (issue 32): `toolmodel gateway` over Streamable HTTP in front of two
# @modelcontextprotocol/server-everything and one mcp-server-time (installed by
# serve/install_upstreams.sh), called by four client tasks for FEDERATION_SECONDS (default 60)
# while the upstreams' process groups are killed one after another every 2.5 s (the gateway
# respawns them), then stopped with SIGTERM (toolmodel-rmcp/examples/federation_soak.rs).
#
# Bounded to 2 minutes after the build (`timeout 110` around the driver). Last line:
#   federation: calls=<n> failed_fast=<m> hung=0 leaked_children=0
# and the exit status is non-zero when a call hung (no answer within 15 s), a child process
# of the gateway outlived it, or no call succeeded.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FEDERATION_SECONDS:-60}"
echo "== installing the upstream MCP servers"
bash serve/install_upstreams.sh >/dev/null
# shellcheck disable=SC1091
source .upstreams/env
echo "== building the release gateway and driver"
cargo build --release -p toolmodel-cli --bin toolmodel
cargo build --release -p toolmodel-rmcp --features federation --example federation_soak
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
echo "== ${seconds}s of calls through the gateway while its upstreams are killed"
timeout 110 "$target_dir/release/examples/federation_soak" \
    "$target_dir/release/toolmodel" "$EVERYTHING" "$TIME" "$seconds"
