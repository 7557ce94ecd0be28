#!/usr/bin/env bash
# Section 14: query-focused reads (issue 25) on wcxb-dev, the set trawl's extractor was
# tuned on. For each page: one sentence of its ground truth (the middle one of 12-40
# words), a query of that sentence's first eight content words, then the tokens a read
# gives (whole page, today's page 1, --query at several budgets) and how often the
# sentence is in what was given (recall at the budget).
#
#   bench/14-query.sh              # writes $OUT/query/table.md and $OUT/section-14.md
#   BUDGETS="500 1000" bench/14-query.sh
#
# Counts, not timings: the example runs as a dev build (no release build needed).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
CORPUS=${CORPUS:-$SHARED/bench/extract/wcxb-dev}
BUDGETS=${BUDGETS:-250 500 1000 2000}
D="$OUT/query"; mkdir -p "$D/html"
for f in "$CORPUS"/html/*.html.gz; do
  b=$(basename "$f" .gz)
  [ -f "$D/html/$b" ] || gunzip -c "$f" > "$D/html/$b"
done
(cd "$SRC_ROOT" && cargo build --locked -q -p trawl-agent --example focus_bench)
# shellcheck disable=SC2086 # BUDGETS is a list of numbers
"$TARGET_DIR/debug/examples/focus_bench" "$CORPUS/ground-truth.json" "$D/html" $BUDGETS > "$D/table.md"
{
  echo "Checkout at $(git -C "$SRC_ROOT" rev-parse --short HEAD); corpus: wcxb-dev ($(ls "$D/html" | wc -l) pages; **the set the extractor was tuned on**, so the extraction figures flatter it). Command: \`bench/14-query.sh\` (the \`focus_bench\` example of trawl-agent). Tokens are trawl's estimate, as \`--max-tokens\` counts them."
  echo
  cat "$D/table.md"
} > "$OUT/section-14.md"
cat "$OUT/section-14.md"
