#!/usr/bin/env python3
"""Run a command RUNS times (after one untimed warm-up) and print one JSON line:
wall seconds, CPU seconds (user+sys) and peak RSS (KiB) of every run, from wait4(2) of
the child, so they include everything the command started and waited for.

usage: measure.py [--runs N] [--label L] [--before 'SHELL'] [--expect TEXT] -- CMD...
  --before  a shell command run (untimed) before each run, e.g. to empty a store
  --expect  fail if stdout of the warm-up run does not match the regex TEXT (guards against
            timing an error message)
"""
from __future__ import annotations

import argparse
import json
import re
import os
import statistics
import subprocess
import sys
import tempfile
import time


def once(cmd, capture=False):
    """Run cmd once; output goes to temporary files (no pipe can fill and block)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out if capture else subprocess.DEVNULL,
                             stderr=err if capture else subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0); err.seek(0)
        return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode, out.read(), err.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--label", default="")
    ap.add_argument("--before")
    ap.add_argument("--expect")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if a.before:
        subprocess.run(a.before, shell=True, check=False)
    _, _, _, code, out, err = once(cmd, capture=True)
    if a.expect and not re.search(a.expect.encode(), out):
        sys.exit(f"{a.label}: warm-up output lacks {a.expect!r} (exit {code}): "
                 f"{out[:300]!r} {err[:300]!r}")
    walls, cpus, rss, codes = [], [], [], []
    for _ in range(a.runs):
        if a.before:
            subprocess.run(a.before, shell=True, check=False)
        w, c, r, code, _, _ = once(cmd)
        walls.append(w); cpus.append(c); rss.append(r); codes.append(code)
    med = statistics.median
    print(json.dumps({"label": a.label, "cmd": cmd, "runs": a.runs, "exit_codes": sorted(set(codes)),
                      "wall_s": walls, "cpu_s": cpus, "maxrss_kib": rss,
                      "wall_med": med(walls), "cpu_med": med(cpus), "rss_med_mib": med(rss) / 1024,
                      "wall_min": min(walls), "wall_max": max(walls)}))


if __name__ == "__main__":
    main()
