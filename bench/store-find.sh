#!/usr/bin/env bash
# BENCHMARKS §13.3: finding in a large store, before and after a change. A generated
# documentation site of FIND_PAGES pages (default 100,000; bench/crawl_site.py) served by
# Debian's nginx on 127.0.0.2, crawled once by each of two builds into a store of its own
# (the size bound off, so every page is kept), then, old and new alternating, timed:
#   open --find WORDS --all     (three common words, a quoted phrase, one word)
#   open HANDLE --find WORDS    (one stored page)
#   read URL --query WORDS      (the stored copy, --offline)
#   open --find WORDS --crawl ID  (once each, bounded by FIND_CRAWL_TIMEOUT seconds)
# Prints each store's size beside the HTML read, and a table of wall seconds (median; each
# run). Needs: nginx (apt-get install nginx-light).
# Env: TRAWL (the build after), TRAWL_BEFORE (the build before; required), OUT,
#      FIND_PAGES (default 100000), FIND_RUNS (default 5), FIND_CRAWL_TIMEOUT (default 300).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl
[ -x "${TRAWL_BEFORE:-}" ] || { echo "TRAWL_BEFORE: the build to compare with (a trawl binary)" >&2; exit 1; }
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "nginx missing: apt-get install nginx-light" >&2; exit 1; }
D="$OUT/find"; rm -rf "$D"; mkdir -p "$D/nginx"
PORT=$((PORT_BASE + 13))
HOST=127.0.0.2
B="http://$HOST:$PORT"
PAGES=${FIND_PAGES:-100000}
RUNS_EACH=${FIND_RUNS:-5}
"$PY" "$BENCH/crawl_site.py" "$D/site" --pages "$PAGES" --host "$B" --frontier-hubs 10 --frontier-links 10
trap stop_started EXIT
start_static_nginx "$D/nginx" "$HOST" "$PORT" "$D/site"

declare -A BIN=([before]="$TRAWL_BEFORE" [after]="$TRAWL")
declare -A ID HANDLE URL
html=$("$PY" - "$D/site" <<'PY'
import os, sys
site = sys.argv[1]
print(sum(os.path.getsize(os.path.join(site, p.strip().lstrip("/"), "index.html")
                          if p.strip().endswith("/") else os.path.join(site, p.strip().lstrip("/")))
          for p in open(os.path.join(site, "pages.txt")) if p.strip()))
PY
)
for v in before after; do
  db="$D/$v.db"
  /usr/bin/time -f "$v crawl: %e s wall, %U + %S s CPU, peak RSS %M KB" \
    "${TENV[@]}" TRAWL_READERS=none TRAWL_STORE_MAX_BYTES=0 "${BIN[$v]}" crawl "$B/" \
    --limit "$PAGES" --concurrency 16 --allow-host "$HOST" --store "$db" --json > "$D/$v.crawl.json"
  ID[$v]=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["data"]["summary"]["id"])' "$D/$v.crawl.json")
  read -r HANDLE[$v] URL[$v] < <("$PY" - "$db" <<'PY'
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(
    "SELECT handle, url FROM documents WHERE url LIKE '%page-00042.html'").fetchone()
print(*row)
PY
)
  size=$("$PY" -c 'import os,sys; print(sum(os.path.getsize(sys.argv[1]+x) for x in ("", "-wal") if os.path.exists(sys.argv[1]+x)))' "$db")
  echo "$v store: $size bytes, $("$PY" -c "print(round($size / $html, 3))")× the $html bytes of HTML"
done

timed() {  # seconds bound, command...: wall seconds, or "> bound"
  local start end rc=0
  start=$(date +%s.%N)
  timeout "$1" "${@:2}" > /dev/null 2> "$D/last.err" || rc=$?
  end=$(date +%s.%N)
  [ "$rc" = 124 ] && { echo "> $1"; return; }
  [ "$rc" = 0 ] || echo "exit $rc: $(head -c 300 "$D/last.err")" >&2
  "$PY" -c "print(round($end - $start, 3))"
}
row() {  # name, runs, bound, arguments (@ID @HANDLE @URL @DB filled in per build)
  local name=$1 n=$2 bound=$3; shift 3
  declare -A T=([before]="" [after]="")
  for _ in $(seq "$n"); do
    for v in before after; do
      local args=()
      for a in "$@"; do
        a=${a//@ID/${ID[$v]}}; a=${a//@HANDLE/${HANDLE[$v]}}; a=${a//@URL/${URL[$v]}}; a=${a//@DB/$D/$v.db}
        args+=("$a")
      done
      T[$v]="${T[$v]} $(timed "$bound" "${TENV[@]}" "${BIN[$v]}" "${args[@]}")"
    done
  done
  local cells=()
  for v in before after; do
    cells+=("$("$PY" - ${T[$v]} <<'PY'
import statistics, sys
runs = sys.argv[1:]
if any(r.startswith(">") for r in runs):
    print("did not finish in " + runs[0].lstrip("> ") + " s")
else:
    print(f"{round(statistics.median(float(r) for r in runs), 3)} ({', '.join(runs)})")
PY
)")
  done
  echo "| \`$name\` | ${cells[0]} | ${cells[1]} |"
}
echo
echo "| command | before | after |"
echo "|---|---|---|"
row "open --find (3 words) --all" "$RUNS_EACH" 600 open --find "retry guard lifetime" --all --store @DB --json
row "open --find (a phrase) --all" "$RUNS_EACH" 600 open --find '"socket worker thread"' --all --store @DB --json
row "open --find (one word) --all" "$RUNS_EACH" 600 open --find frontier --all --store @DB --json
row "open HANDLE --find (one page)" "$RUNS_EACH" 600 open @HANDLE --find "redirect policy" --store @DB --json
row "read URL --query (the stored copy)" "$RUNS_EACH" 600 read @URL --query "retry guard lifetime" --offline --allow-host "$HOST" --store @DB --json
row "open --find --crawl ID" 1 "${FIND_CRAWL_TIMEOUT:-300}" open --find "redirect policy" --crawl @ID --store @DB --json
echo
echo "Machine: $(nproc) cores, $(cpu_model), load average $(loadavg) at $(date -u +%H:%M) UTC; $PAGES pages; before: $TRAWL_BEFORE, after: $TRAWL."
