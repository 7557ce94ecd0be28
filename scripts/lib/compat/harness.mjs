// The checks' shared harness: one PASS/FAIL line per check, `finish()` prints
// "N passed, N failed" and exits 0 iff none failed.
const results = [];

export function expect(condition, what) {
  if (!condition) throw new Error(typeof what === "string" ? what : JSON.stringify(what));
}

export function harness(label) {
  return async function check(name, fn) {
    try {
      await fn();
      results.push(true);
      console.log(`PASS ${label}: ${name}`);
    } catch (e) {
      results.push(false);
      console.log(`FAIL ${label}: ${name}`);
      console.log(e && e.stack ? e.stack : e);
    }
  };
}

export function finish() {
  const passed = results.filter(Boolean).length;
  console.log(`${passed} passed, ${results.length - passed} failed`);
  process.exit(passed === results.length ? 0 : 1);
}
