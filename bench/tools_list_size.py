#!/usr/bin/env python3
"""Bytes of an MCP server's tools/list answer, as compact JSON: the part a model reads
(each tool without its outputSchema) and the whole list. Usage: tools_list_size.py NAME -- CMD...

Every agent conversation carries the list; section 3 prints it for trawl and the peer."""
import json
import subprocess
import sys


def main():
    name, cmd = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)

    def send(msg):
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()

    def answer(id_):
        for line in proc.stdout:
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if obj.get("id") == id_:
                return obj
        raise RuntimeError("the server closed stdout")

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "tools-list-size", "version": "1"}}})
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    tools = answer(2)["result"]["tools"]
    proc.kill()
    compact = lambda v: len(json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode())
    model = sum(compact({k: v for k, v in t.items() if k != "outputSchema"}) for t in tools)
    whole = compact({"tools": tools})
    print(json.dumps({"server": name, "tools": len(tools), "model_facing_bytes": model,
                      "whole_bytes": whole}))


if __name__ == "__main__":
    main()
