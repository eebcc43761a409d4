# SPDX-License-Identifier: GPL-3.0-or-later
"""test-window.py API — the window's main flows, driven through AT-SPI on the
real app against the scripted model server speaking API (openai or ollama):
a CSV added through the open action, a question answered with approved code
whose table cell and chart show in the window, Edit and run, Skip, Stop of a
`while True` cell. Each step saves a screenshot, checked to be non-blank."""
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import do_action, key, App, MockServer, TapSuite, RECKON_APP, wait_for  # noqa: E402

api = sys.argv[1] if len(sys.argv) > 1 else "openai"
t = TapSuite()

# A CSV nobody will guess: revenue per region, sums below 1,000 so no
# thousands separator depends on the locale.
rng = random.Random(7)
regions = ["North", "South", "East", "West"]
rows = [(r, rng.randint(1, 20)) for r in regions for _ in range(8)]
sums = {r: sum(v for rr, v in rows if rr == r) for r in regions}
work = tempfile.mkdtemp(prefix="rk-ui-data-")
csv_path = os.path.join(work, "sales.csv")
with open(csv_path, "w") as f:
    f.write("region,revenue\n")
    for r, v in rows:
        f.write(f"{r},{v}\n")

ANALYSIS = ("df = reckon.load('sales.csv')\n"
            "by_region = df.groupby('region', as_index=False)['revenue'].sum()\n"
            "reckon.chart(by_region, kind='bar', x='region', y='revenue', title='Revenue by region')\n"
            "by_region\n")


def tool(code):
    return {"text": "I will compute it.",
            "tool_calls": [{"name": "python", "arguments": {"code": code}}]}


script = {
    "api": api,
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [
        tool(ANALYSIS),
        {"text": f"North has **{sums['North']}** in revenue."},
        tool("print(1 + 1)"),
        {"text": "Done."},
        tool("print('never')"),            # skipped: the turn ends, no request follows
        tool("while True:\n    pass\n"),
        {"text": "Stopped."},
    ],
    "repeat_last": True,
    "version": "0.5.7",
}
server = MockServer(script)
app = App(settings={"endpoint": server.url, "api-kind": api, "model": "qwen2.5-coder:7b"})


def shot(name):
    path, colors = app.screenshot(f"window-{api}-{name}")
    t.ok(colors > 16, f"screenshot {name} is not blank ({colors} colours)", path)


def ask(question):
    box = app.find("Your question", timeout=20)
    app.set_text(box, question)
    app.click("Send")


def wait_text(text, timeout=60):
    return wait_for(lambda: any(text in s for s in app.texts()), timeout, f"text {text!r} in the window")


try:
    app.start(timeout=60)
    t.ok(True, "the window appears on the accessibility bus")
    shot("start")

    # -- add a CSV through the open action (a second `reckon FILE` goes to the first) --
    subprocess.run([RECKON_APP, csv_path], env=app.env, timeout=60, check=False)
    try:
        wait_text("sales.csv", 30)
        wait_text("32 rows", 90)     # the profile: 32 rows × 2 columns
        t.ok(True, "the file card shows sales.csv and its 32 rows")
    except TimeoutError as e:
        t.ok(False, "the file card shows sales.csv and its 32 rows", e)
    shot("file-added")

    # -- a question, approved, computes a table cell and a chart --
    ask("What is the revenue by region?")
    try:
        app.find("Run", pyatspi.ROLE_PUSH_BUTTON, timeout=60)
        time.sleep(0.5)
        shot("approval")
        app.click("Run", timeout=10)
        t.ok(True, "the approval bar offers Run")
    except TimeoutError as e:
        t.ok(False, "the approval bar offers Run", e)
    try:
        cell = wait_for(lambda: [c for c in app.find_all(pyatspi.ROLE_TABLE_CELL)
                                 if str(sums["North"]) in (c.name or "") or
                                 str(sums["North"]) in "".join(app.texts(c))], 90,
                        "a table cell holding North's sum")
        t.ok(bool(cell), f"a table cell shows the computed sum {sums['North']}")
    except TimeoutError as e:
        t.ok(False, f"a table cell shows the computed sum {sums['North']}", e)
    try:
        wait_text("Revenue by region", 30)
        t.ok(True, "the chart 'Revenue by region' is in the window")
    except TimeoutError as e:
        t.ok(False, "the chart 'Revenue by region' is in the window", e)
    try:
        wait_text(f"North has {sums['North']}", 30)
        t.ok(True, "the final answer is shown")
    except TimeoutError as e:
        t.ok(False, "the final answer is shown", e)
    shot("answer")

    # -- Edit and run --
    ask("Add one and one.")
    try:
        app.click("Edit", timeout=60)
        editor = wait_for(lambda: [n for n in app.find_all(pyatspi.ROLE_TEXT)
                                   if "print(1 + 1)" in "".join(app.texts(n)) and
                                   n.getState().contains(pyatspi.STATE_EDITABLE)], 20,
                          "the code, editable in place")[0]
        app.set_text(editor, "print(40 + 2)\n")
        app.click("Run", timeout=20)
        wait_text("42", 60)
        t.ok(True, "Edit, then Run, runs the edited code (42)")
    except (TimeoutError, IndexError) as e:
        t.ok(False, "Edit, then Run, runs the edited code (42)", e)
    shot("edited")

    # -- Skip --
    ask("Print never.")
    try:
        app.click("Skip", timeout=60)
        time.sleep(2)
        t.ok(not any("never" == s.strip() for s in app.texts()), "Skip runs nothing")
    except TimeoutError as e:
        t.ok(False, "Skip runs nothing", e)
    shot("skipped")

    # -- Stop a runaway cell --
    ask("Loop forever.")
    try:
        app.click("Run", timeout=60)
        app.find("Stop", pyatspi.ROLE_PUSH_BUTTON, timeout=30)
        time.sleep(2)
        shot("running")
        started = time.monotonic()
        app.click("Stop", timeout=10)
        wait_for(lambda: not app.exists("Stop", pyatspi.ROLE_PUSH_BUTTON) or
                 any("nterrupt" in s or "stopped" in s.lower() for s in app.texts()), 30,
                 "the cell to stop")
        t.ok(True, f"Stop ends a while-True cell ({time.monotonic() - started:.1f} s)")
    except TimeoutError as e:
        t.ok(False, "Stop ends a while-True cell", e)
    shot("stopped")
    # The stopped question is in the transcript; the composer stays empty.
    composer = app.find("Your question", timeout=10).queryText()
    left = composer.getText(0, composer.characterCount)
    t.ok(left.strip() == "", "after Stop the composer is empty", f"it holds {left!r}")

    # -- About: the troubleshooting details name the server and its version --
    def about():
        want = ("Model server version: Ollama 0.5.7" if api == "ollama"
                else "Model server version: llama.cpp 0.5.7")
        key("F10")
        do_action(app.find("About Reckon", timeout=10))
        app.find("Troubleshooting", timeout=10)
        # The text of its Debugging Information page (built with the window).
        wait_text(want, 10)
        shot("about")
        key("Escape")
    try:
        about()
        t.ok(True, "About's troubleshooting details name the model server's version")
    except TimeoutError as e:
        t.ok(False, "About's troubleshooting details name the model server's version", e)
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    server.stop()
t.done()
