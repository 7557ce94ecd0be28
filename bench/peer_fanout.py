#!/usr/bin/env python3
"""websearch-skill's side of the fan-out benchmark (bench/04-fanout.sh): its library
router with one SearxngAdapter per fake engine, each in its own correlation group, ddgs
off; the same fixtures, query, deadline and run count as
crates/trawl-search/examples/fanout_bench.rs. Run with the peer's Python:

  /tmp/peer-ws/bin/python bench/peer_fanout.py --engine URL ... [--hang URL]
                                              [--timeout-ms 2000] [--runs 20]

The peer's CLI accepts only one SearXNG URL, so several engines need its library (as
../shared/peers/README.md shows). Prints one JSON line shaped like trawl's.
"""
from __future__ import annotations

import argparse
import json
import resource
import time

from websearch.layer1_search import SearchRequest, build_router
from websearch.layer1_search.adapters import SearxngAdapter


def cpu_ms() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return (ru.ru_utime + ru.ru_stime) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", action="append", default=[])
    ap.add_argument("--hang")
    ap.add_argument("--timeout-ms", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--count", type=int, default=10, help="hits asked of each engine")
    a = ap.parse_args()
    adapters = []
    targets = [(f"sx{i + 1}", u) for i, u in enumerate(a.engine)]
    if a.hang:
        targets.append(("hang", a.hang))
    for name, url in targets:
        ad = SearxngAdapter(url, name=name)
        ad.correlation_group = f"independent-{name}"
        adapters.append(ad)
    router = build_router(enable_ddgs=False, extra_adapters=adapters)
    req = SearchRequest(query="python", count=a.count, max_total_results=0,
                        timeout_ms=a.timeout_ms)
    env = router.search(req)  # warm-up
    c0 = cpu_ms()
    walls = []
    for _ in range(a.runs):
        t = time.perf_counter()
        env = router.search(req)
        walls.append((time.perf_counter() - t) * 1000)
    cpu = cpu_ms() - c0
    d = env.model_dump() if hasattr(env, "model_dump") else dict(env)
    data = d.get("data") or {}
    results = data.get("results") or []
    unresponsive = [u.get("engine") if isinstance(u, dict) else str(u)
                    for u in (data.get("unresponsive_engines") or [])]
    print(json.dumps({"impl": "websearch-skill", "runs": a.runs, "timeout_ms": a.timeout_ms,
                      "wall_ms": walls, "cpu_ms_total": cpu, "hits": len(results),
                      "ok": d.get("ok"), "unresponsive": unresponsive}))


if __name__ == "__main__":
    main()
