#!/usr/bin/env python3
"""Domain-disjoint folds of wcxb-dev, for judging an extraction rule on pages it was not
written from (issue 24).

Every page goes to fold sha1(registrable domain) % 5, so all pages of one site share a fold
and the split never changes between runs. A rule written while looking at fold k is judged on
the other four: `--written-from k` marks that fold tuned-on in the table.

usage:
  extract_folds.py folds GROUND_TRUTH                 # print id -> fold (tab separated)
  extract_folds.py report GROUND_TRUTH TRAWL_SCORE_JSON TRAF_SCORE_JSON
                   [--written-from K[,K...]|all|none] [--json OUT]
"""
import argparse
import hashlib
import json
import sys
from collections import defaultdict
from urllib.parse import urlsplit

FOLDS = 5

# Second-level suffixes under which a site's registrable domain has three labels. A short
# hand list, not the Public Suffix List: the bench runs with the system Python and no
# packages, and a miss only merges two sites of one country into one fold.
SECOND_LEVEL = {
    "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "nhs.uk",
    "com.au", "net.au", "org.au", "edu.au", "gov.au", "co.nz", "org.nz", "govt.nz",
    "co.jp", "ne.jp", "or.jp", "ac.jp", "co.in", "org.in", "gov.in", "ac.in", "net.in",
    "com.br", "org.br", "gov.br", "com.cn", "org.cn", "gov.cn", "edu.cn", "net.cn",
    "co.za", "org.za", "com.mx", "org.mx", "com.ar", "com.tr", "org.tr", "com.sg", "edu.sg",
    "com.hk", "com.tw", "org.tw", "co.kr", "or.kr", "com.my", "com.ph", "com.pk", "com.ng",
    "co.il", "org.il", "com.ua", "com.pl", "co.id", "or.id", "com.vn", "com.eg", "com.sa",
    "co.th", "in.th", "com.co", "com.pe", "com.ec", "co.ke", "github.io", "blogspot.com",
}


def registrable_domain(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    labels = host.split(".")
    if len(labels) >= 3 and ".".join(labels[-2:]) in SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def fold_of(url: str) -> int:
    digest = hashlib.sha1(registrable_domain(url).encode()).digest()
    return int.from_bytes(digest[:8], "big") % FOLDS


def corpus_f1(pages):
    """The benchmark's corpus F1: harmonic mean of mean precision and mean recall."""
    prec = [p["precision"] for p in pages if p["tp"] + p["fp"] > 0]
    rec = [p["recall"] for p in pages if p["tp"] + p["fn"] > 0]
    pm = sum(prec) / len(prec) if prec else 0.0
    rm = sum(rec) / len(rec) if rec else 0.0
    return 2 * pm * rm / (pm + rm) if pm + rm else 0.0


def load_scores(path):
    return {p["id"]: p for p in json.load(open(path))["pages"]}


def report(args) -> int:
    truth = json.load(open(args.ground_truth))
    trawl, traf = load_scores(args.trawl), load_scores(args.trafilatura)
    # `all`: every fold was looked at (the rules written before the protocol existed).
    if args.written_from == "all":
        written = set(range(FOLDS))
    elif args.written_from == "none":
        written = set()
    else:
        written = {int(k) for k in args.written_from.split(",") if k != ""}
    fold = {i: fold_of(e.get("url", "")) for i, e in truth.items()}
    ids = [i for i in truth if i in trawl and i in traf]
    types = sorted({truth[i].get("page_type", "?") for i in ids})
    label = lambda k: "tuned-on" if k in written else "held-out"
    doms = defaultdict(set)
    for i in ids:
        doms[fold[i]].add(registrable_domain(truth[i].get("url", "")))

    def cell(sel):
        a, b = corpus_f1([trawl[i] for i in sel]), corpus_f1([traf[i] for i in sel])
        return a, b

    out = {"folds": {}, "types": {}}
    print(f"\n### wcxb-dev by domain: {FOLDS} folds (fold = sha1(registrable domain) % {FOLDS})\n")
    print("| fold | label | pages | domains | trawl | trafilatura | Δ | "
          + " | ".join(f"{t} (trawl/traf)" for t in types) + " |")
    print("|---|---|---|---|---|---|---|" + "---|" * len(types))
    for k in range(FOLDS):
        sel = [i for i in ids if fold[i] == k]
        a, b = cell(sel)
        per = []
        for t in types:
            st = [i for i in sel if truth[i].get("page_type") == t]
            x, y = cell(st) if st else (0.0, 0.0)
            per.append(f"{x:.3f}/{y:.3f} ({len(st)})")
        out["folds"][k] = {"label": label(k), "pages": len(sel), "trawl": a, "trafilatura": b}
        print(f"| {k} | {label(k)} | {len(sel)} | {len(doms[k])} | {a:.3f} | {b:.3f} | {a - b:+.3f} | "
              + " | ".join(per) + " |")
    held = [i for i in ids if fold[i] not in written]
    for name, sel in (("all folds", ids), ("held-out folds", held)):
        if name == "held-out folds" and (not written or not sel):
            continue
        a, b = cell(sel)
        print(f"| {name} | | {len(sel)} | | {a:.3f} | {b:.3f} | {a - b:+.3f} | "
              + " | ".join("" for _ in types) + " |")
    if not held:
        print("\nevery fold is tuned-on (--written-from all): nothing is held out")
        if args.json:
            json.dump(out, open(args.json, "w"), indent=1)
        return 0
    print("\n| page type (summed over held-out folds) | pages | trawl | trafilatura | Δ |")
    print("|---|---|---|---|---|")
    for t in types:
        st = [i for i in held if truth[i].get("page_type") == t]
        a, b = cell(st)
        out["types"][t] = {"pages": len(st), "trawl": a, "trafilatura": b}
        print(f"| {t} | {len(st)} | {a:.3f} | {b:.3f} | {a - b:+.3f} |")
    a, b = cell(held)
    wins = sum(1 for k in range(FOLDS) if k not in written and out["folds"][k]["trawl"] >= out["folds"][k]["trafilatura"])
    nheld = FOLDS - len(written)
    tw = sum(1 for t in types if out["types"][t]["trawl"] >= out["types"][t]["trafilatura"])
    # Issue 24's "overall >= trafilatura + 0.04 (it is + 0.032)" is the whole set's figure:
    # +0.032 was WCXB dev's overall when the issue was filed (BENCHMARKS.md §1b). The
    # held-out folds' overall is printed beside it; every absolute figure is tuned-on, since
    # the rules before the protocol were written from every fold.
    whole_a, whole_b = cell(ids)
    print(f"\ntargets: on the held-out folds trawl >= trafilatura in {wins}/{nheld} folds and "
          f"in {tw}/{len(types)} page types; overall (all folds) {whole_a - whole_b:+.4f} "
          f"(target +0.040); the held-out folds' overall {a - b:+.4f}")
    if args.json:
        json.dump(out, open(args.json, "w"), indent=1)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("folds")
    f.add_argument("ground_truth")
    r = sub.add_parser("report")
    r.add_argument("ground_truth")
    r.add_argument("trawl")
    r.add_argument("trafilatura")
    r.add_argument("--written-from", default="all")
    r.add_argument("--json")
    args = ap.parse_args()
    if args.cmd == "folds":
        for i, e in sorted(json.load(open(args.ground_truth)).items()):
            print(f"{i}\t{fold_of(e.get('url', ''))}\t{registrable_domain(e.get('url', ''))}")
        return 0
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
