#!/usr/bin/env python3
"""Convert FILES with markitdown ROUNDS times in one process and print the same summary
line as trawl-extract's docs_bench example: `N converted, M failed, S s, R files/s`
(the time counts conversions only, not Python's start or markitdown's import).

usage: markitdown_docs.py ROUNDS FILE...
"""
import sys
import time

from markitdown import MarkItDown


def main():
    rounds = int(sys.argv[1])
    files = sys.argv[2:]
    md = MarkItDown()
    ok = failed = 0
    t0 = time.monotonic()
    for _ in range(rounds):
        for f in files:
            try:
                md.convert(f)
                ok += 1
            except Exception as e:  # a failure is counted and reported, not fatal
                failed += 1
                print(f"{f}: {e}", file=sys.stderr)
    secs = time.monotonic() - t0
    print(f"{ok} converted, {failed} failed, {secs:.3f} s, {ok / secs:.1f} files/s")


if __name__ == "__main__":
    main()
