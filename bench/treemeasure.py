#!/usr/bin/env python3
"""Run a command RUNS times (after one untimed warm-up) and print one JSON line with wall
seconds, CPU seconds and peak RSS (KiB) of the command *and every process it started*
(a browser included), sampled from /proc every 10 ms: peak RSS is the largest sum of VmRSS
over the live process tree; CPU is the sum over every process seen of its last utime+stime
(a process that dies between samples loses at most 10 ms). Processes that left the tree
(reparented) are still followed once seen.

usage: treemeasure.py [--runs N] [--label L] [--expect REGEX] -- CMD...
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")


def stat(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rfind(")") + 2:].split()
    return fields  # [state, ppid, ...]; utime=fields[11], stime=fields[12]


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children_map():
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = stat(name)
            if st:
                out.setdefault(int(st[1]), []).append(int(name))
    return out


def once(cmd, capture=False):
    with tempfile.TemporaryFile() as out:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out if capture else subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        seen = {p.pid}
        cpu = {}
        peak = 0
        while p.poll() is None:
            kids = children_map()
            frontier = [p.pid]
            while frontier:
                q = frontier.pop()
                for c in kids.get(q, []):
                    if c not in seen:
                        seen.add(c)
                    frontier.append(c)
            total = 0
            for pid in list(seen):
                st = stat(pid)
                if st and st[0] != "Z":
                    cpu[pid] = (int(st[11]) + int(st[12])) / TICK
                    total += rss_kib(pid)
            peak = max(peak, total)
            time.sleep(0.01)
        wall = time.monotonic() - t0
        out.seek(0)
        return wall, sum(cpu.values()), peak, p.returncode, out.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--label", default="")
    ap.add_argument("--expect")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    _, _, _, code, out = once(cmd, capture=True)
    if a.expect and not re.search(a.expect.encode(), out):
        sys.exit(f"{a.label}: warm-up output lacks {a.expect!r} (exit {code}): {out[:400]!r}")
    walls, cpus, peaks = [], [], []
    for _ in range(a.runs):
        w, c, r, code, _ = once(cmd)
        walls.append(w); cpus.append(c); peaks.append(r)
    med = statistics.median
    print(json.dumps({"label": a.label, "runs": a.runs, "wall_s": med(walls), "cpu_s": med(cpus),
                      "peak_rss_kib": med(peaks), "all_wall_s": walls}))


if __name__ == "__main__":
    main()
