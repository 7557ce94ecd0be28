#!/usr/bin/env python3
"""LangChain's `FireCrawlLoader` (PyPI `langchain-community`) against `trawl serve`.

    langchain_loader.py API_URL TOKEN SITE_URL

One PASS/FAIL line per check, last line "N passed, N failed"; exit 0 iff none failed.
"""
import functools
import sys

from langchain_community.document_loaders import FireCrawlLoader

import harness  # noqa: E402 - beside this script
from harness import expect  # noqa: E402

API, TOKEN, SITE = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/")
check = functools.partial(harness.check, "langchain")



@check("scrape mode")
def _():
    docs = FireCrawlLoader(url=f"{SITE}/seals/harbour", api_key=TOKEN, api_url=API,
                           mode="scrape").load()
    expect(len(docs) == 1, len(docs))
    expect("Paragraph 3 of Harbour seals" in docs[0].page_content, docs[0].page_content[:300])


@check("crawl mode (its defaults) keeps to the start URL's section")
def _():
    # Every page of the site links home (`/`); a crawl of `/list/` stays under `/list/`.
    docs = FireCrawlLoader(url=f"{SITE}/list/", api_key=TOKEN, api_url=API,
                           mode="crawl", params={"limit": 6, "sitemap": "skip"}).load()
    urls = sorted(d.metadata.get("sourceURL") or d.metadata.get("source_url") or "" for d in docs)
    expect(len(urls) == 6, urls)
    expect(all(u.startswith(f"{SITE}/list/") for u in urls), urls)


harness.finish()
