#!/usr/bin/env bash
# The generalization protocol of issue 24: wcxb-dev split by registrable domain into five
# folds (bench/extract_folds.py), trawl vs trafilatura per fold and per page type, plus the
# scrapinghub dev set's F1 and both sets' pages/s per core with the ratio to trafilatura.
#
#   bench/extract-folds.sh                       # trawl + trafilatura on both sets
#   bench/extract-folds.sh --quick               # reuse trafilatura runs under $OUT younger than a day
#   WRITTEN_FROM=0,2 bench/extract-folds.sh ...  # folds a rule was written from: labelled tuned-on
#
# A rule counts only by the folds it was not written from (held-out-by-fold). The default,
# WRITTEN_FROM=all, labels every fold tuned-on: the rules written before this protocol were
# tuned on the whole set. WRITTEN_FROM=none is for a rule written without looking at any
# wcxb-dev page; compare its run with the run before it, fold by fold.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
QUICK=0; [ "${1:-}" = "--quick" ] && QUICK=1
D="$OUT/extract-types"; mkdir -p "$D"
VENV=${VENV:-/tmp/extract-bench-venv}
for set in wcxb-dev dev; do
  corpus="$SHARED/bench/extract/$set"
  rm -rf "$D/$set-trawl"
  "$SRC_ROOT/bench/extract.sh" "$corpus" "$D/$set-trawl" > "$D/$set-trawl.out" 2> "$D/$set-trawl.err"
  "$PY" "$SHARED/bench/extract/score.py" "$D/$set-trawl" "$corpus/ground-truth.json" --bootstrap 0 \
      --quiet --json "$D/$set-trawl.score.json" > "$D/$set-trawl.score.txt"
  py="$D/$set-py"
  if [ "$QUICK" = 1 ] && [ -f "$py/trafilatura.timing.json" ] \
      && [ -n "$(find "$py/trafilatura.timing.json" -mmin -1440)" ]; then
    echo "$set: trafilatura reused from $(date -u -r "$py/trafilatura.timing.json" +'%Y-%m-%d %H:%M') UTC (--quick)"
  else
    VENV="$VENV" RUNS=${BASELINE_RUNS:-1} "$SHARED/bench/extract/run_python_baselines.sh" "$corpus" "$py" \
        trafilatura > "$D/$set-py.out" 2> "$D/$set-py.err"
  fi
  "$PY" "$SHARED/bench/extract/score.py" "$py/trafilatura" "$corpus/ground-truth.json" --bootstrap 0 \
      --quiet --json "$py/trafilatura.types.score.json" > /dev/null
done
"$PY" "$BENCH/extract_folds.py" report "$SHARED/bench/extract/wcxb-dev/ground-truth.json" \
    "$D/wcxb-dev-trawl.score.json" "$D/wcxb-dev-py/trafilatura.types.score.json" \
    --written-from "${WRITTEN_FROM:-all}" --json "$D/folds.json"
echo
echo "| set | trawl F1 | trafilatura F1 | trawl pages/s per core | trafilatura pages/s per core | ratio |"
echo "|---|---|---|---|---|---|"
for set in wcxb-dev dev; do
  "$PY" - "$set" "$D/$set-trawl.score.json" "$D/$set-py/trafilatura.types.score.json" \
      "$D/$set-trawl.out" "$D/$set-py/trafilatura.timing.json" <<'PYEOF'
import json, re, sys
name, a, b, out, timing = sys.argv[1:6]
fa, fb = (json.load(open(p))["summary"]["f1"] for p in (a, b))
sa = float(re.search(r"pages_per_s=([\d.]+)", open(out).read()).group(1))
sb = float(json.load(open(timing))["pages_per_s"])
print(f"| {name} (tuned on) | {fa:.3f} | {fb:.3f} | {sa:.0f} | {sb:.1f} | {sa / sb:.0f}x |")
PYEOF
done
