// The JS SDK against `trawl serve` behind a TLS reverse proxy (`--public-url https://…`):
// the links it follows (`next`) and the status WebSocket go through https/wss.
//
//     node behind_tls.mjs HTTPS_API_URL TOKEN SITE_URL   (NODE_EXTRA_CA_CERTS: the proxy's)
//
// One PASS/FAIL line per check, last line "N passed, N failed"; exit 0 iff none failed.
import { createRequire } from "node:module";
import { expect, finish, harness } from "./harness.mjs";

const require = createRequire(process.env.COMPAT_NODE_MODULES + "/");
const sdk = require("@mendable/firecrawl-js");
const Firecrawl = sdk.Firecrawl ?? sdk.default;

const [api, token, siteArg] = process.argv.slice(2);
const site = siteArg.replace(/\/$/, "");
const app = new Firecrawl({ apiKey: token, apiUrl: api });
const check = harness("tls");

await check("a crawl of 120 pages, paged with https next links (none lost)", async () => {
  const job = await app.crawl(`${site}/list/`, { limit: 120, sitemap: "skip", pollInterval: 1, timeout: 180 });
  expect(job.status === "completed", job.status);
  expect(new Set(job.data.map((d) => d.metadata.sourceURL)).size === 120, `${job.data.length} documents`);
  expect(!job.next || job.next.startsWith("https://"), job.next);
});

await check("a status link is https", async () => {
  const started = await app.startCrawl(`${site}/list/`, { limit: 2, sitemap: "skip" });
  expect(started.url.startsWith(`${api}/v2/crawl/`), started.url);
});

await check("watcher() over wss follows a crawl to done", async () => {
  const started = await app.startCrawl(`${site}/`, { limit: 3, sitemap: "skip" });
  const watcher = app.watcher(started.id, { kind: "crawl", pollInterval: 1, timeout: 60 });
  const docs = [];
  let end;
  const finished = new Promise((resolve) => {
    watcher.on("document", (d) => docs.push(d));
    watcher.on("done", (s) => { end = s; resolve(); });
    watcher.on("error", (e) => { end = e; resolve(); });
  });
  await watcher.start();
  await finished;
  expect(end.status === "completed", end);
  expect(docs.length === 3, `${docs.length} documents`);
});

finish();
