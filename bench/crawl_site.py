#!/usr/bin/env python3
"""Generate the static sites of section 12 (the crawl benchmark) into a directory.

  crawl_site.py DIR [--pages N] [--frontier-hubs H [--frontier-links L]]

docs site (DIR/index.html, DIR/docs/...): N pages (default 5,000) of about 20 KB each, shaped like a
documentation site: a header navigation, a sidebar listing the pages of the section, an
article with headings, paragraphs, a code block, a table and inline links to other pages,
a footer. Every page is reachable by links from / within 2 hops (index -> section index ->
page) and listed in /sitemap.xml; /robots.txt allows everything and names the sitemap.
DIR/pages.txt lists the N page paths (to check the server's log against). The pages, their link graph and their text are fixed by a seed, so every run crawls the
same site.

frontier sites (DIR/frontier-NNNNNNN/...): one start page linking to H hub pages, each hub
linking to L leaf URLs that do not exist, NNNNNNN of them in all (H, 10*H and H*L), with
pages of the same length on every site. Crawled with --limit H+1, each fetches the same
bytes, and the differences in memory are the frontier's.
"""
from __future__ import annotations

import argparse
import html
import os
import random

WORDS = (
    "request response handler client server config option cache store page crawl index "
    "token stream buffer socket thread worker queue frontier limit depth robots sitemap "
    "extract render parse header body status redirect timeout retry backoff policy guard "
    "schema field record handle passage markdown table column value error result module "
    "function method struct trait enum field lifetime borrow async await future runtime"
).split()
SECTIONS = 50


def sentence(rng: random.Random, n: int) -> str:
    w = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(w).capitalize() + "."


def paragraph(rng: random.Random, links: list[tuple[str, str]]) -> str:
    parts = []
    for _ in range(rng.randint(4, 7)):
        s = sentence(rng, rng.randint(9, 18))
        if links and rng.random() < 0.35:
            href, title = links.pop()
            s = s[:-1] + f', see <a href="{href}">{html.escape(title)}</a>.'
        parts.append(s)
    return "<p>" + " ".join(parts) + "</p>"


def code_block(rng: random.Random) -> str:
    lines = []
    for i in range(rng.randint(10, 18)):
        a, b = rng.choice(WORDS), rng.choice(WORDS)
        lines.append(f"    let {a}_{i} = {b}::new(&config).{rng.choice(WORDS)}({i})?;")
    body = html.escape("fn main() -> Result<(), Error> {\n" + "\n".join(lines) + "\n    Ok(())\n}")
    return f'<pre><code class="language-rust">{body}</code></pre>'


def table(rng: random.Random) -> str:
    head = "".join(f"<th>{w}</th>" for w in ("option", "default", "type", "description"))
    rows = []
    for _ in range(rng.randint(6, 10)):
        rows.append(
            f"<tr><td><code>--{rng.choice(WORDS)}-{rng.choice(WORDS)}</code></td>"
            f"<td>{rng.randint(0, 500)}</td><td>{rng.choice(('bool', 'usize', 'string', 'path'))}</td>"
            f"<td>{sentence(rng, rng.randint(6, 12))}</td></tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def page_path(i: int) -> str:
    return f"/docs/s{i % SECTIONS:02d}/page-{i:05d}.html"


def title_of(i: int) -> str:
    rng = random.Random(i * 7919)
    return f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {rng.choice(WORDS)} ({i})"


def shell(title: str, sidebar: str, article: str) -> str:
    nav = "".join(f'<li><a href="/docs/s{s:02d}/">Section {s}</a></li>' for s in range(SECTIONS))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} - Bench Docs</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/site.css"><script src="/static/site.js" defer></script>
</head><body>
<header class="site-header"><a class="logo" href="/">Bench Docs</a>
<nav class="top-nav" aria-label="Sections"><ul>{nav}</ul></nav>
<form class="search" action="/search"><input name="q" placeholder="Search the docs"></form></header>
<div class="layout"><aside class="sidebar"><nav aria-label="In this section"><ul>{sidebar}</ul></nav></aside>
<main><article>{article}</article></main></div>
<footer class="site-footer"><p>Bench Docs is generated for a benchmark. <a href="/about.html">About</a>
</p><p>Copyright 2024 Bench Docs contributors.</p></footer>
</body></html>
"""


def write(root: str, path: str, text: str) -> None:
    full = os.path.join(root, path.lstrip("/"))
    if full.endswith("/"):
        full += "index.html"
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def docs_site(root: str, total: int) -> list[str]:
    pages = total - SECTIONS - 2  # the rest: the home page, the about page, section indexes
    by_section: dict[int, list[int]] = {}
    for i in range(pages):
        by_section.setdefault(i % SECTIONS, []).append(i)
    urls = ["/", "/about.html"]
    for s, members in by_section.items():
        items = "".join(f'<li><a href="{page_path(i)}">{html.escape(title_of(i))}</a></li>' for i in members)
        write(root, f"/docs/s{s:02d}/", shell(f"Section {s}", items, f"<h1>Section {s}</h1><ul>{items}</ul>"))
        urls.append(f"/docs/s{s:02d}/")
    for i in range(pages):
        rng = random.Random(i)
        s = i % SECTIONS
        members = by_section[s]
        pos = members.index(i)
        near = members[max(0, pos - 20):pos + 20]
        sidebar = "".join(f'<li><a href="{page_path(j)}">{html.escape(title_of(j))}</a></li>' for j in near)
        inline = [(page_path(j), title_of(j)) for j in rng.sample(range(pages), min(pages, 12))]
        body = [f"<h1>{html.escape(title_of(i))}</h1>", paragraph(rng, inline)]
        for h in range(6):
            body.append(f"<h2>{sentence(rng, 4)[:-1]}</h2>")
            body += [paragraph(rng, inline) for _ in range(2)]
            body.append(code_block(rng) if h % 2 == 0 else table(rng))
        prev_next = []
        if i > 0:
            prev_next.append(f'<a rel="prev" href="{page_path(i - 1)}">Previous</a>')
        if i + 1 < pages:
            prev_next.append(f'<a rel="next" href="{page_path(i + 1)}">Next</a>')
        body.append(f'<nav class="pager">{" ".join(prev_next)}</nav>')
        write(root, page_path(i), shell(title_of(i), sidebar, "\n".join(body)))
        urls.append(page_path(i))
    sections = "".join(f'<li><a href="/docs/s{s:02d}/">Section {s}</a></li>' for s in range(SECTIONS))
    write(root, "/", shell("Bench Docs", sections, f"<h1>Bench Docs</h1><p>{sentence(random.Random(0), 20)}</p><ul>{sections}</ul>"))
    write(root, "/about.html", shell("About", sections, f"<h1>About</h1><p>{sentence(random.Random(1), 30)}</p>"))
    write(root, "/static/site.css", "body { font-family: sans-serif; }\n")
    write(root, "/static/site.js", "document.documentElement.classList.add('js');\n")
    return urls


def sitemap(root: str, host: str, urls: list[str]) -> None:
    body = "".join(f"<url><loc>{host}{u}</loc></url>\n" for u in urls)
    write(root, "/sitemap.xml",
          f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>\n')
    write(root, "/robots.txt", f"User-agent: *\nAllow: /\n\nSitemap: {host}/sitemap.xml\n")


def frontier_pools(hubs: int, links: int) -> list[int]:
    return sorted({hubs, min(10 * hubs, hubs * links), hubs * links})


def frontier_site(root: str, name: str, hubs: int, links: int, pool: int) -> None:
    """A start page linking to `hubs` hub pages, each linking to `links` leaf URLs (the leaves
    do not exist), drawn in turn from `pool` URLs shared by every hub (with hubs x links, every
    link names a URL of its own). Every shape have the same pages, byte
    for byte in length, so a crawl of either fetches the same; only the frontier differs."""
    base = f"/frontier-{name}"
    hub_list = "".join(f'<li><a href="{base}/hub-{h:05d}.html">Hub {h}</a></li>' for h in range(hubs))
    write(root, f"{base}/", f"<!doctype html><html><head><title>Frontier</title></head><body><ul>{hub_list}</ul></body></html>")
    for h in range(hubs):
        ids = [(h * links + j) % pool for j in range(links)]
        leaves = "".join(f'<li><a href="{base}/leaf/{i:07d}.html">Leaf {i:07d}</a></li>' for i in ids)
        write(root, f"{base}/hub-{h:05d}.html",
              f"<!doctype html><html><head><title>Hub {h}</title></head><body><h1>Hub {h:05d}</h1>"
              f"<p>{sentence(random.Random(h), 40)}</p><ul>{leaves}</ul></body></html>")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--pages", type=int, default=5000)
    ap.add_argument("--host", default="http://127.0.0.2")
    ap.add_argument("--frontier-hubs", type=int, default=0,
                    help="also write the two frontier sites, with this many hubs")
    ap.add_argument("--frontier-links", type=int, default=100, help="links on each hub")
    a = ap.parse_args()
    urls = docs_site(a.dir, a.pages)
    sitemap(a.dir, a.host, urls)
    if a.frontier_hubs:
        # The hubs' links name as many URLs as there are hubs, ten times that, or hubs x links.
        for pool in frontier_pools(a.frontier_hubs, a.frontier_links):
            frontier_site(a.dir, f"{pool:07d}", a.frontier_hubs, a.frontier_links, pool)
    sizes = [os.path.getsize(os.path.join(a.dir, (u + ("index.html" if u.endswith("/") else "")).lstrip("/"))) for u in urls]
    with open(os.path.join(a.dir, "pages.txt"), "w") as f:
        f.write("".join(u + "\n" for u in urls))
    print(f"{len(urls)} pages, {sum(sizes) / len(sizes) / 1024:.1f} KiB each on average, all in the sitemap")


if __name__ == "__main__":
    main()
