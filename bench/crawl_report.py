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
    "trawl-polite": "`trawl crawl`, polite default (2 requests a host)",
    "scrapy-links": "Scrapy, links only",
    "scrapy-traf": "Scrapy + trafilatura",
    "wget": "`wget -r` (fetch only, one connection)",
}
TARGETS = [  # (what, peer, key, how, target[, trawl's label])
    ("pages/s: trawl ÷ Scrapy + trafilatura", "scrapy-traf", "pages_per_s", "rate", 10),
    ("pages/s: trawl polite ÷ Scrapy + trafilatura (issue 47)", "scrapy-traf", "pages_per_s", "rate", 6, "trawl-polite"),
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
    for what, peer, key, how, target, *mine in TARGETS:
        ours = mine[0] if mine else "trawl"
        if peer not in by or ours not in by:
            continue
        r = ratio(med[ours][key], med[peer][key], how)
        rounds = ", ".join(f"{ratio(t[key], p[key], how):.1f}×" for t, p in zip(by[ours], by[peer]))
        print(f"| {what} | ≥ {target}× | {r:.1f}× | {rounds} | {'yes' if r >= target else '**no**'} |")
    if "trawl" in by:
        cpu = med["trawl"]["cpu_ms_per_page"]
        each = ", ".join(f"{r['cpu_ms_per_page']:.2f}" for r in by["trawl"])
        print(f"| CPU ms a page, trawl --concurrency 16 (issue 47) | ≤ 1.2 | {cpu:.2f} | {each} | {'yes' if cpu <= 1.2 else '**no**'} |")
    try:
        stores = [json.loads(line) for line in open(f"{d}/store.jsonl") if line.strip()]
    except FileNotFoundError:
        stores = []
    if stores:
        ratios = [s["store_bytes"] / s["html_bytes"] for s in stores]
        r = statistics.median(ratios)
        each = ", ".join(f"{x:.2f}× ({s['store_bytes'] / 1e6:.1f} MB / {s['html_bytes'] / 1e6:.1f} MB)" for x, s in zip(ratios, stores))
        print(f"| store after the crawl ÷ HTML read (issue 47) | ≤ 0.6× | {r:.2f}× | {each} | {'yes' if r <= 0.6 else '**no**'} |")
    sites = [(int(k.split("-")[1]), v) for k, v in sorted(by.items()) if k.startswith("frontier-")]
    scrapy_sites = {int(k.split("-")[2]): v for k, v in by.items() if k.startswith("scrapy-frontier-")}
    if len(sites) >= 2:
        def median(xs):
            xs = sorted(xs)
            return xs[len(xs) // 2]

        def rss_of(rs):
            return median(r["maxrss_kib"] for r in rs)

        def anon_of(rs):  # absent from results recorded before it was measured
            return median(r.get("anon_peak_kib", 0) for r in rs)

        print()
        print("Frontier: `trawl crawl --limit 1001 --no-sitemap` of three sites of the same 1,001 pages "
              "(a start page and 1,000 hubs of 100 links each, the same length byte for byte), whose links "
              "name 1,000, 10,000 or 100,000 URLs in all (left waiting when the limit is reached); "
              "the sites alternate, each run on a fresh store.")
        print()
        peer = len(scrapy_sites) == len(sites)
        peer_head = " Scrapy links-only, breadth-first, closed after 1,001 pages: peak RSS MiB (each run) | ÷ its 1,000-URL site |" if peer else ""
        print("| URLs found | pages fetched (each run) | wall s (median) | peak RSS MiB (median; each run) | ÷ the 1,000-URL site | peak anonymous MiB (median; each run) | ÷ the 1,000-URL site |" + peer_head)
        print("|---|---|---|---|---|---|---|" + ("---|---|" if peer else ""))
        peer_base = rss_of(scrapy_sites[sites[0][0]]) if peer else 1
        base = rss_of(sites[0][1])
        anon_base = anon_of(sites[0][1]) or 1
        for n, rs in sites:
            fetched = ", ".join(str(r["pages_fetched"]) for r in rs)
            wall = median(r["wall_s"] for r in rs)
            rss = rss_of(rs)
            each = ", ".join(f"{r['maxrss_kib'] / 1024:.1f}" for r in rs)
            anon = anon_of(rs)
            anon_each = ", ".join(f"{r.get('anon_peak_kib', 0) / 1024:.1f}" for r in rs)
            peer_cells = ""
            if peer:
                ps = scrapy_sites[n]
                p_rss = rss_of(ps)
                p_each = ", ".join(f"{r['maxrss_kib'] / 1024:.0f}" for r in ps)
                peer_cells = f" {p_rss / 1024:.0f} ({p_each}) | {p_rss / peer_base:.2f} |"
            print(f"| {n:,} | {fetched} | {wall:.2f} | {rss / 1024:.1f} ({each}) | {rss / base:.2f} "
                  f"| {anon / 1024:.1f} ({anon_each}) | {anon / anon_base:.2f} |" + peer_cells)
        (n0, r0), (n1, r1) = sites[0], sites[-1]
        grow = rss_of(r1) - rss_of(r0)
        anon_grow = anon_of(r1) - anon_of(r0)
        print()
        print(f"With {n1 - n0:,} more URLs waiting: peak RSS {grow / 1024:+.1f} MiB "
              f"({grow * 1024 / (n1 - n0):.0f} bytes a URL), peak anonymous memory {anon_grow / 1024:+.1f} MiB "
              f"({anon_grow * 1024 / (n1 - n0):.0f} bytes a URL). Peak RSS also counts the pages of the "
              "executable mapped from its file, which vary by a few MiB from run to run whatever the frontier.")
        if len(sites) >= 3:
            # Beyond the in-memory frontier's cap (4,096-8,192 URLs, crawl's frontier.rs) every
            # further URL waits in the store only: this is the growth the cap does not bound.
            (n_mid, r_mid) = sites[-2]
            mid_grow = rss_of(r1) - rss_of(r_mid)
            mid_anon = anon_of(r1) - anon_of(r_mid)
            print(f"From {n_mid:,} to {n1:,} URLs (past the in-memory frontier's cap of 4,096-8,192 URLs): "
                  f"peak RSS {mid_grow / 1024:+.1f} MiB ({mid_grow * 1024 / (n1 - n_mid):.0f} bytes a URL), "
                  f"peak anonymous {mid_anon / 1024:+.1f} MiB ({mid_anon * 1024 / (n1 - n_mid):.0f} bytes a URL).")
        if peer:
            p_grow = rss_of(scrapy_sites[n1]) - peer_base
            print(f"Scrapy with the same {n1 - n0:,} more URLs in its scheduler: peak RSS {p_grow / 1024:+.0f} MiB "
                  f"({p_grow * 1024 / (n1 - n0):,.0f} bytes a URL).")
    print()
    print("Command: `bench/13-crawl.sh` → `trawl crawl http://127.0.0.2:18812/ --limit 5000 --concurrency 16 "
          "--allow-host 127.0.0.2 --store FILE --json`; `python bench/scrapy_crawl.py URL links|trafilatura OUT`; "
          "`wget -r -l inf -nv URL`; the frontier rows `trawl crawl URL --limit 1001 --no-sitemap --concurrency 16 "
          "--allow-host 127.0.0.2 --store FRESH --json` and `python bench/scrapy_crawl.py URL links OUT 1001`. "
          "Raw results in `$OUT/crawl/`.")


if __name__ == "__main__":
    main()
