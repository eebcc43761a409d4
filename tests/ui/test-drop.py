# SPDX-License-Identifier: GPL-3.0-or-later
"""test-drop.py — a real drop: another GTK window offers two CSV files as a
file list, the X pointer drags them onto Reckon's window (XDND through Xvfb,
driven with xdotool), and both files appear with their profiles, with no
model server at all."""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reckonui import App, TapSuite, wait_for  # noqa: E402

t = TapSuite()
work = tempfile.mkdtemp(prefix="rk-ui-drop-")
paths = []
for name, rows in (("north.csv", 7), ("south.csv", 11)):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write("day,sales\n")
        for i in range(rows):
            f.write(f"{i + 1},{(i + 1) * 3}\n")
    paths.append(path)

app = App(settings={"endpoint": "http://127.0.0.1:9"})
source = None


def xdo(*args):
    return subprocess.run(["xdotool"] + [str(a) for a in args], capture_output=True, text=True, check=True).stdout


def window_of(pid):
    out = wait_for(lambda: subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(pid)],
                                          capture_output=True, text=True, timeout=10).stdout.split(),
                   20, f"an X window of process {pid}")
    return out[-1]


def wait_text(text, timeout=60):
    return wait_for(lambda: any(text in s for s in app.texts()), timeout, f"text {text!r} in the window")


try:
    app.start(timeout=60)
    reckon_win = window_of(app.proc.pid)
    xdo("windowmove", reckon_win, 0, 0)

    source = subprocess.Popen(["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                "drag-source.py")] + paths,
                              env=app.env, stdout=subprocess.PIPE, text=True)
    source.stdout.readline()
    source_win = window_of(source.pid)
    # No window manager under Xvfb: place the source beside Reckon's window.
    xdo("windowmove", source_win, 1100, 100)
    time.sleep(1)

    # Press on the source's label, move in steps over Reckon, release.
    xdo("mousemove", 1200, 160)
    xdo("mousedown", 1)
    for x, y in ((1190, 165), (1150, 200), (1000, 300), (800, 350), (650, 380), (600, 400)):
        xdo("mousemove", x, y)
        time.sleep(0.15)
    time.sleep(0.5)
    path, colors = app.screenshot("drop-overlay")
    t.ok(colors > 16, f"screenshot while dragging is not blank ({colors} colours)", path)
    overlay = any("Drop files to add them" in s for s in app.texts())
    t.ok(overlay, "the window shows \"Drop files to add them\" while files are dragged over it")
    xdo("mouseup", 1)

    try:
        wait_text("north.csv", 30)
        wait_text("south.csv", 30)
        t.ok(True, "both dropped files appear")
    except TimeoutError as e:
        t.ok(False, "both dropped files appear", e)
    try:
        wait_text("7 rows", 90)
        wait_text("11 rows", 90)
        t.ok(True, "each dropped file gets its profile (7 and 11 rows), with no model server")
    except TimeoutError as e:
        t.ok(False, "each dropped file gets its profile (7 and 11 rows), with no model server", e)
    path, colors = app.screenshot("dropped")
    t.ok(colors > 16, f"screenshot after the drop is not blank ({colors} colours)", path)
except Exception as e:
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    if source is not None:
        source.kill()
    app.cleanup()
t.done()
