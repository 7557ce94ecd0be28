#!/usr/bin/env python3
"""Firecrawl's official Python SDK (PyPI `firecrawl`) against `trawl serve`.

    sdk_py.py API_URL TOKEN SITE_URL

One PASS/FAIL line per check, last line "N passed, N failed"; exit 0 iff none failed.
"""
import functools
import sys
import time

from firecrawl import Firecrawl
from firecrawl.v2.types import PaginationConfig, ScrapeOptions

import harness  # noqa: E402 - beside this script
from harness import expect  # noqa: E402

API, TOKEN, SITE = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/")
app = Firecrawl(api_key=TOKEN, api_url=API)
check = functools.partial(harness.check, "python")



@check("scrape markdown, html, rawHtml, links")
def _():
    doc = app.scrape(f"{SITE}/seals/harbour", formats=["markdown", "html", "rawHtml", "links"])
    expect("Paragraph 3 of Harbour seals" in doc.markdown, doc.markdown)
    expect("<p>Paragraph 0 of Harbour seals" in doc.html, doc.html)
    expect("<footer>" not in doc.html, "html is the cleaned main content")
    expect("<footer>Seal site footer</footer>" in doc.raw_html, doc.raw_html)
    expect(f"{SITE}/seals/grey" in doc.links, doc.links)
    expect(doc.metadata.title == "Harbour seals", doc.metadata)
    expect(doc.metadata.status_code == 200, doc.metadata)
    expect(doc.metadata.source_url == f"{SITE}/seals/harbour", doc.metadata)


@check("scrape onlyMainContent false keeps navigation and footer")
def _():
    doc = app.scrape(f"{SITE}/seals/grey", formats=["markdown"], only_main_content=False)
    expect("Seal site footer" in doc.markdown, doc.markdown)
    expect("Home" in doc.markdown, doc.markdown)
    expect("Paragraph 3 of Grey seals" in doc.markdown, doc.markdown)


def change_status(doc):
    # The SDK keeps changeTracking as the server's dict, keys as Firecrawl names them.
    return doc.change_tracking["changeStatus"]


@check("scrape changeTracking: new, then same")
def _():
    url = f"{SITE}/ext/tracked-by-python"
    first = app.scrape(url, formats=["markdown", "changeTracking"])
    expect(change_status(first) == "new", first.change_tracking)
    second = app.scrape(url, formats=["markdown", "changeTracking"])
    expect(change_status(second) == "same", second.change_tracking)
    expect("Paragraph 1 of Hit tracked-by-python" in second.markdown, second.markdown)


@check("batch scrape (waited)")
def _():
    job = app.batch_scrape([f"{SITE}/seals/grey", f"{SITE}/seals/monk"], formats=["markdown"],
                           poll_interval=1, wait_timeout=60)
    expect(job.status == "completed", job.status)
    titles = sorted(d.metadata.title for d in job.data)
    expect(titles == ["Grey seals", "Monk seals"], titles)


@check("crawl (waited)")
def _():
    job = app.crawl(f"{SITE}/", limit=4, sitemap="skip", poll_interval=1, timeout=120)
    expect(job.status == "completed", job.status)
    expect(len(job.data) == 4, len(job.data))
    expect(all(d.markdown for d in job.data), "every page has its markdown")


@check("crawl (paged with next)")
def _():
    started = app.start_crawl(f"{SITE}/list/", limit=120, sitemap="skip")
    job = app.get_crawl_status(started.id)
    deadline = time.time() + 120
    while job.status != "completed" and time.time() < deadline:
        time.sleep(1)
        job = app.get_crawl_status(started.id, pagination_config=PaginationConfig(auto_paginate=False))
    expect(job.status == "completed", job.status)
    first = app.get_crawl_status(started.id, pagination_config=PaginationConfig(auto_paginate=False))
    expect(first.next, "a first page of 120 documents has a next link")
    expect(len(first.data) < 120, len(first.data))
    second = app.get_crawl_status_page(first.next)
    urls = {d.metadata.source_url for d in first.data} | {d.metadata.source_url for d in second.data}
    expect(len(urls) == 120, len(urls))
    everything = app.get_crawl_status(started.id)
    expect(len(everything.data) == 120, len(everything.data))


@check("map")
def _():
    result = app.map(f"{SITE}/")
    urls = [link.url for link in result.links]
    expect(f"{SITE}/seals/monk" in urls, urls)


@check("search with scrapeOptions")
def _():
    result = app.search("python format", limit=3, scrape_options=ScrapeOptions(formats=["markdown"]))
    expect(result.web and len(result.web) == 3, result.web)
    hit = result.web[0]
    expect(hit.markdown and "Paragraph 1 of Hit" in hit.markdown, hit)
    expect(hit.metadata.source_url.startswith(f"{SITE}/ext/"), hit.metadata)


@check("search (results only)")
def _():
    result = app.search("python format", limit=2)
    expect(len(result.web) == 2, result.web)
    expect(result.web[0].url.startswith(f"{SITE}/ext/"), result.web[0])


@check("cancel a crawl")
def _():
    started = app.start_crawl(f"{SITE}/list/", limit=100, sitemap="skip", delay=1)
    expect(app.cancel_crawl(started.id) is True, "cancel answers true")
    expect(app.get_crawl_status(started.id).status == "cancelled", "status is cancelled")


@check("cancel a batch scrape")
def _():
    started = app.start_batch_scrape([f"{SITE}/list/{i}" for i in range(40)], max_concurrency=1)
    expect(app.cancel_batch_scrape(started.id) is True, "cancel answers true")
    expect(app.get_batch_scrape_status(started.id).status == "cancelled", "status is cancelled")


def png_of(data_url):
    import base64
    prefix = "data:image/png;base64,"
    expect(data_url and data_url.startswith(prefix), (data_url or "")[:60])
    png = base64.b64decode(data_url[len(prefix):])
    expect(png[:8] == b"\x89PNG\r\n\x1a\n", png[:8])
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


@check("scrape the screenshot format (read in the browser)")
def _():
    doc = app.scrape(f"{SITE}/tabs", formats=["markdown", "screenshot"])
    expect(png_of(doc.screenshot) == (1280, 800), "a PNG of the default window")
    expect("overview of the seal survey" in doc.markdown, doc.markdown)


@check("scrape with actions: click, then scrape and a screenshot")
def _():
    doc = app.scrape(
        f"{SITE}/tabs",
        formats=["markdown"],
        actions=[{"type": "click", "selector": "#t2"}, {"type": "scrape"},
                 {"type": "screenshot", "full_page": True}],
    )
    expect("412 harbour seals" in doc.markdown, doc.markdown)
    expect("412 harbour seals" in doc.actions["scrapes"][0]["html"], doc.actions)
    expect(png_of(doc.actions["screenshots"][0])[0] == 1280, "a full-page PNG")


@check("executeJavascript is refused by name")
def _():
    try:
        app.scrape(f"{SITE}/tabs", formats=["markdown"],
                   actions=[{"type": "executeJavascript", "script": "1"}])
    except Exception as e:  # the SDK's own error type for a 400
        expect("executeJavascript" in str(e), str(e))
        return
    raise AssertionError("executeJavascript was not refused")


@check("an unsupported format is refused with Firecrawl's error")
def _():
    try:
        app.scrape(f"{SITE}/seals/harbour", formats=["summary"])
    except Exception as e:  # the SDK's own error type for a 400
        expect("not supported" in str(e), str(e))
        expect(getattr(e, "status_code", 400) == 400, getattr(e, "status_code", None))
        return
    raise AssertionError("the summary format was not refused")


@check("a 404 and a 500 are documents with their statusCode: scrape, batch, crawl")
def _():
    doc = app.scrape(f"{SITE}/gone", formats=["markdown"])
    expect(doc.metadata.status_code == 404, doc.metadata)
    doc = app.scrape(f"{SITE}/broken", formats=["markdown"])
    expect(doc.metadata.status_code == 500, doc.metadata)
    job = app.batch_scrape([f"{SITE}/gone", f"{SITE}/seals/grey"], formats=["markdown"],
                           poll_interval=1, wait_timeout=60)
    codes = sorted(d.metadata.status_code for d in job.data)
    expect(codes == [200, 404], codes)
    crawl = app.crawl(f"{SITE}/with-errors/", limit=5, sitemap="skip", poll_interval=1,
                      timeout=60)
    codes = sorted(d.metadata.status_code for d in crawl.data)
    expect(codes == [200, 200, 404], codes)


@check("v1 client: get_credit_usage (snake_case), crawl_url, batch_scrape_urls, search")
def _():
    from firecrawl import V1FirecrawlApp
    v1 = V1FirecrawlApp(api_key=TOKEN, api_url=API)
    usage = v1.get_credit_usage()
    expect(usage.success and usage.data.remaining_credits == 0, usage)
    crawl = v1.crawl_url(f"{SITE}/", limit=2, ignore_sitemap=True, poll_interval=1)
    expect(crawl.status == "completed" and len(crawl.data) == 2, crawl.status)
    batch = v1.batch_scrape_urls([f"{SITE}/seals/grey", f"{SITE}/seals/monk"],
                                 formats=["markdown"], poll_interval=1)
    expect(batch.status == "completed" and len(batch.data) == 2, batch.status)
    found = v1.search("python format", limit=2)
    expect(found.success and len(found.data) == 2, found)


@check("async client: scrape and a waited crawl")
def _():
    import asyncio
    from firecrawl import AsyncFirecrawl

    async def run():
        client = AsyncFirecrawl(api_key=TOKEN, api_url=API)
        doc = await client.scrape(f"{SITE}/seals/harbour", formats=["markdown"])
        expect("Paragraph 3 of Harbour seals" in doc.markdown, doc.markdown)
        job = await client.crawl(url=f"{SITE}/", limit=2, sitemap="skip", poll_interval=1,
                                 timeout=60)
        expect(job.status == "completed" and len(job.data) == 2, job.status)

    asyncio.run(run())


@check("watcher follows a crawl over the status WebSocket to done")
def _():
    started = app.start_crawl(f"{SITE}/", limit=3, sitemap="skip")
    watcher = app.watcher(started.id, kind="crawl", poll_interval=1, timeout=60)
    ended = []
    docs = []
    watcher.add_event_listener("document", lambda d: docs.append(d))
    watcher.add_event_listener("done", lambda d: ended.append(d))
    watcher.add_event_listener("error", lambda d: ended.append(d))
    watcher.start()
    deadline = time.time() + 60
    while not ended and time.time() < deadline:
        time.sleep(0.2)
    watcher.stop()
    expect(ended and ended[0]["status"] == "completed", ended)
    expect(len(docs) == 3, f"{len(docs)} documents")


harness.finish()
