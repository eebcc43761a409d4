# SPDX-License-Identifier: GPL-3.0-or-later
"""reckonui.py — drives the real `reckon` through its accessibility tree.

Each test starts the app in a fresh home (XDG folders of its own), with
settings given as a keyfile, optionally against the scripted model server of
tests/lib, and finds widgets by accessible name and role with pyatspi. The
display and the session bus come from tests/ui/run-ui.sh (Xvfb and
dbus-run-session); the accessibility bus is started on demand by D-Bus.
Screenshots go to the build folder and are checked to be non-blank."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pyatspi

BUILD = os.environ.get("RECKON_BUILD_ROOT", "")
SOURCE = os.environ.get("RECKON_SOURCE_ROOT", "")
RECKON_APP = os.path.join(BUILD, "src", "gui", "reckon")
MOCK = os.path.join(BUILD, "tests", "lib", "reckon-mock-server")
SHOTS = os.path.join(BUILD, "tests", "ui", "screenshots")


class TapSuite:
    """A tiny TAP writer: each check is one line; failures carry a reason."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, detail=""):
        self.n += 1
        if cond:
            print(f"ok {self.n} - {name}", flush=True)
        else:
            self.failed += 1
            print(f"not ok {self.n} - {name}", flush=True)
            for line in str(detail).splitlines():
                print(f"# {line}", flush=True)
        return cond

    def skip(self, name, reason):
        self.n += 1
        print(f"ok {self.n} - {name} # SKIP {reason}", flush=True)

    def check(self, name, fn, more=None):
        """Runs one step of a flow: ok when @fn returns, not ok with the
        reason (and @more(), such as the app's output) when it times out or
        an assertion fails. Returns whether it passed."""
        try:
            fn()
            self.ok(True, name)
            return True
        except (TimeoutError, IndexError, AssertionError, RuntimeError) as e:
            self.ok(False, name, f"{e}\n{more()[-1500:]}" if more is not None else e)
            return False

    def shot(self, app, name):
        """A screenshot of the screen, checked to be not blank."""
        path, colors = app.screenshot(name)
        return self.ok(colors > 16, f"screenshot {name} is not blank ({colors} colours)", path)

    def done(self):
        print(f"1..{self.n}", flush=True)
        sys.exit(1 if self.failed else 0)


class MockServer:
    def __init__(self, script, record=None):
        self.dir = tempfile.mkdtemp(prefix="rk-ui-mock-")
        path = os.path.join(self.dir, "script.json")
        with open(path, "w") as f:
            json.dump(script, f)
        self.record = record or os.path.join(self.dir, "requests.jsonl")
        self.proc = subprocess.Popen([MOCK, path, "--record", self.record],
                                     stdout=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline().strip())
        self.url = f"http://127.0.0.1:{self.port}"

    def requests(self):
        if not os.path.exists(self.record):
            return []
        return [json.loads(l) for l in open(self.record) if l.strip()]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def _gvariant(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


class App:
    """The real app in a fresh home. settings: GSettings keys to preset."""

    def __init__(self, settings=None, args=(), home=None, env=None):
        self.own_home = home is None
        self.home = home or tempfile.mkdtemp(prefix="rk-ui-home-")
        for sub in ("config", "data", "cache", "runtime"):
            os.makedirs(os.path.join(self.home, sub), mode=0o700, exist_ok=True)
        if settings:
            kf = os.path.join(self.home, "config", "glib-2.0", "settings")
            os.makedirs(kf, exist_ok=True)
            with open(os.path.join(kf, "keyfile"), "w") as f:
                f.write("[io/github/reckon/Reckon]\n")
                for k, v in settings.items():
                    f.write(f"{k}={_gvariant(v)}\n")
        self.env = dict(os.environ)
        # English unless a test asks for a language (env=): the tests match English names.
        for var in ("NO_AT_BRIDGE", "GTK_A11Y", "RECKON_SANDBOX", "RECKON_KERNEL_DIR",
                    "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
            self.env.pop(var, None)
        self.env.update({
            "HOME": self.home,
            "XDG_CONFIG_HOME": os.path.join(self.home, "config"),
            "XDG_DATA_HOME": os.path.join(self.home, "data"),
            "XDG_CACHE_HOME": os.path.join(self.home, "cache"),
            "GSETTINGS_BACKEND": "keyfile",
            "GSK_RENDERER": "cairo",
            "GDK_BACKEND": "x11",
            "LANG": "C.UTF-8",
        })
        self.env.pop("G_DEBUG", None)     # a GTK warning under AT-SPI must not abort the app
        if env:
            self.env.update(env)
        self.args = list(args)
        self.proc = None
        self.root = None

    def start(self, timeout=60, tries=3):
        """Starts the app and waits for it on the accessibility bus.

        Two traps of GTK 4.8 with libatspi: an app embeds itself in the
        registry only if the registry already runs, and a client that holds
        the desktop before an app appears never lists it (libatspi asks the
        new app for its cache, which GTK 4.8 lacks, and drops it). So the
        registry is started and the desktop polled from short-lived helper
        processes; this process reads the desktop only once the app is
        there. An app that never embeds (a GTK 4.8 race) is started again."""
        _pids_on_desktop()          # starts the registry before the app
        deadline = time.monotonic() + timeout
        for attempt in range(tries):
            self.proc = subprocess.Popen([RECKON_APP] + self.args, env=self.env,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         start_new_session=True)
            # Read the app's output as it comes: a full pipe (64 KiB, e.g. one
            # GTK warning for each AT-SPI extents query) would block the app.
            self._out = []
            threading.Thread(target=self._drain, args=(self.proc, self._out), daemon=True).start()
            left = max(5.0, deadline - time.monotonic())
            wait = left if attempt == tries - 1 else min(left, 20.0)
            try:
                wait_for(lambda: self._check_alive() and self.proc.pid in _pids_on_desktop(), wait,
                         "the app on the accessibility bus")
                self.root = wait_for(self._find_app, 10, "the app in this process's view of the desktop")
                return self
            except TimeoutError:
                if attempt == tries - 1:
                    raise
                print(f"# the app did not appear on the accessibility bus; starting it again ({attempt + 2}/{tries})",
                      flush=True)
                self.kill_group()
        return self

    def _check_alive(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"reckon exited with {self.proc.returncode}: {self.output()}")
        return True

    def kill_group(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def _find_app(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"reckon exited with {self.proc.returncode}: {self.output()}")
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            app = desktop.getChildAtIndex(i)
            try:
                if app is not None and app.get_process_id() == self.proc.pid and app.childCount > 0:
                    return app
            except Exception:
                continue
        return None

    @staticmethod
    def _drain(proc, out):
        for chunk in iter(lambda: proc.stdout.read1(4096), b""):
            out.append(chunk)
            if len(out) > 64:
                del out[:-32]

    def output(self):
        """The last 4,000 characters the app printed."""
        if self.proc and self.proc.poll() is not None:
            time.sleep(0.2)     # the reader thread takes the last bytes
        return b"".join(getattr(self, "_out", [])).decode(errors="replace")[-4000:]

    def find(self, name, role=None, timeout=15, root=None, showing=True):
        """The first node with this accessible name (and role), visible."""
        def look():
            return find_node(root or self.root, name, role, showing)
        return wait_for(look, timeout, f"{role or 'a node'} named {name!r}")

    def find_all(self, role, root=None):
        out = []
        walk(root or self.root, lambda n: out.append(n) if n.getRole() == role and visible(n) else None)
        return out

    def exists(self, name, role=None):
        return find_node(self.root, name, role, True) is not None

    def click(self, name, role=pyatspi.ROLE_PUSH_BUTTON, timeout=15):
        node = self.find(name, role, timeout)
        do_action(node)
        return node

    def press(self, label, root=None, timeout=30):
        """Activates the node named label (under root), or the first child of
        it that acts (a GtkMenuButton's toggle button carries the action)."""
        node = self.find(label, None, timeout=timeout, root=root)
        queue = [(node, 0)]
        while queue:
            candidate, depth = queue.pop(0)
            try:
                if candidate.queryAction().nActions > 0:
                    do_action(candidate)
                    return
            except Exception:   # no Action interface, or none to do
                pass
            if depth < 3:
                queue += [(candidate.getChildAtIndex(i), depth + 1) for i in range(candidate.childCount)]
        raise TimeoutError(f"{label!r} cannot be activated")

    def numbers_in(self, nodes):
        """Every number shown in nodes (names and texts; thousands
        separators and the minus sign undone)."""
        out = []
        for n in nodes:
            for text in [n.name or ""] + self.texts(n):
                try:
                    out.append(float(text.replace(",", "").replace("\u2212", "-")))
                except ValueError:
                    pass
        return out

    def set_text(self, node, text):
        et = node.queryEditableText()
        et.setTextContents(text)

    def texts(self, root=None):
        """Every text shown under root: labels' names and text contents."""
        out = []
        def add(n):
            try:
                if n.name:
                    out.append(n.name)
                t = n.queryText()
                s = t.getText(0, -1)
                if s:
                    out.append(s)
            except Exception:
                pass
        walk(root or self.root, add)
        return out

    def ask(self, question):
        """Types @question into the composer and sends it."""
        box = self.find("Your question", timeout=20)
        self.set_text(box, question)
        self.click("Send")

    def wait_text(self, text, timeout=60):
        """Waits until some text in the window holds @text."""
        return wait_for(lambda: any(text in s for s in self.texts()), timeout, f"text {text!r} in the window")

    def screenshot(self, name):
        os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS, name + ".png")
        subprocess.run(["import", "-window", "root", path], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        colors = subprocess.run(["identify", "-format", "%k", path],
                                capture_output=True, text=True).stdout.strip()
        return path, int(colors or 0)

    def quit(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def kill(self):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def cleanup(self):
        self.quit()
        if self.own_home:
            shutil.rmtree(self.home, ignore_errors=True)


def _pids_on_desktop():
    """The process ids of the apps on the desktop, read by a fresh process."""
    code = ("import pyatspi\n"
            "d = pyatspi.Registry.getDesktop(0)\n"
            "for i in range(d.childCount):\n"
            "    a = d.getChildAtIndex(i)\n"
            "    try:\n"
            "        print(a.get_process_id()) if a is not None and a.childCount > 0 else None\n"
            "    except Exception:\n"
            "        pass\n")
    p = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True, timeout=30)
    return {int(x) for x in p.stdout.split() if x.isdigit()}


def visible(node):
    try:
        states = node.getState()
        return states.contains(pyatspi.STATE_VISIBLE)
    except Exception:
        return False


def walk(node, fn, depth=0):
    if node is None or depth > 60:
        return
    try:
        fn(node)
        for i in range(node.childCount):
            walk(node.getChildAtIndex(i), fn, depth + 1)
    except Exception:
        pass


def focused_node(root):
    """The node under @root that has the keyboard focus, or None."""
    found = []

    def look(n):
        try:
            if not found and n.getState().contains(pyatspi.STATE_FOCUSED):
                found.append(n)
        except Exception:
            pass
    walk(root, look)
    return found[0] if found else None


def find_node(root, name, role=None, showing=True):
    found = []

    def match(n):
        if found:
            return
        try:
            if n.name == name and (role is None or n.getRole() == role) and (not showing or visible(n)):
                found.append(n)
        except Exception:
            pass
    walk(root, match)
    return found[0] if found else None


def do_action(node, index=0):
    action = node.queryAction()
    action.doAction(index)


def wait_for(fn, timeout, what):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            value = fn()
        except RuntimeError:
            raise
        except Exception as e:   # the tree changes under us
            last = e
            value = None
        if value:
            return value
        time.sleep(0.2)
    raise TimeoutError(f"waited {timeout} s for {what}" + (f" (last error: {last})" if last else ""))


def key(keyname):
    """Press a key through XTest (keyboard-only flows): e.g. 'Return', 'Tab'."""
    subprocess.run(["xdotool", "key", keyname], check=True)
