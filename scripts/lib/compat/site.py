#!/usr/bin/env python3
"""A loopback test site and search engine for scripts/compat.

    site.py FIXTURE      prints its port, then serves on 127.0.0.1 until killed

- `/` and `/seals/<name>`: a small site of linked articles (crawl, map, scrape, batch);
- `/list/` and `/list/<n>`: 130 linked pages, so a crawl's status is paged with `next`;
- `/search`: a real saved SearXNG answer (FIXTURE, JSON) with every hit's `https://HOST/PATH`
  rewritten to `http://127.0.0.1:PORT/ext/HOST/PATH`, so a search's `scrapeOptions` reads
  pages this server answers and nothing leaves the machine;
- `/ext/<host>/<path>`: an article named after the hit it stands for;
- `/tabs`: a page whose second tab's text appears only after a click (actions, screenshot).
"""
import http.server
import json
import sys

SEALS = ["harbour", "grey", "monk", "fur", "leopard"]
LIST_PAGES = 130


def article(title, links=(), paragraphs=8):
    body = [f"<html><head><title>{title}</title>",
            f'<meta name="description" content="About {title}.">',
            '</head><body><nav><a href="/">Home</a></nav><article>',
            f"<h1>{title}</h1>"]
    for i in range(paragraphs):
        body.append(f"<p>Paragraph {i} of {title}: seals rest on sandbanks at low tide and "
                    "hunt fish at high tide; pups can swim within hours of birth.</p>")
    body.append("<ul>")
    body += [f'<li><a href="{href}">{text}</a></li>' for href, text in links]
    body.append("</ul></article><footer>Seal site footer</footer></body></html>")
    return "\n".join(body).encode()


TABS = b"""<html><head><title>Seal survey tabs</title></head>
<body style="background:#ff0000"><h1>Seal survey</h1><button id="t2">Counts</button>
<div id="panel">The overview of the seal survey on the sandbanks at low tide.</div>
<script>document.getElementById('t2').onclick = function () {
  document.getElementById('panel').textContent =
    'Counts: 412 harbour seals and 37 grey seals were on the sandbanks this August.'; };</script>
</body></html>"""


class Site(http.server.BaseHTTPRequestHandler):
    fixture = b""

    def log_message(self, *args):
        pass

    def reply(self, status, ctype, body):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        html = "text/html; charset=utf-8"
        if path == "/":
            links = [(f"/seals/{n}", f"{n} seal") for n in SEALS]
            return self.reply(200, html, article("Seal site", links))
        if path.startswith("/seals/") and path[7:] in SEALS:
            name = path[7:]
            links = [(f"/seals/{n}", f"{n} seal") for n in SEALS if n != name]
            return self.reply(200, html, article(f"{name.capitalize()} seals", links))
        if path in ("/list", "/list/"):
            links = [(f"/list/{i}", f"page {i}") for i in range(LIST_PAGES)]
            return self.reply(200, html, article("List of pages", links, 3))
        if path.startswith("/list/") and path[6:].isdigit() and int(path[6:]) < LIST_PAGES:
            return self.reply(200, html, article(f"List page {path[6:]}", (), 3))
        if path == "/search":
            port = self.server.server_address[1]
            body = self.fixture.replace(b"https://", f"http://127.0.0.1:{port}/ext/".encode())
            return self.reply(200, "application/json", body)
        if path == "/tabs":
            return self.reply(200, html, TABS)
        if path.startswith("/ext/"):
            return self.reply(200, html, article(f"Hit {path[5:]}", (), 4))
        if path == "/gone":
            return self.reply(404, html, article("Page not found", (), 1))
        if path == "/broken":
            return self.reply(500, html, article("Server error", (), 1))
        if path == "/with-errors/":
            links = [("/with-errors/a", "a"), ("/with-errors/gone", "gone")]
            return self.reply(200, html, article("Errors ahead", links, 2))
        if path == "/with-errors/a":
            return self.reply(200, html, article("Page A", (), 2))
        if path == "/with-errors/gone":
            return self.reply(404, html, article("Page not found", (), 1))
        self.reply(404, "text/plain", b"not found")


def main():
    with open(sys.argv[1], "rb") as f:
        Site.fixture = f.read()
    json.loads(Site.fixture)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
