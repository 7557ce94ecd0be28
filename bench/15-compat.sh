#!/usr/bin/env bash
# Section 14: what the Firecrawl-compatible layer costs. Requests/s and latency p50/p99 of
# POST /v2/scrape {url, formats: [markdown]} against MCP tools/call web_fetch {url,
# page_size_tokens: 0} — the same real page (the dev set's median page, served by
# bench/fake_engines.py on loopback and stored by a first read), the same `trawl serve`,
# the same run, rows interleaved — with 1 and 8 concurrent clients, using wrk and
# bench/wrk_mcp.lua. Both answer the whole stored Markdown; the scrape adds Firecrawl's
# request parsing, option checks and its JSON shape. Target: ≤ 10 % fewer requests/s.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl
command -v wrk >/dev/null || { echo "wrk missing: apt-get install wrk" >&2; exit 1; }
D="$OUT/compat"; rm -rf "$D"; mkdir -p "$D"
PORT=$((PORT_BASE + 14)); TPORT=$((PORT_BASE + 24))
B="http://127.0.0.1:$PORT"
DUR=${COMPAT_DURATION:-8s}
CLIENTS=(1 8)
trap stop_started EXIT
start_bg "$D/fixture.out" "$PY" "$BENCH/fake_engines.py" --ports "$PORT" --pages-dir "$SHARED/bench/extract/dev"
wait_http "$B/healthz"
URL="$B/dev/$(median_dev_id).html"
TSTORE="$D/trawl.db"
"${TENV[@]}" "$TRAWL" read "$URL" --allow-host 127.0.0.1 --store "$TSTORE" --json >/dev/null
start_bg "$D/trawl-serve.log" "${TENV[@]}" TRAWL_ALLOW_HOSTS=127.0.0.1 TRAWL_READERS=none \
  "$TRAWL" serve --listen "127.0.0.1:$TPORT" --store "$TSTORE"
wait_http "http://127.0.0.1:$TPORT/healthz"
machine_line | sed "s/; websearch-skill.*$/./" > "$D/machine.txt"

MCP_BODY=$(printf '{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"web_fetch","arguments":{"url":"%s","page_size_tokens":0}}}' "$URL")
SCRAPE_BODY=$(printf '{"url":"%s","formats":["markdown"]}' "$URL")
run_row() {  # side clients path body sessions-file
  local side=$1 c=$2 path=$3 body=$4 sess=$5 t=$(( $2 < 2 ? 1 : 2 ))
  WRK_BODY="$body" WRK_SESSIONS="$sess" WRK_OUT="$D/warm.json" \
    wrk -t"$t" -c"$c" -d2s -s "$BENCH/wrk_mcp.lua" "http://127.0.0.1:$TPORT$path" >/dev/null
  WRK_BODY="$body" WRK_SESSIONS="$sess" WRK_OUT="$D/$side-$c.json" \
    wrk -t"$t" -c"$c" -d"$DUR" --timeout 10s -s "$BENCH/wrk_mcp.lua" "http://127.0.0.1:$TPORT$path" > "$D/$side-$c.wrk.txt"
  echo "{\"side\":\"$side\",\"clients\":$c,\"r\":$(cat "$D/$side-$c.json")}" >> "$D/results.jsonl"
}
for c in "${CLIENTS[@]}"; do
  sess="$D/sessions-$c.txt"; : > "$sess"
  for _ in $(seq "$c"); do
    "$PY" "$BENCH/mcp_client.py" http "http://127.0.0.1:$TPORT/mcp" --session-out "$sess.one" >/dev/null
    cat "$sess.one" >> "$sess"; echo >> "$sess"
  done
  # The scrape route has no sessions; the lua script's session header is ignored there.
  run_row mcp "$c" /mcp "$MCP_BODY" "$sess"
  run_row scrape "$c" /v2/scrape "$SCRAPE_BODY" "$sess"
done
echo "wrk $(wrk -v 2>&1 | head -1 | cut -d' ' -f2); duration $DUR per row after a 2 s warm-up" > "$D/wrk.txt"

"$PY" - "$D" > "$OUT/section-15.md" <<'PY'
import json, os, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(os.path.join(d, "results.jsonl")) if l.strip()]
by = {(r["side"], r["clients"]): r["r"] for r in rows}
print(open(os.path.join(d, "machine.txt")).read().strip())
print()
print(open(os.path.join(d, "wrk.txt")).read().strip() + ". Errors = non-200 replies, socket errors or tool errors in the body.")
print()
print("| clients | web_fetch (MCP) req/s | /v2/scrape req/s | scrape ÷ MCP | MCP p50 ms | scrape p50 ms | MCP p99 ms | scrape p99 ms | errors (MCP / scrape) |")
print("|---|---|---|---|---|---|---|---|---|")
for c in sorted({k[1] for k in by}):
    m, s = by[("mcp", c)], by[("scrape", c)]
    err = lambda r: r["socket_errors"] + r["status_errors"] + r["bad_replies"]
    print(f"| {c} | {m['rps']:.0f} | {s['rps']:.0f} | {s['rps'] / m['rps']:.2f} | {m['p50_us'] / 1000:.2f} | "
          f"{s['p50_us'] / 1000:.2f} | {m['p99_us'] / 1000:.2f} | {s['p99_us'] / 1000:.2f} | {err(m)} / {err(s)} |")
print()
print("Commands: `bench/15-compat.sh` → `trawl serve --listen 127.0.0.1:PORT --store FILE` (the page stored by "
      "`trawl read URL` first); `wrk -tT -cC -d8s -s bench/wrk_mcp.lua http://127.0.0.1:PORT/mcp` with a "
      "`web_fetch {url, page_size_tokens: 0}` call, then the same against `/v2/scrape` with `{url, formats: [markdown]}` "
      "(T = 1 for one client, else 2).")
PY
cat "$OUT/section-15.md"
