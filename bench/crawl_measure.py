#!/usr/bin/env python3
"""Run one crawler once and print one JSON line: its wall time, CPU (user + system, from
wait4: the process and every child it waited for), peak RSS (wait4's ru_maxrss: the
largest single process, in KiB), the peak of its anonymous memory (RssAnon of
/proc/PID/status, sampled every 5 ms: the heap and stacks, without the executable's and
libraries' pages that are mapped from their files), and what the server saw (the nginx access log's lines
written during the run, checked against the site's list of pages).

  crawl_measure.py --label L --log ACCESS_LOG --pages PAGES_TXT -- CMD...

The access log's format is `$request_uri $status` (see bench/13-crawl.sh). Counted:
pages fetched (distinct pages of PAGES_TXT requested), pages requested more than once,
pages never requested, other requests (robots.txt, sitemap, static files, unknown URLs)
and answers other than 200.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import threading
import time


def anon_peak(pid: int, stop: threading.Event, peak: list[int]) -> None:
    """Samples RssAnon (KiB) of `pid` until `stop`; the largest in peak[0]."""
    path = f"/proc/{pid}/status"
    while not stop.is_set():
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        peak[0] = max(peak[0], int(line.split()[1]))
                        break
        except OSError:
            return
        time.sleep(0.005)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--pages", required=True)
    ap.add_argument("--stdout", default=os.devnull)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    pages = {line.strip() for line in open(a.pages) if line.strip()}
    offset = os.path.getsize(a.log)
    with open(a.stdout, "wb") as out, tempfile.TemporaryFile() as errf:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=errf, stdin=subprocess.DEVNULL)
        stop, peak = threading.Event(), [0]
        sampler = threading.Thread(target=anon_peak, args=(p.pid, stop, peak), daemon=True)
        sampler.start()
        _, status, ru = os.wait4(p.pid, 0)
        stop.set()
        sampler.join()
        wall = time.monotonic() - t0
        errf.seek(0)
        err = errf.read().decode(errors="replace")
    time.sleep(0.3)  # nginx writes each line as its request ends; let the last ones land
    counts: collections.Counter[str] = collections.Counter()
    statuses: collections.Counter[str] = collections.Counter()
    with open(a.log, "rb") as f:
        f.seek(offset)
        for line in f.read().decode(errors="replace").splitlines():
            uri, _, code = line.rpartition(" ")
            counts[uri] += 1
            statuses[code] += 1
    fetched = sum(1 for u in pages if counts[u] > 0)
    row = {
        "label": a.label,
        "exit": os.waitstatus_to_exitcode(status),
        "wall_s": round(wall, 3),
        "user_s": round(ru.ru_utime, 3),
        "sys_s": round(ru.ru_stime, 3),
        "cpu_s": round(ru.ru_utime + ru.ru_stime, 3),
        "maxrss_kib": ru.ru_maxrss,
        "anon_peak_kib": peak[0],
        "pages_fetched": fetched,
        "pages_repeated": sum(1 for u in pages if counts[u] > 1),
        "pages_missing": len(pages) - fetched,
        "requests": sum(counts.values()),
        "other_requests": sum(n for u, n in counts.items() if u not in pages),
        "non_200": sum(n for c, n in statuses.items() if c != "200"),
        "pages_per_s": round(fetched / wall, 1) if wall > 0 else 0,
        "cpu_ms_per_page": round(1000 * (ru.ru_utime + ru.ru_stime) / fetched, 3) if fetched else None,
    }
    if row["exit"] != 0:
        row["stderr_tail"] = err[-2000:]
    print(json.dumps(row), flush=True)
    print(f"{a.label}: {fetched} pages in {wall:.1f} s ({row['pages_per_s']} pages/s), "
          f"{row['cpu_ms_per_page']} ms CPU a page, peak RSS {ru.ru_maxrss / 1024:.0f} MiB, "
          f"{row['pages_repeated']} fetched twice, exit {row['exit']}", file=sys.stderr)


if __name__ == "__main__":
    main()
