#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600) each, JOBS targets at a time (default 2),
# after building the seed corpora from ../shared/corpus. Logs go to fuzz/logs/<target>.log
# (git-ignored); a summary line per target (executions, corpus size, crashes) is printed.
#
#   fuzz/run_all.sh [SECONDS] [JOBS] [TARGET...]
#
# cargo-fuzz needs nightly-only compiler flags; on a stable toolchain RUSTC_BOOTSTRAP=1 allows
# them (set here).
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-600}"
jobs="${2:-2}"
shift $(( $# > 2 ? 2 : $# ))
export RUSTC_BOOTSTRAP=1
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list | grep -vx seed)
fi
cargo run -q --release --bin seed
cargo fuzz build
triple="$(rustc -vV | sed -n 's/^host: //p')"
mkdir -p logs
run() {
    local target="$1"
    mkdir -p "artifacts/$target"
    local start=$SECONDS
    # -timeout: one input taking over 10 s is a hang; -rss_limit_mb: 2 GiB is a blow-up.
    # The binaries `cargo fuzz build` made, run as `cargo fuzz run` would (without rebuilding).
    if "target/$triple/release/$target" -artifact_prefix="artifacts/$target/" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        "corpus/$target" >"logs/$target.log" 2>&1; then
        status=ok
    else
        status="FAILED (see fuzz/logs/$target.log and fuzz/artifacts/$target)"
    fi
    local execs corpus elapsed=$((SECONDS - start))
    execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$target.log" | grep -o '[0-9]*$' || echo '?')"
    corpus="$(ls "corpus/$target" | wc -l)"
    echo "$target: $status, $execs executions in ${elapsed} s, corpus $corpus inputs"
}
running=0
for target in "${targets[@]}"; do
    run "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait
