#!/usr/bin/env bash
# Extraction on both tuning sets, per page type, trawl vs trafilatura in the same run:
# ../shared/bench/extract/dev (181 news articles, scrapinghub) and
# ../shared/bench/extract/wcxb-dev (914 pages of seven types). Both were used for tuning.
#
#   bench/extract-types.sh            # trawl + trafilatura (text and Markdown) on both sets
#   bench/extract-types.sh --quick    # reuses trafilatura runs under $OUT younger than a day
#
# Prints, per set: F1 / precision / recall of each system (Markdown scored for trawl and
# trafilatura_md), the per-type table, pages/s per core (CPU time, pinned to core 0) with
# the ratio to trafilatura, trawl's page_type confusion table against the set's labels,
# and the catastrophe list (pages where trawl < 0.2 while trafilatura > 0.8).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
QUICK=0; [ "${1:-}" = "--quick" ] && QUICK=1
D="$OUT/extract-types"; mkdir -p "$D"
for set in dev wcxb-dev; do
  corpus="$SHARED/bench/extract/$set"
  rm -rf "$D/$set-trawl"
  "$SRC_ROOT/bench/extract.sh" "$corpus" "$D/$set-trawl" > "$D/$set-trawl.out" 2> "$D/$set-trawl.err"
  "$PY" "$SHARED/bench/extract/score.py" "$D/$set-trawl" "$corpus/ground-truth.json" --bootstrap 0 \
      --quiet --json "$D/$set-trawl.score.json" > "$D/$set-trawl.score.txt"
  py="$D/$set-py"
  if [ "$QUICK" = 1 ] && [ -f "$py/trafilatura_md.timing.json" ] \
      && [ -n "$(find "$py/trafilatura_md.timing.json" -mmin -1440)" ]; then
    echo "$set: trafilatura reused from $(date -u -r "$py/trafilatura_md.timing.json" +'%Y-%m-%d %H:%M') UTC (--quick)"
  else
    RUNS=${BASELINE_RUNS:-1} "$SHARED/bench/extract/run_python_baselines.sh" "$corpus" "$py" \
        trafilatura trafilatura_md > "$D/$set-py.out" 2> "$D/$set-py.err"
  fi
  for s in trafilatura trafilatura_md; do
    "$PY" "$SHARED/bench/extract/score.py" "$py/$s" "$corpus/ground-truth.json" --bootstrap 0 \
        --quiet --json "$py/$s.types.score.json" > /dev/null
  done
  "$PY" "$BENCH/extract_types_report.py" "$set" "$corpus/ground-truth.json" \
      "$D/$set-trawl" "$D/$set-trawl.out" "$py"
done
