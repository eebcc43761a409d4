# SPDX-License-Identifier: GPL-3.0-or-later
"""test-limits.py — limits a user can act on, on the real app through AT-SPI:
a cell that hits the memory limit shows one button that raises the limit
(twice the setting) and runs the cell again in a fresh kernel, with the
earlier cell's variables back; the setting is changed. Preferences shows
the disk limit beside Memory and Time, bound to its GSettings key both
ways. No model server: the code is typed (Run Python).

With the argument "de" the same flow runs in German (LANGUAGE=de,
LANG=de_DE.UTF-8): every name the test looks for comes from the built
catalogue, so the raise button is proven to come from the limit the error
carries, not from words of an English sentence."""
import configparser
import gettext
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, TapSuite, BUILD, find_node, key, visible, wait_for, walk  # noqa: E402

t = TapSuite()
GERMAN = len(sys.argv) > 1 and sys.argv[1] == "de"


def has_locale(name):
    p = subprocess.run(["locale", "-a"], capture_output=True, text=True)
    want = name.lower().replace("utf-8", "utf8")
    return any(line.strip().lower() == want for line in p.stdout.splitlines())


if GERMAN:
    if not has_locale("de_DE.UTF-8"):
        print("1..0 # SKIP the de_DE.UTF-8 locale is not generated (.ci/install-deps does it)", flush=True)
        sys.exit(0)
    _reckon = gettext.translation("reckon", os.path.join(BUILD, "po"), languages=["de"])
    _glib = gettext.translation("glib20", languages=["de"], fallback=True)
    T = _reckon.gettext

    def size(value, unit):
        """A size as g_format_size_full says it in German: "1,0 GiB"."""
        return _glib.gettext("%.1f\u00a0" + unit).replace("%.1f", f"{value:.1f}".replace(".", ","))
else:
    def T(text):
        return text

    def size(value, unit):
        return f"{value:.1f}\u00a0{unit}"


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# 512 MiB of memory: the kernel starts (about 200 MiB of address space with
# pandas), a 400 MiB bytearray does not fit; under 1 GiB it does.
app = App(settings={"endpoint": f"http://127.0.0.1:{closed_port()}", "memory-limit": 512,
                    "disk-limit": 1536},
          env={"LANGUAGE": "de", "LANG": "de_DE.UTF-8"} if GERMAN else None)
keyfile = os.path.join(app.home, "config", "glib-2.0", "settings", "keyfile")


def setting(name):
    cp = configparser.ConfigParser(interpolation=None)
    cp.read(keyfile)
    return cp.get("io/github/reckon/Reckon", name, fallback=None)


def shot(name):
    t.shot(app, f"limits{'-de' if GERMAN else ''}-{name}")


def wait_text(text, timeout=60):
    return app.wait_text(text, timeout)


def check(name, fn):
    return t.check(name, fn)


def run_python(code):
    if not app.exists(T("Python code")):
        app.click(T("Run Python"))
    box = app.find(T("Python code"), timeout=10)
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


RAISE = T("Raise the memory limit to %s and run again") % size(1, "GiB")
if GERMAN:
    t.ok(RAISE != "Raise the memory limit to %s and run again" % size(1, "GiB"),
         "the catalogue translates the raise button", RAISE)

try:
    app.start(timeout=60)
    t.ok(True, "the window appears on the accessibility bus")
    wait_text(T("No Model Server Found"), 60)

    check("a first cell runs (x = 21)", lambda: (run_python("x = 21\nprint('set', x)"), wait_text("set 21", 120)))
    check("a cell over the 512 MiB memory limit fails, naming the limit and its size",
          lambda: (run_python("b = bytearray(400 << 20)\nprint('made', len(b), x * 2)"),
                   wait_text(T("The cell used more memory than allowed (%s).") % size(512, "MiB"), 120)))
    check("the error offers one button that doubles the memory limit",
          lambda: app.find(RAISE, pyatspi.ROLE_PUSH_BUTTON, timeout=10))
    shot("raise-button")

    def raise_and_run():
        app.click(RAISE)
        wait_for(lambda: setting("memory-limit") == "1024", 10, "memory-limit=1024 in the settings")
        # The earlier cell's x is back: the kernel was restarted and replayed.
        wait_text("made 419430400 42", 120)
        wait_text(T("The Python kernel was restarted with the new limits and the code that ran before was run again."), 5)
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
        wait_text(T("Running Code"), 10)
        _, memory = spin(T("Memory limit in MiB"))
        _, disk = spin(T("Disk limit in MiB"))
        spin(T("Time limit in seconds"))
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
