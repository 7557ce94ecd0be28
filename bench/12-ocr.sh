#!/usr/bin/env bash
# Section 12b: OCR. trawl reading a two-page scanned PDF and a screenshot (PNG) by OCR,
# beside Debian's tesseract alone on the same images (the floor: trawl runs it as a
# process) and markitdown 0.1.9 (PyPI, pinned), which without an LLM client reads no text
# from either. The fixtures are crates/trawl-extract/tests/ocr (made by its make.py).
#
#   bench/12-ocr.sh            # writes $OUT/ocr/* and $OUT/section-12b.md
#
# Per tool and file, ROUNDS runs, each a new process (trawl read FILE -q --store :memory:,
# tesseract IMAGE stdout, markitdown_docs.py 1 FILE): median wall seconds, CPU seconds of
# the process and its children (wait4), seconds a page, and the share of the rendered words
# found in order (the tests' word recall).
# Needs: tesseract-ocr tesseract-ocr-eng poppler-utils (pdfimages, for tesseract alone).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl
command -v tesseract >/dev/null || { echo "tesseract missing: apt-get install tesseract-ocr tesseract-ocr-eng" >&2; exit 1; }
command -v pdfimages >/dev/null || { echo "pdfimages missing: apt-get install poppler-utils" >&2; exit 1; }
ROUNDS=${ROUNDS:-5}
D="$OUT/ocr"; rm -rf "$D"; mkdir -p "$D"
need_markitdown
FX="$SRC_ROOT/crates/trawl-extract/tests/ocr"
# The scan's page images as the PDF holds them (PNG and JPEG), for tesseract alone.
pdfimages -all "$FX/scan.pdf" "$D/page"

# measure OUT_PREFIX CMD...: ROUNDS runs; prints "wall_median cpu_median" and keeps the last
# run's stdout in OUT_PREFIX.out.
measure() {
  local prefix=$1; shift
  python3 - "$prefix" "$ROUNDS" "$@" <<'PY'
import os, statistics, subprocess, sys, time
prefix, rounds, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
walls, cpus = [], []
for _ in range(rounds):
    with open(prefix + ".out", "wb") as f:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.DEVNULL,
                             env=dict(os.environ, OMP_THREAD_LIMIT="1"))
        _, status, ru = os.wait4(p.pid, 0)
        walls.append(time.monotonic() - t0)
    # trawl's tesseract is its child: wait4 counts the children it waited for.
    cpus.append(ru.ru_utime + ru.ru_stime)
print(f"{statistics.median(walls):.3f} {statistics.median(cpus):.3f}")
PY
}

# recall WORDS_FILE TEXT_FILE...: share of the rendered words found in order (LCS).
recall() {
  python3 - "$@" <<'PY'
import re, sys
norm = lambda s: [w for w in (re.sub(r"^\W+|\W+$", "", t).lower() for t in s.split()) if w]
want = norm(open(sys.argv[1]).read())
got = norm(" ".join(open(f, errors="replace").read() for f in sys.argv[2:]))
row = [0] * (len(got) + 1)
for x in want:
    prev = 0
    for j, y in enumerate(got):
        keep = row[j + 1]
        row[j + 1] = prev + 1 if x == y else max(row[j + 1], row[j])
        prev = keep
print(f"{row[len(got)] / len(want):.3f}")
PY
}

row() {  # label pages words_file trawl_cmd... -- tesseract runs (one per image) -- markitdown
  local label=$1 pages=$2 words=$3 file=$4; shift 4
  read -r tw tc < <(measure "$D/trawl-$label" "$TRAWL" read "$file" -q --store :memory:)
  local tr; tr=$(recall "$words" "$D/trawl-$label.out")
  local sw=0 sc=0 outs=()
  for image in "$@"; do
    read -r w c < <(measure "$D/tesseract-$(basename "$image")" tesseract "$image" stdout)
    sw=$(awk -v a="$sw" -v b="$w" 'BEGIN{print a+b}'); sc=$(awk -v a="$sc" -v b="$c" 'BEGIN{print a+b}')
    outs+=("$D/tesseract-$(basename "$image").out")
  done
  local sr; sr=$(recall "$words" "${outs[@]}")
  read -r mw mc < <(measure "$D/markitdown-$label" "$MD_VENV/bin/python" -c \
    'import sys; from markitdown import MarkItDown; print(MarkItDown().convert(sys.argv[1]).text_content)' "$file")
  local mr; mr=$(recall "$words" "$D/markitdown-$label.out")
  awk -v l="$label" -v p="$pages" -v tw="$tw" -v tc="$tc" -v tr="$tr" -v sw="$sw" -v sc="$sc" -v sr="$sr" -v mw="$mw" -v mc="$mc" -v mr="$mr" 'BEGIN {
    printf "| %s | trawl read | %.2f | %.2f | %.2f | %s |\n", l, tw, tc, tc / p, tr
    printf "| %s | tesseract alone | %.2f | %.2f | %.2f | %s |\n", l, sw, sc, sc / p, sr
    printf "| %s | markitdown %s | %.2f | %.2f | – | %s |\n", l, ENVIRON["MD_VERSION"], mw, mc, mr
  }'
}
export MD_VERSION
{
  echo "Machine: $(nproc) cores, $(cpu_model), load average $(loadavg) at $(date -u +%H:%M) UTC; $("$TRAWL" --version | head -1) (checkout at $(git -C "$SRC_ROOT" rev-parse --short HEAD)); $(tesseract --version 2>&1 | head -1); markitdown $MD_VERSION. Median of $ROUNDS runs, each a new process; OMP_THREAD_LIMIT=1 for every tesseract."
  echo
  echo "| file | tool | wall s | CPU s | CPU s a page | word recall |"
  echo "|---|---|---|---|---|---|"
  row "scan.pdf (2 pages)" 2 "$FX/scan.txt" "$FX/scan.pdf" "$D"/page-*
  row "paragraph.png" 1 "$FX/paragraph.txt" "$FX/paragraph.png" "$FX/paragraph.png"
  echo
  echo "Command: \`bench/12-ocr.sh\` (ROUNDS=$ROUNDS). Word recall: the share of the rendered words found in order. markitdown reads images only through an LLM client it is given, and a scanned PDF through pdfminer, which finds no text."
} > "$OUT/section-12b.md"
cat "$OUT/section-12b.md"
