# SPDX-License-Identifier: GPL-3.0-or-later
"""test-chat.py — moving around the chat on the real app, through AT-SPI and
XTest (xdotool): Ctrl+Enter runs the waiting code from the question field,
focus returns to the question field after Skip, typed code runs without a
question, the mouse wheel scrolls the chat over a code block, Ctrl+F finds
words in the conversation (next match, Escape), a long table value is never
cut without a way to read it, and the shortcuts window lists the new keys."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, focused_node, key, walk, wait_for  # noqa: E402

t = TapSuite()

LONG = "A remarkably long description that no narrow column of a table can show in full"
# A tall cell with a line wider than the chat: its code block scrolls
# sideways, the kind of inner view that kept the wheel.
CODE_A = ("import pandas as pd\n"
          + "".join(f"step_{i} = {i}  # one of many lines that make this cell tall\n" for i in range(28))
          + "wide = '" + "x" * 260 + "'\n"
          + f"pd.DataFrame({{'city': ['Lyon', 'Nice'], 'note': ['{LONG}', 'short']}})\n")
CODE_B = "print('this code is skipped')\n"

server = MockServer({
    "api": "ollama",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [
        {"text": "Building the table.", "tool_calls": [{"name": "python", "arguments": {"code": CODE_A}}]},
        {"text": "Here is the table with the zebra note."},
        {"text": "Trying something.", "tool_calls": [{"name": "python", "arguments": {"code": CODE_B}}]},
        {"text": "Skipped, then."},
    ],
    "repeat_last": True,
})
app = App(settings={"endpoint": server.url, "api-kind": "ollama", "model": "qwen2.5-coder:7b"})


def focused():
    return focused_node(app.root)


def focused_name():
    node = focused()
    return node.name if node is not None else None


def more():
    return app.output()


def main_window():
    ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(app.proc.pid)],
                         capture_output=True, text=True).stdout.split()
    return sorted(ids)[0]


def code_view_with(text):
    """A code view on screen whose text holds @text."""
    for node in app.find_all(pyatspi.ROLE_TEXT):
        try:
            if node.name == "Code" and text in node.queryText().getText(0, -1):
                return node
        except Exception:
            continue
    return None


try:
    app.start(timeout=60)
    subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(app.proc.pid),
                    "windowfocus", "--sync", "%@"], capture_output=True, timeout=20)
    time.sleep(1)

    # -- Ctrl+Enter from the question field runs the waiting code --
    def ctrl_enter():
        app.ask("Make a table of the notes.")
        app.find("Run", pyatspi.ROLE_PUSH_BUTTON, timeout=60)
        key("ctrl+l")     # the question field, where Ctrl+Enter used to add a line
        wait_for(lambda: focused_name() == "Your question", 10, "the question field to have the focus")
        key("ctrl+Return")
        wait_for(lambda: not app.exists("Run", pyatspi.ROLE_PUSH_BUTTON), 20, "the code to be approved")
        app.wait_text("zebra note", 120)
        box = app.find("Your question", timeout=5)
        text = box.queryText().getText(0, -1)
        assert "\n" not in text, f"Ctrl+Enter also added a line to the question field: {text!r}"
    t.check("Ctrl+Enter in the question field runs the code waiting for approval", ctrl_enter, more)

    # -- a long value in the table: an ellipsis on screen, whole for AT-SPI --
    def long_value():
        cells = wait_for(lambda: [c for c in app.find_all(pyatspi.ROLE_TABLE_CELL)
                                  if LONG in (c.name or "") + "".join(app.texts(c))], 30, "the long cell")
        described = []
        for cell in cells:
            walk(cell, lambda n: described.append(n.description) if n.description else None)
        assert any(LONG in d for d in described), f"no description holds the whole value: {described}"
    t.check("a value too long for its column is whole in the cell's description", long_value, more)

    # -- the wheel over a code block scrolls the chat --
    def wheel():
        view = wait_for(lambda: code_view_with("step_27"), 20, "the tall code block on screen")
        # GTK 4.8 gives positions in the window only; the pointer goes there.
        ext = view.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        y = max(ext.y + 20, min(ext.y + ext.height - 20, 600))   # on screen: the window is 760 px high
        print(f"# code block at {ext.x},{ext.y} {ext.width}x{ext.height}; pointer at y {y}")
        subprocess.run(["xdotool", "mousemove", "--window", main_window(), "--sync", str(ext.x + 60), str(y)],
                       check=True)
        time.sleep(0.5)
        # The block's place in the window says how far the chat moved.
        before = ext.y
        subprocess.run(["xdotool", "click", "--repeat", "5", "--delay", "80", "4"], check=True)
        time.sleep(1)
        moved = view.queryComponent().getExtents(pyatspi.WINDOW_COORDS).y - before
        print(f"# 5 wheel notches up over a code block moved the chat {moved} px")
        assert moved >= 150, f"the chat moved only {moved} px for 5 notches"
        subprocess.run(["xdotool", "mousemove", "--sync", "5", "5"], check=True)
    t.check("5 wheel notches over a code block scroll the chat at least 150 px", wheel, more)

    # -- Skip: the question field has the focus again --
    def skip():
        app.ask("What about the zebra?")
        app.find("Skip", pyatspi.ROLE_PUSH_BUTTON, timeout=60)
        app.click("Skip")
        app.wait_text("Skipped", 30)
        wait_for(lambda: focused_name() == "Your question", 10,
                 f"the question field to have the focus (it is on {focused_name()!r})")
    t.check("after Skip the keyboard focus is in the question field", skip, more)

    # -- Run Python: the user's own code runs without a question --
    def typed():
        app.click("Run Python")
        box = app.find("Python code", timeout=10)
        app.set_text(box, "print('typed', 6 * 7)")
        key("ctrl+l")
        key("Return")
        app.wait_text("typed 42", 90)
        assert not app.exists("Run", pyatspi.ROLE_PUSH_BUTTON), "an approval bar is shown for typed code"
        app.click("Run Python")   # back to questions
    t.check("code typed with Run Python runs without an approval question", typed, more)

    # -- Ctrl+F searches the conversation --
    def search():
        key("ctrl+f")
        entry = wait_for(lambda: (focused() if focused_name() == "Search the conversation" else None), 10,
                         "the search field to have the focus")
        subprocess.run(["xdotool", "type", "--delay", "40", "zebra"], check=True)
        wait_for(lambda: "1 of 2" in (entry.description or ""), 10, "the first of two matches")
        # The match is selected where it shows.
        def selected():
            hits = []
            def look(n):
                try:
                    tx = n.queryText()
                    if tx.getNSelections() > 0:
                        start, end = tx.getSelection(0)
                        hits.append(tx.getText(start, end))
                except Exception:
                    pass
            walk(app.root, look)
            return [h for h in hits if h.lower() == "zebra"] or None
        wait_for(selected, 10, "the word selected in the conversation")
        key("ctrl+g")
        wait_for(lambda: "2 of 2" in (entry.description or ""), 10, "the second match")
        key("Return")
        wait_for(lambda: "1 of 2" in (entry.description or ""), 10, "Enter to go round to the first")
        app.screenshot("i19-search")
        unnamed = [f"{n.getRoleName()} in {n.parent.getRoleName()}" for n in app.find_all(pyatspi.ROLE_PUSH_BUTTON)
                   if not n.name]
        assert not unnamed, f"buttons without a name while the search bar shows: {unnamed}"
        key("Escape")
        # Closing the bar (and only that) hands the keyboard back.
        wait_for(lambda: focused_name() == "Your question", 10, "Escape to close the bar")
    t.check("Ctrl+F finds words in the conversation; Ctrl+G and Enter move; Escape closes", search, more)

    def shortcuts():
        key("ctrl+question")
        app.wait_text("Run the code waiting for approval", 10)
        app.wait_text("Search the conversation", 5)
        key("Escape")
    t.check("the shortcuts window lists Ctrl+Enter and Ctrl+F", shortcuts, more)
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    server.stop()
t.done()
