#!/usr/bin/env python3
"""Writes the PDF fixtures trawl-extract's PDF reader is tested and measured on, with
reportlab (the library most Python programs write PDFs with), so the files are shaped as
real ones are: frames, flowing paragraphs, platypus tables ruled and borderless; and
with fpdf2, whose tables are drawn cell by cell (a rectangle and a string each).

    python3 -m venv /tmp/pdfvenv
    /tmp/pdfvenv/bin/pip install reportlab==5.1.0 pillow==13.0.0 fpdf2==2.8.9
    /tmp/pdfvenv/bin/python crates/trawl-extract/tests/pdf/make.py

Pinned: reportlab 5.1.0, pillow 13.0.0 (for the scanned page's image), fpdf2 2.8.9. Each `NAME.pdf` gets
a `NAME.words.json` beside it: the document's words in reading order (a table row by row,
left to right), which the crate comparison in BENCHMARKS.md scores each reader against.
The files are written with `invariant=1`, so a rerun gives the same bytes.
"""

import datetime
import io
import json
import os

from reportlab.lib import colors
from reportlab.lib.enums import TA_JUSTIFY
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfgen import canvas
from reportlab.platypus import (BaseDocTemplate, Frame, FrameBreak, PageTemplate, Paragraph,
                                SimpleDocTemplate, Spacer, Table, TableStyle)

HERE = os.path.dirname(os.path.abspath(__file__))
STYLES = getSampleStyleSheet()
BODY = STYLES["BodyText"]
JUSTIFIED = ParagraphStyle("justified", parent=BODY, alignment=TA_JUSTIFY)


def out(name):
    return os.path.join(HERE, name)


class Words:
    """The words of one document in reading order, collected as it is written."""

    def __init__(self):
        self.words = []

    def text(self, text):
        self.words.extend(text.split())
        return text

    def rows(self, rows):
        for row in rows:
            for cell in row:
                self.words.extend(str(cell).split())
        return rows

    def save(self, name):
        with open(out(name + ".words.json"), "w") as f:
            json.dump(self.words, f)
            f.write("\n")


SENTENCES = [
    "The harbour opens at dawn and the first boats leave before the tide turns.",
    "Fishermen mend their nets on the quay while the gulls wait for scraps.",
    "A ferry crosses to the island twice a day, weather permitting, with mail and bread.",
    "In winter the storms close the channel for days and the village lives on its stores.",
    "The lighthouse keeper writes the weather into a ledger every evening at six.",
    "Tourists come in summer for the cliffs, the seals and the smoked fish.",
    "The school has eleven pupils and one teacher who also runs the choir.",
    "Old charts in the museum show the sandbanks moving over three centuries.",
]


def paragraph_text(seed, sentences=4):
    return " ".join(SENTENCES[(seed + i) % len(SENTENCES)] for i in range(sentences))


def two_column():
    """An article in two columns of justified prose under a title spanning both."""
    words = Words()
    doc = BaseDocTemplate(out("two-column.pdf"), pagesize=A4, invariant=1,
                          title="Harbour life", author="trawl fixtures")
    width, height = A4
    margin = 20 * mm
    gutter = 8 * mm
    col = (width - 2 * margin - gutter) / 2
    title_h = 25 * mm
    body_h = height - 2 * margin - title_h
    frames = [
        Frame(margin, height - margin - title_h, width - 2 * margin, title_h, id="title"),
        Frame(margin, margin, col, body_h, id="left"),
        Frame(margin + col + gutter, margin, col, body_h, id="right"),
    ]
    later = [Frame(margin, margin, col, height - 2 * margin, id="l2"),
             Frame(margin + col + gutter, margin, col, height - 2 * margin, id="r2")]
    doc.addPageTemplates([PageTemplate("first", frames=frames, autoNextPageTemplate="later"),
                          PageTemplate("later", frames=later)])
    story = [Paragraph(words.text("Life in a small harbour town"), STYLES["Title"]), FrameBreak()]
    for i in range(14):
        story.append(Paragraph(words.text(paragraph_text(i, 5)), JUSTIFIED))
    doc.build(story)
    words.save("two-column")


def table_style(ruled):
    style = [
        ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
        ("ALIGN", (2, 1), (-1, -1), "RIGHT"),
    ]
    if ruled:
        style.append(("GRID", (0, 0), (-1, -1), 0.5, colors.black))
    return TableStyle(style)


STATIONS = [
    ["Station", "Region", "Rain mm", "Wind km/h"],
    ["North Point", "Coast", "12.5", "41"],
    ["Mill Hill", "Inland", "3.0", "12"],
    ["Harbour Light", "Coast", "18.25", "56"],
    ["Stone Cross", "Uplands", "7.75", "33"],
]


def tables_doc(name, ruled):
    """A heading, a paragraph, a table of stations, a paragraph after it."""
    words = Words()
    doc = SimpleDocTemplate(out(name + ".pdf"), pagesize=A4, invariant=1,
                            title="Weather stations")
    kind = "ruled" if ruled else "borderless"
    story = [
        Paragraph(words.text(f"Weather stations ({kind})"), STYLES["Heading1"]),
        Paragraph(words.text("Readings for the week, taken at noon by each station's keeper."),
                  BODY),
        Spacer(1, 6),
        Table(words.rows(STATIONS), style=table_style(ruled)),
        Spacer(1, 6),
        Paragraph(words.text("Wind speeds are the strongest gust of the week."), BODY),
    ]
    doc.build(story)
    words.save(name)


INVOICE_ITEMS = [
    ["Item", "Description", "Qty", "Unit price", "Amount"],
    ["HB-100", "Mooring rope, 20 m", "4", "35.00", "140.00"],
    ["HB-210", "Fender, large", "2", "48.50", "97.00"],
    ["HB-305", "Bilge pump service", "1", "120.00", "120.00"],
    ["HB-410", "Chart of the north channel", "3", "12.00", "36.00"],
]
INVOICE_TOTALS = [["Subtotal", "393.00"], ["VAT 20%", "78.60"], ["Total due", "471.60"]]


def invoice():
    """An invoice: sender, addressee, number and dates, items ruled under the header only,
    totals right-aligned without rules, payment terms."""
    words = Words()
    doc = SimpleDocTemplate(out("invoice.pdf"), pagesize=A4, invariant=1, title="Invoice")
    story = [
        Paragraph(words.text("Harbour Chandlery Ltd"), STYLES["Heading1"]),
        Paragraph(words.text("12 Quay Street, Porthaven"), BODY),
        Spacer(1, 12),
        Paragraph(words.text("Bill to: Island Ferries, Pier 3, Porthaven"), BODY),
        Paragraph(words.text("Invoice number: INV-2026-0142"), BODY),
        Paragraph(words.text("Invoice date: 2026-11-02"), BODY),
        Spacer(1, 12),
        Table(words.rows(INVOICE_ITEMS), colWidths=[22 * mm, 70 * mm, 14 * mm, 26 * mm, 26 * mm],
              style=TableStyle([
                  ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
                  ("LINEBELOW", (0, 0), (-1, 0), 1, colors.black),
                  ("LINEBELOW", (0, -1), (-1, -1), 0.5, colors.grey),
                  ("ALIGN", (2, 0), (-1, -1), "RIGHT"),
              ])),
        Spacer(1, 8),
        Table(words.rows(INVOICE_TOTALS), colWidths=[30 * mm, 26 * mm], hAlign="RIGHT",
              style=TableStyle([("ALIGN", (1, 0), (1, -1), "RIGHT"),
                                ("FONTNAME", (0, -1), (-1, -1), "Helvetica-Bold")])),
        Spacer(1, 12),
        Paragraph(words.text("Payment within 30 days to account 00412345, sort code 20-41-77."),
                  BODY),
    ]
    doc.build(story)
    words.save("invoice")


FORM_FIELDS = [
    ["Field", "Answer"],
    ["Full name", "Mara Quill"],
    ["Date of birth", "1988-04-17"],
    ["Vessel", "Grey Heron"],
    ["Licence class", "B (coastal)"],
    ["Signed", ""],
]


def form():
    """A filled-in application form: a ruled grid of labels and answers, with an empty
    answer left for a signature, and a tick-box line under it."""
    words = Words()
    doc = SimpleDocTemplate(out("form.pdf"), pagesize=A4, invariant=1,
                            title="Mooring licence application")
    story = [
        Paragraph(words.text("Mooring licence application"), STYLES["Heading1"]),
        Paragraph(words.text("Please write in capitals and sign at the end."), BODY),
        Spacer(1, 8),
        Table(words.rows(FORM_FIELDS), colWidths=[50 * mm, 80 * mm],
              rowHeights=[None] + [10 * mm] * (len(FORM_FIELDS) - 1),
              style=TableStyle([
                  ("BOX", (0, 0), (-1, -1), 1, colors.black),
                  ("INNERGRID", (0, 0), (-1, -1), 0.5, colors.black),
                  ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                  ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
              ])),
        Spacer(1, 10),
        Paragraph(words.text("Office use only: received and checked."), BODY),
    ]
    doc.build(story)
    words.save("form")


def date(day):
    return (datetime.date(2026, 10, 1) + datetime.timedelta(days=day - 1)).isoformat()


def statement():
    """A bank statement: summary lines, then a borderless transactions table (debit or
    credit left empty) long enough to run onto a second page, its header repeated."""
    words = Words()
    doc = SimpleDocTemplate(out("statement.pdf"), pagesize=A4, invariant=1,
                            title="Statement of account")
    header = ["Date", "Description", "Debit", "Credit", "Balance"]
    rows = [header]
    balance = 1250.00
    for day in range(1, 61):
        if day % 3 == 0:
            amount = 40.0 + day
            balance += amount
            rows.append([date(day), f"Transfer from savings {day}", "",
                         f"{amount:.2f}", f"{balance:.2f}"])
        else:
            amount = 5.25 * (day % 7 + 1)
            balance -= amount
            rows.append([date(day), f"Card payment shop {day}",
                         f"{amount:.2f}", "", f"{balance:.2f}"])
    story = [
        Paragraph(words.text("Statement of account"), STYLES["Heading1"]),
        Paragraph(words.text("Account 00412345, October and November 2026. Opening balance 1250.00."), BODY),
        Spacer(1, 8),
        Table(words.rows(rows), repeatRows=1,
              colWidths=[26 * mm, 64 * mm, 24 * mm, 24 * mm, 26 * mm],
              style=TableStyle([
                  ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
                  ("ALIGN", (2, 0), (-1, -1), "RIGHT"),
              ])),
        Spacer(1, 8),
        Paragraph(words.text(f"Closing balance {balance:.2f}."), BODY),
    ]
    # The header repeated on page 2 is not in the words: they score what a reader must
    # find, and a reader finding it twice loses nothing.
    doc.build(story)
    words.save("statement")


def long_report():
    """A 40-page report: numbered sections of justified prose, for speed and words."""
    words = Words()
    doc = SimpleDocTemplate(out("long-report.pdf"), pagesize=A4, invariant=1,
                            title="Annual harbour report")
    story = [Paragraph(words.text("Annual harbour report"), STYLES["Title"])]
    for section in range(1, 41):
        story.append(Paragraph(words.text(f"Section {section}: findings"), STYLES["Heading2"]))
        for p in range(5):
            story.append(Paragraph(words.text(paragraph_text(section + p, 6)), JUSTIFIED))
    doc.build(story)
    words.save("long-report")


def scanned():
    """A scanned page: one image of printed text and no text layer at all."""
    from PIL import Image, ImageDraw
    image = Image.new("L", (850, 1100), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(SENTENCES):
        draw.text((60, 80 + 40 * i), line, fill=0)
    png = io.BytesIO()
    image.save(png, format="PNG")
    png.seek(0)
    c = canvas.Canvas(out("scanned.pdf"), pagesize=A4, invariant=1)
    c.setTitle("Scanned letter")
    from reportlab.lib.utils import ImageReader
    c.drawImage(ImageReader(png), 0, 0, width=A4[0], height=A4[1])
    c.showPage()
    c.save()


def wrapped_cells():
    """A borderless table whose notes column wraps onto a second line in some rows, twice:
    cells aligned to the top, then to the bottom (reportlab's default)."""
    words = Words()
    doc = SimpleDocTemplate(out("wrapped-cells.pdf"), pagesize=A4, invariant=1,
                            title="Berth notes")
    notes = [
        ["Berth", "Length m", "Notes"],
        ["A1", "24", "Fuel on the quay"],
        ["A2", "18", "Shallow at low water, keep to the north side of the berth when leaving"],
        ["B1", "30", "Crane access"],
        ["B2", "12", "Small boats only, rafting allowed up to three deep in summer months"],
        ["C1", "40", "Ferry berth"],
    ]
    cell = ParagraphStyle("cell", parent=BODY, spaceBefore=0, spaceAfter=0)
    data = [[c if i < 2 or r == 0 else Paragraph(c, cell) for i, c in enumerate(row)]
            for r, row in enumerate(notes)]
    def table(valign):
        words.rows(notes)
        return Table(data, colWidths=[20 * mm, 22 * mm, 70 * mm], hAlign="LEFT",
                     style=TableStyle([("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
                                       ("VALIGN", (0, 0), (-1, -1), valign)]))
    story = [
        Paragraph(words.text("Berth notes"), STYLES["Heading1"]),
        table("TOP"),
        Spacer(1, 6),
        Paragraph(words.text("The same, aligned to the bottom:"), BODY),
        Spacer(1, 6),
        table("BOTTOM"),
        Spacer(1, 6),
        Paragraph(words.text("Ask the harbour master before mooring at C1."), BODY),
    ]
    doc.build(story)
    words.save("wrapped-cells")


PARTS = [
    ["Part", "Material", "Weight kg", "Price"],
    ["Anchor", "Galvanised steel", "15", "210.00"],
    ["Cleat", "Bronze", "0.8", "34.50"],
    ["Block", "Ash and brass", "1.2", "58.00"],
]


def fpdf_tables():
    """Two fpdf2 tables on one page: one with every cell bordered, one with no borders."""
    from fpdf import FPDF
    words = Words()
    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime.datetime(2026, 11, 1, tzinfo=datetime.timezone.utc))
    pdf.add_page()
    pdf.set_font("Helvetica", size=16)
    pdf.cell(text=words.text("Chandlery parts"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, words.text("Parts in stock this month, with their weights."),
                   new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    with pdf.table(borders_layout="ALL") as table:
        for row in words.rows(PARTS):
            table.row(row)
    pdf.ln(6)
    pdf.multi_cell(0, 6, words.text("The same parts, listed without borders:"),
                   new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    with pdf.table(borders_layout="NONE", text_align=("LEFT", "LEFT", "RIGHT", "RIGHT")) as table:
        for row in words.rows(PARTS):
            table.row(row)
    pdf.ln(4)
    pdf.multi_cell(0, 6, words.text("Prices include delivery to the quay."),
                   new_x="LMARGIN", new_y="NEXT")
    pdf.output(out("fpdf-tables.pdf"))
    words.save("fpdf-tables")


if __name__ == "__main__":
    two_column()
    tables_doc("ruled-table", ruled=True)
    tables_doc("borderless-table", ruled=False)
    invoice()
    form()
    statement()
    long_report()
    scanned()
    fpdf_tables()
    wrapped_cells()
