#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-results.py — issue 8's results in the real app through AT-SPI, with
no model server running: a CSV added, "Summary statistics" from its file
card gives a table whose values are pandas' describe(); "Distribution of each
number column" gives charts whose values are read with the keyboard from
the chart's readout under the pointer; the artifact shelf lists the results; Save all to a zip
(through the file chooser) holds them and provenance.json naming the cell and
the input's SHA-256. Each step saves a screenshot, checked to be non-blank."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, TapSuite, RECKON_APP, key, wait_for, walk  # noqa: E402

t = TapSuite()
work = tempfile.mkdtemp(prefix="rk-ui-results-")
csv_path = os.path.join(work, "sales.csv")
with open(csv_path, "w") as f:
    f.write("region,units,price\n")
    for i, region in enumerate(["North", "South", "East", "West"] * 6):
        f.write(f"{region},{(i * 37) % 200 + 10},{(i * 13) % 50 / 4 + 5}\n")

expected = json.loads(subprocess.run(
    ["/usr/bin/python3", "-c",
     "import sys, json, pandas as pd\n"
     "d = pd.read_csv(sys.argv[1]).describe()\n"
     "print(json.dumps({c: list(d[c]) for c in d.columns}))\n", csv_path],
    capture_output=True, text=True, check=True).stdout)
sha = hashlib.sha256(open(csv_path, "rb").read()).hexdigest()

# No model server: an endpoint where nothing listens.
app = App(settings={"endpoint": "http://127.0.0.1:9", "api-kind": "openai"})


def shot(name):
    path, colors = app.screenshot(f"results-{name}")
    t.ok(colors > 16, f"screenshot {name} is not blank ({colors} colours)", path)


def pick_menu_item(label):
    app.press(label, timeout=20)


try:
    app.start(timeout=60)
    t.ok(True, "the window appears on the accessibility bus")

    subprocess.run([RECKON_APP, csv_path], env=app.env, timeout=60, check=False)
    try:
        wait_for(lambda: any("24 rows" in s for s in app.texts()), 60, "the file card's profile")
        t.ok(True, "the file card shows sales.csv, profiled with no model")
    except TimeoutError as e:
        t.ok(False, "the file card shows sales.csv, profiled with no model", e)
    shot("file")

    # -- Summary statistics, one click, no model --
    try:
        app.press("Analyse")
        pick_menu_item("Summary statistics")
        try:
            app.click("Run", timeout=30)       # the usual approval path
        except TimeoutError:
            pass                               # "run without asking" is on
        cells = wait_for(lambda: [c for c in app.find_all(pyatspi.ROLE_TABLE_CELL)], 90, "table cells")
        wait_for(lambda: len(app.numbers_in(app.find_all(pyatspi.ROLE_TABLE_CELL))) >= 16, 30, "the statistics")
        shown = app.numbers_in(app.find_all(pyatspi.ROLE_TABLE_CELL))
        missing = []
        for column, values in expected.items():
            for v in values:
                if not any(abs(s - v) <= 0.005 * max(1.0, abs(v)) for s in shown):
                    missing.append((column, v))
        t.ok(not missing, "Summary statistics shows pandas' describe() values", f"missing: {missing}")
    except TimeoutError as e:
        t.ok(False, "Summary statistics shows pandas' describe() values", e)
    shot("summary")

    # -- a chart, read with the keyboard --
    try:
        app.press("Analyse")
        pick_menu_item("Distribution of each number column")
        try:
            app.click("Run", timeout=30)
        except TimeoutError:
            pass
        # the chart itself (the shelf has a row of that name too): its
        # description is the text summary of the chart
        app.find("Distribution of units", None, timeout=90)
        charts = []
        walk(app.root, lambda n: charts.append(n) if n.name == "Distribution of units"
             and (n.description or "").startswith("Histogram") else None)
        if not charts:
            raise TimeoutError("no chart described as a histogram")
        chart = charts[-1]
        t.ok("from" in chart.description, f"the chart describes itself: {chart.description!r}")
        x, y, w, h = chart.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        if w <= 0 or h <= 0:
            raise TimeoutError("the chart has no extents on the accessibility bus")
        # the pointer over a bin (the chat may have scrolled the chart's top
        # out of view: its lower part, the plot just above the axis, shows)
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h * 3 // 4)], check=True)
        try:
            readout = wait_for(lambda: [s for s in app.texts() if "count:" in s], 20, "the point's values")
        except TimeoutError as e:
            raise TimeoutError(f"{e}; chart extents {x},{y} {w}x{h}")
        t.ok(True, f"hovering a bin shows its values on the accessibility bus: {readout[0]!r}")
    except (TimeoutError, NotImplementedError, subprocess.CalledProcessError) as e:
        t.ok(False, "hovering a bin shows its values on the accessibility bus", e)
    shot("chart")

    # -- the shelf and Save all --
    try:
        wait_for(lambda: app.exists("Save all"), 20, "Save all")
        t.ok(any(s.strip() == "summary" for s in app.texts()) and any("Table" in s for s in app.texts()),
             "the artifact shelf lists the table under its name, summary")
        app.press("Save all")
        pick_menu_item("Save All as Zip…")
        dest = os.path.join(work, "results.zip")
        # the chooser opens with its name field focused: type the whole path
        wait_for(lambda: app.exists("Cancel"), 30, "the file chooser")
        key("ctrl+a")
        subprocess.run(["xdotool", "type", "--delay", "20", dest], check=True)
        key("Return")
        wait_for(lambda: os.path.exists(dest), 60, "the zip")
        with zipfile.ZipFile(dest) as z:
            names = z.namelist()
            prov = json.loads(z.read("provenance.json"))
        t.ok(any(n.endswith(".csv") for n in names) and any(n.endswith(".svg") for n in names),
             "the zip holds the tables as CSV and the charts as SVG", names)
        first = prov["artifacts"][-1]
        t.ok(first["cell_number"] >= 1 and "describe" in (first["code"] or "")
             and first["inputs"] and first["inputs"][0]["sha256"] == sha,
             "provenance.json names the cell, its code and the input's SHA-256", first)
    except (TimeoutError, KeyError, IndexError, zipfile.BadZipFile) as e:
        t.ok(False, "Save all writes a zip with provenance.json", e)
    shot("saved")
finally:
    app.quit()
    app.cleanup()
    shutil.rmtree(work, ignore_errors=True)
t.done()
