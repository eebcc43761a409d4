# SPDX-License-Identifier: GPL-3.0-or-later
"""test-file-cards.py — file cards that lead somewhere (issue 19), in the
real app through AT-SPI with no model server, on data nobody here wrote:
Debian's distro-info tables (as a two-sheet OpenDocument workbook), and
the fertility and iris data sets Debian ships with statsmodels and sklearn.
The card shows the first rows and opens the whole table; a sheet picker
shows the other sheet; "and 46 more columns" opens; the profiler's other
reading is a button; a file in the sidebar leads to its card; a new card
is scrolled into view; a file is removed and the removal undone, the
user's original untouched. Screenshots: i19-card-preview, i19-sheet-picker."""
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, TapSuite, RECKON_APP, find_node, key, walk, wait_for, do_action  # noqa: E402

t = TapSuite()
work = tempfile.mkdtemp(prefix="rk-ui-cards-")
DEBIAN = "/usr/share/distro-info/debian.csv"
UBUNTU = "/usr/share/distro-info/ubuntu.csv"
FERTILITY = "/usr/lib/python3/dist-packages/statsmodels/datasets/fertility/fertility.csv"
IRIS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/iris.csv"
for needed in (DEBIAN, UBUNTU):
    if not os.path.exists(needed):
        print(f"1..0 # SKIP {needed} is missing (distro-info-data)")
        sys.exit(0)

book = os.path.join(work, "distro-info.ods")
subprocess.run(["/usr/bin/python3", "-c", r'''
import sys
import pandas as pd
with pd.ExcelWriter(sys.argv[1], engine="odf") as w:
    pd.read_csv(sys.argv[2]).to_excel(w, sheet_name="debian", index=False)
    pd.read_csv(sys.argv[3]).to_excel(w, sheet_name="ubuntu", index=False)
''', book, DEBIAN, UBUNTU], check=True)
book_sum = hashlib.sha256(open(book, "rb").read()).hexdigest()

app = App(settings={"endpoint": "http://127.0.0.1:9", "api-kind": "openai"})
SHOTS_OUT = os.environ.get("RK_SHOTS_OUT")   # also copy the screenshots there


def shot(name):
    t.shot(app, name)
    if SHOTS_OUT:
        os.makedirs(SHOTS_OUT, exist_ok=True)
        shutil.copy(os.path.join(os.environ["RECKON_BUILD_ROOT"], "tests", "ui", "screenshots", name + ".png"),
                    SHOTS_OUT)


def add(path):
    subprocess.Popen([RECKON_APP, path], env=app.env)


def card(name):
    """The card of @name: the node named after it that holds the card's
    Columns label (the sidebar's row is named after the file too)."""
    found = []

    def look(n):
        if n.name == name and n.getRole() != pyatspi.ROLE_LIST_ITEM and n.childCount > 0:
            found.append(n)
    walk(app.root, look)
    return found[-1] if found else None


def names_under(node):
    out = []
    walk(node, lambda n: out.append(n.name) if n.name else None)
    return out


def click_at(node):
    """A real pointer click in the middle of @node (no window manager: the
    window sits at the screen's origin)."""
    x, y, w, h = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "1"], check=True)


def on_screen(node):
    """GTK 4.8 reports no "showing" state: @node is inside the chat's area."""
    if node is None:
        return False
    chat = app.find("Conversation", timeout=5)
    _cx, cy, _cw, ch = chat.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    _x, y, _w, h = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    return h > 0 and y >= cy - 1 and y < cy + ch


def find_outside_chat(name, role):
    """@name (with @role) anywhere but in the chat's list: a walk of the
    window with four cards in the chat takes longer than a toast lasts."""
    queue = [app.root]
    while queue:
        node = queue.pop(0)
        try:
            if node.name == name and node.getRole() == role:
                return node
            if node.name != "Conversation":
                queue += [node.getChildAtIndex(i) for i in range(node.childCount)]
        except Exception:   # the tree changes under us
            pass
    return None


def check(name, fn):
    return t.check(name, fn, app.output)


def state(node, s):
    return node is not None and node.getState().contains(s)


def workspace_copy(name):
    return glob.glob(os.path.join(app.home, "cache", "reckon", "sessions", "*", name))


def saved_mentions(name):
    hits = []
    for path in glob.glob(os.path.join(app.home, "data", "reckon", "**", "*"), recursive=True):
        if os.path.isfile(path):
            with open(path, "rb") as f:
                if name.encode() in f.read():
                    hits.append(path)
    return hits


try:
    app.start(timeout=60)
    win = wait_for(lambda: subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(app.proc.pid)],
                                          capture_output=True, text=True).stdout.split(), 20, "the X window")
    subprocess.run(["xdotool", "windowmove", win[-1], "0", "0"], check=True)
    add(book)

    def preview():
        wait_for(lambda: card("distro-info.ods") and find_node(card("distro-info.ods"), "Open the whole table",
                                                                  pyatspi.ROLE_PUSH_BUTTON), 90, "the preview")
        shown = names_under(card("distro-info.ods"))
        # Debian's first release, as distro-info lists it: version 1.1, Buzz.
        assert "Buzz" in shown and "codename" in shown, shown
    check("the workbook's card previews its first rows (codename, Buzz)", preview)
    shot("i19-card-preview")

    def sheets():
        c = card("distro-info.ods")
        picker = wait_for(lambda: find_node(c, "Sheet", pyatspi.ROLE_PUSH_BUTTON) or
                          find_node(c, "Sheet", pyatspi.ROLE_TOGGLE_BUTTON), 10, "the sheet picker")
        do_action(picker)
        wait_for(lambda: app.exists("ubuntu"), 10, "the sheets listed")
        shot("i19-sheet-picker")
        # The popup is a surface of its own: its extents are not the
        # screen's, so no pointer click. Its list's Selection interface
        # marks the sheet, Return picks it (as a keyboard user would).
        sheets_list = find_node(c, "GtkListView", pyatspi.ROLE_LIST) or find_node(c, "Sheets", pyatspi.ROLE_LIST)
        names = [sheets_list.getChildAtIndex(i) and names_under(sheets_list.getChildAtIndex(i))
                 for i in range(sheets_list.childCount)]
        index = next(i for i, n in enumerate(names) if n and "ubuntu" in n)
        assert sheets_list.querySelection().selectChild(index), names
        key("Return")
        wait_for(lambda: any("Warty" in s for s in names_under(card("distro-info.ods"))), 20,
                 "the ubuntu sheet's first rows")
        assert any("(sheet “ubuntu”)" in s for s in app.texts(card("distro-info.ods"))), \
            app.texts(card("distro-info.ods"))
    check("the sheet picker shows the other sheet (ubuntu: Warty)", sheets)

    def open_table():
        c = card("distro-info.ods")
        do_action(find_node(c, "Open the whole table", pyatspi.ROLE_PUSH_BUTTON))
        app.click("Run", timeout=60)
        wait_for(lambda: find_node(app.root, "ubuntu", pyatspi.ROLE_FRAME), 120, "a window with the whole table")
    check("the preview opens the whole table in a window of its own", open_table)
    key("Escape")

    if os.path.exists(FERTILITY):
        add(FERTILITY)

        def more_columns():
            more = wait_for(lambda: card("fertility.csv") and find_node(card("fertility.csv"), "and 46 more columns",
                                                                          pyatspi.ROLE_PUSH_BUTTON), 90,
                            "and 46 more columns")
            assert not any("2013" in s for s in app.texts(card("fertility.csv")))
            do_action(more)
            wait_for(lambda: any("2013" in s for s in app.texts(card("fertility.csv"))), 10, "the last column")
            assert find_node(card("fertility.csv"), "Show fewer columns", pyatspi.ROLE_PUSH_BUTTON)
        check("“and 46 more columns” shows them all (fertility.csv's 2013)", more_columns)
    else:
        t.skip("and 46 more columns", "python3-statsmodels is not installed")

    if os.path.exists(IRIS):
        add(IRIS)

        def alternative():
            button = wait_for(lambda: card("iris.csv") and find_node(card("iris.csv"), "Keep line 1 as part of the table",
                                                                       pyatspi.ROLE_PUSH_BUTTON), 90,
                              "the other reading offered")
            assert "setosa" not in names_under(card("iris.csv"))
            do_action(button)
            # Line 1 kept: it names the columns now (…, setosa, …).
            wait_for(lambda: "setosa" in names_under(card("iris.csv")), 90, "iris.csv read again")
        check("the profiler's other reading is a button that reads the file again", alternative)
    else:
        t.skip("the profiler's other reading", "python3-sklearn is not installed")

    def sidebar_leads():
        # The file's row, not the conversation's (named after the file too):
        # the one that holds the file's Remove button.
        rows = []
        walk(app.root, lambda n: rows.append(n) if n.name == "distro-info.ods" and n.getRole() == pyatspi.ROLE_LIST_ITEM
             and find_node(n, "Remove distro-info.ods from the conversation", pyatspi.ROLE_PUSH_BUTTON) else None)
        assert rows, "no row for distro-info.ods in the sidebar's Files"
        assert not on_screen(card("distro-info.ods")), "the card is in view before the row is clicked"
        click_at(rows[0])
        wait_for(lambda: state(card("distro-info.ods"), pyatspi.STATE_FOCUSED), 20, "the card focused")
        assert on_screen(card("distro-info.ods"))
    check("a file in the sidebar leads to its card (scrolled to, focused) on Enter", sidebar_leads)

    def new_card_shown():
        again = os.path.join(work, "ubuntu.csv")
        shutil.copy(UBUNTU, again)
        add(again)
        try:
            wait_for(lambda: on_screen(card("ubuntu.csv")), 60, "the new card shown")
        except TimeoutError:
            c = card("ubuntu.csv")
            raise AssertionError(f"card {c} states {c.getState().getStates() if c else None}")
    check("a new card is scrolled into view", new_card_shown)

    undo_button = []

    def remove():
        assert workspace_copy("distro-info.ods") and saved_mentions(book)
        app.click("Remove distro-info.ods from the conversation", timeout=10)
        # The toast's button, named without its mnemonic underscore (found
        # first: the toast leaves after 10 s).
        undo_button.append(wait_for(lambda: find_outside_chat("Undo", pyatspi.ROLE_PUSH_BUTTON), 10, "the toast's Undo"))
        wait_for(lambda: card("distro-info.ods") is None, 20, "the card gone")
        assert not workspace_copy("distro-info.ods"), workspace_copy("distro-info.ods")
        assert hashlib.sha256(open(book, "rb").read()).hexdigest() == book_sum
    check("a file is removed: its card and workspace copy go; the original is untouched", remove)

    def undo():
        assert undo_button, "no Undo in the toast"
        do_action(undo_button[0])
        wait_for(lambda: card("distro-info.ods") and find_node(card("distro-info.ods"), "Open the whole table",
                                                                  pyatspi.ROLE_PUSH_BUTTON), 90, "the card back")
        assert workspace_copy("distro-info.ods")
    check("Undo in the toast adds the file again", undo)

    def saved_state():
        app.click("Remove distro-info.ods from the conversation", timeout=10)
        wait_for(lambda: card("distro-info.ods") is None, 20, "the card gone")
        # The original's path is kept only to add the file again on a restart.
        wait_for(lambda: not saved_mentions(book), 30, "the saved conversation without it")
    check("a removed file leaves the conversation's saved state", saved_state)
except Exception as e:
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
t.done()
