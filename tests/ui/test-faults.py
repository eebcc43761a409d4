# SPDX-License-Identifier: GPL-3.0-or-later
"""test-faults.py — the window under faults, on the real app through AT-SPI:
the model server cut mid-answer (the error inline with Retry, the question
kept, Retry answers), reckon killed with SIGKILL while a cell runs (no
sandboxed process left behind; on restart the conversation is there), and a
200 MB CSV (the window keeps answering while its card shows progress; Cancel
stops the profile). Each step saves a screenshot, checked to be non-blank."""
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, RECKON_APP, wait_for  # noqa: E402

t = TapSuite()
QUESTION = "How many rows are there?"
script = {
    "api": "openai",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [
        {"text": "Let me count the rows of every file you gave me", "fault": "cut", "fault_after": 4},
        {"text": "There are **3** rows."},
        {"text": "I will loop.", "tool_calls": [{"name": "python", "arguments": {"code": "while True:\n    pass\n"}}]},
        {"text": "Done."},
    ],
    "repeat_last": True,
}
server = MockServer(script)
home = tempfile.mkdtemp(prefix="rk-ui-faults-")
settings = {"endpoint": server.url, "api-kind": "openai", "model": "qwen2.5-coder:7b"}
app = App(settings=settings, home=home)


def shot(name):
    path, colors = app.screenshot(f"faults-{name}")
    t.ok(colors > 16, f"screenshot {name} is not blank ({colors} colours)", path)


def wait_text(text, timeout=60):
    return wait_for(lambda: any(text in s for s in app.texts()), timeout, f"text {text!r} in the window")


def check(name, fn):
    try:
        fn()
        t.ok(True, name)
        return True
    except (TimeoutError, IndexError, AssertionError, RuntimeError) as e:
        t.ok(False, name, e)
        return False


def sandboxes_of(workspace_root):
    """Processes whose command line names a workspace under @workspace_root."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if workspace_root in cmd and "reckon-sandbox" in cmd:
            out.append(int(pid))
    return out


def composer_text():
    text = app.find("Your question", timeout=20).queryText()
    return text.getText(0, text.characterCount)


def saved_transcripts():
    """The text of every saved transcript of the conversations in @home."""
    out = ""
    root = os.path.join(home, "data", "reckon", "conversations")
    for dirpath, _dirs, files in os.walk(root):
        if "transcript.json" in files:
            with open(os.path.join(dirpath, "transcript.json"), errors="replace") as f:
                out += f.read()
    return out


def ask(question):
    box = app.find("Your question", timeout=20)
    app.set_text(box, question)
    app.click("Send")


try:
    app.start(timeout=60)
    t.ok(True, "the window appears")

    # -- the server cuts the answer: the error inline, Retry, the question kept --
    ask(QUESTION)
    check("a cut answer shows its error inline with Retry",
          lambda: app.find("Retry", pyatspi.ROLE_PUSH_BUTTON, timeout=60))
    check("the question is kept in the conversation", lambda: wait_text(QUESTION, 5))
    shot("cut")
    check("the question that failed is back in the composer",
          lambda: wait_for(lambda: composer_text().strip() == QUESTION, 10, "the question in the composer"))
    check("Retry asks again and the answer comes",
          lambda: (app.click("Retry"), wait_text("There are 3 rows", 60)))
    check("the composer is empty once the retried question is accepted",
          lambda: wait_for(lambda: composer_text().strip() == "", 10, "an empty composer"))
    shot("retried")

    # -- SIGKILL while a cell runs: nothing left behind, the conversation kept --
    ask("Loop forever, please.")
    check("the runaway cell is offered to run", lambda: app.click("Run", timeout=60))
    check("the cell runs", lambda: app.find("Stop", pyatspi.ROLE_PUSH_BUTTON, timeout=30))
    # The transcript autosaves a moment after each change (a SIGKILL can
    # only lose that moment): the approved cell is on disk before the kill.
    check("the running cell's question and approval are saved before the kill",
          lambda: wait_for(lambda: "Loop forever, please." in saved_transcripts()
                           and '"approved"' in saved_transcripts(), 10, "the autosave"))
    cache = os.path.join(home, "cache", "reckon")
    before = sandboxes_of(cache)
    t.ok(len(before) > 0, f"the running app has sandboxed processes ({len(before)})")
    app.kill()
    deadline = time.monotonic() + 5
    while sandboxes_of(cache) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = sandboxes_of(cache)
    t.ok(not left, "no sandboxed process outlives a SIGKILL of reckon (checked within 5 s)", left)

    app = App(settings=settings, home=home)
    app.start(timeout=60)
    check("after the restart the conversation is there",
          lambda: (wait_text(QUESTION, 30), wait_text("There are 3 rows", 10), wait_text("Loop forever, please.", 10)))
    shot("restored")

    # -- a 200 MB CSV: progress, a window that keeps answering, Cancel --
    big = os.path.join(home, "big.csv")
    with open(big, "w") as f:
        row = "2024-01-01,North,12345.678,some text in a column,42\n"
        f.write("date,region,amount,note,count\n")
        chunk = row * 20000
        written = 0
        big_rows = 0
        while written < 200 * 1024 * 1024:
            f.write(chunk)
            written += len(chunk)
            big_rows += 20000
    # Cancel at once: the profiler reads 200 MB in a few seconds now, so a
    # Cancel clicked later finds the file read and no Cancel any more.
    subprocess.Popen([RECKON_APP, big], env=app.env)
    if check("the big file's card shows it is being read, with Cancel",
             lambda: (wait_text("big.csv", 30), app.find("Cancel", pyatspi.ROLE_PUSH_BUTTON, timeout=30))):
        shot("big-file")
        check("Cancel stops reading the big file",
              lambda: (app.click("Cancel"),
                       wait_text("Reading this file was stopped.", 20),
                       wait_for(lambda: not app.exists("Cancel", pyatspi.ROLE_PUSH_BUTTON), 20,
                                "the card to settle")))
        shot("big-file-cancelled")
    # The same file again, read to its end: the window keeps answering
    # meanwhile (each AT-SPI round trip is served by the app's main loop).
    subprocess.Popen([RECKON_APP, big], env=app.env)
    if check("the big file is added again and read", lambda: app.find("Cancel", pyatspi.ROLE_PUSH_BUTTON, timeout=30)):
        worst = 0.0
        walks = 0
        while app.exists("Cancel", pyatspi.ROLE_PUSH_BUTTON) and walks < 50:
            start = time.monotonic()
            app.texts()
            worst = max(worst, time.monotonic() - start)
            walks += 1
            time.sleep(0.2)
        t.ok(walks > 0 and worst < 2.0,
             f"the window answers while the file is read ({walks} tree walks, slowest {worst:.2f} s)")
        check(f"the file is read to its end ({big_rows} rows)", lambda: wait_text(f"{big_rows} rows", 60))
except Exception as e:
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    server.stop()
    subprocess.run(["rm", "-rf", home])
t.done()
