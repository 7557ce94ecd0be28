#!/usr/bin/env bash
# Section 16: what the browser's agent features cost. One page served by python3 -m
# http.server on loopback (a list that grows by two items a click, 60 paragraphs below),
# read by `trawl read` five ways, each RUNS times after one warm-up:
#   rendered     --render always: the page rendered for its text (section 10's row)
#   screenshot   --screenshot FILE: the window, 1280x800 PNG
#   full page    --screenshot FILE --full-page: the whole page (cut at 8,000 px)
#   actions      --action click:#more x3 --action wait:.item-8: three clicks, then a wait
#   both         the actions, then a full-page screenshot
# Wall, CPU and peak RSS are of trawl plus every process it started (bench/treemeasure.py,
# /proc sampled every 10 ms): each run starts a cold browser and closes it, as a one-shot
# `trawl read` does (`trawl serve`/`trawl mcp` start it once).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
D="$OUT/browser"; rm -rf "$D"; mkdir -p "$D/site"
PORT=$((PORT_BASE + 16))
RUNS=${RUNS:-5}
python3 - "$D/site/page.html" <<'PY'
import sys
paras = "".join(f"<p>Paragraph {i} of the survey notes, long enough to be read as text.</p>" for i in range(60))
page = f"""<!doctype html><html><head><title>Survey</title></head><body>
<h1>Survey</h1><ul id="list"><li>Item 1</li><li>Item 2</li></ul><button id="more">Load more</button>
<script>var n = 2; document.getElementById('more').onclick = function () {{ setTimeout(function () {{
for (var i = 0; i < 2; i++) {{ n++; var li = document.createElement('li'); li.className = 'item-' + n;
li.textContent = 'Item ' + n; document.getElementById('list').appendChild(li); }} }}, 50); }};</script>
{paras}</body></html>"""
open(sys.argv[1], "w").write(page)
PY
( cd "$D/site" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 ) > "$D/http.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/page.html" >/dev/null && break; sleep 0.1; done
URL="http://127.0.0.1:$PORT/page.html"
base=("${TENV[@]}" "$TRAWL" read "$URL" --allow-host 127.0.0.1 --store :memory: --json)
clicks=(--action click:#more --action click:#more --action click:#more --action wait:.item-8)
m() { python3 "$BENCH/treemeasure.py" --runs "$RUNS" --label "$1" --expect "$2" -- "${@:3}" >> "$D/results.jsonl"; }
: > "$D/results.jsonl"
m rendered 'Paragraph 59' "${base[@]}" --render always
m screenshot '"screenshots"' "${base[@]}" --screenshot "$D/shot.png"
m full-page '"full_page": ?true' "${base[@]}" --screenshot "$D/full.png" --full-page
m actions 'Item 8' "${base[@]}" "${clicks[@]}"
m actions+full-page 'Item 8' "${base[@]}" "${clicks[@]}" --screenshot "$D/both.png" --full-page
cat "$D/results.jsonl"
python3 - "$D" <<'PY'
import struct, sys
for name in ["shot", "full", "both"]:
    png = open(f"{sys.argv[1]}/{name}.png", "rb").read()
    w, h = struct.unpack(">II", png[16:24])
    print(f"{name}.png: {w}x{h}, {len(png)} bytes")
PY
