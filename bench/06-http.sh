#!/usr/bin/env bash
# Section 6: MCP over streamable HTTP. Requests/s and latency p50/p99 of tools/call
# web_open (page 1 of one stored real page) with 1, 8 and 32 concurrent clients, using
# wrk (Debian) and bench/wrk_mcp.lua. Each client connection is a keep-alive HTTP/1.1
# connection; there are as many MCP sessions as clients (initialize +
# notifications/initialized first, by bench/mcp_client.py), used in turn.
#   trawl: trawl serve --listen 127.0.0.1:PORT --store FILE
#   peer:  websearch-skill 0.2.6's own FastMCP server object run with FastMCP's
#          streamable HTTP transport (`mcp.run(transport="http")`); its CLI only offers
#          stdio, so this is the closest like-for-like HTTP baseline.
# wrk runs on the same 2 cores as the server, so both sides pay for the load generator.
#
# TRAWL_PATCHED=/path/to/trawl adds rows for another trawl build (e.g. one with a fix under
# test) against the same store; it is labelled with PATCH_LABEL.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl; need_peer "$PEER_MCP_VENV"
command -v wrk >/dev/null || { echo "wrk missing: apt-get install wrk" >&2; exit 1; }
D="$OUT/http"; rm -rf "$D"; mkdir -p "$D"
PORT=$((PORT_BASE + 6)); TPORT=$((PORT_BASE + 16)); PPORT=$((PORT_BASE + 26))
B="http://127.0.0.1:$PORT"
DUR=${HTTP_DURATION:-8s}
CLIENTS=(1 8 32)
trap stop_started EXIT
start_bg "$D/fixture.out" "$PY" "$BENCH/fake_engines.py" --ports "$PORT" --pages-dir "$SHARED/bench/extract/dev"
wait_http "$B/healthz"
DEV_ID=$(median_dev_id)
URL="$B/dev/$DEV_ID.html"
handle() { "$PY" -c 'import json,re,sys; m=re.search(r"\"handle\": ?\"([^\"]+)\"", sys.stdin.read()); print(m.group(1) if m else "")'; }

TSTORE="$D/trawl.db"; PSTORE="$D/peer-index.db"
TH=$("${TENV[@]}" "$TRAWL" read "$URL" --allow-host 127.0.0.1 --store "$TSTORE" --json | handle)
PH=$("${PENV[@]}" "$PEER_MCP_VENV/bin/websearch" web-fetch "$URL" --allow-private-hosts --persist-path "$PSTORE" --json | handle)
[ -n "$TH" ] && [ -n "$PH" ] || { echo "no handle (trawl '$TH', peer '$PH')" >&2; exit 1; }

start_bg "$D/trawl-serve.log" "${TENV[@]}" "$TRAWL" serve --listen "127.0.0.1:$TPORT" --store "$TSTORE"
start_bg "$D/peer-serve.log" "${PENV[@]}" WEBSEARCH_PERSIST_PATH="$PSTORE" "$PEER_MCP_VENV/bin/python" -c "
from websearch.layer3_agentio.mcp_server import mcp
mcp.run(transport='http', host='127.0.0.1', port=$PPORT, show_banner=False)"
wait_http "http://127.0.0.1:$TPORT/healthz"
if [ -n "${TRAWL_PATCHED:-}" ]; then
  XPORT=$((PORT_BASE + 36))
  cp "$TSTORE" "$D/patched.db"
  start_bg "$D/patched-serve.log" "${TENV[@]}" "$TRAWL_PATCHED" serve --listen "127.0.0.1:$XPORT" --store "$D/patched.db"
  wait_http "http://127.0.0.1:$XPORT/healthz"
  echo "${PATCH_LABEL:-another trawl build}" > "$D/patched.txt"
fi
for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$PPORT/mcp" && break; sleep 0.1; done
machine_line > "$D/machine.txt"

run_side() {  # side url handle
  local side=$1 url=$2 h=$3 c sess
  local body
  body=$(printf '{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"web_open","arguments":{"handle":"%s","page":1}}}' "$h")
  for c in "${CLIENTS[@]}"; do
    sess="$D/$side-sessions-$c.txt"; : > "$sess"
    for _ in $(seq "$c"); do
      "$PY" "$BENCH/mcp_client.py" http "$url" --session-out "$sess.one" >/dev/null
      cat "$sess.one" >> "$sess"; echo >> "$sess"
    done
    local t=$(( c < 2 ? 1 : 2 ))
    # Warm-up (not recorded), then the measured run.
    WRK_BODY="$body" WRK_SESSIONS="$sess" WRK_OUT="$D/warm.json" wrk -t"$t" -c"$c" -d2s -s "$BENCH/wrk_mcp.lua" "$url" >/dev/null
    WRK_BODY="$body" WRK_SESSIONS="$sess" WRK_OUT="$D/$side-$c.json" \
      wrk -t"$t" -c"$c" -d"$DUR" --timeout 10s -s "$BENCH/wrk_mcp.lua" "$url" > "$D/$side-$c.wrk.txt"
    echo "{\"side\":\"$side\",\"clients\":$c,\"threads\":$t,\"r\":$(cat "$D/$side-$c.json")}" >> "$D/results.jsonl"
  done
}
run_side trawl "http://127.0.0.1:$TPORT/mcp" "$TH"
run_side peer "http://127.0.0.1:$PPORT/mcp" "$PH"
[ -n "${TRAWL_PATCHED:-}" ] && run_side patched "http://127.0.0.1:$XPORT/mcp" "$TH"
echo "wrk $(wrk -v 2>&1 | head -1 | cut -d' ' -f2); duration $DUR per row after a 2 s warm-up" > "$D/wrk.txt"

"$PY" "$BENCH/report.py" 6 > "$OUT/section-6.md"
cat "$OUT/section-6.md"
