"""The checks' shared harness: `check(label, name)` decorates one check (a PASS/FAIL line),
`finish()` prints "N passed, N failed" and exits 0 iff none failed."""
import sys
import traceback

_results = []


def check(label, name):
    def run(fn):
        try:
            fn()
            _results.append(True)
            print(f"PASS {label}: {name}", flush=True)
        except Exception:  # noqa: BLE001 - every failure is reported, then counted
            _results.append(False)
            print(f"FAIL {label}: {name}", flush=True)
            traceback.print_exc()
        return fn
    return run


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def finish():
    passed = _results.count(True)
    print(f"{passed} passed, {len(_results) - passed} failed")
    sys.exit(0 if passed == len(_results) else 1)
