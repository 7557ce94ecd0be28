#!/usr/bin/env bash
# Section 13: crawling a site. A generated documentation site of 5,000 pages (~20 KB each:
# navigation, sidebar, article with code and tables, links between pages, a sitemap;
# bench/crawl_site.py) served by Debian's nginx on 127.0.0.2 (its own config and access log,
# started and stopped here), crawled in the same run, ROUNDS_CRAWL times each, interleaved:
#   trawl            trawl crawl (fetch + extract + store in SQLite), 16 requests in flight,
#                    and the size of the store it left beside the HTML bytes it read
#   trawl-polite     trawl crawl at its polite default (2 requests a host at once)
#   scrapy-links     Scrapy, 16 concurrent requests, no delay, following links only
#   scrapy-traf      the same spider with trafilatura.extract (Markdown) in its callback
#   wget             wget -r, one connection: the floor of fetching alone
# Per run: pages/s, CPU-s per page and peak RSS (wait4 of the crawler's process), and from
# nginx's access log that every page was fetched, and once (bench/crawl_measure.py).
# Then peak RSS of trawl crawl --limit 1001 on three sites of the same 1,001 pages (a start
# page and 1,000 hubs of 100 links each), whose links name 1,000, 10,000 or 100,000 URLs in
# all: the same bytes fetched, parsed and stored, only the frontier differs.
# Needs: nginx and wget (apt-get install nginx-light wget); Scrapy and trafilatura are
# installed here (pinned, PyPI) into a venv under $CRAWL_VENV_ROOT.
# Env: TRAWL, OUT, ROUNDS_CRAWL (default 2), CRAWL_PAGES (default 5000),
#      CRAWL_CONCURRENCY (trawl's --concurrency, default 16), CRAWL_VENV_ROOT
#      (default ${XDG_CACHE_HOME:-~/.cache}/trawl-bench), FRONTIER_ONLY=1 (only the frontier
#      runs, FRONTIER_ROUNDS times each, default 3; Scrapy's frontier runs FRONTIER_SCRAPY_ROUNDS
#      times, default 1).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "nginx missing: apt-get install nginx-light" >&2; exit 1; }
command -v wget >/dev/null || { echo "wget missing: apt-get install wget" >&2; exit 1; }
SCRAPY_VERSION=2.19.0
TRAFILATURA_VERSION=2.3.1
VENV="${CRAWL_VENV_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/trawl-bench}/scrapy-$SCRAPY_VERSION-trafilatura-$TRAFILATURA_VERSION"
if ! "$VENV/bin/python" -c 'import scrapy, trafilatura' 2>/dev/null; then
  "$PY" -m venv "$VENV"
  # lxml_html_clean: lxml no longer ships the html_clean extra that justext (a trafilatura
  # dependency) imports (see ../shared/peers/install-websearch-skill.sh).
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "scrapy==$SCRAPY_VERSION" "trafilatura==$TRAFILATURA_VERSION" lxml_html_clean
fi

LOAD_START=$(loadavg)
D="$OUT/crawl"; rm -rf "$D"; mkdir -p "$D/nginx" "$D/runs"; : > "$D/store.jsonl"
PORT=$((PORT_BASE + 12))
HOST=127.0.0.2
B="http://$HOST:$PORT"
PAGES=${CRAWL_PAGES:-5000}
ROUNDS=${ROUNDS_CRAWL:-2}
CONC=${CRAWL_CONCURRENCY:-16}
"$PY" "$BENCH/crawl_site.py" "$D/site" --pages "$PAGES" --host "$B" --frontier-hubs 1000 --frontier-links 100 | tee "$D/site.txt"

: > "$D/nginx/access.log"
trap stop_started EXIT
start_static_nginx "$D/nginx" "$HOST" "$PORT" "$D/site" "$D/nginx/access.log"

MEASURE=("$PY" "$BENCH/crawl_measure.py" --log "$D/nginx/access.log" --pages "$D/site/pages.txt")
TRAWL_ENV=("${TENV[@]}" TRAWL_READERS=none)
: > "$D/results.jsonl"
[ "${FRONTIER_ONLY:-0}" = 1 ] && ROUNDS=0
for round in $(seq "$ROUNDS"); do
  "${MEASURE[@]}" --label trawl --stdout "$D/runs/trawl-$round.json" -- \
    "${TRAWL_ENV[@]}" "$TRAWL" crawl "$B/" --limit "$PAGES" --concurrency "$CONC" \
    --allow-host "$HOST" --store "$D/runs/trawl-$round.db" --json >> "$D/results.jsonl"
  # The store that crawl left, beside the HTML it read (issue 47: at most 0.6×).
  "$PY" - "$D/site" "$D/site/pages.txt" "$D/runs/trawl-$round.db" >> "$D/store.jsonl" <<'PY'
import json, os, sys
site, pages, db = sys.argv[1:4]
html = sum(os.path.getsize(os.path.join(site, p.strip().lstrip("/"), "index.html")
                           if p.strip().endswith("/") else os.path.join(site, p.strip().lstrip("/")))
           for p in open(pages) if p.strip())
store = sum(os.path.getsize(db + x) for x in ("", "-wal") if os.path.exists(db + x))
print(json.dumps({"html_bytes": html, "store_bytes": store}))
PY
  "${MEASURE[@]}" --label trawl-polite --stdout "$D/runs/trawl-polite-$round.json" -- \
    "${TRAWL_ENV[@]}" "$TRAWL" crawl "$B/" --limit "$PAGES" \
    --allow-host "$HOST" --store "$D/runs/trawl-polite-$round.db" --json >> "$D/results.jsonl"
  "${MEASURE[@]}" --label scrapy-links -- \
    "$VENV/bin/python" "$BENCH/scrapy_crawl.py" "$B/" links "$D/runs/scrapy-links-$round.jsonl" >> "$D/results.jsonl"
  "${MEASURE[@]}" --label scrapy-traf -- \
    "$VENV/bin/python" "$BENCH/scrapy_crawl.py" "$B/" trafilatura "$D/runs/scrapy-traf-$round.jsonl" >> "$D/results.jsonl"
  "${MEASURE[@]}" --label wget -- \
    wget -r -l inf -nv -P "$D/runs/wget-$round" "$B/" >> "$D/results.jsonl"
  rm -rf "$D/runs/wget-$round"
done

# The frontier's cost: 1,001 pages stored on each site; 1,000, 10,000 or 100,000 URLs found
# on them and left waiting. The sites alternate, FRONTIER_ROUNDS times each.
for round in $(seq "${FRONTIER_ROUNDS:-3}"); do
  for site in 0001000 0010000 0100000; do
    grep -o "/frontier-$site/[^\"]*" -h "$D/site/frontier-$site"/*.html | sort -u | \
      grep -v '/leaf/' > "$D/frontier-$site.pages"
    echo "/frontier-$site/" >> "$D/frontier-$site.pages"
    rm -f "$D/runs/frontier-$site.db"*
    "$PY" "$BENCH/crawl_measure.py" --log "$D/nginx/access.log" --pages "$D/frontier-$site.pages" \
      --label "frontier-$site" --stdout "$D/runs/frontier-$site-$round.json" -- \
      "${TRAWL_ENV[@]}" "$TRAWL" crawl "$B/frontier-$site/" --limit 1001 --no-sitemap \
      --concurrency "$CONC" --allow-host "$HOST" --store "$D/runs/frontier-$site.db" --json >> "$D/results.jsonl"
  done
done
# The same frontier in Scrapy's scheduler (links only, breadth-first, closed after 1,001
# responses): what a crawler that keeps its queue in memory pays for it.
for round in $(seq "${FRONTIER_SCRAPY_ROUNDS:-1}"); do
  for site in 0001000 0010000 0100000; do
    "$PY" "$BENCH/crawl_measure.py" --log "$D/nginx/access.log" --pages "$D/frontier-$site.pages" \
      --label "scrapy-frontier-$site" -- \
      "$VENV/bin/python" "$BENCH/scrapy_crawl.py" "$B/frontier-$site/" links \
      "$D/runs/scrapy-frontier-$site-$round.jsonl" 1001 >> "$D/results.jsonl"
  done
done
LOAD_END=$(loadavg)
stop_started

{
  echo "Machine: $(nproc) cores, $(cpu_model), $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2/1048576}' /proc/meminfo); load average $LOAD_START at the start, $LOAD_END at the end ($(date -u +%H:%M) UTC): other builds share the cores, so compare ratios within this run."
  echo "trawl: $(trawl_version) release build ($(cat "$TRAWL.source" 2>/dev/null || echo "checkout at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"))."
  echo "Peers: Scrapy $("$VENV/bin/python" -c 'import scrapy; print(scrapy.__version__)'), trafilatura $("$VENV/bin/python" -c 'import trafilatura; print(trafilatura.__version__)'), lxml $("$VENV/bin/python" -c 'import lxml; print(lxml.__version__)') on Python $("$VENV/bin/python" -c 'import platform; print(platform.python_version())'); $(wget --version | head -1 | cut -d' ' -f1-3); server $("$(command -v nginx || echo /usr/sbin/nginx)" -v 2>&1 | cut -d' ' -f3) (1 worker)."
  echo "Site: $(cat "$D/site.txt") (bench/crawl_site.py); trawl --concurrency $CONC; $ROUNDS round(s), each running the four crawlers back to back."
} > "$D/machine.txt"
"$PY" "$BENCH/crawl_report.py" "$D" > "$OUT/section-13.md"
cat "$OUT/section-13.md"
