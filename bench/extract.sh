#!/usr/bin/env bash
# Run trawl's extractor over a corpus laid out like ../shared/bench/extract/dev
# (html/<id>.html.gz + ground-truth.json with urls), write OUT_DIR/<id>.md, and print
# `pages=N seconds=S pages_per_s=R` measured in one process pinned to one core
# (extraction calls only: no process start, gunzip or file writes). Then score with:
#   python3 ../shared/bench/extract/score.py OUT_DIR CORPUS_DIR/ground-truth.json
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: bench/extract.sh CORPUS_DIR OUT_DIR" >&2
    exit 2
fi
corpus=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)

cd "$root"
cargo build --release --locked -p trawl-extract --example extract_bench >&2
bin="${CARGO_TARGET_DIR:-$root/target}/release/examples/extract_bench"

if command -v taskset >/dev/null 2>&1; then
    taskset -c 0 "$bin" "$corpus" "$out"
else
    echo "taskset not found: running unpinned" >&2
    "$bin" "$corpus" "$out"
fi
