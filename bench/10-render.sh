#!/usr/bin/env bash
# Section 8: the rendering tier's cost. One script-built page (an empty #root filled by
# a script from 6 KB of inline data) read by `trawl read` three ways, each RUNS times:
#   tier 0     --render never: plain HTTP, the app shell as fetched
#   rendered   --render always: tier 0, then a cold headless chromium (started, used, closed)
#   auto       --render auto: the shell is detected and rendered (what users get by default)
# Wall, CPU and peak RSS are of trawl plus every process it started (bench/treemeasure.py,
# /proc sampled every 10 ms). Then the share of wcxb-dev pages `auto` would render
# (crates/trawl-fetch/examples/render_share.rs on the raw HTML).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
D="$OUT/render"; rm -rf "$D"; mkdir -p "$D/site"
PORT=$((PORT_BASE + 10))
RUNS=${RUNS:-5}
python3 - "$D/site/app.html" <<'PY'
import json, sys
paras = ["Paragraph %d of the script-built article, with enough words to be read as text." % i for i in range(60)]
data = json.dumps({"title": "Script-built article", "paragraphs": paras})
page = f"""<!doctype html><html><head><title>App</title></head><body><div id="root"></div>
<script id="data" type="application/json">{data}</script>
<script>var d = JSON.parse(document.getElementById('data').textContent);
var r = document.getElementById('root'); var h = document.createElement('h1'); h.textContent = d.title; r.appendChild(h);
d.paragraphs.forEach(function (t) {{ var p = document.createElement('p'); p.textContent = t; r.appendChild(p); }});</script>
</body></html>"""
open(sys.argv[1], "w").write(page)
PY
( cd "$D/site" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 ) > "$D/http.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/app.html" >/dev/null && break; sleep 0.1; done
URL="http://127.0.0.1:$PORT/app.html"
read_cmd() { echo "${TENV[@]}" "$TRAWL" read "$URL" --allow-host 127.0.0.1 --store :memory: --json --render "$1"; }
: > "$D/results.jsonl"
python3 "$BENCH/treemeasure.py" --runs "$RUNS" --label tier0 --expect '"fetched_via": ?"http"' -- $(read_cmd never) >> "$D/results.jsonl"
python3 "$BENCH/treemeasure.py" --runs "$RUNS" --label rendered --expect 'Paragraph 59' -- $(read_cmd always) >> "$D/results.jsonl"
python3 "$BENCH/treemeasure.py" --runs "$RUNS" --label auto --expect 'Paragraph 59' -- $(read_cmd auto) >> "$D/results.jsonl"
cat "$D/results.jsonl"
( cd "$SRC_ROOT" && cargo run --locked -q -p trawl-fetch --example render_share -- \
    "$SHARED/bench/extract/wcxb-dev/html" ) > "$D/share.txt"
tail -1 "$D/share.txt"
