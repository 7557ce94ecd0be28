#!/usr/bin/env bash
# Section 11: does a batch read use every core? 20 real saved pages
# (../shared/bench/extract/dev, the 20 largest, decompressed once and served from memory
# on loopback so the fixture costs little CPU) read in one `trawl read URL x20` call, pinned to 2 cores
# (taskset -c 0,1). Reported: the process's CPU time (user + system, from wait4) divided
# by its wall time, median of RUNS runs. One worker doing all extraction would stay near
# 1.0; extraction on the blocking pool (one job per core) should pass 1.3 on 2 cores.
# The ratio also falls when other processes take the cores, so the load average is
# printed with it and a one-core run of the same batch is the baseline.
#   TRAWL_READERS=none trawl read URL x20 --allow-host 127.0.0.1 --store :memory: --json
# (no hosted readers: this measures local fetch + extraction only)
# Env: TRAWL (default the release build), RUNS_CPU (default 5).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_trawl
D="$OUT/batch-cpu"; rm -rf "$D"; mkdir -p "$D"
PORT=$((PORT_BASE + 11))
B="http://127.0.0.1:$PORT"
PAGES="$SHARED/bench/extract/dev"
trap stop_started EXIT
mapfile -t IDS < <(ls -S "$PAGES/html" | head -20 | sed 's/\.html\.gz$//')
# The fixture is a file, not a here-document: a command started in the background by a
# function gets /dev/null as its standard input, so `python3 -` would read no script.
start_bg "$D/fixture.out" "$PY" "$BENCH/static_pages.py" "$PORT" "$PAGES/html" "${IDS[@]}"
wait_http "$B/healthz"
URLS=(); for id in "${IDS[@]}"; do URLS+=("$B/dev/$id.html"); done

# Baseline in the same run: the same batch pinned to one core (its ratio cannot pass 1).
for cpus in 0 0,1; do
"$PY" - "${RUNS_CPU:-5}" "$D/result-cpus-$cpus.json" -- taskset -c "$cpus" "${TENV[@]}" TRAWL_READERS=none "$TRAWL" read "${URLS[@]}" \
  --allow-host 127.0.0.1 --store :memory: --json <<'PYEOF'
import json, os, statistics, subprocess, sys, time
runs, out = int(sys.argv[1]), sys.argv[2]
cmd = sys.argv[4:]
rows = []
for _ in range(runs):
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    cpu = ru.ru_utime + ru.ru_stime
    rows.append({"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "ratio": round(cpu / wall, 2),
                 "exit": os.waitstatus_to_exitcode(status)})
med = statistics.median(r["ratio"] for r in rows)
json.dump({"runs": rows, "median_cpu_over_wall": med, "cores": os.cpu_count()}, open(out, "w"), indent=1)
print(f"{cmd[2]}: CPU/wall median {med:.2f} over {runs} runs: " + ", ".join(f"{r['cpu_s']}/{r['wall_s']}" for r in rows))
PYEOF
done
LOAD_END=$(loadavg)

"$PY" - "$D" "$(machine_line)" "$LOAD_END" "${RUNS_CPU:-5}" > "$OUT/section-11.md" <<'PYEOF'
import json, sys
d, machine, load_end, runs = sys.argv[1:5]
one = json.load(open(f"{d}/result-cpus-0.json"))
two = json.load(open(f"{d}/result-cpus-0,1.json"))
print(machine.replace("; load average", "; load average at start") + f" Load average at end: {load_end}.\n")
print(f"20 real pages (the 20 largest of the dev set, served from memory on loopback) in one `trawl read` call; median of {runs} runs; CPU = user + system of the trawl process (wait4).\n")
print("| cores (taskset) | CPU ÷ wall (median) | runs: CPU s / wall s | failed runs |")
print("|---|---|---|---|")
for label, r in (("1 (baseline)", one), ("2", two)):
    runs_txt = ", ".join(f"{x['cpu_s']}/{x['wall_s']}" for x in r["runs"])
    bad = sum(1 for x in r["runs"] if x["exit"] != 0)
    print(f"| {label} | {r['median_cpu_over_wall']:.2f} | {runs_txt} | {bad} |")
print("\nCommand: `bench/11-batch-cpu.sh` → `taskset -c 0,1 env TRAWL_READERS=none trawl read URL1 … URL20 --allow-host 127.0.0.1 --store :memory: --json` (and `taskset -c 0` for the baseline).")
PYEOF
cat "$OUT/section-11.md"
