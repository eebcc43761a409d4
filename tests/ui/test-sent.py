#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-sent.py — issue 19's "What was sent to the model", in the real app
through AT-SPI with the scripted model server: a CSV is added, a question is
asked and answered after one cell; the question's "What was sent to the
model" opens a window whose text holds exactly the system prompt the server
received (the file's column statistics and sample values in it), the
question, the model's code and its result; Preferences' "Sample values per
column" set to 0 takes the sample values out of the next request; after
quitting and reopening, the first question still shows what it sent. Code
that tries the network shows one plain sentence in the window."""
import configparser
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, RECKON_APP, key, visible, wait_for, walk  # noqa: E402

t = TapSuite()
work = tempfile.mkdtemp(prefix="rk-ui-sent-")
csv_path = os.path.join(work, "sales.csv")
with open(csv_path, "w") as f:
    f.write("region,units\n")
    for i, region in enumerate(["North", "South", "East", "West"] * 6):
        f.write(f"{region},{(i * 37) % 200 + 10}\n")


def code_turn(text, code):
    return {"text": text, "tool_calls": [{"name": "python", "arguments": {"code": code}}]}


server = MockServer({
    "api": "openai",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [code_turn("Counting.", "print('rows', 6 * 4)\n"),
              {"text": "There are 24 rows."},
              {"text": "Second answer."},
              code_turn("Fetching.", "import urllib.request\nurllib.request.urlopen('https://example.com/a.csv')\n"),
              {"text": "The web cannot be reached."}],
})
settings = {"endpoint": server.url, "api-kind": "openai", "model": "qwen2.5-coder:7b",
            "approval-policy": "auto"}
app = App(settings=settings)
home = app.home
keyfile = os.path.join(home, "config", "glib-2.0", "settings", "keyfile")
SHOT_OUT = "/work/shots/i19-prompt-view.png"


def setting(name):
    cp = configparser.ConfigParser(interpolation=None)
    cp.read(keyfile)
    return cp.get("io/github/reckon/Reckon", name, fallback=None)


def check(name, fn):
    return t.check(name, fn, app.output)


def chat_bodies():
    return [json.loads(r["body"]) for r in server.requests() if r["path"] == "/v1/chat/completions"]


def sent_buttons():
    out = []
    walk(app.root, lambda n: out.append(n) if n.name == "What was sent to the model"
         and n.getRole() == pyatspi.ROLE_PUSH_BUTTON and visible(n) else None)
    return out


def view_text():
    """The text of the open "What Was Sent to the Model" window."""
    def look():
        found = []
        walk(app.root, lambda n: found.append(n) if n.getRole() == pyatspi.ROLE_TEXT
             and n.name == "What was sent to the model" and visible(n) else None)
        if not found:
            return None
        text = found[0].queryText()
        return text.getText(0, -1)
    return wait_for(look, 20, "the text of the 'What Was Sent to the Model' window")


def open_view(index):
    buttons = wait_for(lambda: len(sent_buttons()) > index and sent_buttons(), 30,
                       f"{index + 1} 'What was sent to the model' buttons")
    buttons[index].queryAction().doAction(0)
    return view_text()


def close_view():
    key("Escape")
    wait_for(lambda: not any(n.name == "What Was Sent to the Model" for n in top_windows()), 10,
             "the window closed")


def top_windows():
    return [app.root.getChildAtIndex(i) for i in range(app.root.childCount)]


try:
    app.start(timeout=60)
    t.ok(True, "the window appears on the accessibility bus")
    subprocess.run([RECKON_APP, csv_path], env=app.env, timeout=60, check=False)
    check("the file is profiled", lambda: app.wait_text("24 rows", 90))

    app.ask("How many rows are there?")
    check("the question is answered after one cell", lambda: app.wait_text("There are 24 rows.", 120))

    def first_view():
        text = open_view(0)
        bodies = chat_bodies()
        assert len(bodies) == 2, f"{len(bodies)} chat requests"
        system = bodies[0]["messages"][0]["content"]
        assert system in text, "the system prompt the server got is not in the window, whole"
        assert "sales.csv" in system and "- units: integer" in system, system
        assert "North" in system and "First rows:" in system, "the sample values were not sent"
        assert "Request 1 of 2" in text and "Request 2 of 2" in text, text[:300]
        assert "How many rows are there?" in text
        assert "print('rows', 6 * 4)" in text, "the model's code is not shown"
        assert "rows 24" in text, "the cell's result sent back is not shown"
        # The characters of the first request, as the window counts them.
        chars = sum(len(m.get("content") or "") for m in bodies[0]["messages"])
        assert f"Request 1 of 2 · {chars} characters" in text, (chars, text[:200])
    check("the question's 'What was sent to the model' shows exactly what the server received", first_view)
    os.makedirs(os.path.dirname(SHOT_OUT), exist_ok=True)
    t.shot(app, "sent-view")
    shutil.copy(app.screenshot("sent-view")[0], SHOT_OUT)
    check("Escape closes it", close_view)

    def fewer_samples():
        key("ctrl+comma")
        app.wait_text("Privacy", 10)
        def look():
            found = []
            walk(app.root, lambda n: found.append(n) if n.getRole() == pyatspi.ROLE_SPIN_BUTTON
                 and (n.name or "").startswith("Sample values per column") and visible(n) else None)
            return found[0] if found else None
        spin = wait_for(look, 10, "the 'Sample values per column' spin button").queryValue()
        assert spin.currentValue == 6, f"it shows {spin.currentValue}"
        spin.currentValue = 0
        wait_for(lambda: setting("prompt-samples") == "0", 10, "prompt-samples=0 in the settings")
        t.shot(app, "sent-preferences")
        key("Escape")
    check("Preferences has 'Sample values per column', bound to prompt-samples", fewer_samples)

    def second_request():
        app.ask("And the second question?")
        app.wait_text("Second answer.", 120)
        system = chat_bodies()[2]["messages"][0]["content"]
        assert "- units: integer" in system, "the statistics are still sent"
        assert "North" not in system and "First rows:" not in system, system
        text = open_view(1)
        assert system in text and "North" not in text.split("And the second question?")[0], text[:400]
        close_view()
    check("with 0 sample values the next request has the statistics but no values", second_request)

    app.quit()
    app = App(settings=settings, home=home)
    app.own_home = True
    app.start(timeout=60)

    def after_reopen():
        app.wait_text("There are 24 rows.", 60)
        text = open_view(0)
        assert "Request 1 of 2" in text and "North" in text and "How many rows are there?" in text, text[:300]
        close_view()
    check("after quit and reopen the first question still shows what it sent", after_reopen)

    # Code that tries the network: one plain sentence in the window.
    def no_network():
        app.ask("Get the file from the web")
        app.wait_text("Code runs without network access; add the file instead.", 120)
        app.wait_text("The web cannot be reached.", 60)
        shown = [s for s in app.texts() if "URLError" in s or "Errno" in s or "NoNetwork" in s]
        assert not shown, shown
    check("code that tries the network shows one plain sentence, no URLError", no_network)
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()[-1500:]}")
finally:
    app.cleanup()
    server.stop()
    shutil.rmtree(work, ignore_errors=True)
t.done()
