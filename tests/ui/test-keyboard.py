# SPDX-License-Identifier: GPL-3.0-or-later
"""test-keyboard.py — the main flow with no pointer at all, on the real app:
Ctrl+O and the file chooser's location entry add a CSV, the question is
typed and sent with Enter, Tab reaches Run and Enter runs the code, and the
computed value shows in a table cell. Keys go through XTest (xdotool);
AT-SPI only reads what has focus and what is shown."""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, focused_node, key, wait_for  # noqa: E402
import subprocess  # noqa: E402

t = TapSuite()
work = tempfile.mkdtemp(prefix="rk-ui-keys-")
csv_path = os.path.join(work, "prices.csv")
with open(csv_path, "w") as f:
    f.write("item,price\n")
    for i, p in enumerate([3, 5, 8, 13, 21, 34]):
        f.write(f"item{i},{p}\n")
TOTAL = 84

server = MockServer({
    "api": "ollama",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [
        {"text": "Summing.", "tool_calls": [{"name": "python", "arguments": {
            "code": "df = reckon.load('prices.csv')\nimport pandas as pd\npd.DataFrame({'total': [int(df['price'].sum())]})\n"}}]},
        {"text": f"The total is {TOTAL}."},
    ],
    "repeat_last": True,
})
app = App(settings={"endpoint": server.url, "api-kind": "ollama", "model": "qwen2.5-coder:7b"})


def focused():
    return focused_node(app.root)


def xtype(text):
    subprocess.run(["xdotool", "type", "--delay", "20", text], check=True)


def tab_to(name, limit=60):
    seen = []
    for _ in range(limit):
        node = focused()
        if node is not None and node.name == name:
            return node
        seen.append(f"{node.name}/{node.getRoleName()}" if node is not None else "-")
        key("Tab")
        time.sleep(0.15)
    raise TimeoutError(f"Tab never reached {name!r}; focus went through: {', '.join(seen[:30])}")


def wait_text(text, timeout=60):
    return wait_for(lambda: any(text in s for s in app.texts()), timeout, f"text {text!r} in the window")


try:
    app.start(timeout=60)
    subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(app.proc.pid),
                    "windowfocus", "--sync", "%@"], capture_output=True, timeout=20)
    time.sleep(1)

    # Ctrl+O, then the chooser's location entry. With no window manager under
    # Xvfb, keyboard focus goes to a new window only when it is given.
    windows_before = set(subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(app.proc.pid)],
                                        capture_output=True, text=True).stdout.split())
    key("ctrl+o")
    try:
        chooser = wait_for(lambda: set(subprocess.run(["xdotool", "search", "--onlyvisible", "--pid",
                                                       str(app.proc.pid)], capture_output=True,
                                                      text=True).stdout.split()) - windows_before,
                           20, "the file chooser window")
        subprocess.run(["xdotool", "windowfocus", "--sync", sorted(chooser)[-1]], check=True, timeout=10)
        time.sleep(1)
        key("ctrl+l")
        time.sleep(0.5)
        xtype(csv_path)
        time.sleep(0.5)
        key("Return")
        # Walk the tree only once the chooser has gone: GTK 4.8 can crash
        # (SIGSEGV in its AT-SPI code, an object path of NULL) when the
        # accessibility tree of a closing file chooser is read.
        wait_for(lambda: not (set(subprocess.run(["xdotool", "search", "--onlyvisible", "--pid",
                                                  str(app.proc.pid)], capture_output=True,
                                                 text=True).stdout.split()) & chooser), 20,
                 "the file chooser to close")
        time.sleep(1)
        wait_text("6 rows", 90)
        t.ok(True, "Ctrl+O and the location entry add the CSV (6 rows profiled)")
    except (TimeoutError, subprocess.CalledProcessError) as e:
        t.ok(False, "Ctrl+O and the location entry add the CSV (6 rows profiled)", e)
    main_win = sorted(windows_before)[-1] if windows_before else None
    if main_win:
        subprocess.run(["xdotool", "windowfocus", "--sync", main_win], timeout=10)
    app.screenshot("keyboard-file")

    # Type the question; Enter sends.
    try:
        tab_to("Your question")
        xtype("What do the prices add up to?")
        key("Return")
        wait_text("What do the prices add up to?", 30)
        t.ok(True, "the question is typed and sent with Enter")
    except TimeoutError as e:
        t.ok(False, "the question is typed and sent with Enter", e)

    # Run takes the focus when it appears (the composer was empty); a full
    # Tab cycle goes through the window and back to Run (the chat list is in
    # the chain, nothing keeps the focus).
    try:
        app.find("Run", pyatspi.ROLE_PUSH_BUTTON, timeout=60)
        wait_for(lambda: (focused() is not None and focused().name == "Run") or None, 10,
                 "Run to take the focus")
        t.ok(True, "Run takes the focus when the code waits for approval")
    except TimeoutError as e:
        t.ok(False, "Run takes the focus when the code waits for approval", e)
    try:
        tab_to("Run")
        chain = []
        for _ in range(40):
            key("Tab")
            time.sleep(0.15)
            node = focused()
            chain.append(f"{node.name}/{node.getRoleName()}" if node is not None else "-")
            if node is not None and node.name == "Run":
                break
        print("# Tab cycle: " + ", ".join(chain))
        assert chain[-1].startswith("Run/"), "Tab never came back to Run: " + ", ".join(chain)
        assert "Your question/text" in chain, "the composer is not in the Tab cycle"
        assert all(a != b for a, b in zip(chain, chain[1:])), "a Tab press kept the focus where it was"
        assert all(not c.startswith("GtkToggleButton") and not c.startswith("/") for c in chain), \
            "a control without an accessible name in the Tab cycle"
        t.ok(True, "a Tab cycle goes through the window and back to Run")
    except (TimeoutError, AssertionError) as e:
        t.ok(False, "a Tab cycle goes through the window and back to Run", e)

    # Tab to Run, Enter.
    try:
        tab_to("Run")
        key("Return")
        cells = wait_for(lambda: [c for c in app.find_all(pyatspi.ROLE_TABLE_CELL)
                                  if str(TOTAL) in (c.name or "") + "".join(app.texts(c))], 90,
                         "the total in a table cell")
        t.ok(bool(cells), f"Tab reaches Run, Enter runs it, and the table shows {TOTAL}")
    except TimeoutError as e:
        t.ok(False, f"Tab reaches Run, Enter runs it, and the table shows {TOTAL}", e)
    try:
        wait_text(f"The total is {TOTAL}", 30)
        t.ok(True, "the answer follows")
    except TimeoutError as e:
        t.ok(False, "the answer follows", e)
    path, colors = app.screenshot("keyboard-answer")
    t.ok(colors > 16, f"screenshot is not blank ({colors} colours)", path)
except Exception as e:
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    server.stop()
t.done()
