#!/usr/bin/env bash
# Section 17: the packaged binary. For each trawl binary given (TRAWLS="label=path ..."):
# its size, its start-up (`trawl --version`, the median of 50 runs), and the time to read
# the first 200 pages of wcxb-dev one process each (`trawl read FILE -q --store :memory:`,
# decompressed beforehand: start-up plus extraction, as a pipeline calling trawl pays it).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
D="$OUT/package"; rm -rf "$D"; mkdir -p "$D/pages"
for f in $(ls "$SHARED/bench/extract/wcxb-dev/html" | head -200); do
  gunzip -c "$SHARED/bench/extract/wcxb-dev/html/$f" > "$D/pages/${f%.gz}"
done
python3 - "$D/pages" ${TRAWLS:?set TRAWLS=\"label=path ...\"} <<'PY'
import os, statistics, subprocess, sys, time
pages = sorted(os.path.join(sys.argv[1], p) for p in os.listdir(sys.argv[1]))
env = dict(os.environ, TRAWL_STORE=":memory:", TRAWL_LOG_QUIET="1")
for spec in sys.argv[2:]:
    label, path = spec.split("=", 1)
    size = os.path.getsize(path)
    starts = []
    for _ in range(50):
        t = time.perf_counter(); subprocess.run([path, "--version"], capture_output=True, check=True)
        starts.append(time.perf_counter() - t)
    t = time.perf_counter()
    for page in pages:
        subprocess.run([path, "read", page, "-q"], capture_output=True, env=env, check=False)
    reads = time.perf_counter() - t
    print(f"| {label} | {size:,} | {size / 2**20:.1f} | {statistics.median(starts) * 1000:.1f} | {reads:.2f} |")
PY
