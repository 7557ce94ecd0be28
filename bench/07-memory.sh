#!/usr/bin/env bash
# Section 7: memory of the long-running server. RSS (VmRSS) and peak RSS (VmHWM) from
# /proc/PID/status of `trawl serve`:
#   idle      started, 2 s later, no request yet
#   reads     after 1,000 web_fetch calls, each a different loopback page
#             (bench/fake_engines.py /page/N.html), 8 client threads
#   opens     after a further 10,000 web_open calls (page 1 of a stored page), 16 threads
# Peer: websearch-skill 0.2.6's FastMCP server over HTTP (as in section 6), idle and after
# the same 10,000 web_open calls. Its MCP web_fetch refuses loopback addresses, so it
# cannot do the 1,000 reads here; that row is n/a for it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl; need_peer "$PEER_MCP_VENV"
D="$OUT/memory"; rm -rf "$D"; mkdir -p "$D"
PORT=$((PORT_BASE + 7)); TPORT=$((PORT_BASE + 17)); PPORT=$((PORT_BASE + 27))
B="http://127.0.0.1:$PORT"
READS=${READS:-1000}; OPENS=${OPENS:-10000}
trap stop_started EXIT
start_bg "$D/fixture.out" "$PY" "$BENCH/fake_engines.py" --ports "$PORT"
wait_http "$B/healthz"
handle() { "$PY" -c 'import json,re,sys; m=re.search(r"\"handle\": ?\"([^\"]+)\"", sys.stdin.read()); print(m.group(1) if m else "")'; }
TSTORE="$D/trawl.db"; PSTORE="$D/peer-index.db"
TH=$("${TENV[@]}" "$TRAWL" read "$B/page/0.html" --allow-host 127.0.0.1 --store "$TSTORE" --json | handle)
PH=$("${PENV[@]}" "$PEER_MCP_VENV/bin/websearch" web-fetch "$B/page/0.html" --allow-private-hosts --persist-path "$PSTORE" --json | handle)
[ -n "$TH" ] && [ -n "$PH" ] || { echo "no handle (trawl '$TH', peer '$PH')" >&2; exit 1; }
machine_line > "$D/machine.txt"

mem() {  # pid -> "rss_kib hwm_kib"
  awk '/^VmRSS:/ {r=$2} /^VmHWM:/ {h=$2} END {print r, h}' "/proc/$1/status"
}
record() {  # side stage pid [client json]
  local r h
  read -r r h < <(mem "$3")
  echo "{\"side\":\"$1\",\"stage\":\"$2\",\"rss_kib\":$r,\"hwm_kib\":$h,\"client\":${4:-null}}" >> "$D/results.jsonl"
}
trim() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); d.pop("latency_s", None); print(json.dumps(d))'; }

# trawl
start_bg "$D/trawl-serve.log" "${TENV[@]}" "$TRAWL" serve --listen "127.0.0.1:$TPORT" --store "$TSTORE" --allow-host 127.0.0.1
TPID=${STARTED[-1]}
wait_http "http://127.0.0.1:$TPORT/healthz"; sleep 2
record trawl idle "$TPID"
c=$("$PY" "$BENCH/mcp_client.py" http "http://127.0.0.1:$TPORT/mcp" --threads 8 --urls-from-template "$B/page/{i}.html" "$READS" | trim)
record trawl reads "$TPID" "$c"
c=$("$PY" "$BENCH/mcp_client.py" http "http://127.0.0.1:$TPORT/mcp" --threads 16 --call web_open "{\"handle\":\"$TH\",\"page\":1}" "$OPENS" | trim)
record trawl opens "$TPID" "$c"
ls -l "$TSTORE" | awk '{print $5}' > "$D/trawl-store-bytes.txt"

# peer
start_bg "$D/peer-serve.log" "${PENV[@]}" WEBSEARCH_PERSIST_PATH="$PSTORE" "$PEER_MCP_VENV/bin/python" -c "
from websearch.layer3_agentio.mcp_server import mcp
mcp.run(transport='http', host='127.0.0.1', port=$PPORT, show_banner=False)"
PPID_=${STARTED[-1]}
for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$PPORT/mcp" && break; sleep 0.1; done; sleep 2
record peer idle "$PPID_"
c=$("$PY" "$BENCH/mcp_client.py" http "http://127.0.0.1:$PPORT/mcp" --threads 16 --call web_open "{\"handle\":\"$PH\",\"page\":1}" "$OPENS" | trim)
record peer opens "$PPID_" "$c"

"$PY" "$BENCH/report.py" 7 > "$OUT/section-7.md"
cat "$OUT/section-7.md"
