# SPDX-License-Identifier: GPL-3.0-or-later
"""test-limits.py — limits a user can act on, on the real app through AT-SPI:
a cell that hits the memory limit shows one button that raises the limit
(twice the setting) and runs the cell again in a fresh kernel, with the
earlier cell's variables back; the setting is changed. Preferences shows
the disk limit beside Memory and Time, bound to its GSettings key both
ways. No model server: the code is typed (Run Python)."""
import configparser
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, TapSuite, find_node, key, visible, wait_for, walk  # noqa: E402

t = TapSuite()


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# 512 MiB of memory: the kernel starts (about 200 MiB of address space with
# pandas), a 400 MiB bytearray does not fit; under 1 GiB it does.
app = App(settings={"endpoint": f"http://127.0.0.1:{closed_port()}", "memory-limit": 512,
                    "disk-limit": 1536})
keyfile = os.path.join(app.home, "config", "glib-2.0", "settings", "keyfile")


def setting(name):
    cp = configparser.ConfigParser(interpolation=None)
    cp.read(keyfile)
    return cp.get("io/github/reckon/Reckon", name, fallback=None)


def shot(name):
    t.shot(app, f"limits-{name}")


def wait_text(text, timeout=60):
    return app.wait_text(text, timeout)


def check(name, fn):
    return t.check(name, fn)


def run_python(code):
    if not app.exists("Python code"):
        app.click("Run Python")
    box = app.find("Python code", timeout=10)
    app.set_text(box, code)
    key("ctrl+l")
    key("ctrl+End")
    key("Return")


def descendants(pid):
    """The command lines of @pid's descendants."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(d))
        except (OSError, ValueError, IndexError):
            continue
    out, queue = [], [pid]
    while queue:
        for c in children.get(queue.pop(), []):
            queue.append(c)
            try:
                with open(f"/proc/{c}/cmdline", "rb") as f:
                    out.append([a.decode(errors="replace") for a in f.read().split(b"\0") if a])
            except OSError:
                pass
    return out


def spin(name):
    """The spin button whose name starts with @name: GTK 4.8 adds the row's
    title (the row's activatable widget is labelled by it)."""
    def look():
        found = []
        walk(app.root, lambda n: found.append(n) if n.getRole() == pyatspi.ROLE_SPIN_BUTTON
             and (n.name or "").startswith(name) and visible(n) else None)
        return found[0] if found else None
    node = wait_for(look, 10, f"a spin button named {name!r}")
    return node, node.queryValue()


RAISE = "Raise the memory limit to 1.0\u00a0GiB and run again"

try:
    app.start(timeout=60)
    t.ok(True, "the window appears on the accessibility bus")
    wait_text("No Model Server Found", 60)

    check("a first cell runs (x = 21)", lambda: (run_python("x = 21\nprint('set', x)"), wait_text("set 21", 120)))
    check("a cell over the 512 MiB memory limit fails, naming the limit and its size",
          lambda: (run_python("b = bytearray(400 << 20)\nprint('made', len(b), x * 2)"),
                   wait_text("The cell used more memory than allowed (512.0\u00a0MiB).", 120)))
    check("the error offers one button that doubles the memory limit",
          lambda: app.find(RAISE, pyatspi.ROLE_PUSH_BUTTON, timeout=10))
    shot("raise-button")

    def raise_and_run():
        app.click(RAISE)
        wait_for(lambda: setting("memory-limit") == "1024", 10, "memory-limit=1024 in the settings")
        # The earlier cell's x is back: the kernel was restarted and replayed.
        wait_text("made 419430400 42", 120)
        wait_text("restarted with the new limits", 5)
    check("pressing it sets memory-limit to 1024 and the cell runs again and succeeds", raise_and_run)
    check("the button is pressed once: it cannot raise twice",
          lambda: wait_for(lambda: not find_node(app.root, RAISE, pyatspi.ROLE_PUSH_BUTTON, True)
                           or not find_node(app.root, RAISE, pyatspi.ROLE_PUSH_BUTTON, True)
                           .getState().contains(pyatspi.STATE_SENSITIVE), 5, "the button insensitive"))
    shot("after-run-again")

    def limits_reach_sandbox():
        # The kernel started for the run again: --memory as raised, --disk
        # as preset (1536 MiB), on the sandbox this app started.
        lines = [" ".join(argv) for argv in descendants(app.proc.pid) if argv and "reckon-sandbox" in argv[0]]
        assert any(f"--memory {1024 << 20}" in c and f"--disk {1536 << 20}" in c for c in lines), lines
    check("the sandbox runs with the raised --memory and the --disk of Preferences", limits_reach_sandbox)

    # -- Preferences: the disk limit beside Memory and Time --
    def preferences():
        key("ctrl+comma")
        wait_text("Running Code", 10)
        _, memory = spin("Memory limit in MiB")
        _, disk = spin("Disk limit in MiB")
        spin("Time limit in seconds")
        assert memory.currentValue == 1024, f"Memory shows {memory.currentValue}"
        assert disk.currentValue == 1536, f"Disk shows {disk.currentValue}"
        disk.currentValue = 2048
        wait_for(lambda: setting("disk-limit") == "2048", 10, "disk-limit=2048 in the settings")
        shot("preferences")
        key("Escape")
    check("Preferences shows the disk limit beside Memory and Time, bound to disk-limit", preferences)

except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
t.done()
