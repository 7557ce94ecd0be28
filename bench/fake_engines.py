#!/usr/bin/env python3
"""Loopback fixtures for the trawl benchmarks (standard library only).

One process listens on several ports of 127.0.0.1. Every port is a fake SearXNG
(`GET /search?format=json`) and also serves article pages:

  GET /search?q=..&format=json   SearXNG JSON. The hits come from --fixture (a real
                                 saved SearXNG response) and are padded with synthetic
                                 hits up to --results. Port number i (0-based, in the
                                 order given) rotates the list by i*3 places, so the
                                 engines overlap but disagree on ranks, as real ones do.
  GET /page/<n>.html[?ms=D]      an article (distinct text per n), after D ms
  GET /dev/<id>.html             a real page from --pages-dir (html/<id>.html.gz,
                                 e.g. ../shared/bench/extract/dev), served decompressed
  GET /healthz                   OK (never delayed)

--delay-ms delays every /search answer; --hang-port never answers /search on that port
(the connection stays open until the client gives up).

usage: fake_engines.py --ports 18810,18811 [--hang-port 18819] [--delay-ms 300]
                       [--results 10] [--fixture searxng.json] [--log FILE]
                       [--pages-dir ../shared/bench/extract/dev]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

WORDS = ("ownership borrowing lifetimes traits generics iterators closures async "
         "futures executors channels mutex atomics allocation pinning macros modules "
         "crates cargo testing benchmarks profiling unsafe ffi layout").split()


def article(n: int) -> str:
    paras = []
    for p in range(6):
        words = [WORDS[(n * 7 + p * 5 + i) % len(WORDS)] for i in range(60)]
        paras.append(f"<p>Paragraph {p + 1} of document {n}: {' '.join(words)}.</p>")
    body = "\n".join(paras)
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Benchmark document {n}</title></head><body>"
            f"<header><nav><a href=\"/\">Home</a> | <a href=\"/about\">About</a></nav></header>"
            f"<article><h1>Benchmark document {n}</h1>\n{body}\n</article>"
            f"<footer>Fixture footer, not content.</footer></body></html>")


class Shared:
    pool: list[dict] = []
    results = 10
    delay = 0.0
    hang_port = -1
    port_index: dict[int, int] = {}
    extra: dict = {}
    pages_dir: str | None = None
    log = None
    lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    server_version = "trawl-bench-fixture/1"
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without TCP_NODELAY the body waits for the
    # client's delayed ACK (40 ms on Linux), which would be charged to the tool under test.
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):
        if Shared.log:
            with Shared.lock, open(Shared.log, "a") as fh:
                fh.write(f"{time.time():.3f} {self.server.server_address[1]} {self.command} {self.path}\n")

    def send(self, code: int, body: str, ctype: str):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802
        parts = urlsplit(self.path)
        qs = parse_qs(parts.query)
        port = self.server.server_address[1]
        if parts.path == "/healthz":
            return self.send(200, "OK", "text/plain")
        if parts.path == "/search":
            if port == Shared.hang_port:
                time.sleep(3600)
                return None
            if Shared.delay:
                time.sleep(Shared.delay)
            i = Shared.port_index.get(port, 0)
            shift = (i * 3) % len(Shared.pool)
            hits = (Shared.pool[shift:] + Shared.pool[:shift])[: Shared.results]
            q = (qs.get("q") or [""])[0]
            payload = dict(Shared.extra, query=q, number_of_results=len(hits), results=hits)
            return self.send(200, json.dumps(payload), "application/json")
        if parts.path.startswith("/page/") and parts.path.endswith(".html"):
            ms = int((qs.get("ms") or ["0"])[0])
            if ms:
                time.sleep(ms / 1000)
            n = parts.path[len("/page/"):-len(".html")]
            return self.send(200, article(int(n) if n.isdigit() else 0), "text/html; charset=utf-8")
        if parts.path.startswith("/dev/") and parts.path.endswith(".html") and Shared.pages_dir:
            pid = os.path.basename(parts.path)[: -len(".html")]
            path = os.path.join(Shared.pages_dir, "html", pid + ".html.gz")
            if os.path.exists(path):
                with gzip.open(path, "rb") as fh:
                    return self.send(200, fh.read().decode("utf-8", "replace"), "text/html; charset=utf-8")
        return self.send(404, "<html><body>not found</body></html>", "text/html")


def build_pool(fixture: str | None, n: int) -> tuple[list[dict], dict]:
    hits, extra = [], {"answers": [], "corrections": [], "infoboxes": [], "suggestions": [],
                       "unresponsive_engines": []}
    if fixture:
        with open(fixture) as fh:
            saved = json.load(fh)
        hits = list(saved.get("results", []))
        extra = {k: v for k, v in saved.items() if k not in ("results", "query", "number_of_results")}
    k = len(hits)
    while len(hits) < max(n, 1):
        k += 1
        hits.append({
            "url": f"https://example.org/docs/{k}.html",
            "title": f"Synthetic result {k}",
            "content": f"Synthetic snippet {k}: " + " ".join(WORDS[(k + j) % len(WORDS)] for j in range(20)),
            "engine": "bing", "engines": ["bing"], "positions": [k], "score": round(1.0 / k, 4),
            "category": "general",
        })
    return hits, extra


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ports", required=True, help="comma-separated ports")
    ap.add_argument("--hang-port", type=int, default=-1, help="a further port whose /search never answers")
    ap.add_argument("--delay-ms", type=int, default=0)
    ap.add_argument("--results", type=int, default=10)
    ap.add_argument("--fixture")
    ap.add_argument("--log")
    ap.add_argument("--pages-dir")
    a = ap.parse_args()
    Shared.pages_dir = a.pages_dir
    ports = [int(p) for p in a.ports.split(",") if p]
    Shared.pool, Shared.extra = build_pool(a.fixture, a.results)
    Shared.results = a.results
    Shared.delay = a.delay_ms / 1000
    Shared.hang_port = a.hang_port
    Shared.port_index = {p: i for i, p in enumerate(ports)}
    Shared.log = a.log
    if a.hang_port > 0:
        ports.append(a.hang_port)
    servers = []
    for p in ports:
        srv = ThreadingHTTPServer(("127.0.0.1", p), Handler)
        srv.daemon_threads = True
        srv.request_queue_size = 256
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
    print(f"fixtures on 127.0.0.1 ports {ports}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
