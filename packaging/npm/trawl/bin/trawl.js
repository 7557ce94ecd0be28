#!/usr/bin/env node
// The `trawl` command of the npm package: it finds the compiled binary in the platform
// package npm installed beside it (one of its optionalDependencies, chosen by npm from each
// package's `os`, `cpu` and `libc`) and runs it with the same arguments, standard streams
// and exit status. No JavaScript stands between an agent and trawl once it runs.
"use strict";
const { spawnSync } = require("node:child_process");

const PLATFORMS = {
  "linux x64": "@trawl/linux-x64",
  "linux arm64": "@trawl/linux-arm64",
  "darwin x64": "@trawl/darwin-universal",
  "darwin arm64": "@trawl/darwin-universal",
  "win32 x64": "@trawl/win32-x64",
};

const key = `${process.platform} ${process.arch}`;
// A Linux without glibc (Alpine) gets the static musl build.
const musl =
  process.platform === "linux" && !process.report?.getReport?.().header?.glibcVersionRuntime;
const pkg = musl && key === "linux x64" ? "@trawl/linux-x64-musl" : PLATFORMS[key];
if (!pkg) {
  console.error(`trawl: no prebuilt binary for ${key}; build it from source: cargo install --locked --path crates/trawl`);
  process.exit(1);
}
const exe = process.platform === "win32" ? "trawl.exe" : "trawl";
let binary;
try {
  binary = require.resolve(`${pkg}/bin/${exe}`);
} catch {
  console.error(`trawl: the package ${pkg} is not installed (installs with --no-optional or --omit=optional skip it); reinstall without that flag`);
  process.exit(1);
}
const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  console.error(`trawl: cannot run ${binary}: ${result.error.message}`);
  process.exit(1);
}
if (result.signal) {
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
