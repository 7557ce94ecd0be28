#!/usr/bin/env bash
# Section 4: search fan-out overhead. 8 fake SearXNG-format engines on loopback, each
# answering after 300 ms (bench/fake_engines.py), queried at once; the router's own
# overhead is the search's wall time minus those 300 ms. Three scenarios:
#   A  8 engines x 10 hits (the real saved SearXNG response, rotated per engine)
#   B  8 engines x 50 hits (padded with synthetic hits): A vs B shows the fusion cost
#   C  A plus a 9th engine that never answers, per-engine deadline 1000 ms:
#      overhead = wall - 1000 ms
# trawl: crates/trawl-search/examples/fanout_bench.rs (library Router, 8 engines named
# sx1..sx8 that reuse the SearXNG engine's request and parser, rate limits off).
# peer:  bench/peer_fanout.py (websearch-skill's library router, one SearxngAdapter per
# engine, ddgs off). Both: one warm-up search, then RUNS_FANOUT searches in one process.
#
# Why the library and not the CLI: the peer's CLI takes a single SearXNG URL, and
# trawl's CLI has one `searxng` engine; pointing 8 different real engines'
# TRAWL_<ENGINE>_URL at fakes would need 8 response formats and would mostly measure the
# fakes. Process start-up is measured separately in section 2.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_peer "$PEER_VENV"
D="$OUT/fanout"; rm -rf "$D"; mkdir -p "$D"
RUNS_FANOUT=${RUNS_FANOUT:-40}
P10=$((PORT_BASE + 40)); P50=$((PORT_BASE + 60)); HANG=$((PORT_BASE + 49))
FIX="$SHARED/fixtures/serp/searxng/search-python-format-json.json"
ports() { seq -s, "$1" $(( $1 + 7 )); }
engines() { local p; for p in $(seq "$1" $(( $1 + 7 ))); do printf -- '--engine http://127.0.0.1:%s ' "$p"; done; }

( cd "$SRC_ROOT" && cargo build --release --locked -q -p trawl-search --example fanout_bench ) >&2
EX="$TARGET_DIR/release/examples/fanout_bench"

trap stop_started EXIT
start_bg "$D/fix10.out" "$PY" "$BENCH/fake_engines.py" --ports "$(ports $P10)" --hang-port "$HANG" \
  --delay-ms 300 --results 10 --fixture "$FIX" --log "$D/requests10.log"
start_bg "$D/fix50.out" "$PY" "$BENCH/fake_engines.py" --ports "$(ports $P50)" \
  --delay-ms 300 --results 50 --fixture "$FIX" --log "$D/requests50.log"
wait_http "http://127.0.0.1:$P10/healthz"; wait_http "http://127.0.0.1:$((P50 + 7))/healthz"
machine_line > "$D/machine.txt"

# shellcheck disable=SC2046
{
  echo "{\"scenario\":\"A\",\"side\":\"trawl\",\"r\":$("$EX" $(engines $P10) --timeout-ms 2000 --runs "$RUNS_FANOUT")}"
  echo "{\"scenario\":\"A\",\"side\":\"peer\",\"r\":$("$PEER_VENV/bin/python" "$BENCH/peer_fanout.py" $(engines $P10) --timeout-ms 2000 --runs "$RUNS_FANOUT" --count 10)}"
  echo "{\"scenario\":\"B\",\"side\":\"trawl\",\"r\":$("$EX" $(engines $P50) --timeout-ms 2000 --runs "$RUNS_FANOUT")}"
  echo "{\"scenario\":\"B\",\"side\":\"peer\",\"r\":$("$PEER_VENV/bin/python" "$BENCH/peer_fanout.py" $(engines $P50) --timeout-ms 2000 --runs "$RUNS_FANOUT" --count 50)}"
  echo "{\"scenario\":\"C\",\"side\":\"trawl\",\"r\":$("$EX" $(engines $P10) --hang "http://127.0.0.1:$HANG" --timeout-ms 1000 --runs $(( RUNS_FANOUT / 2 )))}"
  echo "{\"scenario\":\"C\",\"side\":\"peer\",\"r\":$("$PEER_VENV/bin/python" "$BENCH/peer_fanout.py" $(engines $P10) --hang "http://127.0.0.1:$HANG" --timeout-ms 1000 --runs $(( RUNS_FANOUT / 2 )) --count 10)}"
} > "$D/results.jsonl"

"$PY" "$BENCH/report.py" 4 > "$OUT/section-4.md"
cat "$OUT/section-4.md"
