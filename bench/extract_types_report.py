#!/usr/bin/env python3
"""Report for bench/extract-types.sh: one set, trawl vs trafilatura, per page type.

usage: extract_types_report.py SET GROUND_TRUTH TRAWL_DIR TRAWL_OUT PY_DIR
"""
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path


def load(path):
    return {p["id"]: p for p in json.load(open(path))["pages"]}


def corpus_f1(pages):
    prec = [p["precision"] for p in pages if p["tp"] + p["fp"] > 0]
    rec = [p["recall"] for p in pages if p["tp"] + p["fn"] > 0]
    pm = sum(prec) / len(prec) if prec else 0.0
    rm = sum(rec) / len(rec) if rec else 0.0
    return (2 * pm * rm / (pm + rm) if pm + rm else 0.0), pm, rm


def main() -> int:
    name, truth_path, trawl_dir, trawl_out, py = sys.argv[1:6]
    truth = json.load(open(truth_path))
    systems = {"trawl": load(f"{trawl_dir}.score.json")}
    for s in ("trafilatura", "trafilatura_md"):
        try:
            systems[s] = load(f"{py}/{s}.types.score.json")
        except OSError:
            pass
    speed = {"trawl": float(re.search(r"pages_per_s=([\d.]+)", open(trawl_out).read()).group(1))}
    for s in ("trafilatura", "trafilatura_md"):
        try:
            speed[s] = float(json.load(open(f"{py}/{s}.timing.json"))["pages_per_s"])
        except OSError:
            pass
    print(f"\n## {name} ({len(truth)} pages; tuned on)\n")
    print("| system | F1 | precision | recall | pages/s per core | speed vs trafilatura |")
    print("|---|---|---|---|---|---|")
    base = speed.get("trafilatura")
    for s, pages in systems.items():
        f1, p, r = corpus_f1(list(pages.values()))
        ratio = f"{speed[s] / base:.0f}x" if base and s in speed else "-"
        print(f"| {s} | {f1:.3f} | {p:.3f} | {r:.3f} | {speed.get(s, 0):.0f} | {ratio} |")
    types = sorted({e.get("page_type") for e in truth.values() if e.get("page_type")})
    if types:
        print("\n| page type | pages | " + " | ".join(systems) + " |")
        print("|---|---|" + "---|" * len(systems))
        for t in types:
            ids = [i for i, e in truth.items() if e.get("page_type") == t]
            cells = [f"{corpus_f1([systems[s][i] for i in ids if i in systems[s]])[0]:.3f}"
                     for s in systems]
            print(f"| {t} | {len(ids)} | " + " | ".join(cells) + " |")
        print()
        types_json = f"{trawl_dir}.page_types.json"
        out = subprocess.run([sys.executable, str(Path(__file__).with_name("page_types.py")),
                              types_json, truth_path], capture_output=True, text=True).stdout
        print("```\n" + out.rstrip() + "\n```")
    ref = systems.get("trafilatura")
    if ref:
        bad = [(i, systems["trawl"][i]["f1"], ref[i]["f1"]) for i in ref
               if i in systems["trawl"] and systems["trawl"][i]["f1"] < 0.2 and ref[i]["f1"] > 0.8]
        print(f"\ncatastrophes (trawl < 0.2 while trafilatura > 0.8): {len(bad)}")
        for i, a, b in sorted(bad):
            e = truth[i]
            print(f"- {i} {e.get('page_type', '')} trawl {a:.2f} trafilatura {b:.2f} {e.get('url', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
