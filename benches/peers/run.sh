#!/usr/bin/env bash
# toolmodel against its peers (issue 30): builds this workspace, makes a Python venv with the
# OpenAI Agents SDK from PyPI, and prints one `peers: ...` line per comparison (see
# src/main.rs and BENCHMARKS.md, "Against the peers"). Not in CI (minutes of building).
#
#   benches/peers/run.sh            # both comparisons
#   benches/peers/run.sh strict     # only the Agents SDK's
#   benches/peers/run.sh rig        # only rig's
#   TOOLMODEL_BENCH_QUICK=1 ...     # fewer, shorter rounds
#
# PEERS_VENV (default: /tmp/toolmodel-peers-venv) is where the venv goes; the corpus is read
# from $TOOLMODEL_SHARED/corpus, by default ../shared beside the checkout.
set -euo pipefail
cd "$(dirname "$0")"
export TOOLMODEL_SHARED="${TOOLMODEL_SHARED:-$(cd ../../.. && pwd)/shared}"

AGENTS_VERSION=0.24.0
venv="${PEERS_VENV:-/tmp/toolmodel-peers-venv}"
if [[ "${1:-}" != "rig" ]]; then
    if [[ ! -x "$venv/bin/python" ]]; then
        python3 -m venv "$venv"
    fi
    if ! "$venv/bin/python" -c "import agents, sys; sys.exit(agents.__version__ != '$AGENTS_VERSION')" 2>/dev/null; then
        "$venv/bin/pip" install --quiet "openai-agents==$AGENTS_VERSION"
    fi
    export PEERS_PYTHON="$venv/bin/python"
fi

cargo build --release --locked 2>&1 | tail -n 1
exec target/release/toolmodel-peers "$@"
