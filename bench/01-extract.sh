#!/usr/bin/env bash
# Section 1: content extraction on the dev set (181 real pages): F1 and pages/s per core,
# trawl vs trafilatura, readability-lxml and resiliparse.
#
#   bench/01-extract.sh            # runs bench/extract.sh and the Python baselines
#   bench/01-extract.sh --quick    # reuses a Python baseline run under $OUT younger than
#                                  # a day, if there is one (the section says so)
#
# Both sides time only the extraction calls on in-memory decoded HTML, in CPU seconds,
# one process pinned to core 0 (taskset), fastest of 3 passes: bench/extract.sh for
# trawl, ../shared/bench/extract/run_python_baselines.sh for the others.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
QUICK=0; [ "${1:-}" = "--quick" ] && QUICK=1
CORPUS="$SHARED/bench/extract/dev"
D="$OUT/extract"; mkdir -p "$D"
SYSTEMS=(trafilatura trafilatura_md trafilatura_fast readability_htmltext resiliparse_main)

machine_line > "$D/machine.txt"

# trawl (bench/extract.sh builds the example if needed; the build is not timed).
rm -rf "$D/trawl"
"$SRC_ROOT/bench/extract.sh" "$CORPUS" "$D/trawl" > "$D/trawl.out" 2> "$D/trawl.err"
"$PY" "$SHARED/bench/extract/score.py" "$D/trawl" "$CORPUS/ground-truth.json" --json "$D/trawl.score.json" > "$D/trawl.score.txt"

# Python baselines.
reuse=0
if [ "$QUICK" = 1 ] && [ -f "$D/py/results.md" ] && [ -n "$(find "$D/py/results.md" -mmin -1440)" ]; then
  reuse=1
fi
if [ "$reuse" = 1 ]; then
  echo "Python baselines reused from a run at $(date -u -r "$D/py/results.md" +'%Y-%m-%d %H:%M') UTC (--quick); trawl measured now." > "$D/baseline_note.txt"
else
  "$SHARED/bench/extract/run_python_baselines.sh" "$CORPUS" "$D/py" "${SYSTEMS[@]}" > "$D/py.out" 2> "$D/py.err"
  echo "Python baselines measured in this run, right after trawl." > "$D/baseline_note.txt"
fi

"$PY" - "$D" "${SYSTEMS[@]}" <<'PYEOF'
import json, re, sys
d, systems = sys.argv[1], sys.argv[2:]
out = {"systems": {}, "baseline_note": open(f"{d}/baseline_note.txt").read().strip()}
sc = json.load(open(f"{d}/trawl.score.json"))["summary"]
m = re.search(r"pages=(\d+) seconds=([\d.]+) pages_per_s=([\d.]+)", open(f"{d}/trawl.out").read())
out["systems"]["trawl"] = {"f1": sc["f1"], "precision": sc["precision"], "recall": sc["recall"],
                           "pages_per_s": float(m.group(3))}
for s in systems:
    try:
        sc = json.load(open(f"{d}/py/{s}.score.json"))["summary"]
        tm = json.load(open(f"{d}/py/{s}.timing.json"))
    except OSError:
        continue
    out["systems"][s] = {"f1": sc["f1"], "precision": sc["precision"], "recall": sc["recall"],
                         "pages_per_s": float(tm["pages_per_s"]), "versions": tm.get("versions")}
json.dump(out, open(f"{d}/summary.json", "w"), indent=1)
PYEOF
"$PY" "$BENCH/report.py" 1 > "$OUT/section-1.md"
cat "$OUT/section-1.md"
