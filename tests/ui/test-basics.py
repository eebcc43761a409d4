#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-basics.py — issue 19's analyst basics in the real app: a file given
to Reckon goes into the desktop's recent files (recently-used.xbel) and into
the main menu's "Add Recent File", which adds it to a new conversation; a
chart's "Copy chart" puts an image on the clipboard that another program
reads; the main menu offers "Print Report…"; and the tooltip of a menu
button does not come back over its open menu (a tooltip is an X window of
its own, so the visible windows are counted)."""
import os
import subprocess
import sys
import tempfile
import time
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, RECKON_APP, key, visible, wait_for, walk  # noqa: E402

t = TapSuite()
work = tempfile.mkdtemp(prefix="rk-ui-basics-")
csv_path = os.path.join(work, "units_by_month.csv")
with open(csv_path, "w") as f:
    f.write("month,units\n")
    for i, m in enumerate(["Jan", "Feb", "Mar", "Apr", "May", "Jun"]):
        f.write(f"{m},{i * 7 % 11 + 3}\n")

CODE = ("df = reckon.load('units_by_month.csv')\n"
        "reckon.chart(df, kind='bar', x='month', y='units', title='Units by month')\n")
server = MockServer({
    "api": "openai",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [{"text": "Charting.", "tool_calls": [{"name": "python", "arguments": {"code": CODE}}]},
              {"text": "Here is the chart."}],
})
app = App(settings={"endpoint": server.url, "api-kind": "openai", "model": "qwen2.5-coder:7b",
                    "approval-policy": "auto"})
HERE = os.path.dirname(os.path.abspath(__file__))


def check(name, fn):
    return t.check(name, fn, app.output)


def visible_windows():
    """(width, height, x, y) of each visible X window but the root's."""
    ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", ""],
                         capture_output=True, text=True).stdout.split()
    out = []
    for i in ids:
        g = subprocess.run(["xdotool", "getwindowgeometry", "--shell", i], capture_output=True, text=True).stdout
        v = dict(line.split("=", 1) for line in g.split() if "=" in line)
        w, h = int(v.get("WIDTH", 0)), int(v.get("HEIGHT", 0))
        if w > 2 and h > 2 and (w, h) != (1280, 1024):
            out.append((w, h, int(v.get("X", 0)), int(v.get("Y", 0))))
    return out


def buttons(name):
    out = []
    walk(app.root, lambda n: out.append(n) if n.name == name and n.getRole() == pyatspi.ROLE_PUSH_BUTTON
         and visible(n) else None)
    return out


try:
    app.start(timeout=60)
    subprocess.run([RECKON_APP, csv_path], env=app.env, timeout=60, check=False)
    check("the file is profiled", lambda: app.wait_text("6 rows", 90))

    def in_recent_files():
        xbel = os.path.join(app.home, "data", "recently-used.xbel")
        uri = "file://" + quote(csv_path)
        wait_for(lambda: os.path.exists(xbel) and uri in open(xbel).read(), 20, f"{uri} in {xbel}")
    check("the file is in the desktop's recent files", in_recent_files)

    # -- the tooltip of a menu button stays away from its open menu --
    def tooltip_quiet():
        b = app.find("Analyse", pyatspi.ROLE_PUSH_BUTTON, timeout=10)
        ext = b.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        before = visible_windows()
        subprocess.run(["xdotool", "mousemove", str(ext.x + ext.width // 2), str(ext.y + ext.height // 2)], check=True)
        # The tooltip shows on hover: the way of counting sees it.
        wait_for(lambda: len(visible_windows()) > len(before), 10, "the tooltip on hover")
        subprocess.run(["xdotool", "click", "1"], check=True)
        app.find("Summary statistics", None, timeout=10)
        # The hand rests on the button, moving a little, as it does.
        for dx in (2, -2, 3, -3):
            subprocess.run(["xdotool", "mousemove_relative", "--", str(dx), "0"], check=True)
            time.sleep(0.3)
        time.sleep(2)      # longer than the tooltip's delay: it would be back by now
        extra = [w for w in visible_windows() if w not in before]
        t.shot(app, "basics-menu-open")
        assert len(extra) == 1, f"windows over the main one while the menu is open: {extra}"
        key("Escape")
    check("a menu button's tooltip does not come back over its open menu", tooltip_quiet)

    # -- copy a chart --
    app.ask("Chart the units by month.")
    check("the chart comes", lambda: app.wait_text("Here is the chart.", 180))

    def copy_chart():
        wait_for(lambda: buttons("Copy chart"), 20, "a 'Copy chart' button")[-1].queryAction().doAction(0)
        png = os.path.join(work, "pasted.png")
        out = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "clipboard-image.py"), png],
                             capture_output=True, text=True, timeout=60, env=app.env).stdout
        assert "size: 1200x800" in out, out
        colors = int(subprocess.run(["identify", "-format", "%k", png], capture_output=True, text=True).stdout)
        assert colors > 16, f"the pasted image has {colors} colours"
    check("'Copy chart' puts the chart on the clipboard as an image another program reads", copy_chart)

    # -- the main menu: Print Report and Add Recent File --
    def recent_menu():
        app.click("New Conversation")
        app.press("Main Menu")
        app.find("Print Report…", None, timeout=10)
        app.press("Add Recent File")
        app.press("units_by_month.csv", timeout=10)
        app.wait_text("6 rows", 90)
    check("the main menu has Print Report…, and Add Recent File adds the file to a new conversation", recent_menu)
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()[-1500:]}")
finally:
    app.cleanup()
    server.stop()
t.done()
