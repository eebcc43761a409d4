#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-analyses-tables.py — one-click analyses on files that hold several
tables, in the real app through AT-SPI with no model server: a workbook
with two sheets and a PDF with a table on each of two pages. reckon.load
gives such a file as a dict of tables, so the analysis must name the table
the card shows (its first): "Summary statistics" then gives pandas'
describe() of that table, and the card says which table that is. Each step
saves a screenshot, checked to be non-blank."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, TapSuite, RECKON_APP, wait_for  # noqa: E402

t = TapSuite()
work = tempfile.mkdtemp(prefix="rk-ui-analyses-")
book = os.path.join(work, "stations.xlsx")
pdf = os.path.join(work, "survey.pdf")

# Made here, with values nobody has to guess: the first sheet and the first
# PDF table are the ones the card shows.
subprocess.run(["/usr/bin/python3", "-c", r'''
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.backends.backend_pdf import PdfPages
import pandas as pd

book, pdf = sys.argv[1:3]
with pd.ExcelWriter(book, engine="openpyxl") as w:
    pd.DataFrame({"station": ["Alpha", "Bravo", "Charlie", "Delta", "Echo"],
                  "rain_mm": [12.5, 40.0, 7.25, 19.0, 33.5]}).to_excel(w, sheet_name="Rain", index=False)
    pd.DataFrame({"note": ["x", "y"]}).to_excel(w, sheet_name="Notes", index=False)

with PdfPages(pdf) as p:
    for title, rows in (("Table 1", [("Site", "Count"), ("North", "17"), ("South", "29"),
                                     ("East", "41"), ("West", "53")]),
                        ("Table 2", [("Kind", "Weight"), ("Oak", "7"), ("Elm", "9"), ("Ash", "12")])):
        fig = plt.figure(figsize=(8.27, 11.69))
        fig.text(0.1, 0.9, title, fontsize=14)
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                fig.text(0.1 + 0.3 * c, 0.8 - 0.03 * r, cell, fontsize=11, family="monospace")
        p.savefig(fig)
        plt.close(fig)
''', book, pdf], check=True)

EXPECTED = {
    "stations.xlsx": {"rain_mm": [5, 22.45, 13.8929, 7.25, 12.5, 19.0, 33.5, 40.0]},
    "survey.pdf": {"Count": [4, 35.0, 15.4919, 17, 26, 35, 44, 53]},
}
app = App(settings={"endpoint": "http://127.0.0.1:9", "api-kind": "openai"})


def shot(name):
    path, colors = app.screenshot(f"analyses-{name}")
    t.ok(colors > 16, f"screenshot {name} is not blank ({colors} colours)", path)


def summary_of(path, card_text):
    name = os.path.basename(path)
    subprocess.run([RECKON_APP, path], env=app.env, timeout=60, check=False)
    try:
        wait_for(lambda: any(card_text in s for s in app.texts()), 60, f"the card of {name}")
        t.ok(True, f"the card of {name} says which table it shows ({card_text!r})")
    except TimeoutError as e:
        t.ok(False, f"the card of {name} says which table it shows ({card_text!r})", e)
    try:
        # The newest card's Analyse button: the last one in the window.
        buttons = [n for n in app.find_all(pyatspi.ROLE_TOGGLE_BUTTON) if n.name == "Analyse"] or \
                  [n for n in app.find_all(pyatspi.ROLE_PUSH_BUTTON) if n.name == "Analyse"]
        if buttons:
            app.press("Analyse", root=buttons[-1].parent)
        else:
            app.press("Analyse")
        app.press("Summary statistics")
        try:
            app.click("Run", timeout=30)
        except TimeoutError:
            pass
        want = EXPECTED[name]

        def missing_values():
            shown = app.numbers_in(app.find_all(pyatspi.ROLE_TABLE_CELL))
            return [(c, v) for c, values in want.items() for v in values
                    if not any(abs(s - v) <= 0.001 * max(1.0, abs(v)) for s in shown)]
        try:
            wait_for(lambda: not missing_values(), 90, f"the statistics of {name}")
        except TimeoutError:
            pass
        missing = missing_values()
        t.ok(not missing, f"Summary statistics of {name} is pandas' describe() of its first table",
             f"missing: {missing}; error shown: {[s for s in app.texts() if 'Error' in s][:2]}")
    except TimeoutError as e:
        t.ok(False, f"Summary statistics of {name} is pandas' describe() of its first table",
             f"{e}; texts with Error: {[s for s in app.texts() if 'Error' in s][:3]}")
    shot(os.path.splitext(name)[0])


try:
    app.start(timeout=60)
    t.ok(True, "the window appears on the accessibility bus")
    summary_of(book, "first sheet “Rain”")
    t.ok(any(s.strip() == "2 sheets" for s in app.texts()), "the sidebar says the workbook has 2 sheets")
    summary_of(pdf, "first table, “page 1”")
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
t.done()
