#!/usr/bin/env python3
"""`plansim report` pages in a real headless browser (Debian chromium), CTest `browser.report`.

Usage: report_browser_test.py PLANSIM SOURCE_DIR. Exit 77 (CTest: Skipped) when chromium is absent.
Writes the run, lint and validate JSON of shipped inputs, makes one page of all three, then with
chromium --headless: (1) the page loads with no console message (a page with a console.error is
checked first, so the scan is known to catch one), (2) its key figures are in the DOM (--dump-dom),
(3) a screenshot is not blank (the PNG decoded here: many colours, a share of non-white pixels).
Everything lives in a temporary directory, chromium's profile and HOME included.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77


def chromium_binary():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run(cmd, ok=(0,), **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
    if p.returncode not in ok:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p


def chromium(browser, tmp, url, *extra):
    """One headless chromium run; returns (stdout, stderr)."""
    env = dict(os.environ, HOME=tmp)
    cmd = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-extensions", "--disable-background-networking", "--disable-sync",
           "--user-data-dir=" + os.path.join(tmp, "profile"), "--enable-logging=stderr", "--v=0",
           *extra, url]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=90, env=env)
    return p.stdout, p.stderr


def console_lines(stderr):
    return [l for l in stderr.splitlines() if "CONSOLE(" in l or ":CONSOLE" in l]


def png_pixels(path):
    """(width, height, set of colours, non-white count) of an 8-bit RGB/RGBA PNG (what chromium writes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("FAIL: the screenshot is not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", chunk[:10])
            if depth != 8 or ctype not in (2, 6):
                sys.exit(f"FAIL: unexpected PNG format depth {depth} type {ctype}")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours, non_white, i = set(), 0, 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp * 2):  # every other pixel is plenty
            px = bytes(line[x:x + 3])
            colours.add(px)
            if px != b"\xff\xff\xff":
                non_white += 1
        prev = line
    return width, height, colours, non_white


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report_browser_test.py PLANSIM SOURCE_DIR")
    plansim, src = sys.argv[1], sys.argv[2]
    browser = chromium_binary()
    if not browser:
        print("SKIP: chromium not installed (apt-get install chromium)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="plansim-browser-")
    try:
        r, l, v, page = (os.path.join(tmp, n) for n in ("r.json", "l.json", "v.json", "page.html"))
        run([plansim, "run", os.path.join(src, "scenarios/seed-pipeline-4x16.yaml"), "--json", r])
        run([plansim, "lint", os.path.join(src, "scenarios/antipatterns/pipeline-bubble.yaml"), "--json", l, "-j", "2"],
            ok=(1,))
        run([plansim, "validate", "--sim", os.path.join(src, "tests/data/validate/sim.json"), "--measured",
             os.path.join(src, "tests/data/validate/measured_close.json"), "--json", v])
        p = run([plansim, "report", r, l, v, "--out", page, "--title", "browser test <page>"])
        if p.stderr.strip():
            sys.exit("FAIL: plansim report said: " + p.stderr)
        run_doc, lint_doc = json.load(open(r)), json.load(open(l))

        # (1) The console scan catches a message on a page that logs one, and sees none on ours.
        bad = os.path.join(tmp, "bad.html")
        open(bad, "w").write("<!DOCTYPE html><html><body><script>console.error('planted error')</script></body></html>")
        _, err = chromium(browser, tmp, "file://" + bad, "--dump-dom")
        if not any("planted error" in l for l in console_lines(err)):
            sys.exit("FAIL: the console scan did not catch a planted console.error:\n" + err[-3000:])
        dom, err = chromium(browser, tmp, "file://" + page, "--dump-dom")
        if console_lines(err):
            sys.exit("FAIL: console messages on the page:\n" + "\n".join(console_lines(err)))

        # (2) The key figures are in the DOM, as the browser parsed it.
        expect = [
            f'<span class="iteration-time">{run_doc["iteration_time_s"]:.4f}</span>',
            f'<span class="mfu">{100 * run_doc["mfu"]:.1f}</span>',
            f'<code class="rule">{lint_doc["findings"][0]["rules"][0]}</code>',
            "<title>browser test &lt;page&gt;</title>",
            'class="validate"',
        ]
        for e in expect:
            if e not in dom:
                sys.exit(f"FAIL: not in the DOM: {e}")
        for picture in ("timeline", "memory", "breakdown"):
            start = dom.find(f'<figure id="s1-{picture}"')
            if start < 0 or "<svg" not in dom[start:dom.find("</figure>", start)]:
                sys.exit(f"FAIL: the {picture} picture has no <svg> in the DOM")

        # (3) A screenshot that is not blank.
        shot = os.path.join(tmp, "shot.png")
        chromium(browser, tmp, "file://" + page, "--screenshot=" + shot, "--window-size=1200,2000",
                 "--hide-scrollbars")
        if not os.path.exists(shot):
            sys.exit("FAIL: chromium wrote no screenshot")
        w, h, colours, non_white = png_pixels(shot)
        share = non_white / max(1, (w // 2) * h)
        print(f"screenshot {w}x{h}: {len(colours)} colours, {100 * share:.1f} % non-white")
        if len(colours) < 16 or share < 0.02:
            sys.exit("FAIL: the screenshot looks blank")
        print("PASS: page loads without console messages, key figures in the DOM, screenshot not blank")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
