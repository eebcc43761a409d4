# SPDX-License-Identifier: GPL-3.0-or-later
"""test-walk.py — issue 17's walk through the recovery paths on the real app:
ask → a cell makes a histogram → the next cell fails → the model repairs it →
the answer → the session expires (its results are said to be gone, with Restart
Session, and Save is not offered) → quit → reopen → Restart Session replays
the cells that succeeded and says which it skipped and why → the next
question sees the replayed variables → the histogram's provenance still
names the cell and code that made it → its Save is offered again."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, find_node, wait_for, walk  # noqa: E402

t = TapSuite()
IDLE = 30
HIST = "import matplotlib.pyplot as plt\nvals = [1, 2, 2, 3, 3, 3]\nplt.hist(vals)\nplt.title('Histogram')\n"


def code_turn(text, code):
    return {"text": text, "tool_calls": [{"name": "python", "arguments": {"code": code}}]}


server = MockServer({
    "api": "openai",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [
        code_turn("Plotting.", HIST),                                # cell 1: a figure
        code_turn("Summing.", "total = sum(vals) + offset\nprint('total', total)\n"),   # cell 2: NameError
        code_turn("Let me fix that.", "total = sum(vals)\nprint('total', total)\n"),     # cell 3: the repair
        {"text": "The total is 14."},
        # after the reopen and the restart: two new cells, then the answer
        code_turn("Doubling.", "print('double', total * 2)\n"),
        code_turn("Halving.", "print('half', total / 2)\n"),
        {"text": "Double is 28, half is 7.0."},
    ],
})
settings = {"endpoint": server.url, "api-kind": "openai", "model": "qwen2.5-coder:7b",
            "approval-policy": "auto", "idle-expiry-seconds": IDLE}
app = App(settings=settings)
home = app.home


def wait_text(text, timeout=60):
    return app.wait_text(text, timeout)


def check(name, fn):
    return t.check(name, fn, app.output)


def ask(question):
    app.ask(question)


def buttons(prefix):
    out = []
    walk(app.root, lambda n: out.append(n) if (n.name or "").startswith(prefix)
         and n.getRole() in (pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON) else None)
    return out


def histogram_save():
    # The shelf's row of the figure: its Save button, named after it.
    found = [b for b in buttons("Save ") if b.name not in ("Save all",)]
    return found[-1] if found else None    # newest first: the figure is the oldest result


def provenance_text():
    app.press(buttons("Provenance of ")[-1].name)
    return wait_for(lambda: next((s for s in app.texts() if s.startswith("Made by cell")), None), 20,
                    "the provenance in its popover")


try:
    app.start(timeout=60)
    ask("Plot the values and sum them.")
    check("a histogram, then a cell fails, the repair and the answer come",
          lambda: (wait_text("NameError", 90), wait_text("The total is 14.", 120)))

    # -- expiry: the results are said to be gone, Save is not offered --
    check("the session expires and offers Restart session",
          lambda: app.find("Restart session", pyatspi.ROLE_PUSH_BUTTON, timeout=IDLE + 60))
    check("the shelf says its results are gone and offers Restart Session",
          lambda: (wait_text("gone with the session", 20),
                   wait_for(lambda: buttons("Restart Session"), 10,
                            f"Restart Session on the shelf (buttons: {[b.name for b in buttons('Restart')]})")))
    check("the gone result's Save is not offered",
          lambda: wait_for(lambda: histogram_save() is not None
                           and not histogram_save().getState().contains(pyatspi.STATE_SENSITIVE), 10,
                           "an insensitive Save on the shelf"))

    # -- quit, reopen, Restart Session --
    app.quit()
    app = App(settings=settings, home=home)
    app.own_home = True
    app.start(timeout=60)
    check("after the reopen the conversation is there, expired",
          lambda: (wait_text("The total is 14.", 30), app.find("Restart session", pyatspi.ROLE_PUSH_BUTTON, timeout=30)))
    check("Restart session replays the cells that succeeded and says it skipped the failed one, and why",
          lambda: (app.click("Restart session"),
                   wait_text("2 of 3 cells were run again", 120),
                   wait_text("Cell 2 was skipped: it failed when it first ran (NameError", 5)))
    check("the histogram is made again: its Save is offered",
          lambda: wait_for(lambda: histogram_save() is not None
                           and histogram_save().getState().contains(pyatspi.STATE_SENSITIVE), 30,
                           "a sensitive Save on the shelf"))
    check("nothing on the shelf says gone once restarted",
          lambda: wait_for(lambda: not any("gone with the session" in s for s in app.texts()), 20,
                           "no 'gone' on the shelf"))

    # -- the next question sees the replayed variables --
    ask("Double and halve it.")
    # The cells' outputs as the model got them (rows scrolled out of the chat
    # are not on the accessibility bus).
    def next_cells():
        wait_text("Double is 28", 120)
        bodies = " ".join(r.get("body", "") for r in server.requests())
        assert "double 28" in bodies and "half 7.0" in bodies, f"the outputs did not reach the model: {bodies[-1500:]}"
        assert "NameError: name 'total'" not in bodies, "a cell did not see the replayed total"
    check("the next cells see the replayed variables (double 28, half 7.0: sum of the replayed vals is 14)", next_cells)

    # -- provenance of the histogram after the reopen: cell 1, its own code
    # (the new cells were numbered cell-1 and cell-2 again, and the first
    # took the histogram's place) --
    def provenance_right():
        text = provenance_text()
        assert text.startswith("Made by cell 1 "), text
        assert "plt.hist(vals)" in text and "half" not in text and "double" not in text, text
        return text
    check("the histogram's provenance names cell 1 and its code, not a later cell's", provenance_right)
except Exception as e:
    t.ok(False, "the walk ran to its end", f"{type(e).__name__}: {e}\n{app.output()[-1500:]}")
finally:
    app.cleanup()
    server.stop()
t.done()
