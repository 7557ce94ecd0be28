#!/usr/bin/env bash
# Section 8: the shared store. Throughput and p50/p99 of tools/call over `trawl serve`
# (streamable HTTP) with the store in Redis against SQLite on the same machine, with 1 and
# with 3 replicas (3 SQLite replicas share one file; 3 Redis replicas one redis-server):
#   web_open          page 1 of one stored page (a store read per call)
#   web_search cached the same query again and again (a search-cache hit per call)
# Load: bench/mcp_client.py http, THREADS threads per replica (default 4), one process per
# replica, all at once; rate = all calls / the slowest process's wall time.
# redis-server: Debian's, started here on a free loopback port with no persistence.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl
command -v redis-server >/dev/null || { echo "redis-server missing: apt-get install redis-server" >&2; exit 1; }
D="$OUT/replicas"; rm -rf "$D"; mkdir -p "$D"
EPORT=$((PORT_BASE + 9)); RPORT=$((PORT_BASE + 18)); SPORT=$((PORT_BASE + 28))
CALLS=${CALLS:-2000}; THREADS=${THREADS:-4}
trap stop_started EXIT
start_bg "$D/engines.out" "$PY" "$BENCH/fake_engines.py" --ports "$EPORT" --results 10
start_bg "$D/redis.out" redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no
wait_http "http://127.0.0.1:$EPORT/healthz"
for _ in $(seq 100); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
machine_line > "$D/machine.txt"
PAGE="http://127.0.0.1:$EPORT/page/7.html"
ENV=("${TENV[@]}" TRAWL_SEARXNG_URL="http://127.0.0.1:$EPORT" TRAWL_ALLOW_HOSTS=127.0.0.1 TRAWL_READERS=none)

# backend replicas -> results line per tool
run_row() {
  local backend=$1 n=$2 args=() ports=() i p
  case $backend in
    sqlite) args=(--store "$D/sqlite-$n.db") ;;
    redis) args=(--redis "redis://127.0.0.1:$RPORT" --store-fallback none)
           redis-cli -p "$RPORT" flushall >/dev/null ;;
  esac
  for i in $(seq "$n"); do
    p=$((SPORT + i))
    start_bg "$D/$backend-$n-$i.log" "${ENV[@]}" "$TRAWL" serve --listen "127.0.0.1:$p" "${args[@]}"
    ports+=("$p")
  done
  for p in "${ports[@]}"; do wait_http "http://127.0.0.1:$p/healthz"; done
  # Fill the store (through the CLI, same store) and the search cache once.
  local first="http://127.0.0.1:${ports[0]}/mcp" h
  h=$("${ENV[@]}" "$TRAWL" read "$PAGE" --json "${args[@]}" \
      | "$PY" -c 'import json,re,sys; m=re.search(r"\"handle\": ?\"([^\"]+)\"", sys.stdin.read()); print(m.group(1) if m else "")')
  [ -n "$h" ] || { echo "no handle for $PAGE" >&2; exit 1; }
  "$PY" "$BENCH/mcp_client.py" http "$first" --call web_search '{"query":"bench query","engines":["searxng"]}' >/dev/null
  local tool json
  for tool in web_open web_search; do
    case $tool in
      web_open) json="{\"handle\":\"$h\",\"page\":1}" ;;
      web_search) json='{"query":"bench query","engines":["searxng"]}' ;;
    esac
    local per=$((CALLS / n)) pids=()
    for i in $(seq "$n"); do
      "$PY" "$BENCH/mcp_client.py" http "http://127.0.0.1:${ports[$((i-1))]}/mcp" --threads "$THREADS" \
        --call "$tool" "$json" "$per" > "$D/$backend-$n-$tool-$i.json" &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    "$PY" - "$backend" "$n" "$tool" "$D"/"$backend-$n-$tool"-*.json >> "$D/results.jsonl" <<'PYEOF'
import json, sys
backend, n, tool, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
runs = [json.load(open(f)) for f in files]
lat = sorted(x for r in runs for x in r["latency_s"])
calls = sum(r["n"] for r in runs)
wall = max(r["wall_s"] for r in runs)
print(json.dumps({"backend": backend, "replicas": n, "tool": tool, "calls": calls,
                  "errors": sum(r["errors"] for r in runs), "rate": calls / wall,
                  "p50_ms": lat[len(lat) // 2] * 1e3,
                  "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e3}))
PYEOF
  done
  stop_started_but "${STARTED[0]}" "${STARTED[1]}"
}

# Stops every started process except the fixtures (engines, redis) given by pid.
stop_started_but() {
  local keep=("$@") kept=() p
  for p in "${STARTED[@]}"; do
    if [[ " ${keep[*]} " == *" $p "* ]]; then kept+=("$p"); else kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; fi
  done
  STARTED=("${kept[@]}")
}

for n in 1 3; do
  run_row sqlite "$n"
  run_row redis "$n"
done

"$PY" - "$D" > "$OUT/section-9.md" <<'PYEOF'
import json, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(f"{d}/results.jsonl")]
by = {(r["backend"], r["replicas"], r["tool"]): r for r in rows}
print(open(f"{d}/machine.txt").read().strip())
print()
print("| tool | replicas | SQLite calls/s | Redis calls/s | calls/s: Redis ÷ SQLite | SQLite p50 ms | Redis p50 ms | SQLite p99 ms | Redis p99 ms | errors (SQLite / Redis) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for tool in ("web_open", "web_search"):
    for n in (1, 3):
        s, r = by[("sqlite", n, tool)], by[("redis", n, tool)]
        print(f"| {tool}{' (cached)' if tool == 'web_search' else ''} | {n} | {s['rate']:.0f} | {r['rate']:.0f} | {r['rate'] / s['rate']:.2f}× "
              f"| {s['p50_ms']:.2f} | {r['p50_ms']:.2f} | {s['p99_ms']:.2f} | {r['p99_ms']:.2f} | {s['errors']} / {r['errors']} |")
PYEOF
cat "$OUT/section-9.md"
