# SPDX-License-Identifier: GPL-3.0-or-later
"""test-recovery.py — issue 17's recovery paths on the real app: Edit then
Skip on proposed code (with and without typing) keeps the app alive; code
that waited for approval gets its Run/Edit/Skip back after a reopen, and
asking again brings one approval bar, not two."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, key, wait_for  # noqa: E402

t = TapSuite()


def code_turn(text, code):
    return {"text": text, "tool_calls": [{"name": "python", "arguments": {"code": code}}]}


server = MockServer({
    "api": "openai",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [
        # Skip ends the turn: each question gets one proposal.
        code_turn("First.", "print('one')\n"),
        code_turn("Second.", "print('two')\n"),
        code_turn("Third.", "print('three')\n"),
        {"text": "Three is done."},
    ],
})
settings = {"endpoint": server.url, "api-kind": "openai", "model": "qwen2.5-coder:7b",
            "approval-policy": "ask"}
app = App(settings=settings)


def wait_text(text, timeout=60):
    return app.wait_text(text, timeout)


def check(name, fn):
    return t.check(name, fn, app.output)


def ask(question):
    app.ask(question)


def alive():
    assert app.proc.poll() is None, f"reckon exited with {app.proc.returncode}: {app.output()}"
    return True


def n_buttons(name):
    return sum(1 for n in app.find_all(pyatspi.ROLE_PUSH_BUTTON) if n.name == name)


def click_at(node):
    # A real click (the pointer, through XTest): the focus moves to the
    # button, as for a user; an AT-SPI action leaves it where it was. GTK
    # 4.8 has window coordinates only; with no window manager the window is
    # at 0,0.
    e = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(e.x + e.width // 2), str(e.y + e.height // 2), "click", "1"],
                   check=True, timeout=10)


def edit_then_skip(typed):
    click_at(app.find("Edit", pyatspi.ROLE_PUSH_BUTTON, timeout=60))
    view = wait_for(lambda: next((n for n in app.find_all(pyatspi.ROLE_TEXT)
                                  if n.name == "Code" and n.getState().contains(pyatspi.STATE_EDITABLE)), None),
                    10, "the code to become editable")
    if typed:
        # Typed as a user does (XTest), so the cursor blinks in the view.
        key("End")
        subprocess_type(typed)
        wait_for(lambda: typed in view.queryText().getText(0, -1), 10, "the typed text in the code")
    # Let the cursor blink a few times before Skip.
    time.sleep(1.5)
    before = sum(1 for s in app.texts() if "Skipped: the code was not run." in s)
    click_at(app.find("Skip", pyatspi.ROLE_PUSH_BUTTON))
    wait_for(lambda: sum(1 for s in app.texts() if "Skipped: the code was not run." in s) > before, 20,
             "the cell to say it was skipped")
    # The crash came on the next blink after Skip.
    time.sleep(2)
    return alive()


def subprocess_type(text):
    subprocess.run(["xdotool", "type", "--delay", "30", text], check=True)


try:
    app.start(timeout=60)
    ask("Show one.")
    check("Edit, then Skip without typing: the app lives and says the code was skipped",
          lambda: edit_then_skip(None))
    ask("Show two.")
    check("Edit, type, then Skip: the app lives and says the code was skipped",
          lambda: edit_then_skip("  # changed"))
    # -- code waiting for approval survives a reopen (issue 17, item 4) --
    ask("Show three.")
    check("the third proposal waits for approval", lambda: app.find("Run", pyatspi.ROLE_PUSH_BUTTON, timeout=60))
    home = app.home
    tdir = os.path.join(home, "data", "reckon")

    def saved_pending():
        for root, _, files in os.walk(tdir):
            for f in files:
                if f.endswith(".json"):
                    with open(os.path.join(root, f), errors="replace") as fh:
                        text = fh.read()
                    if "print('three')" in text:
                        return True
        return False
    check("the proposal is saved before Reckon closes", lambda: wait_for(saved_pending, 15, "the autosave"))
    app.quit()
    app = App(settings=settings, home=home)
    app.own_home = True
    app.start(timeout=60)
    check("after the reopen the waiting code has its Run, Edit and Skip",
          lambda: (wait_text("print('three')", 30), app.find("Run", pyatspi.ROLE_PUSH_BUTTON, timeout=30),
                   app.find("Edit", pyatspi.ROLE_PUSH_BUTTON, timeout=5),
                   app.find("Skip", pyatspi.ROLE_PUSH_BUTTON, timeout=5)))
    check("one approval bar, not two", lambda: wait_for(lambda: n_buttons("Run") == 1 or None, 5,
                                                        f"one Run button (there are {n_buttons('Run')})"))
    check("Run after the reopen runs the code and the model answers",
          lambda: (app.click("Run"), wait_text("three", 90), wait_text("Three is done.", 90)))
    check("no approval bar is left once it ran",
          lambda: wait_for(lambda: n_buttons("Run") == 0 or None, 10, "no Run button"))
except Exception as e:
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    server.stop()
t.done()
