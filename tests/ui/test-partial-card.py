# SPDX-License-Identifier: GPL-3.0-or-later
"""test-partial-card.py — a big CSV's two-step card in the real window,
through AT-SPI (issue #16): dropped cold (out of the page cache), the card
first shows the profile from the sample, labelled as estimated ("about N
rows × 6 columns, counting…") with its progress bar and Cancel still there;
then the exact count replaces it and Cancel goes. A 1.5 GB file (written
once into the build folder and kept, tests/lib/bigcsv.py) keeps this short.
Screenshots: partial-card-estimate, partial-card-exact."""
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import bigcsv  # noqa: E402
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, RECKON_APP, find_node, walk, wait_for  # noqa: E402

t = TapSuite()
BUILD = os.environ["RECKON_BUILD_ROOT"]
# RK_PARTIAL_CARD_FILE: another sales CSV instead (the 10 GB one, measured
# by hand); its rows are counted here with wc -l.
BIG = os.environ.get("RK_PARTIAL_CARD_FILE") or os.path.join(BUILD, "big-data", "sales-1500m.csv")
NAME = os.path.basename(BIG)
if "RK_PARTIAL_CARD_FILE" in os.environ:
    rows = int(subprocess.run(["wc", "-l", BIG], capture_output=True, text=True, check=True).stdout.split()[0]) - 1
else:
    _sums, rows = bigcsv.ensure(BIG, 15 * 10**8)
t.ok(True, f"the CSV is there ({os.path.getsize(BIG)} bytes, {rows} rows)")
ESTIMATE = re.compile(r"about ([\d,.\u202f\u00a0 ]+) rows × 6 columns, counting…")

server = MockServer({"api": "openai", "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
                     "turns": [{"text": "ok"}], "repeat_last": True})
app = App(settings={"endpoint": server.url, "api-kind": "openai", "model": "qwen2.5-coder:7b"})


def shot(name):
    t.shot(app, f"partial-card-{name}")


def check(name, fn):
    return t.check(name, fn)


def card():
    """The big file's card: a node named after it that holds a Cancel
    button while the file is read, else the last one named after it with
    children (the sidebar's file row is named after it too)."""
    cards = []
    walk(app.root, lambda n: cards.append(n) if n.name == NAME and n.childCount > 0 else None)
    for c in cards:
        if find_node(c, "Cancel", pyatspi.ROLE_PUSH_BUTTON) is not None:
            return c
    return cards[0] if cards else None


def card_texts():
    return app.texts()


def uncache(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


try:
    app.start(timeout=60)
    t.ok(True, "the window appears")
    uncache(BIG)
    started = time.monotonic()
    subprocess.Popen([RECKON_APP, BIG], env=app.env)
    seen = {}

    def read(n):
        """A label's text: its accessible name, else its text contents."""
        try:
            if n.name:
                return n.name
            return n.queryText().getText(0, -1) or ""
        except Exception:
            return ""

    def summary_node():
        """The card's summary label ("Reading the file…"), found once: a walk
        of the whole window takes seconds on a loaded machine, while the
        estimate of a 1.5 GB file may show for only a second or two, so that
        one label is then read every 20 ms."""
        c = card()
        if c is None or find_node(c, "Cancel", pyatspi.ROLE_PUSH_BUTTON) is None:
            return None
        found = []

        def look(n):
            text = read(n)
            if "Reading the file" in text or ESTIMATE.search(text):
                found.append(n)
        walk(c, look)
        seen["card"] = c
        # In a list: a label has no children, and an accessible without
        # children is false.
        return found[:1] or None


    def estimated():
        node = wait_for(summary_node, 120, "the card being read")[0]
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            text = read(node)
            m = ESTIMATE.search(text)
            if m:
                seen["text"] = text
                seen["rows"] = int(re.sub(r"\D", "", m.group(1)))
                seen["after"] = time.monotonic() - started
                # At once: the count of 1.5 GB may end a second later.
                c = seen["card"]
                seen["cancel"] = find_node(c, "Cancel", pyatspi.ROLE_PUSH_BUTTON) is not None
                bars = []
                walk(c, lambda n: bars.append(n.name) if n.getRole() == pyatspi.ROLE_PROGRESS_BAR else None)
                seen["bars"] = bars
                shot("estimate")
                return True
            if "Reading the file" not in text:
                raise AssertionError(f"the card went from reading to {text!r} without an estimate")
            time.sleep(0.02)
        raise TimeoutError("no estimate in 600 s")
    if check("the card first shows the rows estimated from the sample, \"counting…\"", estimated):
        print(f"# the estimated card after {seen['after']:.1f} s (AT-SPI polling included)", flush=True)
        t.ok(abs(seen["rows"] - rows) <= 0.02 * rows,
             f"the estimate ({seen['rows']}) is within 2 % of the exact count ({rows})", seen["text"])
        t.ok(seen["cancel"], "Cancel stays while the rows are counted")
        t.ok("Reading progress" in seen["bars"], "the progress bar stays, named \"Reading progress\"",
             repr(seen["bars"]))
        t.ok(any("whole number" in s or "date" in s or "text" in s for s in card_texts()),
             "the sample's columns are shown at once")
    count = f"{rows:,}"

    def exact():
        texts = card_texts()
        return (any(count in s or str(rows) in s for s in texts) and not any("counting…" in s for s in texts)
                and not app.exists("Cancel", pyatspi.ROLE_PUSH_BUTTON))
    if "text" not in seen:
        print("# texts: " + repr(app.texts())[:2000], flush=True)
    check(f"then the exact count ({count}) replaces the estimate, and Cancel goes",
          lambda: wait_for(exact, 600, "the exact count"))
    print(f"# the exact count after {time.monotonic() - started:.1f} s", flush=True)
    shot("exact")
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    server.stop()
t.done()
