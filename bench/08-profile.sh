#!/usr/bin/env bash
# Section 8: where a short command's time goes. For each one-shot CLI command and for the
# MCP server's start (spawn -> initialize -> tools/list, stdin then closed): median CPU of
# RUNS runs (measure.py, wait4), that CPU as a multiple of `trawl --help`, and a syscall
# profile of one run under strace -f: system calls in all, files opened under
# /etc/ssl (TLS roots read from disk), fsync/fdatasync calls, and files opened read-write
# (SQLite opens a store and its WAL read-write even to read it).
#
#   bench/08-profile.sh        # writes $OUT/profile/*.txt and $OUT/section-8.md
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl
command -v strace >/dev/null || { echo "strace missing (apt-get install strace)" >&2; exit 1; }
D="$OUT/profile"; rm -rf "$D"; mkdir -p "$D"
PORT=$((PORT_BASE + 8))
trap stop_started EXIT
start_cli_fixture "$PORT" "$D"
machine_line > "$D/machine.txt"
STORE="$D/trawl.db"
store_real_page "$STORE" "$D/real.html"
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
printf '%s\n' "$INIT" > "$D/mcp-input.jsonl"

# label | command (run through "${TENV[@]}")
ROWS=(
  "help|$TRAWL --help"
  "open|$TRAWL open $HANDLE --store $STORE --json"
  "read_file|$TRAWL read $D/real.html --store :memory: --json"
  "read_stored|$TRAWL read $REAL --allow-host 127.0.0.1 --store $STORE --json"
  "read_url|$TRAWL read $REAL --allow-host 127.0.0.1 --store :memory: --json"
  "search|env TRAWL_SEARXNG_URL=$B $TRAWL search python --engines searxng --store :memory: --json"
  "cache_stats|$TRAWL cache stats --store $STORE --json"
  "mcp_start|sh -c 'exec $TRAWL mcp --store $STORE < $D/mcp-input.jsonl'"
)
: > "$D/rows.txt"
for row in "${ROWS[@]}"; do
  label=${row%%|*}; cmd=${row#*|}
  # shellcheck disable=SC2086
  eval "set -- $cmd"
  "$PY" "$BENCH/measure.py" --runs "$RUNS" --label "$label" -- "${TENV[@]}" "$@" > "$D/$label.json"
  "${TENV[@]}" strace -f -c -o "$D/$label.count.txt" "$@" > /dev/null 2>&1 || true
  "${TENV[@]}" strace -f -e trace=openat,fsync,fdatasync -o "$D/$label.files.txt" "$@" > /dev/null 2>&1 || true
  calls=$(awk '/ total$/ {print $4}' "$D/$label.count.txt")
  certs=$(grep -c '/etc/ssl' "$D/$label.files.txt" || true)
  syncs=$(grep -cE 'fsync|fdatasync' "$D/$label.files.txt" || true)
  writes=$( (grep 'openat' "$D/$label.files.txt" | grep -E 'O_WRONLY|O_RDWR' | grep -v ENOENT | grep -vE '/dev/(null|tty)' || true) | wc -l)
  cpu=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["cpu_med"])' "$D/$label.json")
  echo "$label|$cpu|$calls|$certs|$syncs|$writes|$cmd" >> "$D/rows.txt"
done

"$PY" - "$D/rows.txt" "$D/machine.txt" "$RUNS" > "$OUT/section-8.md" <<'PYR'
import sys
rows = [l.rstrip("\n").split("|", 6) for l in open(sys.argv[1]) if l.strip()]
machine = open(sys.argv[2]).read().strip()
help_cpu = float(next(r for r in rows if r[0] == "help")[1])
print(machine + "\n")
print(f"CPU: median of {sys.argv[3]} runs (user+sys from wait4, after one warm-up). Syscall columns: one run under `strace -f`.\n")
print("| command | CPU ms | × `trawl --help` | system calls | opens under /etc/ssl | fsync/fdatasync | files opened read-write |")
print("|---|---|---|---|---|---|---|")
for label, cpu, calls, certs, syncs, writes, cmd in rows:
    c = float(cpu)
    print(f"| `{label}` | {c*1000:.1f} | {c/help_cpu:.1f}× | {calls} | {certs} | {syncs} | {writes} |")
print("\nCommands (paths shortened):\n")
for label, *_, cmd in rows:
    print(f"- `{label}`: `{cmd}`")
PYR
cat "$OUT/section-8.md"
