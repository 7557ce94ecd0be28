#!/usr/bin/env python3
"""A small MCP client for the benchmarks (standard library only). Prints one JSON object.

stdio: spawn the server, initialize, tools/list, then run the given tool calls in order.
    mcp_client.py stdio [--spawn-runs N] [--call NAME JSON [--repeat K]]... -- CMD...
  --spawn-runs N   start the server N times and time spawn -> initialize -> tools/list
                   (each run: fresh process, stdin closed, exit awaited; peak RSS and
                   CPU from wait4 of that child). Then one more process runs the calls.
  Output: spawn {list_s[], init_s[], cpu_s[], maxrss_kib[]}, and per call group
          {name, n, errors, latency_s[]}, plus the call process's cpu_s / maxrss_kib.

http: streamable HTTP at URL (initialize -> Mcp-Session-Id -> notifications/initialized),
    then the calls over one keep-alive connection per thread.
    mcp_client.py http URL [--threads T] [--call NAME JSON [--repeat K]]... [--session-out FILE]
  --urls-from-template 'http://h/page/{i}.html' N  adds N web_fetch calls, one per URL.
"""
from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

PROTO = "2025-06-18"


def init_msg(i=1):
    return {"jsonrpc": "2.0", "id": i, "method": "initialize", "params": {
        "protocolVersion": PROTO, "capabilities": {},
        "clientInfo": {"name": "trawl-bench", "version": "0"}}}


def is_error(reply) -> bool:
    if "error" in reply:
        return True
    return bool(reply.get("result", {}).get("isError"))


# ---------------------------------------------------------------- stdio

class Stdio:
    def __init__(self, cmd, env=None):
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.next_id = 1

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        i = self.next_id = self.next_id + 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("server closed stdout")
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if obj.get("id") == i:
                return obj

    def handshake(self):
        self.send(init_msg(1))
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("server closed stdout before initialize reply")
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if obj.get("id") == 1:
                break
        t_init = time.monotonic() - self.t0
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = self.request("tools/list", {})
        t_list = time.monotonic() - self.t0
        return t_init, t_list, [t["name"] for t in tools.get("result", {}).get("tools", [])]

    def rss_kib(self):
        try:
            with open(f"/proc/{self.proc.pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def close(self):
        self.proc.stdin.close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            pid, status, ru = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                self.proc.returncode = status
                return ru.ru_utime + ru.ru_stime, ru.ru_maxrss
            time.sleep(0.01)
        self.proc.terminate()
        _, _, ru = os.wait4(self.proc.pid, 0)
        return ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def run_stdio(a, cmd):
    out = {"cmd": cmd}
    if a.spawn_runs:
        sp = {"init_s": [], "list_s": [], "cpu_s": [], "maxrss_kib": []}
        for _ in range(a.spawn_runs):
            s = Stdio(cmd)
            t_init, t_list, names = s.handshake()
            cpu, rss = s.close()
            sp["init_s"].append(t_init); sp["list_s"].append(t_list)
            sp["cpu_s"].append(cpu); sp["maxrss_kib"].append(rss)
            out["tools"] = names
        out["spawn"] = sp
    if a.call:
        s = Stdio(cmd)
        _, _, names = s.handshake()
        out["tools"] = names
        out["rss_after_list_kib"] = s.rss_kib()
        groups = []
        for name, args, repeat in calls_of(a):
            lat, errors, sample = [], 0, None
            for _ in range(repeat):
                t = time.monotonic()
                r = s.request("tools/call", {"name": name, "arguments": args})
                lat.append(time.monotonic() - t)
                if is_error(r):
                    errors += 1
                    sample = sample or json.dumps(r)[:400]
            groups.append({"name": name, "n": repeat, "errors": errors, "latency_s": lat,
                           "error_sample": sample, "rss_after_kib": s.rss_kib()})
        out["calls"] = groups
        out["cpu_s"], out["maxrss_kib"] = s.close()
    return out


def calls_of(a):
    res = []
    for name, args, *rep in (a.call or []):
        res.append((name, json.loads(args), int(rep[0]) if rep else 1))
    return res


# ---------------------------------------------------------------- http

_ids = itertools.count(100)
_ids_lock = threading.Lock()


def next_id():
    """Request ids unique across every thread: clients share MCP sessions, and a session
    routes each reply by its JSON-RPC id."""
    with _ids_lock:
        return next(_ids)


class Http:
    def __init__(self, url, session=None):
        u = urlsplit(url)
        self.host, self.port, self.path = u.hostname, u.port or 80, u.path or "/"
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        self.session = session

    def post(self, msg):
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": PROTO}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        self.conn.request("POST", self.path, body=json.dumps(msg), headers=headers)
        resp = self.conn.getresponse()
        body = resp.read().decode("utf-8", "replace")
        sid = resp.getheader("Mcp-Session-Id")
        if resp.status >= 400:
            raise RuntimeError(f"HTTP {resp.status}: {body[:300]}")
        return sid, parse_body(body, resp.getheader("Content-Type") or "")

    def initialize(self):
        sid, _ = self.post(init_msg(1))
        self.session = sid
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return sid

    def call(self, name, args):
        _, reply = self.post({"jsonrpc": "2.0", "id": next_id(), "method": "tools/call",
                              "params": {"name": name, "arguments": args}})
        return reply


def parse_body(body, ctype):
    if "text/event-stream" in ctype:
        found = None
        for line in body.splitlines():
            if line.startswith("data:"):
                data = line[5:].strip()
                if data:
                    try:
                        obj = json.loads(data)
                    except ValueError:
                        continue
                    if "id" in obj:
                        found = obj
        return found or {}
    return json.loads(body) if body.strip() else {}


def run_http(a):
    first = Http(a.url)
    sid = first.initialize()
    if a.session_out:
        with open(a.session_out, "w") as fh:
            fh.write(sid or "")
    work = []
    for name, args, repeat in calls_of(a):
        work += [(name, args)] * repeat
    if a.urls_from_template:
        tpl, n = a.urls_from_template
        work += [("web_fetch", {"url": tpl.replace("{i}", str(i))}) for i in range(1, int(n) + 1)]
    lat, errors, sample = [], [0], [None]
    lock = threading.Lock()
    idx = [0]

    def worker(client):
        while True:
            with lock:
                if idx[0] >= len(work):
                    return
                name, args = work[idx[0]]
                idx[0] += 1
            t = time.monotonic()
            r = client.call(name, args)
            dt = time.monotonic() - t
            with lock:
                lat.append(dt)
                if is_error(r) or not r:
                    errors[0] += 1
                    sample[0] = sample[0] or json.dumps(r)[:400]

    t0 = time.monotonic()
    clients = [first] + [Http(a.url, sid) for _ in range(a.threads - 1)]
    ths = [threading.Thread(target=worker, args=(c,)) for c in clients]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    return {"session": sid, "n": len(work), "errors": errors[0], "error_sample": sample[0],
            "wall_s": time.monotonic() - t0, "latency_s": lat}


def summary(xs):
    if not xs:
        return {}
    s = sorted(xs)
    return {"median": statistics.median(s), "p99": s[min(len(s) - 1, int(len(s) * 0.99))],
            "min": s[0], "max": s[-1], "total": sum(s)}


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    st = sub.add_parser("stdio")
    st.add_argument("--spawn-runs", type=int, default=0)
    st.add_argument("--call", nargs="+", action="append", metavar="NAME JSON [REPEAT]")
    st.add_argument("cmd", nargs=argparse.REMAINDER)
    ht = sub.add_parser("http")
    ht.add_argument("url")
    ht.add_argument("--threads", type=int, default=1)
    ht.add_argument("--call", nargs="+", action="append", metavar="NAME JSON [REPEAT]")
    ht.add_argument("--urls-from-template", nargs=2, metavar=("TEMPLATE", "N"))
    ht.add_argument("--session-out")
    a = ap.parse_args()
    if a.mode == "stdio":
        cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
        res = run_stdio(a, cmd)
        for g in res.get("calls", []):
            g["summary"] = summary(g["latency_s"])
    else:
        res = run_http(a)
        res["summary"] = summary(res["latency_s"])
    json.dump(res, sys.stdout)
    print()


if __name__ == "__main__":
    main()
