# Shared helpers for the bench/ section scripts. Sourced, not run.
#
# Every section script writes one Markdown fragment, $OUT/section-N.md, which
# bench/update_md.py splices into BENCHMARKS.md between its markers.
#
# Environment (all optional):
#   OUT          where results and scratch files go (default /tmp/trawl-bench)
#   TRAWL        the trawl binary (default target/release/trawl)
#   PEER_VENV    websearch-skill 0.6.1 venv (default /tmp/peer-ws)
#   PEER_MCP_VENV websearch-skill 0.2.6 venv, the one with `websearch mcp` (default /tmp/peer-ws026)
#   RUNS         repetitions for the one-shot rows (default 10)
#   PORT_BASE    first loopback port the fixtures use (default 18800)
#   MD_VENV      markitdown's venv, sections 12 and 12b (default /tmp/markitdown-venv)
#   SRC_ROOT     the checkout whose code the examples (extract_bench, fanout_bench) are
#                built from (default: this one); CARGO_TARGET_DIR is honoured

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
SHARED=${SHARED:-$(cd "$ROOT/../shared" 2>/dev/null && pwd || echo /work/shared)}
OUT=${OUT:-/tmp/trawl-bench}
SRC_ROOT=${SRC_ROOT:-$ROOT}
TARGET_DIR=${CARGO_TARGET_DIR:-$SRC_ROOT/target}
TRAWL=${TRAWL:-$TARGET_DIR/release/trawl}
PEER_VENV=${PEER_VENV:-/tmp/peer-ws}
PEER_MCP_VENV=${PEER_MCP_VENV:-/tmp/peer-ws026}
RUNS=${RUNS:-10}
PORT_BASE=${PORT_BASE:-18800}
PY=python3
# markitdown, the peer of sections 12 and 12b (PyPI, pinned): see need_markitdown.
MD_VERSION=0.1.9
MD_VENV=${MD_VENV:-/tmp/markitdown-venv}
mkdir -p "$OUT"

# trawl: no user config, no ~/.cache store, no .env from the caller's directory.
TRAWL_HOME="$OUT/trawl-home"
mkdir -p "$TRAWL_HOME"
# Use as a command prefix: "${TENV[@]}" "$TRAWL" read ...
TENV=(env -u TRAWL_CONFIG -u TRAWL_STORE -u TRAWL_PROXY -u TRAWL_SEARXNG_URL HOME="$TRAWL_HOME"
      XDG_CONFIG_HOME="$TRAWL_HOME/config" XDG_CACHE_HOME="$TRAWL_HOME/cache" TRAWL_LOG_QUIET=true)

# websearch-skill: state in a throwaway directory, never in $HOME.
PEER_STATE="$OUT/peer-state"
mkdir -p "$PEER_STATE"
# Use as a command prefix: "${PENV[@]}" "$PEER_VENV/bin/websearch" fetch ...
PENV=(env -u WEBSEARCH_PROXY -u WEBSEARCH_TOR -u WEBSEARCH_EGRESS_LOCK -u WEBSEARCH_SEARXNG_URL
      WEBSEARCH_STATE_DIR="$PEER_STATE" WEBSEARCH_ENV_FILE="$PEER_STATE/absent.env"
      XDG_CONFIG_HOME="$PEER_STATE/config" XDG_CACHE_HOME="$PEER_STATE/cache")

peer_version() {  # venv
  "$1/bin/python" -c 'import importlib.metadata as m; print(m.version("websearch-skill"))' 2>/dev/null || echo "not installed"
}

trawl_version() {
  "$TRAWL" --version 2>/dev/null | head -1
}

cpu_model() {
  grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs
}

loadavg() {
  cut -d' ' -f1-3 /proc/loadavg
}

# One line naming the machine and its load, for the top of every section.
machine_line() {
  local src
  src=$(cat "$TRAWL.source" 2>/dev/null || echo "checkout at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)")
  echo "Machine: $(nproc) cores, $(cpu_model), $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2/1048576}' /proc/meminfo); load average $(loadavg) at $(date -u +%H:%M) UTC; $(trawl_version) release build ($src); websearch-skill $(peer_version "$PEER_VENV") (CLI), $(peer_version "$PEER_MCP_VENV") (MCP)."
}

# Background processes started by a section; stopped by stop_started (by pid only).
STARTED=()
start_bg() {  # logfile, command...
  local log=$1; shift
  "$@" >"$log" 2>&1 &
  STARTED+=($!)
}
stop_started() {
  local p
  for p in "${STARTED[@]:-}"; do
    [ -n "$p" ] && kill "$p" 2>/dev/null || true
  done
  for p in "${STARTED[@]:-}"; do
    [ -n "$p" ] && wait "$p" 2>/dev/null || true
  done
  STARTED=()
}

wait_http() {  # url
  local _
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "not answering: $1" >&2
  return 1
}

# Debian's nginx serving ROOT on HOST:PORT, its config, pid and logs under DIR, started with
# start_bg (stopped by stop_started) and answering before this returns. With ACCESS_LOG,
# each request is logged there as "URI STATUS" (what bench/crawl_measure.py reads).
start_static_nginx() {  # dir, host, port, root, [access log]
  local dir=$1 host=$2 port=$3 root=$4 access="access_log off;"
  [ -n "${5:-}" ] && access="log_format crawl '\$request_uri \$status'; access_log $5 crawl;"
  local nginx; nginx=$(command -v nginx || echo /usr/sbin/nginx)
  [ -x "$nginx" ] || { echo "nginx missing: apt-get install nginx-light" >&2; exit 1; }
  mkdir -p "$dir"
  cat > "$dir/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  $access
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  types { text/html html; application/xml xml; text/plain txt; text/css css; application/javascript js; }
  default_type application/octet-stream;
  server {
    listen $host:$port;
    root $root;
    index index.html;
  }
}
EOF
  start_bg "$dir/stdout.log" "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log"
  wait_http "http://$host:$port/robots.txt"
}
need_trawl() {
  [ -x "$TRAWL" ] || { echo "no trawl binary at $TRAWL (cargo build --release --locked -p trawl)" >&2; exit 1; }
}
# markitdown $MD_VERSION in $MD_VENV, installed there when missing.
need_markitdown() {
  if ! "$MD_VENV/bin/python" -c "import markitdown" 2>/dev/null; then
    python3 -m venv "$MD_VENV"
    # lxml 6.2.0 breaks markitdown 0.1.9's docx path ("Could not find the body element"): pinned.
    "$MD_VENV/bin/pip" install -q "markitdown[docx,pptx,xlsx,xls,outlook]==$MD_VERSION" "lxml==6.0.2"
  fi
}
need_peer() {  # venv
  [ -x "$1/bin/websearch" ] || { echo "websearch-skill not installed in $1 (WITH_MCP=1 $SHARED/peers/install-websearch-skill.sh)" >&2; exit 1; }
}

# The dev-set page of median size (its id), the "real page" of sections 2, 3, 6 and 8.
median_dev_id() {
  local dir="$SHARED/bench/extract/dev/html"
  ls -S "$dir" | sed -n "$(( $(ls "$dir" | wc -l) / 2 ))p" | sed 's/\.html\.gz$//'
}

# The one-shot commands' fixture (sections 2 and 8): bench/fake_engines.py on loopback port
# $1, answering as SearXNG with the real saved response (30 hits) and serving the dev-set
# pages, its request log in $2/requests.log. Sets B (its base URL), DEV_ID and REAL (the
# median page's URL); stopped by stop_started.
start_cli_fixture() {  # port dir
  local port=$1 dir=$2
  B="http://127.0.0.1:$port"
  start_bg "$dir/fixture.out" "$PY" "$BENCH/fake_engines.py" --ports "$port" \
    --fixture "$SHARED/fixtures/serp/searxng/search-python-format-json.json" --results 30 \
    --pages-dir "$SHARED/bench/extract/dev" --log "$dir/requests.log"
  wait_http "$B/healthz"
  DEV_ID=$(median_dev_id)
  REAL="$B/dev/$DEV_ID.html"
}

# Stores the real page in the SQLite store $1 and saves its HTML as $2 (for `read FILE`).
# Sets HANDLE, the stored document's handle (for `open`).
store_real_page() {  # store html_file
  HANDLE=$("${TENV[@]}" "$TRAWL" read "$REAL" --allow-host 127.0.0.1 --store "$1" --json |
    "$PY" -c 'import json,sys; print(json.load(sys.stdin)["data"]["handle"])')
  curl -s "$REAL" > "$2"
}
