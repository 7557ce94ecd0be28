#!/usr/bin/env bash
# Run every benchmark section and rewrite the tables in BENCHMARKS.md.
#
#   bench/run-all.sh            # full run (about 10-15 minutes on 2 cores)
#   bench/run-all.sh --quick    # section 1 reuses a Python baseline run < 1 day old
#   bench/run-all.sh 3 6        # only these sections
#   bench/run-all.sh 13         # the crawl benchmark (nginx, wget; Scrapy installed by it)
#   bench/run-all.sh 14         # query-focused reads on wcxb-dev (token counts and recall)
#   bench/run-all.sh 12         # every script of a section (12-documents, 12-ocr, 12-pdf)
#
# Needs: a release build (cargo build --release --locked -p trawl; built here if
# missing), the peer (WITH_MCP=1 ../shared/peers/install-websearch-skill.sh), wrk
# (apt-get install wrk). Raw results go to $OUT (default /tmp/trawl-bench); each section
# writes $OUT/section-N.md, spliced into BENCHMARKS.md between its
# <!-- bench:N --> markers. Nothing here runs in the test suite.
set -euo pipefail
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
QUICK=""
SECTIONS=()
for a in "$@"; do
  case "$a" in
    --quick) QUICK=--quick ;;
    [1-9]|[1-9][0-9]) SECTIONS+=("$a") ;;
    *) echo "usage: bench/run-all.sh [--quick] [SECTION ...]" >&2; exit 2 ;;
  esac
done
[ ${#SECTIONS[@]} -gt 0 ] || SECTIONS=(1 2 3 4 5 6 7 8)
export OUT=${OUT:-/tmp/trawl-bench}
mkdir -p "$OUT"

# The code measured: SRC_ROOT (default this checkout; e.g. a clean `git archive` export
# when others have uncommitted edits in the shared tree), built into CARGO_TARGET_DIR.
export SRC_ROOT=${SRC_ROOT:-$ROOT}
TARGET_DIR=${CARGO_TARGET_DIR:-$SRC_ROOT/target}
if [ -z "${TRAWL:-}" ]; then
  ( cd "$SRC_ROOT" && cargo build --release --locked -p trawl )
  # A private copy: another build in a shared target/ must not swap it mid-run.
  mkdir -p "$OUT/bin"
  cp "$TARGET_DIR/release/trawl" "$OUT/bin/trawl"
  if git -C "$SRC_ROOT" rev-parse HEAD >/dev/null 2>&1; then
    dirty=$(git -C "$SRC_ROOT" status --porcelain --untracked-files=no -- crates Cargo.toml Cargo.lock | wc -l)
    echo "built $(date -u -r "$TARGET_DIR/release/trawl" +'%H:%M') UTC from the checkout at $(git -C "$SRC_ROOT" rev-parse --short HEAD)$([ "$dirty" -gt 0 ] && echo " plus $dirty uncommitted file(s)")" > "$OUT/bin/trawl.source"
  else
    echo "built $(date -u -r "$TARGET_DIR/release/trawl" +'%H:%M') UTC from ${SRC_NOTE:-$SRC_ROOT}" > "$OUT/bin/trawl.source"
  fi
  export TRAWL="$OUT/bin/trawl"
fi
if [ ! -x "${PEER_VENV:-/tmp/peer-ws}/bin/websearch" ] || [ ! -x "${PEER_MCP_VENV:-/tmp/peer-ws026}/bin/websearch" ]; then
  WITH_MCP=1 "$ROOT/../shared/peers/install-websearch-skill.sh"
fi

start=$(date +%s)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/run.txt"
for s in "${SECTIONS[@]}"; do
  t0=$(date +%s)
  scripts=("$BENCH"/"$(printf %02d "$s")"-*.sh)
  [ -e "${scripts[0]}" ] || { echo "no bench script for section $s" >&2; exit 2; }
  for script in "${scripts[@]}"; do
    echo "== section $s: $(basename "$script")" >&2
    if [ "$s" = 1 ]; then "$script" $QUICK >/dev/null; else "$script" >/dev/null; fi
  done
  echo "section $s: $(( $(date +%s) - t0 )) s" | tee -a "$OUT/run.txt" >&2
done
echo "total: $(( $(date +%s) - start )) s; load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/run.txt"
python3 "$BENCH/report.py" splice "$ROOT/BENCHMARKS.md"
echo "BENCHMARKS.md updated from $OUT" >&2
