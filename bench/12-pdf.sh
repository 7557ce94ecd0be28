#!/usr/bin/env bash
# Section 12.2: PDF text crates against each other and against trawl's PDF reader, on the
# fixtures of crates/trawl-extract/tests/pdf (written by reportlab and fpdf2, make.py):
# word recall and reading order against each file's .words.json, GFM tables found, time.
#
#   bench/12-pdf.sh          # writes $OUT/pdf/* and $OUT/section-12-pdf.md
#
# The crates are built in bench/pdf-crates (its own workspace: pdf-extract 0.12.1,
# lopdf 0.47.0, pdf_oxide 0.3.78 without default features); trawl is trawl-extract's
# docs_bench example, release build. Each reader reads each file ROUNDS times in one
# process; the median is kept (trawl: its own mean over ROUNDS conversions).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-20}
D="$OUT/pdf"; rm -rf "$D"; mkdir -p "$D"
CRATES_TARGET=${CRATES_TARGET:-$OUT/pdf-crates-target}
(cd "$BENCH/pdf-crates" && CARGO_TARGET_DIR="$CRATES_TARGET" cargo build --release -q)
(cd "$SRC_ROOT" && cargo build --release --locked -q -p trawl-extract --example docs_bench)
FX="$SRC_ROOT/crates/trawl-extract/tests/pdf"
FILES=(two-column ruled-table borderless-table invoice form statement fpdf-tables long-report scanned)
PATHS=(); for f in "${FILES[@]}"; do PATHS+=("$FX/$f.pdf"); done
{
  echo "Machine: $(nproc) cores, $(cpu_model), load average $(loadavg) at $(date -u +%H:%M) UTC; checkout at $(git -C "$SRC_ROOT" rev-parse --short HEAD). $ROUNDS rounds per row."
  echo
  DUMP="$D" ROUNDS="$ROUNDS" "$CRATES_TARGET/release/pdf-crates" --trawl "$TARGET_DIR/release/examples/docs_bench" \
    "${PATHS[@]}" 2>/dev/null
  echo
  echo "Command: \`bench/12-pdf.sh\` (ROUNDS=$ROUNDS); each reader's output is in \$OUT/pdf."
} | tee "$OUT/section-12-pdf.md"
