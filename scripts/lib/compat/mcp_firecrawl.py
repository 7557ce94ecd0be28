#!/usr/bin/env python3
"""`firecrawl-mcp` (Firecrawl's MCP server) over stdio, driven by the official MCP Python
client (PyPI `mcp`), with FIRECRAWL_API_URL pointing at `trawl serve`.

    mcp_firecrawl.py API_URL TOKEN SITE_URL NODE FIRECRAWL_MCP_JS

One PASS/FAIL line per check, last line "N passed, N failed"; exit 0 iff none failed.
"""
import asyncio
import json
import os
import sys
import traceback

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

API, TOKEN, SITE, NODE, SERVER_JS = sys.argv[1:6]
SITE = SITE.rstrip("/")
results = []


def text_of(result):
    return "\n".join(getattr(block, "text", "") for block in result.content)


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


async def check(name, session, tool, arguments, verify):
    try:
        result = await session.call_tool(tool, arguments)
        text = text_of(result)
        expect(not getattr(result, "is_error", getattr(result, "isError", False)), text[:2000])
        verify(text)
        results.append(True)
        print(f"PASS firecrawl-mcp: {name}", flush=True)
        return text
    except Exception:  # noqa: BLE001 - every failure is reported, then counted
        results.append(False)
        print(f"FAIL firecrawl-mcp: {name}", flush=True)
        traceback.print_exc()
        return ""


async def main():
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "FIRECRAWL_API_URL": API,
        "FIRECRAWL_API_KEY": TOKEN,
    }
    params = StdioServerParameters(command=NODE, args=[SERVER_JS], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            for name in ("firecrawl_scrape", "firecrawl_map", "firecrawl_crawl",
                         "firecrawl_check_crawl_status", "firecrawl_search"):
                expect(name in tools, f"{name} is listed: {sorted(tools)}")

            await check("firecrawl_scrape", session, "firecrawl_scrape",
                        {"url": f"{SITE}/seals/harbour", "formats": ["markdown"]},
                        lambda t: expect("Paragraph 3 of Harbour seals" in t, t[:2000]))
            await check("firecrawl_map", session, "firecrawl_map", {"url": f"{SITE}/"},
                        lambda t: expect(f"{SITE}/seals/monk" in t, t[:2000]))
            started = await check("firecrawl_crawl", session, "firecrawl_crawl",
                                  {"url": f"{SITE}/", "limit": 3, "sitemap": "skip"},
                                  lambda t: expect('"id"' in t or "id" in t, t[:2000]))
            crawl_id = None
            try:
                crawl_id = json.loads(started).get("id")
            except ValueError:
                pass
            if crawl_id:
                done = ""
                for _ in range(60):
                    result = await session.call_tool("firecrawl_check_crawl_status", {"id": crawl_id})
                    done = text_of(result)
                    if '"completed"' in done and '"scraping"' not in done:
                        break
                    await asyncio.sleep(1)
                await check("firecrawl_check_crawl_status", session,
                            "firecrawl_check_crawl_status", {"id": crawl_id},
                            lambda t: expect('"completed"' in t and "Seal site" in t, t[:2000]))
            else:
                results.append(False)
                print(f"FAIL firecrawl-mcp: firecrawl_crawl answered no id: {started[:500]}")
            await check("firecrawl_search", session, "firecrawl_search",
                        {"query": "python format", "limit": 2,
                         "scrapeOptions": {"formats": ["markdown"]}},
                        lambda t: expect(f"{SITE}/ext/" in t and "Paragraph 1 of Hit" in t, t[:2000]))


try:
    asyncio.run(main())
except Exception:  # noqa: BLE001 - a setup failure is one failed check
    traceback.print_exc()
    results.append(False)
passed = results.count(True)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if results and passed == len(results) else 1)
