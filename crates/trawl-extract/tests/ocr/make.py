"""Writes the OCR fixtures beside this file. Run with Debian's Python, Pillow and img2pdf:

    apt-get install -y python3-pil img2pdf fonts-dejavu-core
    /usr/bin/python3 crates/trawl-extract/tests/ocr/make.py

Made here with python3-pil 9.4.0, img2pdf 0.4.4 and DejaVu fonts 2.37 (Debian 12). Each text
fixture gets a `NAME.txt` beside it: the words that were rendered, in order, which the tests
score OCR's word recall against.
"""

import io
import os
import random
import struct
import zlib

import img2pdf
from PIL import Image, ImageDraw, ImageFilter, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"

PARAGRAPH = (
    "The harbour master opens the lock gates two hours before high water. Boats waiting "
    "in the outer basin should keep to the starboard side of the channel and listen on "
    "channel twelve for instructions. Fuel is sold on the north quay between eight in the "
    "morning and six in the evening, and fresh water is free at every pontoon. Visitors "
    "are asked to report to the office within an hour of arrival, with the name of the "
    "vessel, its length and the number of nights they intend to stay."
)

PAGES = [
    [
        "Tide tables for the coming season",
        "",
        "Spring tides this year fall on the first and third weeks of each month. The",
        "range at the harbour entrance reaches five metres, and the stream in the narrows",
        "runs at up to four knots on the ebb. Small craft should not attempt the bar",
        "within two hours of low water, when the depth over the sill drops below one metre.",
        "",
        "The lifeboat station keeps a printed copy of these tables at the slipway, and the",
        "chandlery sells a pocket edition with the times of sunrise and sunset.",
    ],
    [
        "Moorings and charges",
        "",
        "Swinging moorings in the river are let by the season, from April to October.",
        "A mooring for a boat under eight metres costs four hundred pounds, and each",
        "further metre adds sixty pounds. Winter storage ashore is arranged with the",
        "boatyard, which lifts boats on the spring tides of late October.",
        "",
        "Payment is due before the first of April. Members of the sailing club receive",
        "a discount of ten percent on the published rates.",
    ],
]


def out(name):
    return os.path.join(HERE, name)


def words_file(name, text):
    with open(out(name), "w") as f:
        f.write(" ".join(text.split()) + "\n")


def wrap(text, font, width, draw):
    lines, line = [], ""
    for word in text.split():
        trial = (line + " " + word).strip()
        if draw.textlength(trial, font=font) > width and line:
            lines.append(line)
            line = word
        else:
            line = trial
    lines.append(line)
    return lines


def paragraph():
    """A screenshot of a paragraph: dark grey text on an off-white background, as a
    browser or a chat window shows it."""
    font = ImageFont.truetype(SANS, 18)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    lines = wrap(PARAGRAPH, font, 760, probe)
    image = Image.new("RGB", (800, 40 + 28 * len(lines)), (250, 250, 247))
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((20, 20 + 28 * i), line, font=font, fill=(40, 40, 40))
    image.save(out("paragraph.png"), optimize=True)
    # The same screenshot as the other formats OCR takes: WebP (lossless) and TIFF (Deflate).
    image.save(out("paragraph.webp"), lossless=True)
    image.convert("L").save(out("paragraph.tif"), compression="tiff_deflate")
    words_file("paragraph.txt", PARAGRAPH)


def page_image(lines):
    """A printed page at 150 dpi (A4: 1240 x 1754), slightly rotated and blurred like a scan."""
    font = ImageFont.truetype(SERIF, 22)
    image = Image.new("L", (1240, 1754), 255)
    draw = ImageDraw.Draw(image)
    y = 90
    for line in lines:
        if line:
            draw.text((70, y), line, font=font, fill=20)
        y += 36
    image = image.rotate(0.4, resample=Image.BICUBIC, fillcolor=255)
    return image.filter(ImageFilter.GaussianBlur(0.6))


def scan():
    """Two scanned pages as an image-only PDF: the first a PNG (Flate in the PDF), the
    second a JPEG (DCT), as scanners write either."""
    first, second = io.BytesIO(), io.BytesIO()
    page_image(PAGES[0]).save(first, format="PNG", optimize=True)
    page_image(PAGES[1]).save(second, format="JPEG", quality=60)
    # A fixed date keeps the bytes the same on a rerun.
    with open(out("scan.pdf"), "wb") as f:
        f.write(img2pdf.convert([first.getvalue(), second.getvalue()], nodate=True))
    words_file("scan.txt", " ".join(" ".join(page) for page in PAGES))


def photo():
    """A photo without text: soft colour gradients and blurred blobs, saved as a JPEG with
    the EXIF a phone writes (date, camera, GPS position)."""
    rng = random.Random(44)
    image = Image.new("RGB", (640, 480))
    pixels = image.load()
    for y in range(480):
        for x in range(640):
            pixels[x, y] = (90 + x // 8, 140 + y // 10, 200 - y // 6)
    draw = ImageDraw.Draw(image)
    for _ in range(12):
        x, y, r = rng.randrange(640), rng.randrange(480), rng.randrange(20, 90)
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    image = image.filter(ImageFilter.GaussianBlur(12))
    exif = Image.Exif()
    exif[0x010F] = "Harbourcam"  # Make
    exif[0x0110] = "HC-2"  # Model
    exif[0x0132] = "2026:06:21 07:45:00"  # DateTime
    exif[0x010E] = "Boats leaving the harbour on the morning tide"  # ImageDescription
    exif[0x013B] = "Harbour Office"  # Artist
    exif[0x9C9B] = "The harbour at dawn".encode("utf-16-le") + b"\0\0"  # XPTitle (Windows)
    # Sub-IFDs are given whole: Pillow 9.4 does not write one filled through get_ifd().
    exif[0x8769] = {0x9003: "2026:06:21 07:44:59"}  # Exif IFD: DateTimeOriginal
    exif[0x8825] = {  # GPS IFD: 50°9'30" N, 4°12' W
        1: "N",
        2: (50.0, 9.0, 30.0),
        3: "W",
        4: (4.0, 12.0, 0.0),
    }
    image.save(out("photo.jpg"), quality=70, exif=exif)


def huge_png():
    """A valid PNG of 20,000 x 20,000 black-and-white pixels in 49 KB: 400 million pixels
    once decoded, to be refused from its header."""
    width = height = 20000

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    row = b"\x00" + b"\x00" * ((width + 7) // 8)
    raw = zlib.compressobj(9)
    data = b"".join(raw.compress(row) for _ in range(height)) + raw.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    with open(out("huge.png"), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data)
                + chunk(b"IEND", b""))


paragraph()
scan()
photo()
huge_png()
