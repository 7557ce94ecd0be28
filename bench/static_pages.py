#!/usr/bin/env python3
"""Serves saved pages from memory on loopback, for benchmarks where the fixture's own CPU
must stay small (section 11): each html/<id>.html.gz named is decompressed once at start.

    static_pages.py PORT DIR ID...   ->  GET /dev/<id>.html, GET /healthz
"""
import gzip
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, root, ids = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
pages = {f"/dev/{i}.html": gzip.open(f"{root}/{i}.html.gz", "rb").read() for i in ids}
pages["/healthz"] = b"ok"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = pages.get(self.path)
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
