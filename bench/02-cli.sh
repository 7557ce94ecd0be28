#!/usr/bin/env bash
# Section 2: one-shot CLI commands, trawl vs websearch-skill 0.6.1, RUNS runs each
# (plus one untimed warm-up); medians of wall, CPU (user+sys) and peak RSS from wait4(2).
#
#   bench/02-cli.sh            # writes $OUT/cli/*.json and $OUT/section-2.md
#
# Fixtures (bench/fake_engines.py on loopback): a fake SearXNG answering with the real
# saved response ../shared/fixtures/serp/searxng/search-python-format-json.json, a small
# article page, and a real page from the extraction dev set.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl; need_peer "$PEER_VENV"
D="$OUT/cli"; rm -rf "$D"; mkdir -p "$D"
PORT=$((PORT_BASE + 2))
trap stop_started EXIT
start_cli_fixture "$PORT" "$D"
SMALL="$B/page/1.html"
echo "small page: $(curl -s "$SMALL" | wc -c) bytes; real page $DEV_ID: $(curl -s "$REAL" | wc -c) bytes" > "$D/pages.txt"
machine_line > "$D/machine.txt"

W=$PEER_VENV/bin/websearch
M() { "$PY" "$BENCH/measure.py" --runs "$RUNS" "$@"; }
STORE="$D/trawl.db"

{
M --label "help|trawl" -- "${TENV[@]}" "$TRAWL" --help
M --label "help|peer" -- "${PENV[@]}" "$W" --help
M --label "read_small|trawl" --expect '"ok": ?true' -- "${TENV[@]}" "$TRAWL" read "$SMALL" --allow-host 127.0.0.1 --store :memory: --json
M --label "read_small|peer" --expect '"ok": ?true' -- "${PENV[@]}" "$W" fetch "$SMALL" --allow-private-hosts --json
M --label "read_real|trawl" --expect '"ok": ?true' -- "${TENV[@]}" "$TRAWL" read "$REAL" --allow-host 127.0.0.1 --store :memory: --json
M --label "read_real|peer" --expect '"ok": ?true' -- "${PENV[@]}" "$W" fetch "$REAL" --allow-private-hosts --json
M --label "read_store|trawl" --expect '"ok": ?true' -- "${TENV[@]}" "$TRAWL" read "$REAL" --allow-host 127.0.0.1 --store "$STORE" --fresh --json
M --label "read_store|peer" --expect '"ok": ?true' -- "${PENV[@]}" "$W" web-fetch "$REAL" --allow-private-hosts --json
# Commands that need no network, and a read answered from the store: what a short command
# costs beyond process start (the "× --help" column), against the peer's plain fetch.
store_real_page "$STORE" "$D/real.html"
M --label "open|trawl" --expect '"ok": ?true' -- "${TENV[@]}" "$TRAWL" open "$HANDLE" --store "$STORE" --json
M --label "read_file|trawl" --expect '"ok": ?true' -- "${TENV[@]}" "$TRAWL" read "$D/real.html" --store :memory: --json
M --label "read_stored|trawl" --expect '"from_store": ?true' -- "${TENV[@]}" "$TRAWL" read "$REAL" --allow-host 127.0.0.1 --store "$STORE" --json
M --label "read_stored|peer" --expect '"ok": ?true' -- "${PENV[@]}" "$W" fetch "$REAL" --allow-private-hosts --json
M --label "search|trawl" --expect 'python.org' -- "${TENV[@]}" TRAWL_SEARXNG_URL="$B" "$TRAWL" search python --engines searxng --store :memory: --json
M --label "search|peer" --expect 'python.org' -- "${PENV[@]}" WEBSEARCH_SEARXNG_URL="$B" "$W" search python --engines searxng --json
} > "$D/results.jsonl"

# Every timed run must have reached the fixture (no cache answered instead).
for kind in "page/1.html" "dev/$DEV_ID" "search?"; do
  echo "$kind: $(grep -c "$kind" "$D/requests.log") requests"
done > "$D/requests.txt"
echo "DEV_ID=$DEV_ID" >> "$D/pages.txt"
"$PY" "$BENCH/report.py" 2 > "$OUT/section-2.md"
cat "$OUT/section-2.md"
