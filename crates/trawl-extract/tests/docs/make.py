#!/usr/bin/env python3
"""Writes the document fixtures trawl-extract's document readers are tested on, with the
libraries people use to write these formats (so the files are shaped as real ones are).

    python3 -m venv /tmp/docsvenv
    /tmp/docsvenv/bin/pip install python-docx==1.2.0 openpyxl==3.1.5 python-pptx==1.0.2 \
        EbookLib==0.20 nbformat==5.11.1 odfpy==1.4.1 xlwt==1.3.0
    /tmp/docsvenv/bin/python crates/trawl-extract/tests/docs/make.py

Pinned: python-docx 1.2.0, openpyxl 3.1.5, python-pptx 1.0.2, EbookLib 0.20,
nbformat 5.11.1, odfpy 1.4.1, xlwt 1.3.0. The outputs land beside this script; ZIP-based
files carry fixed timestamps so a rerun changes as little as possible.
"""

import io
import os
import struct
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

# A 1x1 PNG, written by hand (zlib + CRC), used as the picture in every document: the tests
# check it is never inlined as base64.
def tiny_png():
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"\x00\xff\x00\x00"
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def out(name):
    return os.path.join(HERE, name)


def docx():
    from docx import Document
    from docx.shared import Inches
    from docx.oxml.ns import qn
    from docx.oxml import OxmlElement

    d = Document()
    d.core_properties.title = "Tidal Survey Report"
    d.core_properties.author = "Ada Marsh"
    d.add_heading("Tidal Survey Report", level=0)
    d.add_heading("Methods", level=1)
    p = d.add_paragraph("We measured the ")
    p.add_run("tidal range").bold = True
    p.add_run(" at three harbours, see ")
    # A hyperlink, as python-docx users write one (the relationship plus w:hyperlink).
    part = d.part
    r_id = part.relate_to("https://example.org/tides",
                          "http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink",
                          is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), r_id)
    run = OxmlElement("w:r")
    text = OxmlElement("w:t")
    text.text = "the tide tables"
    run.append(text)
    link.append(run)
    p._p.append(link)
    p.add_run(".")
    d.add_heading("Harbours", level=2)
    d.add_paragraph("Northport", style="List Bullet")
    d.add_paragraph("Southwick", style="List Bullet")
    d.add_paragraph("Eastham", style="List Number")
    d.add_paragraph("Westmere", style="List Number")
    t = d.add_table(rows=3, cols=3)
    for i, row in enumerate([("Harbour", "Range (m)", "Notes"),
                             ("Northport", "4.2", "spring | neap"),
                             ("Southwick", "3.1", "calm")]):
        for j, v in enumerate(row):
            t.cell(i, j).text = v
    d.add_picture(io.BytesIO(tiny_png()), width=Inches(0.5))
    # python-docx names the picture; give it alt text (descr), as Word does.
    docpr = d.inline_shapes[0]._inline.docPr
    docpr.set("descr", "Map of the three harbours")
    d.add_heading("Findings", level=1)
    p = d.add_paragraph("The range peaked in March.")
    d.add_comment(p.runs[0], text="Check the March figure", author="Reviewer")
    d.save(out("report.docx"))
    add_footnote(out("report.docx"))


def add_footnote(path):
    """python-docx cannot write footnotes; Word's markup for one is added to the package
    (footnotes.xml, its relationship and content type, and a reference in the text)."""
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    members["word/footnotes.xml"] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<w:footnotes {w}>'
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
        '<w:footnote w:id="1"><w:p><w:r><w:t>Measured at the spring equinox.</w:t></w:r></w:p></w:footnote>'
        '</w:footnotes>').encode()
    rels = members["word/_rels/document.xml.rels"].decode()
    rels = rels.replace("</Relationships>",
                        '<Relationship Id="rIdFn1" Type="http://schemas.openxmlformats.org/'
                        'officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>'
                        "</Relationships>")
    members["word/_rels/document.xml.rels"] = rels.encode()
    ct = members["[Content_Types].xml"].decode()
    ct = ct.replace("</Types>",
                    '<Override PartName="/word/footnotes.xml" ContentType="application/'
                    'vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/></Types>')
    members["[Content_Types].xml"] = ct.encode()
    doc = members["word/document.xml"].decode()
    doc = doc.replace("The range peaked in March.</w:t></w:r>",
                      'The range peaked in March.</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r>', 1)
    members["word/document.xml"] = doc.encode()
    write_zip(path, members)


def write_zip(path, members, first=None):
    with zipfile.ZipFile(path, "w") as z:
        names = list(members)
        if first:
            names.remove(first)
            names.insert(0, first)
        for n in names:
            info = zipfile.ZipInfo(n, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED if n == "mimetype" else zipfile.ZIP_DEFLATED
            z.writestr(info, members[n])


def xlsx():
    from openpyxl import Workbook
    wb = Workbook()
    ws = wb.active
    ws.title = "Tides"
    ws.append(["Harbour", "Range (m)", "Surveyed"])
    ws.append(["Northport", 4.2, "2026-03-01"])
    ws.append(["Southwick", 3.1, "2026-03-02"])
    ws2 = wb.create_sheet("Crew")
    ws2.append(["Name", "Role"])
    ws2.append(["Ada Marsh", "lead"])
    ws2.append(["Ben Rook", "boat | pilot"])
    wb.properties.title = "Survey workbook"
    wb.properties.creator = "Ada Marsh"
    wb.save(out("survey.xlsx"))


def xls():
    import xlwt
    wb = xlwt.Workbook()
    ws = wb.add_sheet("Legacy")
    for i, row in enumerate([("Station", "Depth"), ("Buoy 7", 12.5), ("Buoy 9", 8)]):
        for j, v in enumerate(row):
            ws.write(i, j, v)
    wb.save(out("legacy.xls"))


def ods():
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableRow, TableCell
    from odf.text import P
    doc = OpenDocumentSpreadsheet()
    t = Table(name="Readings")
    for row in [("Hour", "Height"), ("06:00", "1.2"), ("12:00", "3.9")]:
        tr = TableRow()
        for v in row:
            c = TableCell(valuetype="string")
            c.addElement(P(text=v))
            tr.addElement(c)
        t.addElement(tr)
    doc.spreadsheet.addElement(t)
    doc.save(out("readings.ods"))


def pptx():
    from pptx import Presentation
    from pptx.util import Inches
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    prs = Presentation()
    prs.core_properties.title = "Survey Briefing"
    prs.core_properties.author = "Ada Marsh"
    s = prs.slides.add_slide(prs.slide_layouts[0])
    s.shapes.title.text = "Survey Briefing"
    s.placeholders[1].text = "Spring 2026 results"
    s.notes_slide.notes_text_frame.text = "Welcome everyone; keep this under ten minutes."
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Key Findings"
    body = s.placeholders[1].text_frame
    body.text = "Ranges rose at every harbour"
    body.add_paragraph().text = "Northport saw the largest change"
    pic = s.shapes.add_picture(io.BytesIO(tiny_png()), Inches(8), Inches(5), Inches(0.5))
    pic._element.nvPicPr.cNvPr.set("descr", "Chart of harbour ranges")
    s.notes_slide.notes_text_frame.text = "Mention the March storm."
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Numbers"
    rows = [("Harbour", "Range"), ("Northport", "4.2"), ("Southwick", "3.1")]
    tbl = s.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            tbl.cell(i, j).text = v
    cd = CategoryChartData()
    cd.categories = ["Northport", "Southwick"]
    cd.add_series("Range", (4.2, 3.1))
    ch = s.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(4.5),
                            Inches(4), Inches(2.5), cd).chart
    ch.has_title = True
    ch.chart_title.text_frame.text = "Range by harbour"
    prs.save(out("briefing.pptx"))


def odt():
    from odf.opendocument import OpenDocumentText
    from odf.style import Style, TextProperties
    from odf.text import H, P, List, ListItem, A, Note, NoteBody, NoteCitation
    from odf.table import Table, TableRow, TableCell, TableColumn
    from odf.dc import Title, Creator
    doc = OpenDocumentText()
    doc.meta.addElement(Title(text="Harbour Notes"))
    doc.meta.addElement(Creator(text="Ben Rook"))
    doc.text.addElement(H(outlinelevel=1, text="Harbour Notes"))
    doc.text.addElement(H(outlinelevel=2, text="Arrival"))
    p = P(text="We reached Northport at dawn; see ")
    p.addElement(A(href="https://example.org/northport", text="the harbour page"))
    p.addText(".")
    n = Note(noteclass="footnote", id="ftn1")
    n.addElement(NoteCitation(text="1"))
    nb = NoteBody()
    nb.addElement(P(text="Local time."))
    n.addElement(nb)
    p.addElement(n)
    doc.text.addElement(p)
    lst = List()
    for v in ("Moor the boat", "Log the gauge"):
        li = ListItem()
        li.addElement(P(text=v))
        lst.addElement(li)
    doc.text.addElement(lst)
    t = Table(name="Gauges")
    t.addElement(TableColumn(numbercolumnsrepeated=2))
    for row in [("Gauge", "Reading"), ("North", "4.1")]:
        tr = TableRow()
        for v in row:
            c = TableCell()
            c.addElement(P(text=v))
            tr.addElement(c)
        t.addElement(tr)
    doc.text.addElement(t)
    doc.save(out("notes.odt"))


def odp():
    from odf.opendocument import OpenDocumentPresentation
    from odf.style import Style, MasterPage, PageLayout
    from odf.draw import Page, Frame, TextBox
    from odf.presentation import Notes
    from odf.namespaces import PRESENTATIONNS
    from odf.text import P
    doc = OpenDocumentPresentation()
    pl = PageLayout(name="PL")
    doc.automaticstyles.addElement(pl)
    mp = MasterPage(name="Default", pagelayoutname=pl)
    doc.masterstyles.addElement(mp)
    for name, lines, note in [("Opening", ["Harbour Day", "Welcome aboard"], "Smile."),
                              ("Schedule", ["Schedule", "Boats leave at nine"], "Check the weather.")]:
        page = Page(name=name, masterpagename=mp)
        for i, line in enumerate(lines):
            fr = Frame(width="20cm", height="3cm", x="2cm", y=f"{2 + 4 * i}cm")
            fr.setAttrNS(PRESENTATIONNS, "class", "title" if i == 0 else "outline")
            tb = TextBox()
            tb.addElement(P(text=line))
            fr.addElement(tb)
            page.addElement(fr)
        notes = Notes()
        fr = Frame(width="20cm", height="10cm", x="2cm", y="14cm")
        fr.setAttrNS(PRESENTATIONNS, "class", "notes")
        tb = TextBox()
        tb.addElement(P(text=note))
        fr.addElement(tb)
        notes.addElement(fr)
        page.addElement(notes)
        doc.presentation.addElement(page)
    doc.save(out("harbour-day.odp"))


def epub():
    from ebooklib import epub as e
    book = e.EpubBook()
    book.set_identifier("trawl-fixture-1")
    book.set_title("The Tide Book")
    book.set_language("en")
    book.add_author("Cora Wells")
    chapters = []
    texts = [
        ("Low Water", "When the sea draws back, the flats show their ribs of sand. "
                      "Walkers come out with buckets and the gulls follow them."),
        ("High Water", "By noon the channel fills again and the boats lift off the mud. "
                       "The harbour master rings the bell twice."),
        ("Slack Water", "Between the tides there is a pause when nothing moves at all, "
                        "and the fishermen say the sea is thinking."),
    ]
    png = e.EpubItem(uid="img1", file_name="images/map.png", media_type="image/png",
                     content=tiny_png())
    book.add_item(png)
    for i, (title, body) in enumerate(texts, 1):
        c = e.EpubHtml(title=title, file_name=f"chap_{i}.xhtml", lang="en")
        img = '<p><img src="images/map.png" alt="Map of the flats"/></p>' if i == 1 else ""
        c.content = (f"<h1>{title}</h1><p>{body}</p>{img}"
                     f"<p>{body} This is chapter {i} of the book.</p>")
        book.add_item(c)
        chapters.append(c)
    book.toc = chapters
    book.add_item(e.EpubNcx())
    book.add_item(e.EpubNav())
    # Spine order differs from the file names' order: chapter 3 is read second.
    book.spine = ["nav", chapters[0], chapters[2], chapters[1]]
    e.write_epub(out("tide-book.epub"), book)


def ipynb():
    import nbformat
    from nbformat.v4 import new_notebook, new_markdown_cell, new_code_cell, new_output
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [
        new_markdown_cell("# Tide analysis\n\nWe load the **readings** first."),
        new_code_cell("import statistics\nprint(statistics.mean([4.2, 3.1]))",
                      outputs=[new_output("stream", name="stdout", text="3.65\n")]),
        new_code_cell("{'peak': 'March'}",
                      outputs=[new_output("execute_result", data={
                          "text/plain": "{'peak': 'March'}",
                          "image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"},
                          execution_count=2)]),
        new_markdown_cell("## Conclusion\n\nThe mean range is 3.65 m."),
    ]
    nbformat.write(nb, out("tides.ipynb"))


def csvs():
    rows = [["駅", "人数"], ["東京", "120"], ["大阪", "80"]]
    text = "\r\n".join(",".join(r) for r in rows) + "\r\n"
    with open(out("stations-sjis.csv"), "wb") as f:
        f.write(text.encode("shift_jis"))
    rows = [["Café", "Price"], ["Crème brûlée", "4,50 €"], ["Déjà vu", "3,00 €"]]
    text = "\r\n".join(";".join(r) for r in rows) + "\r\n"
    with open(out("menu-1252.csv"), "wb") as f:
        f.write(text.encode("cp1252"))
    rows = [["name", "note"], ["Zoë", "naïve"], ["Łukasz", "żółw"]]
    text = "\n".join("\t".join(r) for r in rows) + "\n"
    with open(out("people-utf16.tsv"), "wb") as f:
        f.write(text.encode("utf-16"))  # with its BOM, as Excel's "Unicode text" is


def feeds():
    with open(out("harbour.rss"), "w") as f:
        f.write("""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel>
<title>Harbour News</title><link>https://example.org/news</link>
<description>News from the harbour</description>
<item><title>Spring tides arrive</title><link>https://example.org/news/spring</link>
<pubDate>Sun, 01 Mar 2026 06:00:00 GMT</pubDate>
<description>&lt;p&gt;The &lt;b&gt;highest&lt;/b&gt; tides of the year came in.&lt;/p&gt;</description></item>
<item><title>New buoy &amp; gauge</title><link>https://example.org/news/buoy</link>
<pubDate>Mon, 02 Mar 2026 08:30:00 GMT</pubDate>
<description><![CDATA[A new gauge was fixed to <i>Buoy 7</i>.]]></description></item>
</channel></rss>
""")
    with open(out("harbour.atom"), "w") as f:
        f.write("""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>Harbour Log</title><link href="https://example.org/log"/>
<updated>2026-03-02T08:30:00Z</updated><id>urn:trawl:log</id>
<author><name>Ada Marsh</name></author>
<entry><title>Gauge check</title><link rel="alternate" href="https://example.org/log/1"/>
<id>urn:trawl:log:1</id><updated>2026-03-02T08:30:00Z</updated>
<summary>All gauges read true.</summary></entry>
<entry><title type="html">Storm &lt;em&gt;warning&lt;/em&gt;</title><link href="https://example.org/log/2"/>
<id>urn:trawl:log:2</id><published>2026-03-03T18:00:00Z</published>
<content type="html">&lt;p&gt;Boats stay in.&lt;/p&gt;</content></entry>
</feed>
""")


def archive():
    members = {
        "readme.md": b"# Survey bundle\n\nThe files of the spring survey.\n",
        "data/tides.csv": b"harbour,range\nNorthport,4.2\n",
        "notes/summary.txt": b"Ranges rose everywhere.\n",
    }
    with open(out("survey.xlsx"), "rb") as f:
        members["data/survey.xlsx"] = f.read()
    write_zip(out("bundle.zip"), members)


if __name__ == "__main__":
    docx(); xlsx(); xls(); ods(); pptx(); odt(); odp(); epub(); ipynb(); csvs(); feeds(); archive()
    print("written to", HERE)
