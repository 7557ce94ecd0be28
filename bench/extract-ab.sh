#!/usr/bin/env bash
# Two builds of the reader, alternated on one set: the fair speed comparison on a shared
# machine, where one pass's CPU time moves with the neighbours' load.
#
#   bench/extract-ab.sh OLD_EXTRACT_BENCH NEW_EXTRACT_BENCH [SET] [ROUNDS]
#
# SET is a corpus under ../shared/bench/extract (default wcxb-dev), ROUNDS the number of
# old/new pairs (default 7). Each run is `extract_bench` pinned to core 0 (its best of three
# passes); prints every run's pages/s, then each build's median and the ratio new/old.
# Build an older commit's binary with, for example:
#   git worktree add /tmp/old dfd86e9 && (cd /tmp/old && cargo build --release --locked \
#     -p trawl-extract --example extract_bench)   # -> /tmp/old/target/release/examples/
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ "$#" -lt 2 ]; then
    echo "usage: bench/extract-ab.sh OLD_EXTRACT_BENCH NEW_EXTRACT_BENCH [SET] [ROUNDS]" >&2
    exit 2
fi
old=$1 new=$2 set=${3:-wcxb-dev} rounds=${4:-7}
corpus="$SHARED/bench/extract/$set"
[ -d "$corpus" ] || { echo "extract-ab: no corpus at $corpus" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for _ in $(seq "$rounds"); do
    for b in old new; do
        bin=$old; [ "$b" = new ] && bin=$new
        rate=$(taskset -c 0 "$bin" "$corpus" "$out/$b" 2>/dev/null | sed -n 's/.*pages_per_s=//p')
        echo "$b $rate"
    done
done | tee "$out/runs" >&2
"$PY" - "$out/runs" "$set" <<'PY'
import statistics, sys
runs = [line.split() for line in open(sys.argv[1])]
median = {b: statistics.median(float(r) for k, r in runs if k == b) for b in ("old", "new")}
print(f"{sys.argv[2]}: median old {median['old']:.0f} new {median['new']:.0f} pages/s "
      f"per core, ratio {median['new'] / median['old']:.2f}")
PY
