#!/usr/bin/env python3
"""Render one benchmark section from the raw results in $OUT, or splice the rendered
sections into BENCHMARKS.md.

  report.py N                     print section N (Markdown) from $OUT/...
  report.py splice BENCHMARKS.md  replace every `<!-- bench:N -->` ... `<!-- /bench:N -->`
                                  block with $OUT/section-N.md (blocks with no file stay)

Ratios are always "peer ÷ trawl" for costs (time, CPU, memory) and "trawl ÷ peer" for
rates (pages/s, requests/s), so a ratio above 1 means trawl does better. Rows where trawl
does worse are marked **(trawl loses)**.
"""
from __future__ import annotations

import json
import os
import re
import statistics
import sys

OUT = os.environ.get("OUT", "/tmp/trawl-bench")


def read(path, default=""):
    try:
        with open(os.path.join(OUT, path)) as fh:
            return fh.read().strip()
    except OSError:
        return default


def jsonl(path):
    rows = []
    for line in read(path).splitlines():
        line = line.strip()
        if line.startswith("{"):
            rows.append(json.loads(line))
    return rows


def load(path):
    text = read(path)
    return json.loads(text) if text else None


def ratio(peer, trawl, cost=True):
    """peer/trawl for costs, trawl/peer for rates; '' when either is missing."""
    if peer is None or trawl is None:
        return "n/a", False
    if cost:
        if trawl <= 0:
            return "n/a", False
        r = peer / trawl
    else:
        if peer <= 0:
            return "n/a", False
        r = trawl / peer
    s = f"{r:.1f}×" if r >= 1.95 else f"{r:.2f}×"
    return (s + " **(trawl loses)**" if r < 1 else s), r < 1


def ms(x):
    return "n/a" if x is None else (f"{x * 1000:.0f}" if x >= 0.1 else f"{x * 1000:.1f}")


def mib(kib):
    return "n/a" if kib is None else f"{kib / 1024:.1f}"


def header(sub):
    m = read(f"{sub}/machine.txt")
    return m + "\n" if m else ""


# ---------------------------------------------------------------- 1 extraction

def section1():
    d = load("extract/summary.json")
    if not d:
        return "(section 1 has not been run)\n"
    lines = [header("extract"), d.get("baseline_note", ""), "",
             "| system | F1 | precision | recall | pages/s per core | trawl speed ratio (trawl ÷ system) | F1 difference (trawl − system) |",
             "|---|---|---|---|---|---|---|"]
    t = d["systems"]["trawl"]
    for name, s in d["systems"].items():
        if name == "trawl":
            sr, fr = "—", "—"
        else:
            sr, _ = ratio(s["pages_per_s"], t["pages_per_s"], cost=False)
            diff = t["f1"] - s["f1"]
            fr = f"{diff:+.3f}" + (" **(trawl loses)**" if diff < 0 else "")
        lines.append(f"| {name} | {s['f1']:.3f} | {s['precision']:.3f} | {s['recall']:.3f} | "
                     f"{s['pages_per_s']:.1f} | {sr} | {fr} |")
    vers = "; ".join(f"{k}: " + ", ".join(f"{a} {b}" for a, b in (v.get("versions") or {}).items())
                     for k, v in d["systems"].items() if v.get("versions"))
    lines += ["", "pages/s = pages ÷ CPU seconds spent in the extraction calls on in-memory decoded HTML "
              "(no process start, imports, gunzip or writes), one process pinned to core 0 with taskset, "
              "fastest of 3 passes, for every system. F1/precision/recall: `score.py` (4-token shingles, "
              "upstream scrapinghub metric). trafilatura = default settings (plain text); trafilatura_md = Markdown output, like trawl's; trafilatura_fast = `fast=True`; "
              "readability_htmltext = readability-lxml then html-text; resiliparse_main = resiliparse "
              "`extract_plain_text(main_content=True)`.", "",
              "Commands: `bench/01-extract.sh` → `bench/extract.sh ../shared/bench/extract/dev OUT/trawl` + "
              "`score.py`, and `../shared/bench/extract/run_python_baselines.sh ../shared/bench/extract/dev OUT/py "
              "trafilatura trafilatura_md trafilatura_fast readability_htmltext resiliparse_main`.", "",
              f"Versions: {vers}."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- 2 one-shot CLI

CLI_ROWS = [
    ("help", "`--help`", "`trawl --help`", "`websearch --help`"),
    ("read_small", "read a small article (3 KB), no store",
     "`trawl read URL --allow-host 127.0.0.1 --store :memory: --json`",
     "`websearch fetch URL --allow-private-hosts --json`"),
    ("read_real", "read a real page (dev set, median size), no store",
     "`trawl read URL --allow-host 127.0.0.1 --store :memory: --json`",
     "`websearch fetch URL --allow-private-hosts --json`"),
    ("read_store", "read the real page and store it",
     "`trawl read URL --allow-host 127.0.0.1 --store FILE --fresh --json`",
     "`websearch web-fetch URL --allow-private-hosts --json` (writes its page index)"),
    ("search", "search, fake SearXNG with a real saved response (30 hits)",
     "`TRAWL_SEARXNG_URL=… trawl search python --engines searxng --store :memory: --json`",
     "`WEBSEARCH_SEARXNG_URL=… websearch search python --engines searxng --json`"),
    ("open", "open a stored document by handle (no network)",
     "`trawl open HANDLE --store FILE --json`", "— (no counterpart)"),
    ("read_file", "read the real page from a local file, no store",
     "`trawl read FILE --store :memory: --json`", "— (no counterpart)"),
    ("read_stored", "read the real page again: answered from the store (peer: its fetch)",
     "`trawl read URL --allow-host 127.0.0.1 --store FILE --json` (page already stored)",
     "`websearch fetch URL --allow-private-hosts --json`"),
]


def section2():
    rows = {r["label"]: r for r in jsonl("cli/results.jsonl")}
    if not rows:
        return "(section 2 has not been run)\n"
    runs = next(iter(rows.values()))["runs"]
    out = [header("cli"), f"Fixtures: {read('cli/pages.txt').splitlines()[0] if read('cli/pages.txt') else ''}. "
           f"{runs} timed runs per row after one warm-up; medians. Requests seen by the fixture: "
           f"{'; '.join(read('cli/requests.txt').splitlines())}.", "",
           "| scenario | trawl wall ms | peer wall ms | wall: peer ÷ trawl | trawl CPU ms | trawl CPU × `trawl --help` | peer CPU ms | CPU: peer ÷ trawl | trawl peak RSS MiB | peer peak RSS MiB | RSS: peer ÷ trawl |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    help_cpu = rows.get("help|trawl", {}).get("cpu_med")
    for key, title, _, _ in CLI_ROWS:
        t, p = rows.get(f"{key}|trawl"), rows.get(f"{key}|peer")
        if not t:
            continue
        tw, tc, tr = t["wall_med"], t["cpu_med"], t["rss_med_mib"]
        pw, pc, pr = (p["wall_med"], p["cpu_med"], p["rss_med_mib"]) if p else (None, None, None)
        x_help = f"{tc / help_cpu:.1f}×" if help_cpu else "n/a"
        if p:
            out.append(f"| {title} | {ms(tw)} | {ms(pw)} | {ratio(pw, tw)[0]} | {ms(tc)} | {x_help} | {ms(pc)} | "
                       f"{ratio(pc, tc)[0]} | {tr:.1f} | {pr:.1f} | {ratio(pr, tr)[0]} |")
        else:
            out.append(f"| {title} | {ms(tw)} | — | — | {ms(tc)} | {x_help} | — | — | {tr:.1f} | — | — |")
    out += ["", "Commands:", ""]
    for key, title, tc, pc in CLI_ROWS:
        out.append(f"- {title}: trawl {tc}; peer {pc}")
    return "\n".join(out) + "\n"



# ---------------------------------------------------------------- 3 MCP stdio

def med(xs):
    return statistics.median(xs) if xs else None


def section3():
    t, p = load("mcp/trawl.json"), load("mcp/peer.json")
    if not t or not p:
        return "(section 3 has not been run)\n"
    ts, ps = t["spawn"], p["spawn"]
    n = len(ts["list_s"])
    tc, pc = t["calls"][0], p["calls"][0]
    rows = [
        ("spawn → initialize reply, ms (median)", med(ts["init_s"]), med(ps["init_s"]), True, ms),
        ("spawn → tools/list reply, ms (median)", med(ts["list_s"]), med(ps["list_s"]), True, ms),
        ("server CPU, spawn to exit, ms (median)", med(ts["cpu_s"]), med(ps["cpu_s"]), True, ms),
        ("server peak RSS, spawn to exit, MiB (median)", med(ts["maxrss_kib"]), med(ps["maxrss_kib"]), True, mib),
        (f"{tc['n']} sequential web_open: total, ms", tc["summary"]["total"], pc["summary"]["total"], True, ms),
        ("web_open latency p50, ms", tc["summary"]["median"], pc["summary"]["median"], True, ms),
        ("web_open latency p99, ms", tc["summary"]["p99"], pc["summary"]["p99"], True, ms),
        (f"session CPU (spawn + {tc['n']} calls), ms", t["cpu_s"], p["cpu_s"], True, ms),
        (f"session peak RSS (spawn + {tc['n']} calls), MiB", t["maxrss_kib"], p["maxrss_kib"], True, mib),
    ]
    out = [header("mcp"),
           f"Spawn rows: {n} fresh processes each. Call rows: one session, {tc['n']} calls of "
           f"`web_open {{handle, page: 1}}` on a stored real page (errors: trawl {tc['errors']}, peer {pc['errors']}). "
           f"Tools listed: trawl {len(t.get('tools', []))} ({', '.join(t.get('tools', []))}); "
           f"peer {len(p.get('tools', []))} ({', '.join(p.get('tools', []))}).", "",
           "| measure | trawl mcp | websearch mcp (0.2.6) | peer ÷ trawl |", "|---|---|---|---|"]
    for label, tv, pv, cost, fmt in rows:
        out.append(f"| {label} | {fmt(tv)} | {fmt(pv)} | {ratio(pv, tv, cost)[0]} |")
    out += ["", "Commands: `bench/03-mcp.sh` → `python3 bench/mcp_client.py stdio --spawn-runs N "
            "--call web_open '{\"handle\":H,\"page\":1}' 100 -- trawl mcp --store FILE` and the same with "
            "`WEBSEARCH_PERSIST_PATH=FILE websearch mcp`."]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 4 fan-out

def section4():
    rows = jsonl("fanout/results.jsonl")
    if not rows:
        return "(section 4 has not been run)\n"
    by = {(r["scenario"], r["side"]): r["r"] for r in rows}
    base = {"A": 300.0, "B": 300.0, "C": 1000.0}
    titles = {"A": "8 engines × 10 hits, 300 ms each", "B": "8 engines × 50 hits, 300 ms each",
              "C": "8 × 10 hits + 1 hanging engine, deadline 1000 ms"}
    out = [header("fanout"),
           "Overhead = median wall − the fixed wait (300 ms, or the 1000 ms deadline in C). "
           "CPU = the process's CPU time per search (trawl: sum of its threads' /proc/self/task/*/schedstat; "
           "peer: getrusage). The fixture's own serving time is in both sides' overhead.", "",
           "| scenario | runs | trawl wall ms (median) | peer wall ms (median) | trawl overhead ms | peer overhead ms | overhead: peer ÷ trawl | trawl CPU ms/search | peer CPU ms/search | CPU: peer ÷ trawl | hits (trawl / peer) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for sc in "ABC":
        t, p = by.get((sc, "trawl")), by.get((sc, "peer"))
        if not t or not p:
            continue
        tw, pw = statistics.median(t["wall_ms"]), statistics.median(p["wall_ms"])
        to, po = tw - base[sc], pw - base[sc]
        tcpu, pcpu = t["cpu_ms_total"] / t["runs"], p["cpu_ms_total"] / p["runs"]
        out.append(f"| {sc}: {titles[sc]} | {t['runs']} | {tw:.1f} | {pw:.1f} | {to:.1f} | {po:.1f} | "
                   f"{ratio(po, max(to, 0.1))[0]} | {tcpu:.2f} | {pcpu:.2f} | {ratio(pcpu, max(tcpu, 0.01))[0]} | "
                   f"{t['hits']} / {p['hits']} |")
    tC = by.get(("C", "trawl"))
    if tC:
        out += ["", "trawl outcomes in C (last search): " + ", ".join(tC.get("outcomes", [])) + "."]
    pC = by.get(("C", "peer"))
    if pC:
        out += [f"peer unresponsive engines in C: {', '.join(pC.get('unresponsive', []))}."]
    out += ["", "Commands: `bench/04-fanout.sh` → `target/release/examples/fanout_bench --engine URL ×8 "
            "[--hang URL] --timeout-ms T --runs N` and `/tmp/peer-ws/bin/python bench/peer_fanout.py` "
            "with the same arguments."]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 5 batch read

def section5():
    rows = {r["label"]: r for r in jsonl("batch/results.jsonl")}
    m = load("batch/mcp.json")
    if not rows:
        return "(section 5 has not been run)\n"
    t, p = rows.get("cli|trawl"), rows.get("cli|peer")
    out = [header("batch"),
           f"20 loopback pages, each answered after 100 ms; floor at 5 concurrent reads = 400 ms. "
           f"{t['runs']} timed runs after one warm-up; medians. Page requests seen by the fixture: {read('batch/requests.txt')}.", "",
           "| how | trawl wall ms | peer wall ms | wall: peer ÷ trawl | trawl CPU ms | peer CPU ms | trawl peak RSS MiB | peer peak RSS MiB |",
           "|---|---|---|---|---|---|---|---|"]
    fl = load("batch/floor.json")
    if fl:
        out.append(f"| floor: 20 plain GETs, 5 at a time (Python threads, no extraction, in-process) | "
                   f"{ms(fl['wall_med'])} | | | | | | |")
    out.append(f"| CLI, one process per batch | {ms(t['wall_med'])} | {ms(p['wall_med'])} | "
               f"{ratio(p['wall_med'], t['wall_med'])[0]} | {ms(t['cpu_med'])} | {ms(p['cpu_med'])} | "
               f"{t['rss_med_mib']:.1f} | {p['rss_med_mib']:.1f} |")
    if m:
        g = m["calls"][-1]
        out.append(f"| MCP `web_fetch(urls)` in a running `trawl mcp` ({g['n']} calls, errors {g['errors']}) | "
                   f"{ms(g['summary']['median'])} | n/a (0.2.6's MCP web_fetch refuses loopback) | — | — | — | "
                   f"{mib(m['maxrss_kib'])} (session) | — |")
    out += ["", "Commands: trawl `trawl read URL×20 --allow-host 127.0.0.1 --store :memory: --json`; "
            "peer `websearch web-fetch URL×20 --allow-private-hosts --persist-path off --json`; "
            "MCP `web_fetch {\"urls\": [20 URLs], \"fresh\": true}` on `TRAWL_ALLOW_HOSTS=127.0.0.1 trawl mcp --store :memory:`."]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 6 HTTP

def section6():
    rows = jsonl("http/results.jsonl")
    if not rows:
        return "(section 6 has not been run)\n"
    by = {(r["side"], r["clients"]): r for r in rows}
    out = [header("http"), read("http/wrk.txt") + ". Errors = non-200 replies, socket errors or tool errors in the body.", "",
           "| clients | trawl req/s | peer req/s | req/s: trawl ÷ peer | trawl p50 ms | peer p50 ms | trawl p99 ms | peer p99 ms | p99: peer ÷ trawl | errors (trawl / peer) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for c in sorted({k[1] for k in by}):
        t, p = by.get(("trawl", c)), by.get(("peer", c))
        if not t or not p:
            continue
        tr, pr = t["r"], p["r"]
        te = tr["socket_errors"] + tr["status_errors"] + tr["bad_replies"]
        pe = pr["socket_errors"] + pr["status_errors"] + pr["bad_replies"]
        out.append(f"| {c} | {tr['rps']:.0f} | {pr['rps']:.0f} | {ratio(pr['rps'], tr['rps'], cost=False)[0]} | "
                   f"{tr['p50_us'] / 1000:.2f} | {pr['p50_us'] / 1000:.2f} | {tr['p99_us'] / 1000:.2f} | "
                   f"{pr['p99_us'] / 1000:.2f} | {ratio(pr['p99_us'], tr['p99_us'])[0]} | {te} / {pe} |")
    if any(k[0] == "patched" for k in by):
        out += ["", f"Same load on **{read('http/patched.txt')}** (not the committed code; shows what the fix gives):", "",
                "| clients | patched trawl req/s | req/s: patched ÷ peer | patched p50 ms | patched p99 ms | errors |",
                "|---|---|---|---|---|---|"]
        for c in sorted({k[1] for k in by if k[0] == "patched"}):
            x, p = by[("patched", c)]["r"], by.get(("peer", c))
            e = x["socket_errors"] + x["status_errors"] + x["bad_replies"]
            out.append(f"| {c} | {x['rps']:.0f} | {ratio(p['r']['rps'], x['rps'], cost=False)[0] if p else 'n/a'} | "
                       f"{x['p50_us'] / 1000:.2f} | {x['p99_us'] / 1000:.2f} | {e} |")
    out += ["", "Commands: `bench/06-http.sh` → `trawl serve --listen 127.0.0.1:PORT --store FILE`; "
            "`wrk -tT -cC -d8s -s bench/wrk_mcp.lua http://127.0.0.1:PORT/mcp` (T = 1 for one client, else 2); "
            "peer: `python -c 'from websearch.layer3_agentio.mcp_server import mcp; mcp.run(transport=\"http\", …)'` "
            "from the 0.2.6 venv with `WEBSEARCH_PERSIST_PATH=FILE`."]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 7 memory

def section7():
    rows = jsonl("memory/results.jsonl")
    if not rows:
        return "(section 7 has not been run)\n"
    by = {(r["side"], r["stage"]): r for r in rows}
    def n_of(side, stage, default):
        c = (by.get((side, stage)) or {}).get("client")
        return f"{c['n']:,}" if c else default
    stages = [("idle", "idle (started, no request)"),
              ("reads", f"after {n_of('trawl', 'reads', '1,000')} web_fetch reads (distinct pages)"),
              ("opens", f"after a further {n_of('trawl', 'opens', '10,000')} web_open calls")]
    out = [header("memory"),
           f"RSS = VmRSS, peak = VmHWM of the server process. trawl's store file afterwards: "
           f"{int(read('memory/trawl-store-bytes.txt', '0') or 0) / 1048576:.1f} MiB.", "",
           "| stage | trawl RSS MiB | peer RSS MiB | RSS: peer ÷ trawl | trawl peak MiB | peer peak MiB | calls/s (trawl / peer) | errors (trawl / peer) |",
           "|---|---|---|---|---|---|---|---|"]
    for key, title in stages:
        t, p = by.get(("trawl", key)), by.get(("peer", key))
        if not t:
            continue
        def rate(r):
            c = r and r.get("client")
            return f"{c['n'] / c['wall_s']:.0f}" if c else "—"
        def errs(r):
            c = r and r.get("client")
            return str(c["errors"]) if c else "—"
        pr = p["rss_kib"] if p else None
        out.append(f"| {title} | {mib(t['rss_kib'])} | {mib(pr) if p else 'n/a (cannot read loopback over MCP)'} | "
                   f"{ratio(pr, t['rss_kib'])[0] if p else '—'} | {mib(t['hwm_kib'])} | {mib(p['hwm_kib']) if p else '—'} | "
                   f"{rate(t)} / {rate(p)} | {errs(t)} / {errs(p)} |")
    out += ["", "Commands: `bench/07-memory.sh` → `trawl serve --listen 127.0.0.1:PORT --store FILE --allow-host 127.0.0.1`, "
            "driven by `python3 bench/mcp_client.py http URL --threads 8|16 ...`; peer as in section 6."]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- splice

def splice(path):
    """Each $OUT/section-NAME.md (section-13.md, section-12-pdf.md) goes between the
    <!-- bench:NAME --> markers of BENCHMARKS.md."""
    text = open(path).read()
    names = sorted(f[len("section-"):-len(".md")] for f in os.listdir(OUT)
                   if f.startswith("section-") and f.endswith(".md"))
    for name in names:
        frag = read(f"section-{name}.md", None)
        if frag is None:
            continue
        pat = re.compile(rf"(<!-- bench:{re.escape(name)} -->\n).*?(<!-- /bench:{re.escape(name)} -->)", re.S)
        if not pat.search(text):
            print(f"warning: no <!-- bench:{name} --> block in {path}", file=sys.stderr)
            continue
        text = pat.sub(lambda m: m.group(1) + frag.rstrip() + "\n" + m.group(2), text)
    with open(path, "w") as fh:
        fh.write(text)


SECTIONS = {"1": section1, "2": section2, "3": section3, "4": section4, "5": section5,
            "6": section6, "7": section7}


def main():
    if sys.argv[1] == "splice":
        return splice(sys.argv[2])
    sys.stdout.write(SECTIONS[sys.argv[1]]())


if __name__ == "__main__":
    main()
