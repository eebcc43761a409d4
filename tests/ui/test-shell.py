# SPDX-License-Identifier: GPL-3.0-or-later
"""test-shell.py — the window's own flows on the real app, through AT-SPI:
no model server at all (the status page, then Run Python still works),
20 files opened at once through a second `reckon FILE...`, the expiry
banner's countdown and Keep alive, and Preferences and the shortcuts window
from the keyboard. Each step saves a screenshot, checked to be non-blank."""
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, TapSuite, RECKON_APP, key, wait_for  # noqa: E402

t = TapSuite()


def closed_port():
    """A port nothing listens on: bound, then closed again."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


work = tempfile.mkdtemp(prefix="rk-ui-shell-")
files = []
for i in range(20):
    path = os.path.join(work, f"part-{i + 1:02d}.csv")
    with open(path, "w") as f:
        f.write("id,value\n")
        for j in range(5):
            f.write(f"{j},{(i + 1) * (j + 1)}\n")
    files.append(path)

# A short idle expiry: the warning comes halfway, 30 s after the last activity.
app = App(settings={"endpoint": f"http://127.0.0.1:{closed_port()}", "idle-expiry-seconds": 60})


def shot(name):
    path, colors = app.screenshot(f"shell-{name}")
    t.ok(colors > 16, f"screenshot {name} is not blank ({colors} colours)", path)


def wait_text(text, timeout=60):
    return wait_for(lambda: any(text in s for s in app.texts()), timeout, f"text {text!r} in the window")


def check(name, fn):
    try:
        fn()
        t.ok(True, name)
    except (TimeoutError, IndexError, AssertionError) as e:
        t.ok(False, name, e)


try:
    app.start(timeout=60)
    t.ok(True, "the window appears on the accessibility bus")

    # -- the expiry banner: countdown, then Keep alive --
    def banner():
        # The warning comes halfway to expiry, 30 s after the start.
        app.find("Keep alive", pyatspi.ROLE_PUSH_BUTTON, timeout=50)
        app.find("Save all", pyatspi.ROLE_PUSH_BUTTON, timeout=5)
        wait_text("This session ends in", 5)
    check("the expiry banner counts down with Save all and Keep alive", banner)
    shot("expiry-banner")
    check("Keep alive hides the banner",
          lambda: (app.click("Keep alive"),
                   wait_for(lambda: not app.exists("Keep alive", pyatspi.ROLE_PUSH_BUTTON), 10, "the banner to go")))

    # -- no model server: the status page with the commands --
    check("the no-model page names the commands to start a server",
          lambda: (wait_text("No Model Server Found", 30), wait_text("ollama pull qwen2.5-coder:7b", 5)))
    check("the connection button says no model server",
          lambda: app.find("No model server", pyatspi.ROLE_PUSH_BUTTON, timeout=10))
    check("Check Again and Set Address are offered",
          lambda: (app.find("Check Again", pyatspi.ROLE_PUSH_BUTTON), app.find("Set Address", pyatspi.ROLE_PUSH_BUTTON)))
    shot("no-model")

    # -- a question that cannot be sent stays in the composer --
    def question_kept():
        box = app.find("Your question", timeout=10)
        app.set_text(box, "What is the total revenue?")
        app.click("Send")
        wait_for(lambda: app.exists("Send", pyatspi.ROLE_PUSH_BUTTON), 60, "Send to come back")
        time.sleep(1)
        text = "".join(app.texts(app.find("Your question", timeout=5)))
        assert "What is the total revenue?" in text, f"the composer holds {text!r}"
    check("a question that fails to send is kept in the composer", question_kept)
    shot("question-kept")

    # -- Run Python works without a model --
    def run_python():
        app.click("Run Python")  # a toggle button reads as a push button in GTK 4.8
        box = app.find("Python code", timeout=10)
        app.set_text(box, "x = 6")
        # From the keyboard: Shift+Enter adds a line, Enter sends.
        key("ctrl+l")
        key("ctrl+End")
        key("shift+Return")
        subprocess.run(["xdotool", "type", "--delay", "30", "print(x * 7)"], check=True)
        key("Return")
        wait_text("42", 90)
    check("Run Python runs two typed lines (Shift+Enter, then Enter) with no model server (42)", run_python)
    check("the chat replaced the no-model page, a strip still says so",
          lambda: (wait_for(lambda: not app.exists("Check Again", pyatspi.ROLE_PUSH_BUTTON), 10, "the page to give way"),
                   wait_text("No model server answers", 5)))
    shot("run-python")

    # -- 20 files at once, through a second instance (Open With) --
    subprocess.run([RECKON_APP] + files, env=app.env, timeout=60, check=False)
    check("20 files opened at once all appear",
          lambda: wait_for(lambda: all(any(os.path.basename(p) in s for s in app.texts()) for p in files), 90,
                           "all 20 file names"))
    shot("twenty-files")

    # -- keyboard: Preferences and the shortcuts window --
    def preferences():
        key("ctrl+comma")
        wait_text("Model Server", 10)
        app.find("Allow Model Servers on Other Computers", timeout=5)
        shot("preferences")
        key("Escape")
    check("Ctrl+, opens Preferences", preferences)

    def shortcuts():
        key("ctrl+question")
        wait_text("Attach files", 10)
        shot("shortcuts")
        key("Escape")
    check("Ctrl+? opens the keyboard shortcuts", shortcuts)
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
t.done()
