// Firecrawl's official JS SDK (npm `@mendable/firecrawl-js`) against `trawl serve`.
//
//     node sdk_js.mjs API_URL TOKEN SITE_URL     (NODE_PATH: the SDK's node_modules)
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
const check = harness("js");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

await check("scrape markdown, html, rawHtml, links", async () => {
  const doc = await app.scrape(`${site}/seals/harbour`, {
    formats: ["markdown", "html", "rawHtml", "links"],
  });
  expect(doc.markdown.includes("Paragraph 3 of Harbour seals"), doc.markdown);
  expect(doc.html.includes("<p>Paragraph 0 of Harbour seals"), doc.html);
  expect(!doc.html.includes("<footer>"), "html is the cleaned main content");
  expect(doc.rawHtml.includes("<footer>Seal site footer</footer>"), doc.rawHtml);
  expect(doc.links.includes(`${site}/seals/grey`), doc.links);
  expect(doc.metadata.title === "Harbour seals", doc.metadata);
  expect(doc.metadata.statusCode === 200, doc.metadata);
  expect(doc.metadata.sourceURL === `${site}/seals/harbour`, doc.metadata);
});

await check("batch scrape (waited)", async () => {
  const job = await app.batchScrape([`${site}/seals/grey`, `${site}/seals/monk`], {
    options: { formats: ["markdown"] },
    pollInterval: 1,
    timeout: 60,
  });
  expect(job.status === "completed", job.status);
  const titles = job.data.map((d) => d.metadata.title).sort();
  expect(JSON.stringify(titles) === '["Grey seals","Monk seals"]', titles);
});

await check("crawl (waited)", async () => {
  const job = await app.crawl(`${site}/`, { limit: 4, sitemap: "skip", pollInterval: 1, timeout: 120 });
  expect(job.status === "completed", job.status);
  expect(job.data.length === 4, job.data.length);
  expect(job.data.every((d) => d.markdown), "every page has its markdown");
});

await check("crawl (paged with next)", async () => {
  const started = await app.startCrawl(`${site}/list/`, { limit: 120, sitemap: "skip" });
  let job;
  for (let i = 0; i < 120; i++) {
    job = await app.getCrawlStatus(started.id, { autoPaginate: false });
    if (job.status === "completed") break;
    await sleep(1000);
  }
  expect(job.status === "completed", job.status);
  expect(job.next, "a first page of 120 documents has a next link");
  expect(job.data.length < 120, job.data.length);
  const all = await app.getCrawlStatus(started.id);
  expect(all.data.length === 120, all.data.length);
  expect(new Set(all.data.map((d) => d.metadata.sourceURL)).size === 120, "120 distinct pages");
});

await check("map", async () => {
  const result = await app.map(`${site}/`);
  const urls = result.links.map((l) => l.url);
  expect(urls.includes(`${site}/seals/monk`), urls);
});

await check("search with scrapeOptions", async () => {
  const result = await app.search("python format", {
    limit: 3,
    scrapeOptions: { formats: ["markdown"] },
  });
  expect(result.web && result.web.length === 3, result);
  const hit = result.web[0];
  expect(hit.markdown && hit.markdown.includes("Paragraph 1 of Hit"), hit);
  expect(hit.metadata.sourceURL.startsWith(`${site}/ext/`), hit.metadata);
});

await check("search (results only)", async () => {
  const result = await app.search("python format", { limit: 2 });
  expect(result.web.length === 2, result);
  expect(result.web[0].url.startsWith(`${site}/ext/`), result.web[0]);
});

await check("cancel a crawl", async () => {
  const started = await app.startCrawl(`${site}/list/`, { limit: 100, sitemap: "skip", delay: 1 });
  expect((await app.cancelCrawl(started.id)) === true, "cancel answers true");
  expect((await app.getCrawlStatus(started.id)).status === "cancelled", "status is cancelled");
});

await check("cancel a batch scrape", async () => {
  const urls = Array.from({ length: 40 }, (_, i) => `${site}/list/${i}`);
  const started = await app.startBatchScrape(urls, { maxConcurrency: 1 });
  expect((await app.cancelBatchScrape(started.id)) === true, "cancel answers true");
  expect((await app.getBatchScrapeStatus(started.id)).status === "cancelled", "status is cancelled");
});

await check("scrape changeTracking (git-diff): new, then same", async () => {
  const url = `${site}/ext/tracked-by-js`;
  const formats = ["markdown", { type: "changeTracking", modes: ["git-diff"] }];
  const first = await app.scrape(url, { formats });
  expect(first.changeTracking?.changeStatus === "new", JSON.stringify(first.changeTracking));
  expect(first.changeTracking.previousScrapeAt === null, JSON.stringify(first.changeTracking));
  const second = await app.scrape(url, { formats });
  expect(second.changeTracking?.changeStatus === "same", JSON.stringify(second.changeTracking));
  expect(typeof second.changeTracking.previousScrapeAt === "string", JSON.stringify(second.changeTracking));
});

function pngSize(dataUrl) {
  const prefix = "data:image/png;base64,";
  expect(typeof dataUrl === "string" && dataUrl.startsWith(prefix), String(dataUrl).slice(0, 60));
  const png = Buffer.from(dataUrl.slice(prefix.length), "base64");
  expect(png.subarray(1, 4).toString() === "PNG", "a PNG");
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

await check("scrape the screenshot format with a viewport, after a click", async () => {
  const doc = await app.scrape(`${site}/tabs`, {
    formats: ["markdown", { type: "screenshot", viewport: { width: 800, height: 600 } }],
    actions: [{ type: "click", selector: "#t2" }, { type: "wait", milliseconds: 100 }],
  });
  const [w, h] = pngSize(doc.screenshot);
  expect(w === 800 && h === 600, `${w}x${h}`);
  expect(doc.markdown.includes("37 grey seals"), doc.markdown);
});

await check("an unsupported format is refused with Firecrawl's error", async () => {
  let error;
  try {
    await app.scrape(`${site}/seals/harbour`, { formats: ["summary"] });
  } catch (e) {
    error = e;
  }
  expect(error, "the summary format was not refused");
  expect(String(error.message).includes("not supported"), error.message);
  expect(error.status === 400, error.status);
});

await check("the status WebSocket: catchup, documents, done (raw, as the watchers open it)", async () => {
  const started = await app.startCrawl(`${site}/`, { limit: 4, sitemap: "skip" });
  const ws = new WebSocket(`${api.replace(/^http/, "ws")}/v2/crawl/${started.id}`, token);
  const types = [];
  let docs = 0;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no end: ${types}`)), 60_000);
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      types.push(msg.type);
      if (msg.type === "catchup") docs += (msg.data.data ?? []).length;
      if (msg.type === "document") docs += 1;
    };
    ws.onclose = () => { clearTimeout(timer); resolve(); };
    ws.onerror = (e) => { clearTimeout(timer); reject(new Error(`WebSocket error ${e.message ?? ""}`)); };
  });
  expect(types[0] === "catchup", types);
  expect(types[types.length - 1] === "done", types);
  expect(docs === 4, `${docs} documents`);
});

await check("watcher() follows a crawl to done, and the process stays up", async () => {
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

await check("v1 client: crawlUrl, batchScrapeUrls (polled on the crawl route), search", async () => {
  const v1 = app.v1;
  const crawl = await v1.crawlUrl(`${site}/`, { limit: 2, ignoreSitemap: true }, 1);
  expect(crawl.success && crawl.status === "completed", crawl);
  expect(crawl.data.length === 2, crawl.data.length);
  const batch = await v1.batchScrapeUrls([`${site}/seals/grey`, `${site}/seals/monk`], { formats: ["markdown"] }, 1);
  expect(batch.success && batch.status === "completed", batch);
  expect(batch.data.length === 2, batch.data.length);
  const found = await v1.search("python format", { limit: 2 });
  expect(found.success && found.data.length === 2, found);
});

await check("v1 crawlUrlAndWatch ends with done", async () => {
  const watcher = await app.v1.crawlUrlAndWatch(`${site}/`, { limit: 2, ignoreSitemap: true });
  const end = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ status: "no end within 60 s" }), 60_000);
    watcher.addEventListener("done", (e) => { clearTimeout(timer); resolve(e.detail); });
    watcher.addEventListener("error", (e) => { clearTimeout(timer); resolve(e.detail); });
  });
  expect(end.status === "completed", end);
});

finish();
