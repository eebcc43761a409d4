#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench-window.py — the real `reckon` window against a peer GTK app started
the same way (GNOME Text Editor, else gtk4-demo), in one run, interleaved:

1. launch to first frame: from spawn to the first visible top-level window
   (X11, polled every 2 ms with xdotool); median of the runs.
2. memory after 3 s idle: VmRSS of the app's own process (the sandboxed
   kernel is a separate process; its RSS is reported on its own line).
3. window shown to kernel ready: from that first frame to the
   conversation's "kernel ready" debug line; the peer here is a plain
   `python3 -c "import pandas, matplotlib.pyplot"`, the work a warm kernel
   cannot skip (target: at most 1.5 times that).

Run it under a display and a session bus of its own:
  dbus-run-session -- xvfb-run -a -s '-screen 0 1280x1024x24' bench-window.py
Each app gets a fresh home (XDG folders) and in-memory settings."""
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

RUNS = int(os.environ.get("RK_BENCH_RUNS", "5"))
BUILD = os.environ.get("RECKON_BUILD_ROOT", "")
RECKON = os.path.join(BUILD, "src", "gui", "reckon")
PEERS = [["/usr/bin/gnome-text-editor", "--standalone", "--ignore-session"],
         ["/usr/bin/gtk4-demo"]]


def fresh_env(home):
    env = dict(os.environ)
    for var in ("RECKON_SANDBOX", "RECKON_KERNEL_DIR", "G_DEBUG"):
        env.pop(var, None)
    for sub in ("config", "data", "cache"):
        os.makedirs(os.path.join(home, sub), mode=0o700, exist_ok=True)
    env.update({
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, "config"),
        "XDG_DATA_HOME": os.path.join(home, "data"),
        "XDG_CACHE_HOME": os.path.join(home, "cache"),
        "GSETTINGS_BACKEND": "memory",
        "GDK_BACKEND": "x11",
        "GSK_RENDERER": "cairo",
        "GTK_A11Y": "none",
        "NO_AT_BRIDGE": "1",
        "G_MESSAGES_DEBUG": "rk-conversation",
    })
    return env


def visible_window(pid):
    out = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(pid)],
                         capture_output=True, text=True).stdout.split()
    return out[0] if out else None


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def descendants(pid):
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    children = {}
    for line in out.splitlines():
        p, pp = (int(x) for x in line.split())
        children.setdefault(pp, []).append(p)
    found, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


def run_once(argv, want_kernel):
    """Returns (first frame s, RSS KiB after 3 s idle, kernel ready after the frame s or None,
    kernel RSS KiB)."""
    home = tempfile.mkdtemp(prefix="rk-bench-home-")
    ready_at = []
    lines = []
    try:
        start = time.monotonic()
        # GLib writes debug messages to stdout, warnings to stderr: read both.
        proc = subprocess.Popen(argv, env=fresh_env(home), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)

        def read_stderr():
            # readline, not iteration: iteration waits for a full buffer.
            for line in iter(proc.stdout.readline, ""):
                lines.append(line)
                if "kernel ready" in line and not ready_at:
                    ready_at.append(time.monotonic())
        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()

        frame = None
        while time.monotonic() - start < 60:
            if proc.poll() is not None:
                reader.join(2)
                raise RuntimeError(f"{argv[0]} exited with {proc.returncode}: {''.join(lines[-5:])}")
            if visible_window(proc.pid):
                frame = time.monotonic()
                break
            time.sleep(0.002)
        if frame is None:
            raise RuntimeError(f"{argv[0]} showed no window within 60 s")

        ready = None
        if want_kernel:
            deadline = time.monotonic() + 60
            while not ready_at and time.monotonic() < deadline:
                time.sleep(0.01)
            ready = ready_at[0] - frame if ready_at else None
        # Idle for 3 s after the first frame (or after the kernel came up).
        time.sleep(max(0.0, 3.0 - (time.monotonic() - frame)))
        rss = rss_kib(proc.pid)
        kernel_rss = sum(rss_kib(p) for p in descendants(proc.pid))
        return frame - start, rss, ready, kernel_rss
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        shutil.rmtree(home, ignore_errors=True)


def run_retrying(argv, want_kernel):
    """run_once, again when the app could not reach the display: on a
    machine shared by many xvfb-run -a, a display can vanish under us."""
    for attempt in range(3):
        try:
            return run_once(argv, want_kernel)
        except RuntimeError as e:
            if "cannot open display" not in str(e) or attempt == 2:
                raise
            print(f"# {os.path.basename(argv[0])} could not open the display; again", flush=True)
            time.sleep(1)


def python_import_once():
    start = time.monotonic()
    subprocess.run(["/usr/bin/python3", "-c", "import pandas, matplotlib.pyplot"], check=True,
                   env={"PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg", "HOME": tempfile.gettempdir()})
    return time.monotonic() - start


def verdict(ok):
    return "met" if ok else "NOT met"


def main():
    if not os.environ.get("DISPLAY"):
        print("bench-window: skipped, no display (run it under xvfb-run and dbus-run-session)")
        return 0
    if shutil.which("xdotool") is None:
        print("bench-window: skipped, xdotool is not installed")
        return 0
    if not os.access(RECKON, os.X_OK):
        print(f"bench-window: skipped, {RECKON} is not built")
        return 0
    peer = next((p for p in PEERS if os.access(p[0], os.X_OK)), None)
    if peer is None:
        print("bench-window: skipped, neither gnome-text-editor nor gtk4-demo is installed")
        return 0

    # xvfb-run may return before the server takes connections.
    for _ in range(500):
        if subprocess.run(["xdotool", "getdisplaygeometry"], capture_output=True).returncode == 0:
            break
        time.sleep(0.01)

    # One warm-up of each (page cache, font cache), not counted.
    run_retrying([RECKON], True)
    run_retrying(peer, False)

    ours, theirs, imports = [], [], []
    for _ in range(RUNS):
        ours.append(run_retrying([RECKON], True))
        theirs.append(run_retrying(peer, False))
        imports.append(python_import_once())

    peer_name = os.path.basename(peer[0])
    frame_r = statistics.median(r[0] for r in ours)
    frame_p = statistics.median(r[0] for r in theirs)
    rss_r = statistics.median(r[1] for r in ours)
    rss_p = statistics.median(r[1] for r in theirs)
    kernel_rss = statistics.median(r[3] for r in ours)
    readies = [r[2] for r in ours if r[2] is not None]
    imp = statistics.median(imports)

    print(f"bench-window: {RUNS} runs each, medians; peer: {peer_name}")
    print(f"launch to first frame: reckon {frame_r * 1000:.0f} ms, {peer_name} {frame_p * 1000:.0f} ms, "
          f"ratio {frame_r / frame_p:.2f} (target <= 1.00: {verdict(frame_r <= frame_p)})")
    print(f"memory after 3 s idle (VmRSS of the app): reckon {rss_r / 1024:.1f} MiB, {peer_name} "
          f"{rss_p / 1024:.1f} MiB, ratio {rss_r / rss_p:.2f} (target <= 1.00: {verdict(rss_r <= rss_p)})")
    print(f"  the sandboxed kernel besides (its own processes): {kernel_rss / 1024:.1f} MiB")
    if readies:
        ready = statistics.median(readies)
        print(f"window shown to kernel ready: {ready * 1000:.0f} ms ({len(readies)}/{RUNS} runs); "
              f"plain python3 import of pandas + matplotlib {imp * 1000:.0f} ms, ratio {ready / imp:.2f} "
              f"(target <= 1.50, the sandbox and protocol adding at most half: {verdict(ready / imp <= 1.5)})")
    else:
        print("window shown to kernel ready: the kernel never reported ready (is the sandbox usable?)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
