#!/usr/bin/env bash
# Tool retrieval quality on the Berkeley Function Calling Leaderboard data, toolmodel beside
# FastMCP's BM25SearchTransform (issue 42): the BFCL v4 categories simple_python, simple_java,
# simple_javascript, multiple, live_simple and live_multiple of ../shared/corpus/bfcl (or
# $TOOLMODEL_SHARED/corpus/bfcl) pooled into one catalog of every distinct function (1,246),
# each question's user turn a query (2,061) whose relevant tool is the function of its possible
# answer. search/bfcl.py says exactly how (pool, fastmcp, score).
#
#   bash search/run.sh [--gate] [--misses N]
#
# Ours: `toolmodel search CATALOG --queries FILE --format json --limit 10`, the release build.
# FastMCP's: PyPI fastmcp $FASTMCP_VERSION, installed once into a virtual environment under
# target/search/venv (ignored by git); its results are kept in target/search/bfcl, keyed by its
# version and the catalog's and queries' hash, so a rerun (while tuning the ranking) costs the
# build and our search alone. The report's first line is exactly
#   search: bfcl queries=<n> recall@5=<r> recall@10=<r> mrr=<r> fastmcp_recall@5=<r>
# then FastMCP's figures, recall@5 and recall@10 per category for both, and the N (default 20)
# worst misses of ours: the query, the tool wanted, its rank in ours and in FastMCP's, and
# our first three.
#
# --gate (or SEARCH_GATE=1): exit status 1 unless recall@5 >= 0.89 (the floor; the goal is 0.90)
# and ours is above FastMCP's on every category (where FastMCP's is 1, ours must be 1 too). Without it the status is 0
# whatever the figures (non-zero only when something could not run). When the shared data is
# missing the run is skipped with a notice, and fails under CI.
set -euo pipefail
cd "$(dirname "$0")/.."

FASTMCP_VERSION="${FASTMCP_VERSION:-4.2.3}"
gate="${SEARCH_GATE:-}"
misses=20
while [[ $# -gt 0 ]]; do
    case "$1" in
    --gate) gate=1 ;;
    --misses)
        misses="${2:?--misses needs a number}"
        shift
        ;;
    --misses=*) misses="${1#--misses=}" ;;
    *)
        echo "usage: bash search/run.sh [--gate] [--misses N]" >&2
        exit 2
        ;;
    esac
    shift
done
[[ "$gate" == 0 ]] && gate=""

shared="${TOOLMODEL_SHARED:-../shared}"
if [[ ! -d "$shared/corpus/bfcl" ]]; then
    if [[ -n "${CI:-}" ]]; then
        echo "error: $shared/corpus/bfcl is missing (CI is set)" >&2
        exit 1
    fi
    echo "notice: $shared/corpus/bfcl is missing; search/run.sh skipped (set TOOLMODEL_SHARED)"
    exit 0
fi

root=target/search
work="$root/bfcl"
venv="$root/venv"
python="$venv/bin/python"
mkdir -p "$work"

installed=""
if [[ -x "$python" ]]; then
    installed="$("$python" -c 'import importlib.metadata as m; print(m.version("fastmcp"))' 2>/dev/null || true)"
fi
if [[ "$installed" != "$FASTMCP_VERSION" ]]; then
    echo "== installing fastmcp $FASTMCP_VERSION into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "fastmcp==$FASTMCP_VERSION" >&2
fi

echo "== building toolmodel (release)"
cargo build --quiet --release -p toolmodel-cli --bin toolmodel
toolmodel="${CARGO_TARGET_DIR:-target}/release/toolmodel"

"$python" search/bfcl.py pool --shared "$shared" --out "$work"

started=$(date +%s%N)
"$toolmodel" search "$work/catalog.json" --queries "$work/queries.jsonl" --format json --limit 10 \
    >"$work/ours.jsonl"
echo "toolmodel: $(wc -l <"$work/ours.jsonl") queries in $((($(date +%s%N) - started) / 1000000)) ms (the whole process: reading, indexing, searching)" >&2

key="$(cat "$work/catalog.json" "$work/queries.jsonl" search/bfcl.py | sha256sum | cut -c1-16)"
fastmcp="$work/fastmcp-$FASTMCP_VERSION-$key.jsonl"
if [[ ! -s "$fastmcp" ]]; then
    rm -f "$work"/fastmcp-*.jsonl "$work"/fastmcp-*.jsonl.log
    "$python" search/bfcl.py fastmcp --catalog "$work/catalog.json" --queries "$work/queries.jsonl" \
        --limit 10 >"$fastmcp.partial" 2>"$fastmcp.log"
    mv "$fastmcp.partial" "$fastmcp"
    cat "$fastmcp.log" >&2
else
    echo "$(cat "$fastmcp.log" 2>/dev/null) (results of an earlier run: $fastmcp)" >&2
fi

"$python" search/bfcl.py score --queries "$work/queries.jsonl" --ours "$work/ours.jsonl" \
    --fastmcp "$fastmcp" --misses "$misses" ${gate:+--gate}
