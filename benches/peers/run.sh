#!/usr/bin/env bash
# toolmodel against its peers (issue 30): builds this workspace (and, for the gateway line,
# the main workspace's release `examples/server` and `toolmodel` CLI), makes a Python venv with
# the OpenAI Agents SDK and FastMCP from PyPI, and prints one `peers: ...` line per comparison
# (see src/main.rs and BENCHMARKS.md, "Against the peers"). Not in CI (minutes of building).
#
#   benches/peers/run.sh            # every comparison
#   benches/peers/run.sh strict     # only the Agents SDK's
#   benches/peers/run.sh rig        # only rig's
#   benches/peers/run.sh fastmcp    # only FastMCP's gateway
#   TOOLMODEL_BENCH_QUICK=1 ...     # fewer, shorter rounds
#
# PEERS_VENV (default: /tmp/toolmodel-peers-venv) is where the venv goes; the corpus is read
# from $TOOLMODEL_SHARED/corpus, by default ../shared beside the checkout.
set -euo pipefail
cd "$(dirname "$0")"
export TOOLMODEL_SHARED="${TOOLMODEL_SHARED:-$(cd ../../.. && pwd)/shared}"

AGENTS_VERSION=0.24.0
FASTMCP_VERSION=4.2.3
venv="${PEERS_VENV:-/tmp/toolmodel-peers-venv}"
part="${1:-}"
if [[ "$part" != "rig" ]]; then
    if [[ ! -x "$venv/bin/python" ]]; then
        python3 -m venv "$venv"
    fi
    if [[ "$part" != "fastmcp" ]] &&
        ! "$venv/bin/python" -c "import agents, sys; sys.exit(agents.__version__ != '$AGENTS_VERSION')" 2>/dev/null; then
        "$venv/bin/pip" install --quiet "openai-agents==$AGENTS_VERSION"
    fi
    if [[ "$part" != "strict" ]] &&
        ! "$venv/bin/python" -c "import fastmcp, sys; sys.exit(fastmcp.__version__ != '$FASTMCP_VERSION')" 2>/dev/null; then
        "$venv/bin/pip" install --quiet "fastmcp==$FASTMCP_VERSION"
    fi
    export PEERS_PYTHON="$venv/bin/python"
fi

if [[ "$part" == "" || "$part" == "fastmcp" ]]; then
    # The upstream and toolmodel's gateway, release builds of the main workspace.
    target="${CARGO_TARGET_DIR:-$(cd ../.. && pwd)/target}"
    (cd ../.. && cargo build --release --locked -p toolmodel-examples --example server 2>&1 | tail -n 1 &&
        cargo build --release --locked -p toolmodel-cli --bin toolmodel 2>&1 | tail -n 1)
    export PEERS_SERVER="$target/release/examples/server" PEERS_TOOLMODEL="$target/release/toolmodel"
fi

cargo build --release --locked 2>&1 | tail -n 1
exec target/release/toolmodel-peers "$@"
