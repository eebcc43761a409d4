#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-exports.py NOTEBOOK HTML INPUT... — checks Reckon's exports of a
conversation (called by test-transcript-export, and with HTML "-", for the
notebook only, by test-notebook-readings):

1. the notebook validates with nbformat;
2. it re-runs with nbclient and ipykernel in a folder holding the same input
   files, to the same outputs: per code cell the same stdout, a table where a
   table was (with the same cells), a picture where a figure or chart was, the
   same error names;
3. the HTML report renders offline in headless Chromium: the DOM holds the
   table and the chart, and the screenshot (saved beside the report as
   report.png) shows the chart's bars.

Prints what it checked; exits 0, 1 on a failure, or 77 with "SKIP: reason"
when a tool is missing."""

import copy
import html as htmllib
import os
import re
import shutil
import subprocess
import sys
import tempfile


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(77)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def cells_of(html_text):
    """The texts of the data cells of the first HTML table, row by row."""
    body = re.search(r"<tbody>(.*?)</tbody>", html_text, re.S)
    rows = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1) if body else html_text, re.S):
        rows.append([htmllib.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                     for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)])
    return rows


def same_cell(a, b):
    """Two table cells say the same: the same text, or the same number
    written with other digits (Reckon writes 1234.5 where pandas' HTML pads
    its column to 1234.50, and pandas rounds to 6 decimals)."""
    if a == b:
        return True
    try:
        x, y = float(a.replace(",", "")), float(b.replace(",", ""))
    except ValueError:
        return False
    return abs(x - y) <= 1e-6 * max(1.0, abs(x), abs(y))


def same_table(a, b):
    return len(a) == len(b) and all(len(ra) == len(rb) and all(same_cell(x, y) for x, y in zip(ra, rb))
                                    for ra, rb in zip(a, b))


def summary(cell):
    """What a code cell's outputs amount to, comparable across runs."""
    out = {"stdout": "", "tables": [], "pictures": 0, "errors": []}
    for o in cell.get("outputs", []):
        kind = o["output_type"]
        if kind == "stream" and o["name"] == "stdout":
            out["stdout"] += o["text"]
        elif kind == "error":
            out["errors"].append(o["ename"])
        elif kind in ("display_data", "execute_result"):
            data = o.get("data", {})
            if "image/png" in data or "image/svg+xml" in data:
                out["pictures"] += 1
            elif "<table" in data.get("text/html", ""):
                out["tables"].append(cells_of(data["text/html"]))
    return out


def check_notebook(path, inputs):
    try:
        import nbformat
    except ImportError:
        skip("python3-nbformat is not installed")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    print("ok: the notebook validates with nbformat %s" % nbformat.__version__)

    try:
        import nbclient
        import nbclient.exceptions
    except ImportError:
        skip("python3-nbclient is not installed")
    try:
        import ipykernel  # noqa: F401
    except ImportError:
        skip("python3-ipykernel is not installed")

    work = tempfile.mkdtemp(prefix="rk-rerun-")
    try:
        for f in inputs:
            shutil.copy(f, work)
        rerun = copy.deepcopy(nb)
        client = nbclient.NotebookClient(rerun, timeout=180, kernel_name="python3",
                                         resources={"metadata": {"path": work}})
        try:
            client.execute()
        except nbclient.exceptions.CellExecutionError as e:
            fail("the re-run stopped at a cell that failed outside Reckon: %s: %s"
                 % (getattr(e, "ename", "?"), getattr(e, "evalue", e)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("ok: the notebook re-ran with nbclient %s" % nbclient.__version__)

    compared = 0
    for before, after in zip(nb.cells, rerun.cells):
        if before.cell_type != "code" or before.get("id") == "rk-prelude":
            continue
        a, b = summary(before), summary(after)
        if a["stdout"] != b["stdout"]:
            fail("cell %s printed %r, the re-run %r" % (before.id, a["stdout"], b["stdout"]))
        if a["errors"] != b["errors"]:
            fail("cell %s errors %r, the re-run %r" % (before.id, a["errors"], b["errors"]))
        if len(a["tables"]) != len(b["tables"]):
            fail("cell %s has %d tables, the re-run %d" % (before.id, len(a["tables"]), len(b["tables"])))
        for ta, tb in zip(a["tables"], b["tables"]):
            if not same_table(ta, tb):
                fail("cell %s: table %r, the re-run %r" % (before.id, ta, tb))
        if a["pictures"] != b["pictures"]:
            fail("cell %s has %d pictures, the re-run %d" % (before.id, a["pictures"], b["pictures"]))
        compared += 1
        print("ok: cell %s: same stdout (%d bytes), %d tables, pictures %d/%d"
              % (before.id, len(a["stdout"]), len(a["tables"]), a["pictures"], b["pictures"]))
    if compared < 2:
        fail("only %d code cells to compare" % compared)


def check_html(path):
    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if chromium is None:
        skip("chromium is not installed (Debian package chromium)")
    shot = os.path.join(os.path.dirname(os.path.abspath(path)), "report.png")
    profile = tempfile.mkdtemp(prefix="rk-chromium-")
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--user-data-dir=" + profile, "--no-first-run", "--disable-extensions",
             # offline: no name resolves
             "--host-resolver-rules=MAP * ~NOTFOUND", "--force-color-profile=srgb"]
    url = "file://" + os.path.abspath(path)
    try:
        dom = subprocess.run(flags + ["--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
        subprocess.run(flags + ["--window-size=1000,2200", "--screenshot=" + shot, url],
                       capture_output=True, timeout=120, check=True)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if '<table class="dataframe">' not in dom or "North" not in dom:
        fail("the rendered DOM has no table")
    if '<svg class="chart"' not in dom:
        fail("the rendered DOM has no chart")
    print("ok: Chromium rendered the report offline; its DOM has the table and the chart")

    try:
        from PIL import Image
    except ImportError:
        skip("python3-pil is not installed")
    img = Image.open(shot).convert("RGB")
    # the chart's first series (GNOME blue, light palette) and the table's header grey
    blue = sum(1 for p in img.getdata() if abs(p[0] - 28) < 12 and abs(p[1] - 113) < 12 and abs(p[2] - 216) < 12)
    if blue < 2000:
        fail("the screenshot shows no chart bars (%d blue pixels)" % blue)
    print("ok: the screenshot %s shows the chart (%d bar pixels)" % (shot, blue))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    check_notebook(sys.argv[1], sys.argv[3:])
    if sys.argv[2] != "-":
        check_html(sys.argv[2])


if __name__ == "__main__":
    main()
