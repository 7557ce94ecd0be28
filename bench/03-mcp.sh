#!/usr/bin/env bash
# Section 3: the MCP stdio face. (a) spawn -> initialize -> tools/list, RUNS fresh
# processes; (b) 100 sequential web_open calls on one stored document, in one session;
# (c) the size of each server's tools/list answer (bench/tools_list_size.py).
# trawl mcp vs websearch-skill 0.2.6's `websearch mcp` (the last release with an MCP
# server). Client: bench/mcp_client.py (newline-delimited JSON-RPC, as in
# ../shared/peers/mcp_stdio_probe.py); peak RSS and CPU from wait4(2) of the server.
#
# The document is a real dev-set page served on loopback, stored beforehand by each
# tool's own CLI into the store its MCP server then reads (trawl read --store FILE;
# websearch web-fetch --persist-path FILE, which the 0.2.6 server reads through
# WEBSEARCH_PERSIST_PATH): the peer's MCP web_fetch refuses loopback addresses.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl; need_peer "$PEER_MCP_VENV"
D="$OUT/mcp"; rm -rf "$D"; mkdir -p "$D"
PORT=$((PORT_BASE + 3))
B="http://127.0.0.1:$PORT"
CALLS=${CALLS:-100}
trap stop_started EXIT
start_bg "$D/fixture.out" "$PY" "$BENCH/fake_engines.py" --ports "$PORT" \
  --pages-dir "$SHARED/bench/extract/dev" --log "$D/requests.log"
wait_http "$B/healthz"
DEV_ID=$(median_dev_id)
URL="$B/dev/$DEV_ID.html"
machine_line > "$D/machine.txt"

first_handle() { "$PY" -c '
import json, sys
def find(o):
    if isinstance(o, dict):
        if isinstance(o.get("handle"), str): return o["handle"]
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            h = find(v)
            if h: return h
    return None
print(find(json.load(sys.stdin)) or "")'; }

TSTORE="$D/trawl.db"
TH=$("${TENV[@]}" "$TRAWL" read "$URL" --allow-host 127.0.0.1 --store "$TSTORE" --json | first_handle)
PSTORE="$D/peer-index.db"
PH=$("${PENV[@]}" "$PEER_MCP_VENV/bin/websearch" web-fetch "$URL" --allow-private-hosts --persist-path "$PSTORE" --json | first_handle)
[ -n "$TH" ] && [ -n "$PH" ] || { echo "no handle (trawl '$TH', peer '$PH')" >&2; exit 1; }
echo "trawl handle $TH; peer handle $PH; page $URL" > "$D/handles.txt"

TARGS=$(printf '{"handle":"%s","page":1}' "$TH")
PARGS=$(printf '{"handle":"%s","page":1}' "$PH")
"$PY" "$BENCH/mcp_client.py" stdio --spawn-runs "$RUNS" --call web_open "$TARGS" "$CALLS" -- \
  "${TENV[@]}" "$TRAWL" mcp --store "$TSTORE" > "$D/trawl.json"
"${PENV[@]}" WEBSEARCH_PERSIST_PATH="$PSTORE" \
  "$PY" "$BENCH/mcp_client.py" stdio --spawn-runs "$RUNS" --call web_open "$PARGS" "$CALLS" -- \
  "$PEER_MCP_VENV/bin/websearch" mcp > "$D/peer.json"

# What every conversation carries: the tools/list answer, model-facing part and whole.
{
  "$PY" "$BENCH/tools_list_size.py" trawl -- "${TENV[@]}" "$TRAWL" mcp --store "$TSTORE"
  "${PENV[@]}" WEBSEARCH_PERSIST_PATH="$PSTORE" \
    "$PY" "$BENCH/tools_list_size.py" websearch-skill -- "$PEER_MCP_VENV/bin/websearch" mcp
} > "$D/tools_list.jsonl"

"$PY" "$BENCH/report.py" 3 > "$OUT/section-3.md"
echo; echo "tools/list (compact JSON bytes):"; cat "$D/tools_list.jsonl"
cat "$OUT/section-3.md"
