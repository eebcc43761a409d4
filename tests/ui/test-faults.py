# SPDX-License-Identifier: GPL-3.0-or-later
"""test-faults.py — the window under faults, on the real app through AT-SPI:
the model server cut mid-answer (the error inline with Retry, the question
kept, Retry answers), reckon killed with SIGKILL while a cell runs (no
sandboxed process left behind; on restart the conversation is there), and a
500 MB CSV (the window keeps answering while its card shows progress; Cancel
stops the profile). Each step saves a screenshot, checked to be non-blank."""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, RECKON_APP, do_action, find_node, walk, wait_for  # noqa: E402

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


def workspace_copies(root, original):
    """Files under @root as large as @original (its copies in workspaces)."""
    size = os.path.getsize(original)
    out = set()
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            try:
                if os.path.getsize(path) == size and not os.path.islink(path):
                    out.add(path)
            except OSError:
                pass
    return out


def uncache_new_copy(root, original, before):
    """Writes a new, whole copy of @original to the disk and drops it from
    the page cache; False while there is none yet."""
    for path in workspace_copies(root, original) - before:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        return True
    return False


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

    # -- a 500 MB CSV: progress, a window that keeps answering, Cancel --
    big = os.path.join(home, "big.csv")
    with open(big, "w") as f:
        row = "2024-01-01,North,12345.678,some text in a column,42\n"
        f.write("date,region,amount,note,count\n")
        chunk = row * 20000
        written = 0
        big_rows = 0
        while written < 500 * 1024 * 1024:
            f.write(chunk)
            written += len(chunk)
            big_rows += 20000
    # Cancel at once: the profiler reads 200 MB in about two seconds here, so a
    # Cancel clicked later finds the file read and no Cancel any more.
    # Its copy is taken out of the page cache as soon as it is there (see
    # below), so that reading it lasts long enough for Cancel to find it busy.
    first_copies = workspace_copies(cache, big)
    subprocess.Popen([RECKON_APP, big], env=app.env)
    wait_for(lambda: uncache_new_copy(cache, big, first_copies), 30, "the first copy in the workspace")
    busy_cancel = []
    if check("the big file's card shows it is being read, with Cancel",
             lambda: (busy_cancel.append(app.find("Cancel", pyatspi.ROLE_PUSH_BUTTON, timeout=30)),
                      wait_text("big.csv", 30))):
        # The button just found is pressed at once: a screenshot or a second
        # search first gives the profiler time to finish the file.
        check("Cancel stops reading the big file",
              lambda: (do_action(busy_cancel[0]),
                       wait_text("Reading this file was stopped.", 20),
                       wait_for(lambda: not app.exists("Cancel", pyatspi.ROLE_PUSH_BUTTON), 20,
                                "the card to settle")))
        shot("big-file-cancelled")
    # The same file again, read to its end: the window keeps answering
    # meanwhile (each AT-SPI round trip is served by the app's main loop).
    copies_before = workspace_copies(cache, big)
    subprocess.Popen([RECKON_APP, big], env=app.env)
    # Its copy in the workspace is taken out of the page cache once written
    # (as a file just copied from a slow disk, or under memory pressure,
    # would be): the profiler then reads it from the disk, which takes long
    # enough to watch the card grow; from memory it takes under a second
    # on a quiet machine, too short to read the card more than once.
    check("the big file's copy in the workspace is out of the page cache",
          lambda: wait_for(lambda: uncache_new_copy(cache, big, copies_before), 30, "the copy in the workspace"))
    if check("the big file is added again and read", lambda: app.find("Cancel", pyatspi.ROLE_PUSH_BUTTON, timeout=30)):
        # The new card (the last node named big.csv that holds a Cancel):
        # its percentage ("Reading the file (210.1 MB)… 45 % 3 s") and its
        # bar ("Reading progress") are polled there, a cheap walk of one
        # card, while the whole window is walked too (it must keep answering).
        def busy_card():
            cards = []
            walk(app.root, lambda n: cards.append(n) if n.name == "big.csv" and n.childCount > 0 else None)
            for c in reversed(cards):
                if find_node(c, "Cancel", pyatspi.ROLE_PUSH_BUTTON) is not None:
                    return c
            return None
        # The card is named once it is bound to its file, which can come a
        # moment after the Cancel button is found.
        try:
            card = wait_for(busy_card, 10, "the new card with Cancel")
        except TimeoutError:
            card = None
        worst = 0.0
        walks = 0
        percents = []
        bar_values = []
        progress_shot = False
        last_walk = 0.0
        deadline = time.monotonic() + 120
        while card is not None and time.monotonic() < deadline:
            inside = []
            walk(card, lambda n: inside.append(n))
            if not any(n.name == "Cancel" for n in inside):
                break
            for n in inside:
                texts = []
                try:
                    if n.getRole() == pyatspi.ROLE_PROGRESS_BAR and n.name == "Reading progress":
                        bar_values.append(n.queryValue().currentValue)
                        continue
                    texts.append(n.name or "")
                    texts.append(n.queryText().getText(0, -1))
                except Exception:
                    pass
                for text in texts:
                    m = re.search(r"Reading the file.*…\s(\d{1,3})\s?%", text or "")
                    if m and (not percents or percents[-1] != int(m.group(1))):
                        percents.append(int(m.group(1)))
            if percents and not progress_shot:
                shot("big-file-progress")
                progress_shot = True
            if time.monotonic() - last_walk > 0.5:
                start = time.monotonic()
                app.texts()
                worst = max(worst, time.monotonic() - start)
                walks += 1
                last_walk = time.monotonic()
            time.sleep(0.05)
        t.ok(card is not None, "the new card of the big file is found")
        # Answering at all while the card still reads is the check: how fast
        # a walk of the whole tree is depends on the machine's load (no timed
        # asserts in the suite; 2.36 s was seen at load 15), so it is printed.
        t.ok(walks > 0, f"the window answers while the file is read ({walks} tree walks, slowest {worst:.2f} s)")
        # On a quiet machine the whole read can take under a second, so only
        # one report may be seen here; the growth itself is checked through
        # the file object's "progress" by test-profile-progress-sandbox.
        t.ok(len(percents) >= 1 and percents == sorted(percents) and all(0 <= p <= 100 for p in percents),
             f"the card shows the percentage read while the file is read, never going back ({percents})")
        t.ok(len(bar_values) > 0 and all(0.0 <= v <= 1.0 for v in bar_values),
             f"the card's bar is named \"Reading progress\" and holds the fraction read "
             f"({len(bar_values)} readings, last {bar_values[-1] if bar_values else None})")
        check(f"the file is read to its end ({big_rows} rows)", lambda: wait_text(f"{big_rows} rows", 60))
except Exception as e:
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    server.stop()
    subprocess.run(["rm", "-rf", home])
t.done()
