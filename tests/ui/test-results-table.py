#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-results-table.py — the table and chart views of issue 8 in the real
app through AT-SPI, with no model server: typed Python (Run Python) leaves a
1,000,000-row DataFrame, a small one and a bar chart. In the table's own
window a click on a column header sorts the million rows (ascending, then
descending) and the first row shows the smallest, then the largest value;
three rows selected with the pointer and copied give the TSV block on the
clipboard (read by a separate GTK client on the same display); the small
table saved as XLSX through the file chooser reads back with openpyxl; the
chart saved as SVG through the file chooser is SVG whose bars have the
heights of the data and whose glyphs spell its title. Each step saves a screenshot, checked to be non-blank."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, TapSuite, do_action, find_node, key, wait_for, walk  # noqa: E402

N = 1_000_000
CITIES = ["Oslo", "Lima", "Pune", "Kyiv"]
TEMPS = [4.5, 19.25, 27.0, 8.75]
RAIN = [763, 16, 722, 649]
CHART_TITLE = "Temperature by city"
CODE = f"""import numpy as np, pandas as pd
i = np.arange({N})
big = pd.DataFrame({{'id': i, 'score': ((i + 1) * 7919) % 1000003 + 0.5}})
small = pd.DataFrame({{'city': {CITIES!r}, 'temp': {TEMPS!r}, 'rain': {RAIN!r}}})
reckon.show(small, name='small')
reckon.chart(small, kind='bar', x='city', y='temp', title={CHART_TITLE!r})
big"""

# The same million rows here, to know the first rows of each order.
ids = np.arange(N)
scores = ((ids + 1) * 7919) % 1000003 + 0.5
ascending = np.argsort(scores, kind="stable")
ASC_FIRST = [str(int(ids[ascending[0]])), f"{scores[ascending[0]]:.1f}"]
DESC_ROWS = [[str(int(ids[k])), f"{scores[k]:.1f}"] for k in ascending[::-1][:3]]

# Reads the CLIPBOARD selection as text, as another app pasting would.
CLIPBOARD_READER = """
import gi, sys
gi.require_version('Gdk', '4.0')
gi.require_version('Gtk', '4.0')
from gi.repository import Gdk, GLib, Gtk
Gtk.init()
loop = GLib.MainLoop()
result = {}
def done(clipboard, res):
    try:
        result['text'] = clipboard.read_text_finish(res)
    except GLib.Error as e:
        result['error'] = e.message
    loop.quit()
Gdk.Display.get_default().get_clipboard().read_text_async(None, done)
GLib.timeout_add_seconds(10, loop.quit)
loop.run()
if 'text' not in result or result['text'] is None:
    sys.exit('no text on the clipboard: ' + result.get('error', 'timed out'))
sys.stdout.write(result['text'])
"""

t = TapSuite()
work = tempfile.mkdtemp(prefix="rk-ui-table-")
# No model server: an endpoint where nothing listens.
app = App(settings={"endpoint": "http://127.0.0.1:9", "api-kind": "openai"})


def shot(name):
    path, colors = app.screenshot(f"results-table-{name}")
    t.ok(colors > 16, f"screenshot {name} is not blank ({colors} colours)", path)


def check(name, fn):
    try:
        detail = fn()
        t.ok(True, name + (f": {detail}" if detail else ""))
    except Exception as e:   # a failed check, or a node gone from the bus
        t.ok(False, name, f"{type(e).__name__}: {e}")


def x_windows():
    out = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(app.proc.pid)],
                         capture_output=True, text=True).stdout
    return set(out.split())


def toplevel(name, timeout=20):
    def look():
        for i in range(app.root.childCount):
            node = app.root.getChildAtIndex(i)
            if node is not None and node.name == name:
                return node
        return None
    return wait_for(look, timeout, f"the window {name!r}")


def extents(node):
    # GTK 4.8 has window coordinates only (asking for screen ones logs a
    # warning each time); with no window manager every window is at 0,0.
    return node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)


def click_at(node, modifier=None):
    e = extents(node)
    cmd = ["xdotool", "mousemove", str(e.x + e.width // 2), str(e.y + e.height // 2)]
    if modifier:
        cmd += ["keydown", modifier, "click", "1", "keyup", modifier]
    else:
        cmd += ["click", "1"]
    subprocess.run(cmd, check=True, timeout=10)


def first_named(root, name, role=None):
    node = find_node(root, name, role)
    if node is None:
        raise TimeoutError(f"no {name!r} in the window")
    return node


def column_list(frame):
    """The list of rows of the table in @frame (its direct children are rows)."""
    found = []
    walk(frame, lambda n: found.append(n) if not found and n.name == "GtkColumnListView" else None)
    if not found:
        raise TimeoutError("no rows in the table's window")
    return found[0]


def shown_rows(rows):
    """The rows on screen, top to bottom, as (row node, [cell texts]).
    GtkListView keeps rows beyond the view too: those have no height."""
    out = []
    for k in range(rows.childCount):
        try:
            row = rows.getChildAtIndex(k)
            e = extents(row)
            if e.height <= 0:
                continue
            cells = []
            for j in range(row.childCount):
                cell = row.getChildAtIndex(j)
                label = cell.getChildAtIndex(0) if cell.childCount else cell
                cells.append(label.name)
            out.append((e.y, row, cells))
        except Exception:   # a row recycled while it is read
            continue
    return [(row, cells) for _, row, cells in sorted(out, key=lambda r: r[0])]


def wait_first_row(rows, expected, timeout, what):
    def look():
        r = shown_rows(rows)
        return r if r and r[0][1] == expected else None
    try:
        return wait_for(look, timeout, what)
    except TimeoutError as e:
        r = shown_rows(rows)
        raise TimeoutError(f"{e}; the first rows are {[c for _, c in r[:3]]}")


def open_window(panel_name, button, title):
    """Activates @button in the chat's result named @panel_name and returns
    the AT-SPI frame and X window of the window it opens."""
    panels = [n for n in app.find_all(pyatspi.ROLE_PANEL) if n.name == panel_name]
    if not panels:
        raise TimeoutError(f"no result named {panel_name!r} in the chat")
    before = x_windows()
    do_action(first_named(panels[0], button, pyatspi.ROLE_PUSH_BUTTON))
    xid = sorted(wait_for(lambda: x_windows() - before, 20, f"the window of {panel_name!r}"))[-1]
    frame = toplevel(title)
    return frame, xid


def close_window(frame, xid):
    do_action(first_named(frame, "Close", pyatspi.ROLE_PUSH_BUTTON))
    wait_for(lambda: xid not in x_windows(), 20, "the window to close")
    time.sleep(0.5)


def save_through_chooser(frame, menu_button, item, dest):
    """Save menu → item → the file chooser (GTK's own dialog: no portal under
    the test) → the whole path typed into its name field → Return."""
    app.press(menu_button, root=frame, timeout=20)
    before = x_windows()
    app.press(item, timeout=20)
    chooser = wait_for(lambda: x_windows() - before, 20, "the file chooser")
    subprocess.run(["xdotool", "windowfocus", "--sync", sorted(chooser)[-1]], check=True, timeout=10)
    time.sleep(0.8)
    key("ctrl+a")
    subprocess.run(["xdotool", "type", "--delay", "20", dest], check=True)
    key("Return")
    # Read the tree only once the chooser has gone: GTK 4.8 can crash when
    # the accessibility tree of a closing file chooser is read.
    wait_for(lambda: not (x_windows() & chooser), 20, "the file chooser to close")
    time.sleep(0.5)
    wait_for(lambda: os.path.exists(dest) and os.path.getsize(dest) > 0, 30, f"{os.path.basename(dest)} written")


def svg_bars(path):
    """The root of a cairo SVG and the heights of its filled axis-aligned
    rectangles (rect elements, or a path's closed four-corner subpaths), by fill."""
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", f"the root element is {root.tag}"
    bars = {}
    for el in root.iter():
        tag = el.tag.split("}")[-1]
        style = dict(kv.strip().split(":", 1) for kv in (el.get("style") or "").split(";") if ":" in kv)
        fill = style.get("fill", el.get("fill", "none"))
        if fill == "none" or tag not in ("rect", "path"):
            continue
        if tag == "rect":
            bars.setdefault(fill, []).append(float(el.get("height", "0")))
            continue
        d = el.get("d", "")
        if "C" in d:
            continue
        for sub in d.split("M")[1:]:
            nums = [float(x) for x in sub.replace("L", " ").replace("Z", " ").split()]
            if len(nums) != 8:
                continue
            xs, ys = nums[0::2], nums[1::2]
            if len(set(xs)) == 2 and len(set(ys)) == 2:
                bars.setdefault(fill, []).append(max(ys) - min(ys))
    return root, bars


def svg_draws_text(root, text):
    """Whether a run of glyphs in a cairo SVG spells @text: cairo draws text
    as glyph outlines, one <use> of a glyph's symbol per character, so a run
    spells it when it is as long and the same characters (and only those)
    are the same glyph."""
    for group in root.iter("{http://www.w3.org/2000/svg}g"):
        glyphs = [u.get("{http://www.w3.org/1999/xlink}href") for u in group
                  if u.tag == "{http://www.w3.org/2000/svg}use"]
        if len(glyphs) == len(text) and len(set(zip(text, glyphs))) == len(set(text)) == len(set(glyphs)):
            return True
    return False


try:
    app.start(timeout=60)
    t.ok(True, "the window appears on the accessibility bus")

    def run_code():
        app.click("Run Python")  # a toggle button reads as a push button in GTK 4.8
        app.set_text(app.find("Python code", timeout=10), CODE)
        key("ctrl+l")
        key("ctrl+End")
        key("Return")
        wait_for(lambda: any(f"of {N} rows" in s for s in app.texts()), 120, "the million-row table")
        return f"'First 20 of {N} rows' in the chat"
    check("typed Python with no model server leaves a 1,000,000-row table, a small one and a chart", run_code)
    shot("chat")

    # -- sort a million rows from the header, read the first cell --
    big = big_xid = rows = None

    def sort_big():
        global big, big_xid, rows
        big, big_xid = open_window("big", "Open Table", "big")
        rows = column_list(big)
        wait_first_row(rows, ["0", "7919.5"], 20, "the rows in their first order")
        wait_for(lambda: find_node(big, f"{N} rows"), 10, "the row count")
        click_at(first_named(big, "score · number"))
        wait_first_row(rows, ASC_FIRST, 60, "the smallest score in the first row")
        return f"first row {ASC_FIRST}"
    check("a click on the score header sorts 1,000,000 rows ascending: the first cell is the smallest",
          sort_big)
    shot("sorted-ascending")

    def sort_big_descending():
        click_at(first_named(big, "score · number"))
        wait_first_row(rows, DESC_ROWS[0], 60, "the largest score in the first row")
        wait_for(lambda: find_node(big, f"{N} rows"), 10, "the row count once sorted")
        return f"first row {DESC_ROWS[0]}"
    check("a second click sorts descending: the first cell is the largest", sort_big_descending)

    # -- select a block of three rows with the pointer, copy, read the clipboard --
    def copy_block():
        shown = shown_rows(rows)
        click_at(shown[0][0].getChildAtIndex(1))
        click_at(shown[2][0].getChildAtIndex(1), modifier="shift")
        time.sleep(0.5)
        app.press("Copy", root=big, timeout=20)
        time.sleep(0.5)
        env = dict(app.env, NO_AT_BRIDGE="1", GTK_A11Y="none")
        got = subprocess.run(["/usr/bin/python3", "-c", CLIPBOARD_READER], env=env,
                             capture_output=True, text=True, timeout=30)
        assert got.returncode == 0, got.stderr.strip()[-500:]
        # The header row first (issue 17: Copy left it out).
        expected = "id\tscore\n" + "".join("\t".join(r) + "\n" for r in DESC_ROWS)
        assert got.stdout == expected, f"clipboard {got.stdout!r}, expected {expected!r}"
        return f"{got.stdout!r}"
    check("three rows selected and copied are the TSV block on the clipboard", copy_block)
    shot("copied")
    if big is not None:
        try:
            close_window(big, big_xid)
        except TimeoutError as e:
            t.ok(False, "the table's window closes", e)

    # -- save the small table as XLSX, read it back with openpyxl --
    def save_xlsx():
        import openpyxl
        small, small_xid = open_window("small", "Open Table", "small")
        dest = os.path.join(work, "cities.xlsx")
        save_through_chooser(small, "Save table", "Save as XLSX…", dest)
        sheet = openpyxl.load_workbook(dest, read_only=True).active
        got = [list(r) for r in sheet.iter_rows(values_only=True)]
        expected = [["city", "temp", "rain"]] + [list(r) for r in zip(CITIES, TEMPS, RAIN)]
        assert got == expected, f"openpyxl reads {got}, expected {expected}"
        wait_for(lambda: find_node(small, "Saved “cities.xlsx”"), 10, "the table to say it saved")
        shot("xlsx-saved")
        close_window(small, small_xid)
        return f"{len(got) - 1} rows and the header"
    check("the small table saved as XLSX through the file chooser reads back with openpyxl", save_xlsx)

    # -- issue 17: with a filter, Save writes the rows shown (it wrote all of
    # them) and Copy gives them with the header row --
    def save_filtered():
        import csv
        small, small_xid = open_window("small", "Open Table", "small")
        app.set_text(first_named(small, "Filter rows"), "l")
        wait_for(lambda: find_node(small, "2 of 4 rows"), 20, "the filter to show 2 of 4 rows")
        dest = os.path.join(work, "filtered.csv")
        save_through_chooser(small, "Save table", "Save as CSV…", dest)
        with open(dest, newline="", encoding="utf-8") as f:
            got = list(csv.reader(f))
        expected = [["city", "temp", "rain"], ["Oslo", "4.5", "763"], ["Lima", "19.25", "16"]]
        assert got == expected, f"the CSV has {got}, expected {expected}"
        app.press("Copy", root=small, timeout=20)
        time.sleep(0.5)
        env = dict(app.env, NO_AT_BRIDGE="1", GTK_A11Y="none")
        clip = subprocess.run(["/usr/bin/python3", "-c", CLIPBOARD_READER], env=env,
                              capture_output=True, text=True, timeout=30)
        want = "city\ttemp\train\nOslo\t4.5\t763\nLima\t19.25\t16\n"
        assert clip.stdout == want, f"clipboard {clip.stdout!r}, expected {want!r}"
        close_window(small, small_xid)
        return f"{len(got) - 1} rows and the header, saved and copied"
    check("with a filter showing 2 of 4 rows, Save as CSV writes those 2 and Copy gives them with the header",
          save_filtered)

    # -- save the chart as SVG --
    def save_svg():
        chart, chart_xid = open_window("Chart", "Open Chart", CHART_TITLE)
        dest = os.path.join(work, "temperatures.svg")
        save_through_chooser(chart, "Save chart", "Save as SVG…", dest)
        root, bars = svg_bars(dest)
        width = float(root.get("width", "0").rstrip("pt"))
        assert width > 100, f"the SVG is {width} wide"
        # one fill has four rectangles whose heights are in the ratio of the temperatures
        wanted = [v / max(TEMPS) for v in TEMPS]
        matches = []
        for fill, heights in bars.items():
            if len(heights) != len(TEMPS) or max(heights) <= 0:
                continue
            ratios = [h / max(heights) for h in heights]
            if all(abs(a - b) < 0.02 for a, b in zip(ratios, wanted)):
                matches.append(fill)
        assert matches, f"no four bars in the ratio {wanted}: {bars}"
        assert svg_draws_text(root, CHART_TITLE), f"no run of glyphs spells {CHART_TITLE!r}"
        wait_for(lambda: find_node(chart, "Saved “temperatures.svg”"), 10, "the chart to say it saved")
        shot("svg-saved")
        close_window(chart, chart_xid)
        return f"bars filled {matches[0]}"
    check("the chart saved as SVG through the file chooser is SVG with its title and bars of the data's heights",
          save_svg)
except Exception as e:
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    shutil.rmtree(work, ignore_errors=True)
t.done()
