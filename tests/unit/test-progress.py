#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-progress.py — the profiler's progress reporter (reckon/progress.py):
while a file is read, lines that the host's strict parser accepts, growing,
for that file only; nothing once the watch ends; silent on a closed pipe.
Runs the Python side directly (the sandbox is tested elsewhere)."""

import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ.get("RECKON_SOURCE_ROOT", "."), "sandbox", "kernel"))

from reckon import progress as pg  # noqa: E402

results = []
# What rk_profile_progress_parse() accepts (src/core/rk-profile-progress.c).
LINE = re.compile(rb"^reckon-progress (0|[1-9][0-9]{0,14}) (0|[1-9][0-9]{0,14}) ([1-9][0-9]{0,14})$")


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))


def lines_of(fd):
    os.set_blocking(fd, False)
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        data += chunk
    return [line for line in data.split(b"\n") if line]


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "big.csv")
    size = 8 << 20
    with open(path, "wb") as f:
        f.write(b"a,b\n" * (size // 4))
    other = os.path.join(d, "other.csv")
    with open(other, "wb") as f:
        f.write(b"x\n" * 1000)

    r, w = os.pipe()
    progress = pg.Progress(fd=w, interval=0.05)
    # Another file open meanwhile is not counted; the watched one is read
    # slowly, 1 MiB at a time.
    with open(other, "rb") as o, progress.watch(2, path):
        o.read()
        with open(path, "rb", buffering=0) as f:
            while f.read(1 << 20):
                time.sleep(0.12)
        time.sleep(0.12)
    time.sleep(0.2)
    got = lines_of(r)
    check("lines come while the file is read", len(got) >= 3, got)
    check("every line is what the host accepts", all(LINE.match(line) for line in got), got)
    parsed = [tuple(int(x) for x in line.split()[1:]) for line in got if LINE.match(line)]
    check("each names the watched file (index 2) and its size", all(p[0] == 2 and p[2] == size for p in parsed),
          parsed)
    done = [p[1] for p in parsed]
    check("the bytes done grow and stay within the file", done == sorted(set(done)) and all(
        0 < x <= size for x in done), done)
    check("the last line is near the end", done and done[-1] >= size * 3 // 4, done)

    # After the watch: nothing, even while the file is read again.
    with open(path, "rb", buffering=0) as f:
        while f.read(1 << 20):
            time.sleep(0.06)
    time.sleep(0.15)
    check("nothing once the watch has ended", lines_of(r) == [])

    # A file read in a blink by a reader that says where it is (the line
    # count): a line for each eighth of it, though the thread never looks.
    quick = pg.Progress(fd=w, interval=60)
    with quick.watch(1, path):
        done = 0
        with open(path, "rb", buffering=0) as f:
            while True:
                n = len(f.read(1 << 20))
                if not n:
                    break
                done += n
                pg.reached(done)
    pg.reached(size)  # after the watch: nothing
    quick.close()
    parsed = [tuple(int(x) for x in line.split()[1:]) for line in lines_of(r)]
    check("a reader's own reports: one per eighth, in order, the last at the end",
          parsed == [(1, size * i // 8, size) for i in range(1, 9)], parsed)

    # An empty file, a directory, a missing file: no watch, no error.
    empty = os.path.join(d, "empty.csv")
    open(empty, "wb").close()
    for p in (empty, d, os.path.join(d, "missing.csv")):
        with progress.watch(0, p):
            time.sleep(0.12)
    check("no lines for an empty file, a folder or a missing file", lines_of(r) == [])

    # The host went away: the reporter goes quiet, the work goes on.
    os.close(r)
    with progress.watch(0, path):
        with open(path, "rb", buffering=0) as f:
            while f.read(1 << 20):
                time.sleep(0.06)
    progress.close()
    os.close(w)
    check("a closed pipe silences the reporter without an error", progress._broken)
    check("close() ends the thread", progress._thread is not None and not progress._thread.is_alive())

check("format_line is one line the host accepts", LINE.match(pg.format_line(3, 0, 7).rstrip(b"\n")) and
      pg.format_line(3, 0, 7).endswith(b"\n"))

print("1..%d" % len(results))
failed = 0
for i, (name, ok, detail) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
    if not ok:
        failed += 1
        print("# %r" % (detail,))
sys.exit(1 if failed else 0)
