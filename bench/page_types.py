#!/usr/bin/env python3
"""Confusion table of trawl's page_type against a corpus's labels.

usage: page_types.py PAGE_TYPES.json GROUND_TRUTH.json [--label LABEL] [--json OUT.json]

trawl's types map onto the corpus's seven labels as below (homepage = a landing page,
profile and video pages are counted as articles); agreement is the share of labelled pages
whose mapped type equals the label. --label gives every page of an unlabelled corpus one label
(the scrapinghub dev set: all news articles). Agreement is also printed on each half of the
corpus, split by the parity of the page id's last digit, so that a rule tuned on one half can
be checked on the other.
"""
import json
import sys
from collections import Counter

TO_LABEL = {
    "article": "article", "video": "article", "profile": "article", "text": "article",
    "pdf": "article", "other": "article",
    "service": "service", "homepage": "service",
    "forum": "forum", "listing": "listing", "collection": "collection",
    "product": "product", "documentation": "documentation",
}
LABELS = ["article", "service", "forum", "listing", "product", "collection", "documentation"]


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    predicted = json.load(open(sys.argv[1]))
    truth = json.load(open(sys.argv[2]))
    default = sys.argv[sys.argv.index("--label") + 1] if "--label" in sys.argv else None
    cells = Counter()
    n = agree = 0
    halves = {0: [0, 0], 1: [0, 0]}
    for pid, entry in truth.items():
        label = entry.get("page_type", default)
        if label is None:
            continue
        got = TO_LABEL.get(predicted.get(pid, "other"), "article")
        cells[(label, got)] += 1
        n += 1
        agree += got == label
        half = halves[int(pid[-1], 16) % 2]
        half[0] += got == label
        half[1] += 1
    width = max(len(l) for l in LABELS)
    print("label \\ trawl".ljust(width + 2) + " ".join(l[:7].rjust(7) for l in LABELS) + "   recall")
    for label in LABELS:
        row = [cells[(label, g)] for g in LABELS]
        total = sum(row)
        if total == 0:
            continue
        print(label.ljust(width + 2) + " ".join(str(c).rjust(7) for c in row)
              + f"   {cells[(label, label)] / total:.2f}")
    share = agree / n if n else 0.0
    print(f"page_type agreement={share:.3f} ({agree}/{n})", " ".join(
        f"{name}={a / m:.3f} ({a}/{m})" for name, (a, m) in
        (("even_ids", halves[0]), ("odd_ids", halves[1])) if m))
    if "--json" in sys.argv:
        out = sys.argv[sys.argv.index("--json") + 1]
        json.dump({"agreement": share, "pages": n,
                   "cells": {f"{a}->{b}": c for (a, b), c in cells.items()}}, open(out, "w"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
