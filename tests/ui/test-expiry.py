# SPDX-License-Identifier: GPL-3.0-or-later
"""test-expiry.py — a session on a short idle timeout, on the real app: a cell
leaves a variable, the expiry banner comes with Save all and Keep alive, the
session expires and the transcript stays readable, and Restart session
replays the approved cell so that the next cell sees its variable again."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, wait_for  # noqa: E402

t = TapSuite()
IDLE = 30
server = MockServer({
    "api": "openai",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [
        {"text": "Computing.", "tool_calls": [{"name": "python", "arguments": {
            "code": "secret = 6 * 7\nprint('set', secret)\n"}}]},
        {"text": "It is set."},
        {"text": "Doubling.", "tool_calls": [{"name": "python", "arguments": {
            "code": "print('double', secret * 2)\n"}}]},
        {"text": "Done."},
    ],
    "repeat_last": True,
})
app = App(settings={"endpoint": server.url, "api-kind": "openai", "model": "qwen2.5-coder:7b",
                    "approval-policy": "auto", "idle-expiry-seconds": IDLE})


def wait_text(text, timeout=60):
    return wait_for(lambda: any(text in s for s in app.texts()), timeout, f"text {text!r} in the window")


def check(name, fn):
    try:
        fn()
        t.ok(True, name)
        return True
    except (TimeoutError, IndexError, AssertionError) as e:
        t.ok(False, name, e)
        return False


def shot(name):
    path, colors = app.screenshot(f"expiry-{name}")
    t.ok(colors > 16, f"screenshot {name} is not blank ({colors} colours)", path)


def ask(question):
    box = app.find("Your question", timeout=20)
    app.set_text(box, question)
    app.click("Send")


try:
    app.start(timeout=60)
    ask("Set the secret.")
    check("the cell runs and prints", lambda: wait_text("set 42", 90))
    # The banner first: it lasts only until the idle timeout, and a failed
    # wait for the answer would outlast it.
    check("the expiry banner comes with Save all and Keep alive",
          lambda: (app.find("Keep alive", pyatspi.ROLE_PUSH_BUTTON, timeout=IDLE + 20),
                   app.find("Save all", pyatspi.ROLE_PUSH_BUTTON, timeout=5)))
    check("the final answer shows in full", lambda: wait_text("It is set.", 5))
    shot("banner")
    check("the session expires and offers Restart session",
          lambda: app.find("Restart session", pyatspi.ROLE_PUSH_BUTTON, timeout=IDLE + 30))
    check("the transcript stays readable after expiry", lambda: wait_text("set 42", 5))
    shot("expired")
    check("Restart session replays the approved cell",
          lambda: (app.click("Restart session"),
                   wait_for(lambda: not app.exists("Restart session", pyatspi.ROLE_PUSH_BUTTON), 120,
                            "the restart to finish")))
    ask("Double it.")
    check("the next cell sees the replayed variable (double 84)", lambda: wait_text("double 84", 90))
    shot("restarted")
except Exception as e:
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    server.stop()
t.done()
