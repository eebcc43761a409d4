#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-a11y.py — issue 19's accessibility acceptance: walks the AT-SPI tree
of the main window (a file card, a question with a table, a chart, a figure
and an answer in it), its main menu, and each dialog — Preferences, the
keyboard shortcuts, About, "What Was Sent to the Model", the table's own
window, the chart's window and the figure viewer — and fails on any control
(button, toggle, menu item, check box, entry, spin button, list item, ...)
that has no name, whose name holds a mnemonic underscore ("_Open Table"),
says the same words twice ("Open Table Open Table") or is a class name
("GtkListItemWidget"). The file chooser is GTK's own dialog (and the
portal's in a Flatpak): it is left out."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, RECKON_APP, key, visible, wait_for, walk  # noqa: E402

t = TapSuite()
work = tempfile.mkdtemp(prefix="rk-ui-a11y-")
csv_path = os.path.join(work, "sales.csv")
with open(csv_path, "w") as f:
    f.write("month,units\n")
    for i, m in enumerate(["Jan", "Feb", "Mar", "Apr", "May", "Jun"]):
        f.write(f"{m},{i * 7 % 11 + 3}\n")

CODE = ("import matplotlib.pyplot as plt\n"
        "df = reckon.load('sales.csv')\n"
        "reckon.chart(df, kind='bar', x='month', y='units', title='Units by month')\n"
        "plt.plot(df.units)\nplt.title('Units line')\n"
        "df\n")
server = MockServer({
    "api": "openai",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [{"text": "Hello."},
              {"text": "Looking.", "tool_calls": [{"name": "python", "arguments": {"code": CODE}}]},
              {"text": "Units peak in **March**."}],
})
app = App(settings={"endpoint": server.url, "api-kind": "openai", "model": "qwen2.5-coder:7b",
                    "approval-policy": "auto"})

R = pyatspi
CONTROLS = {R.ROLE_PUSH_BUTTON, R.ROLE_TOGGLE_BUTTON, R.ROLE_MENU_ITEM, R.ROLE_CHECK_MENU_ITEM,
            R.ROLE_RADIO_MENU_ITEM, R.ROLE_CHECK_BOX, R.ROLE_RADIO_BUTTON, R.ROLE_ENTRY,
            R.ROLE_PASSWORD_TEXT, R.ROLE_SPIN_BUTTON, R.ROLE_COMBO_BOX, R.ROLE_LIST_ITEM,
            R.ROLE_LINK, R.ROLE_SLIDER, R.ROLE_PAGE_TAB, R.ROLE_MENU}
MNEMONIC = re.compile(r"(^|[\s(“\"'])_[^\s_]")


def problem(node):
    """Why @node fails the acceptance, or None."""
    try:
        role = node.getRole()
        if role not in CONTROLS and not (role == R.ROLE_TEXT and node.getState().contains(R.STATE_EDITABLE)):
            return None
        # What a person can reach: shown on screen (a closed popover's
        # items are not).
        if not visible(node) or not node.getState().contains(R.STATE_SHOWING):
            return None
        name = (node.name or "").strip()
        what = f"{node.getRoleName()} {name!r}"
    except Exception:
        return None
    if not name:
        return f"{what}: no name (under {path_of(node)})"
    if MNEMONIC.search(name):
        return f"{what}: a mnemonic underscore in the name"
    words = name.lower().split()
    if len(words) >= 2 and len(words) % 2 == 0 and words[:len(words) // 2] == words[len(words) // 2:]:
        return f"{what}: the same words twice"
    if re.match(r"^Gtk[A-Z]\w+$", name) or re.match(r"^Adw[A-Z]\w+$", name):
        return f"{what}: a class name"
    return None


def path_of(node):
    names = []
    try:
        n = node.parent
        while n is not None and len(names) < 4:
            if n.name:
                names.append(f"{n.getRoleName()} {n.name!r}")
            n = n.parent
    except Exception:
        pass
    return " < ".join(names) or "?"


def audit(root):
    found = []
    walk(root, lambda n: found.append(problem(n)))
    return sorted({p for p in found if p})


def top_named(name):
    """The window named @name; None: the newest window but the main one."""
    def look():
        windows = [app.root.getChildAtIndex(i) for i in range(app.root.childCount)]
        for w in reversed(windows):
            if w is None:
                continue
            if name is None and "Reckon" not in (w.name or "") and w.childCount > 0:
                return w
            if name is not None and (w.name or "").startswith(name):
                return w
        return None
    return wait_for(look, 20, f"a window named {name!r}")


def click_containing(text):
    """Today's names may be doubled or carry "_": find the button by a part."""
    def look():
        found = []
        walk(app.root, lambda n: found.append(n) if n.getRole() == R.ROLE_PUSH_BUTTON
             and text in (n.name or "").replace("_", "") and visible(n) else None)
        return found[-1] if found else None
    wait_for(look, 20, f"a button whose name holds {text!r}").queryAction().doAction(0)


def check_window(label, root):
    problems = audit(root)
    t.ok(not problems, f"{label}: every control has a name, without mnemonic underscores or doubled words",
         "\n".join(problems[:60]))


def open_and_check(label, opener, window_name, closer=lambda: key("Escape")):
    try:
        opener()
        win = top_named(window_name)
        check_window(label, win)
    except Exception as e:
        t.ok(False, f"{label}: opens", f"{type(e).__name__}: {e}\n{app.output()[-800:]}")
    finally:
        try:
            closer()
        except Exception:
            pass


def main_window():
    for i in range(app.root.childCount):
        w = app.root.getChildAtIndex(i)
        if w is not None and w.getRole() == R.ROLE_FRAME and "Reckon" in (w.name or ""):
            return w
    return app.root


try:
    app.start(timeout=60)
    subprocess.run([RECKON_APP, csv_path], env=app.env, timeout=60, check=False)
    app.wait_text("6 rows", 90)
    # The first question's row, while it is on screen: what it sent.
    app.ask("Hi")
    app.wait_text("Hello.", 60)
    open_and_check("What Was Sent to the Model",
                   lambda: app.click("What was sent to the model"), "What Was Sent to the Model")
    app.ask("When do units peak?")
    app.wait_text("Units peak in", 180)
    wait_for(lambda: any("Open Chart" in (s or "").replace("_", "") for s in app.texts()), 30, "the chart")

    check_window("the main window", main_window())

    def main_menu():
        app.press("Main Menu")
        wait_for(lambda: app.find("Print Report…", None, timeout=5), 10, "the main menu")
    try:
        main_menu()
        problems = []
        walk(app.root, lambda n: problems.append(problem(n)))
        problems = sorted({p for p in problems if p})
        t.ok(not problems, "the main menu: every item has a name, without mnemonic underscores",
             "\n".join(problems[:40]))
    except Exception as e:
        t.ok(False, "the main menu opens", f"{e}\n{app.output()[-800:]}")
    finally:
        key("Escape")

    open_and_check("Preferences", lambda: key("ctrl+comma"), "Preferences", closer=lambda: None)

    def combo_items():
        app.press("Kind")
        wait_for(lambda: app.find("OpenAI-compatible", None, timeout=3) or True, 5, "the list")
        problems = audit(app.root)
        t.ok(not problems, "Preferences' drop-down list: its items have names", "\n".join(problems[:20]))
    try:
        combo_items()
    except Exception as e:
        t.ok(False, "Preferences' drop-down list opens", f"{e}")
    finally:
        key("Escape")
        key("Escape")
    open_and_check("the keyboard shortcuts", lambda: key("ctrl+question"), None)
    open_and_check("About", lambda: (app.press("Main Menu"), app.press("About Reckon")), "About")
    open_and_check("the table's window", lambda: click_containing("Open Table"), None)
    open_and_check("the chart's window", lambda: click_containing("Open Chart"), "Units by month")
    open_and_check("the figure viewer", lambda: click_containing("Open figure"), "Units line")
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the walk ran to its end", f"{type(e).__name__}: {e}\n{app.output()[-1500:]}")
finally:
    app.cleanup()
    server.stop()
t.done()
