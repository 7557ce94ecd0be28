#!/usr/bin/env python3
"""The Scrapy peers of section 12: crawl a site by its links, as a Python user would write it.

  scrapy_crawl.py START_URL links OUT.jsonl         # links only: follow every <a href>
  scrapy_crawl.py START_URL trafilatura OUT.jsonl   # and extract each page with trafilatura
  scrapy_crawl.py START_URL links OUT.jsonl PAGES   # breadth-first, stop after PAGES responses

16 concurrent requests (per domain too), no delay, robots.txt obeyed (trawl obeys it),
Scrapy's default duplicate filter (each URL requested once), no depth limit. The
trafilatura spider keeps what trawl keeps: each page's URL, title and Markdown, written as
JSON lines by Scrapy's feed exporter; the links-only spider writes each page's URL.
With PAGES (the frontier rows of section 13, beside `trawl crawl --limit`), the spider goes
breadth-first, as trawl does (Scrapy's documented settings for it: DEPTH_PRIORITY 1 and FIFO
queues), and closes after PAGES responses, leaving what it found waiting in its scheduler.
Run with the venv's python (Scrapy and trafilatura pinned there by bench/13-crawl.sh).
"""
from __future__ import annotations

import sys

import scrapy
from scrapy.crawler import CrawlerProcess


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start: str, mode: str, **kw):
        super().__init__(**kw)
        self.start_urls = [start]
        self.allowed_domains = [scrapy.utils.url.urlparse(start).hostname]
        self.mode = mode
        if mode == "trafilatura":
            import trafilatura  # noqa: PLC0415 (only this spider needs it)

            self.trafilatura = trafilatura

    def parse(self, response):
        if self.mode == "trafilatura":
            markdown = self.trafilatura.extract(
                response.text, url=response.url, output_format="markdown"
            )
            title = response.css("title::text").get()
            yield {"url": response.url, "title": title, "markdown": markdown}
        else:
            yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)


def main() -> None:
    start, mode, out = sys.argv[1:4]
    breadth_first = {}
    if len(sys.argv) > 4:
        breadth_first = {
            "CLOSESPIDER_PAGECOUNT": int(sys.argv[4]),
            "DEPTH_PRIORITY": 1,
            "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
            "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        }
    process = CrawlerProcess(
        settings={
            **breadth_first,
            "CONCURRENT_REQUESTS": 16,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
            "DOWNLOAD_DELAY": 0,
            "ROBOTSTXT_OBEY": True,
            "AUTOTHROTTLE_ENABLED": False,
            "TELNETCONSOLE_ENABLED": False,
            "LOG_LEVEL": "WARNING",
            "FEEDS": {out: {"format": "jsonlines", "overwrite": True}},
        }
    )
    process.crawl(SiteSpider, start=start, mode=mode)
    process.start()


if __name__ == "__main__":
    main()
