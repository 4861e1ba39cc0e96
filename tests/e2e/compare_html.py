#!/usr/bin/env python3
"""`netloom compare`'s HTML report in a real browser (issue 15).

Usage: compare_html.py NETLOOM SOURCE_ROOT        run a study, check its page
       compare_html.py --check DIR                check DIR/index.html only

Headless Chromium (Debian's `chromium`) renders DIR/index.html: the
screenshot must not be blank (non-white pixels counted from the PNG,
decoded with zlib alone), every <svg> of the rendered DOM must have drawn
content, ids must be unique in the page (each <svg>'s references to its
own), every table must have rows, and every figure of the tables (a
<span data-k=PATH data-v=VALUE>) must equal report.json's value at PATH,
as written and as shown; report.json's main figures must all be on the
page. Without gnuplot on PATH the page must keep its tables and say where
each plot would be. Exit 0 pass, 1 fail, 77 skip (no chromium).
"""
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL:", msg)


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB/RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6) or body[12] != 0:
                raise ValueError(f"PNG depth {depth} colour type {ctype} interlace {body[12]}: expected 8-bit "
                                 "RGB or RGBA, not interlaced")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def non_white_share(path):
    w, h, bpp, rows = png_pixels(path)
    n = 0
    for line in rows:
        for x in range(0, w * bpp, bpp):
            if line[x] < 240 or line[x + 1] < 240 or line[x + 2] < 240:
                n += 1
    return n / (w * h)


class Dom(html.parser.HTMLParser):
    """The rendered DOM: svgs with their drawn elements, tables with their
    rows, and the figures (data-k, data-v, shown text)."""

    def __init__(self):
        super().__init__()
        self.svgs, self.tables, self.figures, self.notes = [], [], [], []
        self.in_svg = self.in_table = None
        self.fig = None
        self.note = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.in_svg = {"drawn": 0}
            self.svgs.append(self.in_svg)
        elif self.in_svg is not None and tag in ("path", "line", "polyline", "polygon", "rect", "circle"):
            if any(a.get(k) for k in ("d", "points", "x2", "width", "r")):
                self.in_svg["drawn"] += 1
        if tag == "table":
            self.in_table = {"id": a.get("id"), "rows": 0, "cells": 0}
            self.tables.append(self.in_table)
        elif tag == "tr" and self.in_table is not None:
            self.in_table["rows"] += 1
        elif tag == "td" and self.in_table is not None:
            self.in_table["cells"] += 1
        if tag == "span" and "data-k" in a:
            self.fig = [a["data-k"], a.get("data-v"), ""]
            self.figures.append(self.fig)
        if tag == "p" and "noplot" in (a.get("class") or ""):
            self.note = [""]
            self.notes.append(self.note)

    def handle_endtag(self, tag):
        if tag == "svg":
            self.in_svg = None
        elif tag == "table":
            self.in_table = None
        elif tag == "span":
            self.fig = None
        elif tag == "p":
            self.note = None

    def handle_data(self, data):
        if self.fig is not None:
            self.fig[2] += data
        if self.note is not None:
            self.note[0] += data


def at(doc, path):
    for part in path.split("/"):
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def chromium(*args):
    return subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
                          capture_output=True, text=True, timeout=120)


TABLES = ("runtime", "systems", "links", "execution")


def check(d, want_svgs=5):
    page = os.path.join(d, "index.html")
    url = "file://" + os.path.abspath(page)
    rep = json.load(open(os.path.join(d, "report.json")))
    shot = os.path.join(d, "shot.png")
    r = chromium("--screenshot=" + shot, "--window-size=1000,2400", url)
    if not os.path.exists(shot):
        fail(f"chromium wrote no screenshot: {r.stderr.strip()[-300:]}")
    else:
        share = non_white_share(shot)
        print(f"screenshot: {100 * share:.1f}% non-white pixels")
        if share < 0.02:
            fail(f"screenshot nearly blank: {100 * share:.2f}% non-white pixels")
    # Ids unique in the page (HTML: "The id attribute"), each reference
    # to one within its own <svg>: every gnuplot plot defined 'gpPt0'..,
    # 'gnuplot_canvas', ..., so the page held each id five times.
    src = open(page, encoding="utf-8").read()
    ids = re.findall(r"""\sid=['"]([^'"]*)['"]""", src)
    dups = sorted({i for i in ids if ids.count(i) > 1})
    if dups:
        fail(f"{len(dups)} ids defined more than once in the page: {dups[:6]}")
    for n, svg in enumerate(re.findall(r"<svg.*?</svg>", src, flags=re.S)):
        own = set(re.findall(r"""\sid=['"]([^'"]*)['"]""", svg))
        refs = set(re.findall(r"""(?:href=['"]#|url\(#)([^'")]*)""", svg))
        if refs - own:
            fail(f"<svg> #{n}: references to ids it does not define: {sorted(refs - own)[:6]}")
    r = chromium("--dump-dom", url)
    dom = Dom()
    dom.feed(r.stdout)
    if len(dom.svgs) != want_svgs:
        fail(f"{len(dom.svgs)} <svg> in the rendered DOM, expected {want_svgs}")
    for i, s in enumerate(dom.svgs):
        if s["drawn"] < 5:
            fail(f"<svg> #{i}: {s['drawn']} drawn elements, expected a plot")
    if want_svgs == 0 and len(dom.notes) != 5:
        fail(f"{len(dom.notes)} notes in place of plots, expected 5: {dom.notes}")
    ids = [t["id"] for t in dom.tables]
    if tuple(ids) != TABLES:
        fail(f"tables {ids}, expected {list(TABLES)}")
    for t in dom.tables:
        if t["rows"] < 2 or t["cells"] < 1:
            fail(f"table {t['id']}: {t['rows']} rows, {t['cells']} cells")
    seen = set()
    for k, v, text in dom.figures:
        try:
            want = at(rep, k)
        except (KeyError, IndexError, ValueError, TypeError):
            fail(f"figure {k}: no such value in report.json")
            continue
        seen.add(k)
        if want is None:
            if v != "null" or text != "n/a":
                fail(f"figure {k}: report.json null, page {v!r} {text!r}")
            continue
        if float(v) != float(want):
            fail(f"figure {k}: data-v {v}, report.json {want!r}")
        m = re.match(r"\s*(-?[0-9.]+(?:e[-+]?[0-9]+)?)", text)
        scaled = want * 100 if text.endswith("%") else want
        if not m:
            fail(f"figure {k}: shown {text!r}, report.json {want!r}")
            continue
        num = m.group(1)
        # What the shown digits can round away: half a unit of the last one.
        if "e" in num:
            tol = abs(scaled) * 1e-5
        else:
            tol = 0.5 * 10 ** -(len(num.split(".")[1]) if "." in num else 0) * 1.0001
        if abs(float(num) - scaled) > tol:
            fail(f"figure {k}: shown {text!r}, report.json {want!r}")
    # The other way: report.json's figures are all on the page.
    want_keys = []
    for i, c in enumerate(rep["cells"]):
        if c["status"] == "ok":
            want_keys += [f"cells/{i}/{k}" for k in ("runtime_s", "runtime_min_s", "runtime_max_s",
                                                     "slowdown_vs_best", "comm_share")]
        want_keys += [f"cells/{i}/busiest_links/top/{j}/{k}" for j in
                      range(len(c["busiest_links"].get("top", []))) for k in ("use", "share", "router")]
    for i in range(len(rep["systems"])):
        want_keys += [f"systems/{i}/{k}" for k in ("relative_runtime", "cost_usd", "power_w", "perf_per_musd",
                                                   "perf_per_kw", "cables/length_m")]
    want_keys += ["execution/simulations_executed", "execution/cost_evaluations"]
    missing = [k for k in want_keys if k not in seen]
    if missing:
        fail(f"report.json figures not on the page: {missing[:8]}")
    print(f"{len(dom.svgs)} svg, {len(dom.tables)} tables, {len(dom.figures)} figures checked")


STUDY = """[study]
backend = analytic
seeds = 2
reference = torus
[system torus]
topology = torus:k=4x4
routing_function = dor
link_model = links
[system fattree]
topology = fattree:k=4,n=2
link_model = links
[system flex]
topology = flex:nx=2,ny=2,nz=3,p=2
[workload lammps]
trace = {s}/lammps-lj-8.nlt
weight = 2
placement = random-node
[workload hpcc]
trace = {s}/hpcc-8.nlt
"""


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        if not shutil.which("chromium"):
            print("SKIP: chromium not found"); return 77
        check(sys.argv[2], int(os.environ.get("WANT_SVGS", "5")))
        return 1 if FAILS else 0
    netloom, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not shutil.which("chromium"):
        print("SKIP: headless Chromium not found on PATH (Debian package 'chromium', scripts/deps.sh); "
              "the HTML report is not checked in a browser")
        return 77
    tmp = tempfile.mkdtemp(prefix="nl-compare-html-")
    study = os.path.join(tmp, "study.ini")
    open(study, "w").write(STUDY.format(s=os.path.join(root, "traces", "samples")))
    out = os.path.join(tmp, "r")
    r = subprocess.run([netloom, "compare", study, "-o", out, "-j", "2"], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"netloom compare: exit {r.returncode}: {r.stderr.strip()}")
        return 1
    if shutil.which("gnuplot"):
        check(out, 5)
    else:
        print("note: gnuplot not on PATH: only the page without plots is checked")
    # Without gnuplot: the tables, and a note in place of each plot.
    out2 = os.path.join(tmp, "noplot")
    env = dict(os.environ, PATH=os.path.join(tmp, "empty-path"))
    r = subprocess.run([netloom, "compare", study, "-o", out2], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        fail(f"netloom compare without gnuplot: exit {r.returncode}: {r.stderr.strip()}")
    else:
        check(out2, 0)
    if not FAILS:
        shutil.rmtree(tmp)
        print("compare_html: all checks passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
