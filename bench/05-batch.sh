#!/usr/bin/env bash
# Section 5: batch read. 20 loopback pages, each answered after 100 ms
# (bench/fake_engines.py /page/N.html?ms=100), read in one call at the default
# concurrency. With 5 at a time the floor is 4 waves x 100 ms = 400 ms.
#   trawl CLI:  trawl read URL x20 --allow-host 127.0.0.1 --store :memory: --json
#   trawl MCP:  web_fetch {"urls": [20 URLs], "fresh": true} on one `trawl mcp` session
#   peer CLI:   websearch web-fetch URL x20 --allow-private-hosts --persist-path off --json
#               (0.6.1; the 0.2.6 MCP web_fetch refuses loopback, so there is no peer MCP row)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl; need_peer "$PEER_VENV"
D="$OUT/batch"; rm -rf "$D"; mkdir -p "$D"
PORT=$((PORT_BASE + 5))
B="http://127.0.0.1:$PORT"
R=${RUNS_BATCH:-5}
trap stop_started EXIT
start_bg "$D/fixture.out" "$PY" "$BENCH/fake_engines.py" --ports "$PORT" --log "$D/requests.log"
wait_http "$B/healthz"
machine_line > "$D/machine.txt"

URLS=(); for i in $(seq 1 20); do URLS+=("$B/page/$i.html?ms=100"); done
JSON_URLS=$("$PY" -c 'import json,sys; print(json.dumps({"urls": sys.argv[1:], "fresh": True}))' "${URLS[@]}")

{
"$PY" "$BENCH/measure.py" --runs "$R" --label "cli|trawl" --expect '"ok": ?true' -- \
  "${TENV[@]}" "$TRAWL" read "${URLS[@]}" --allow-host 127.0.0.1 --store :memory: --json
"$PY" "$BENCH/measure.py" --runs "$R" --label "cli|peer" --expect '"ok": ?true' -- \
  "${PENV[@]}" "$PEER_VENV/bin/websearch" web-fetch "${URLS[@]}" --allow-private-hosts --persist-path off --json
} > "$D/results.jsonl"
# The floor of this fixture: 20 plain GETs, 5 at a time, no extraction (Python threads).
"$PY" - "${URLS[@]}" > "$D/floor.json" <<'PYEOF'
import json, statistics, sys, time, urllib.request
from concurrent.futures import ThreadPoolExecutor
urls = sys.argv[1:]
def get(u):
    with urllib.request.urlopen(u) as r:
        return len(r.read())
walls = []
for _ in range(6):
    t = time.monotonic()
    with ThreadPoolExecutor(5) as ex:
        list(ex.map(get, urls))
    walls.append(time.monotonic() - t)
print(json.dumps({"wall_med": statistics.median(walls[1:]), "walls": walls}))
PYEOF
# MCP: one session, one warm-up call, then R timed calls.
"$PY" "$BENCH/mcp_client.py" stdio --call web_fetch "$JSON_URLS" 1 --call web_fetch "$JSON_URLS" "$R" -- \
  "${TENV[@]}" TRAWL_ALLOW_HOSTS=127.0.0.1 "$TRAWL" mcp --store :memory: > "$D/mcp.json"
grep -c "/page/" "$D/requests.log" > "$D/requests.txt"

"$PY" "$BENCH/report.py" 5 > "$OUT/section-5.md"
cat "$OUT/section-5.md"
