#!/usr/bin/env python3
"""LangChain's `FireCrawlLoader` (PyPI `langchain-community`) against `trawl serve`.

    langchain_loader.py API_URL TOKEN SITE_URL

One PASS/FAIL line per check, last line "N passed, N failed"; exit 0 iff none failed.
"""
import sys
import traceback

from langchain_community.document_loaders import FireCrawlLoader

API, TOKEN, SITE = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/")
results = []


def check(name):
    def run(fn):
        try:
            fn()
            results.append(True)
            print(f"PASS langchain: {name}", flush=True)
        except Exception:  # noqa: BLE001 - every failure is reported, then counted
            results.append(False)
            print(f"FAIL langchain: {name}", flush=True)
            traceback.print_exc()
        return fn
    return run


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


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


passed = results.count(True)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
