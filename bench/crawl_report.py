#!/usr/bin/env python3
"""Section 13's Markdown from the raw results of bench/13-crawl.sh.

  crawl_report.py DIR    # DIR/results.jsonl, DIR/machine.txt -> stdout

Medians over the rounds; ratios as everywhere in BENCHMARKS.md: trawl ÷ peer for rates,
peer ÷ trawl for costs, so above 1 means trawl does better. Per-round ratios show the noise
of a shared machine (each round runs the four crawlers back to back).
"""
from __future__ import annotations

import json
import statistics
import sys

NAMES = {
    "trawl": "`trawl crawl` (fetch + extract + store)",
    "scrapy-links": "Scrapy, links only",
    "scrapy-traf": "Scrapy + trafilatura",
    "wget": "`wget -r` (fetch only, one connection)",
}
TARGETS = [  # (what, peer, key, how, target)
    ("pages/s: trawl ÷ Scrapy + trafilatura", "scrapy-traf", "pages_per_s", "rate", 10),
    ("pages/s: trawl ÷ Scrapy links-only", "scrapy-links", "pages_per_s", "rate", 3),
    ("CPU per page: Scrapy + trafilatura ÷ trawl", "scrapy-traf", "cpu_ms_per_page", "cost", 5),
    ("peak RSS: Scrapy links-only ÷ trawl", "scrapy-links", "maxrss_kib", "cost", 2),
    ("peak RSS: Scrapy + trafilatura ÷ trawl", "scrapy-traf", "maxrss_kib", "cost", 2),
]


def ratio(trawl: float, peer: float, how: str) -> float:
    return trawl / peer if how == "rate" else peer / trawl


def main() -> None:
    d = sys.argv[1]
    rows = [json.loads(line) for line in open(f"{d}/results.jsonl") if line.startswith("{")]
    by: dict[str, list[dict]] = {}
    for r in rows:
        by.setdefault(r["label"], []).append(r)
    med = {k: {f: statistics.median(r[f] or 0 for r in v) for f in ("pages_per_s", "cpu_ms_per_page", "maxrss_kib", "wall_s")}
           for k, v in by.items()}
    print(open(f"{d}/machine.txt").read().strip().replace("\n", "  \n"))
    print()
    print("| crawler | pages/s (median; each run) | CPU ms a page | peak RSS MiB | pages fetched / twice / never | other requests | failed runs | trawl's pages/s ÷ this |")
    print("|---|---|---|---|---|---|---|---|")
    for k in NAMES:
        if k not in by:
            continue
        runs = by[k]
        m = med[k]
        each = ", ".join(f"{r['pages_per_s']:.0f}" for r in runs)
        counts = " ; ".join(f"{r['pages_fetched']} / {r['pages_repeated']} / {r['pages_missing']}" for r in runs)
        other = ", ".join(str(r["other_requests"]) for r in runs)
        bad = sum(1 for r in runs if r["exit"] != 0)
        rel = "—" if k == "trawl" else f"{med['trawl']['pages_per_s'] / m['pages_per_s']:.2f}×"
        print(f"| {NAMES[k]} | {m['pages_per_s']:.0f} ({each}) | {m['cpu_ms_per_page']:.2f} | {m['maxrss_kib'] / 1024:.0f} "
              f"| {counts} | {other} | {bad} | {rel} |")
    print()
    print("| target (issue 22) | needed | measured (median) | each round | met |")
    print("|---|---|---|---|---|")
    for what, peer, key, how, target in TARGETS:
        if peer not in by or "trawl" not in by:
            continue
        r = ratio(med["trawl"][key], med[peer][key], how)
        rounds = ", ".join(f"{ratio(t[key], p[key], how):.1f}×" for t, p in zip(by["trawl"], by[peer]))
        print(f"| {what} | ≥ {target}× | {r:.1f}× | {rounds} | {'yes' if r >= target else '**no**'} |")
    small, big = by.get("frontier-1000"), by.get("frontier-100000")
    if small and big:
        s, b = small[-1], big[-1]
        grow = (b["maxrss_kib"] - s["maxrss_kib"]) * 1024 / 99_000
        print()
        print("Frontier: `trawl crawl --limit 101 --no-sitemap` of a start page and 100 hubs whose links "
              "name 1,000 or 100,000 distinct URLs (left waiting when the limit is reached).")
        print()
        print("| URLs found | pages fetched | wall s | peak RSS MiB |")
        print("|---|---|---|---|")
        for label, r in (("1,000", s), ("100,000", b)):
            print(f"| {label} | {r['pages_fetched']} | {r['wall_s']:.2f} | {r['maxrss_kib'] / 1024:.0f} |")
        print()
        print(f"Peak RSS grows by {(b['maxrss_kib'] - s['maxrss_kib']) / 1024:.0f} MiB for 99,000 more URLs waiting "
              f"(about {grow:.0f} bytes a URL).")
    print()
    print("Command: `bench/13-crawl.sh` → `trawl crawl http://127.0.0.2:18812/ --limit 5000 --concurrency 16 "
          "--allow-host 127.0.0.2 --store FILE --json`; `python bench/scrapy_crawl.py URL links|trafilatura OUT`; "
          "`wget -r -l inf -nv URL`. Raw results in `$OUT/crawl/`.")


if __name__ == "__main__":
    main()
