#!/usr/bin/env bash
# Section 12: documents (docx, xlsx, xls, xlsb, pptx, odt, odp, ods, epub, ipynb, csv, tsv, rss,
# atom, zip, msg), trawl's
# readers against markitdown 0.1.9 (PyPI, pinned) on the same files, in the same run.
#
#   bench/12-documents.sh          # writes $OUT/documents/*.txt and $OUT/section-12.md
#
# Each tool converts each file ROUNDS times in one process (trawl: trawl-extract's
# docs_bench example, release build; markitdown: bench/markitdown_docs.py). Files/s is the
# tool's own count over its conversion time (start-up excluded); peak RSS is the whole
# process's, from wait4(2). markitdown is installed into $MD_VENV when missing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-50}
D="$OUT/documents"; rm -rf "$D"; mkdir -p "$D"
need_markitdown
(cd "$SRC_ROOT" && cargo build --release --locked -q -p trawl-extract --example docs_bench)
TB="$TARGET_DIR/release/examples/docs_bench"
FX="$SRC_ROOT/crates/trawl-extract/tests/docs"
FILES=(report.docx survey.xlsx legacy.xls calamine-issues.xlsb briefing.pptx notes.odt harbour-day.odp readings.ods tide-book.epub tides.ipynb menu-1252.csv stations-sjis.csv people-utf16.tsv harbour.rss harbour.atom bundle.zip test-file.msg)

# run LABEL CMD...: one run; prints "files/s peak_rss_kib" from the summary line and wait4.
run() {
  local label=$1; shift
  "$MD_VENV/bin/python" - "$D/$label.txt" "$@" <<'PY'
import os, re, subprocess, sys
out, cmd = sys.argv[1], sys.argv[2:]
with open(out, "wb") as f:
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
    _, status, ru = os.wait4(p.pid, 0)
text = open(out, encoding="utf-8", errors="replace").read()
m = re.search(r"(\d+) converted, (\d+) failed, ([\d.]+) s, ([\d.]+) files/s", text)
if os.waitstatus_to_exitcode(status) != 0 or not m:
    sys.exit(f"{cmd}: no summary line (exit {status}):\n{text[-2000:]}")
print(m.group(4), ru.ru_maxrss, m.group(2))
PY
}

{
  echo "Machine: $(nproc) cores, $(cpu_model), load average $(loadavg) at $(date -u +%H:%M) UTC; trawl-extract docs_bench release build (checkout at $(git -C "$SRC_ROOT" rev-parse --short HEAD)); markitdown $("$MD_VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("markitdown"))'). $ROUNDS rounds per row."
  echo
  echo "| file | bytes | trawl files/s | markitdown files/s | files/s: trawl ÷ markitdown | trawl peak RSS MiB | markitdown peak RSS MiB | RSS: markitdown ÷ trawl |"
  echo "|---|---|---|---|---|---|---|---|"
  row() {  # label, files...
    local label=$1; shift
    local paths=() bytes=0
    for f in "$@"; do paths+=("$FX/$f"); bytes=$((bytes + $(stat -c %s "$FX/$f"))); done
    read -r t_rate t_rss t_fail < <(run "trawl-$label" "$TB" --rounds "$ROUNDS" "${paths[@]}")
    read -r m_rate m_rss m_fail < <(run "markitdown-$label" "$MD_VENV/bin/python" "$BENCH/markitdown_docs.py" "$ROUNDS" "${paths[@]}")
    awk -v l="$label" -v b="$bytes" -v tr="$t_rate" -v mr="$m_rate" -v ts="$t_rss" -v ms="$m_rss" -v tf="$t_fail" -v mf="$m_fail" 'BEGIN {
      note = (tf > 0 || mf > 0) ? sprintf(" (failed: trawl %d, markitdown %d)", tf, mf) : ""
      printf "| %s%s | %d | %.0f | %.1f | %.0f× | %.1f | %.1f | %.1f× |\n", l, note, b, tr, mr, tr / mr, ts / 1024, ms / 1024, ms / ts
    }'
  }
  for f in "${FILES[@]}"; do row "$f" "$f"; done
  row "all ${#FILES[@]}" "${FILES[@]}"
  echo
  echo "Command: \`bench/12-documents.sh\` (ROUNDS=$ROUNDS): \`docs_bench --rounds $ROUNDS FILES\` against \`markitdown_docs.py $ROUNDS FILES\` (\`MarkItDown().convert\`), the fixtures of crates/trawl-extract/tests/docs."
} > "$OUT/section-12.md"
cat "$OUT/section-12.md"
