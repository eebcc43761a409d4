# SPDX-License-Identifier: GPL-3.0-or-later
"""progress.py — how far the profiler has read the file it is profiling,
reported to the host at most five times a second on stderr.

A thread looks, every INTERVAL seconds, at the offset of the descriptors
open on the file (whichever reader has it open: pandas, the line count, a
gzip stream, a workbook's ZIP), so the readers themselves are untouched and
no time is taken from them. Each time the offset grew it writes one line:

    reckon-progress <file index> <bytes done> <bytes total>

decimal digits only, done <= total, total > 0 (the host parses them
strictly and drops them from the stderr it keeps; docs/files-and-sessions.md).
"""

import os
import stat
import threading

INTERVAL = 0.2
PREFIX = b"reckon-progress"


def _fds():
    try:
        return [int(n) for n in os.listdir("/proc/self/fd") if n.isdigit()]
    except OSError:
        return range(3, 128)


def _offset(dev, ino):
    """The largest offset of a descriptor open on (dev, ino), or -1."""
    best = -1
    for fd in _fds():
        if fd < 3:
            continue
        try:
            st = os.fstat(fd)
            if st.st_ino != ino or st.st_dev != dev:
                continue
            pos = os.lseek(fd, 0, os.SEEK_CUR)
            # The descriptor may have been closed and its number reused
            # meanwhile: only an offset of the same file counts.
            st = os.fstat(fd)
        except OSError:
            continue
        if st.st_ino == ino and st.st_dev == dev:
            best = max(best, pos)
    return best


def format_line(index, done, total):
    return b"%s %d %d %d\n" % (PREFIX, index, done, total)


class Progress:
    """Reports progress on @fd (stderr); watch(index, path) around the work
    on one file. Silent when the thread cannot be started."""

    def __init__(self, fd=2, interval=INTERVAL):
        self._fd = fd
        self._interval = interval
        self._lock = threading.Lock()
        self._target = None
        self._wake = threading.Event()
        self._stop = False
        self._thread = None
        self._broken = False

    def _run(self):
        last = None
        while not self._stop:
            self._wake.wait(self._interval)
            self._wake.clear()
            with self._lock:
                target = self._target
            if target is None or self._broken:
                continue
            index, dev, ino, total = target
            pos = _offset(dev, ino)
            if pos <= 0:
                continue
            done = min(pos, total)
            if last is not None and last[0] == index and done <= last[1]:
                continue
            last = (index, done)
            try:
                os.write(self._fd, format_line(index, done, total))
            except OSError:
                self._broken = True

    def watch(self, index, path):
        return _Watch(self, index, path)

    def _set(self, target):
        with self._lock:
            self._target = target
        if target is not None and self._thread is None and not self._broken:
            try:
                self._thread = threading.Thread(target=self._run, name="reckon-progress", daemon=True)
                self._thread.start()
            except RuntimeError:  # no thread to be had (a process limit): no progress
                self._broken = True

    def close(self):
        self._stop = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(1.0)


class _Watch:
    def __init__(self, progress, index, path):
        self._progress = progress
        self._target = None
        try:
            st = os.stat(path, follow_symlinks=False)
            if st.st_size > 0 and stat.S_ISREG(st.st_mode):
                self._target = (int(index), st.st_dev, st.st_ino, st.st_size)
        except OSError:
            pass

    def __enter__(self):
        if self._target is not None:
            self._progress._set(self._target)
        return self

    def __exit__(self, *exc):
        if self._target is not None:
            self._progress._set(None)
        return False
