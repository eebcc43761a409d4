# SPDX-License-Identifier: GPL-3.0-or-later
"""progress.py — how far the profiler has read the file it is profiling,
reported to the host on stderr.

A thread looks, every INTERVAL seconds, at the offset of the descriptors
open on the file (whichever reader has it open: pandas, the line count, a
gzip stream, a workbook's ZIP), so the readers themselves are untouched and
no time is taken from them. A reader that goes through the whole file itself
(the line count of a plain file) also says where it is, through reached():
a line goes out each time another eighth of the file is behind it, so a file
read in a blink still reports its progress. Each report is one line, and
only when the file is further than the last report said:

    reckon-progress <file index> <bytes done> <bytes total>

decimal digits only, done <= total, total > 0 (the host parses them
strictly and drops them from the stderr it keeps; docs/files-and-sessions.md).
"""

import os
import stat
import threading

INTERVAL = 0.2
STEPS = 8  # reached() reports each eighth of the file
PREFIX = b"reckon-progress"

_active = None  # this process's Progress, for reached()


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
        self._last = None  # (index, done) of the last line written
        global _active
        _active = self

    def _emit(self, target, done, step):
        """Writes a line for @done bytes of @target if that is at least
        @step bytes further than the last line said. Called with the lock
        held, so the lines of the thread and of reached() stay in order."""
        index, _dev, _ino, total = target
        done = min(done, total)
        if done <= 0 or self._broken or target is not self._target:
            return
        if self._last is not None and self._last[0] == index and done < self._last[1] + max(step, 1):
            return
        self._last = (index, done)
        try:
            os.write(self._fd, format_line(index, done, total))
        except OSError:
            self._broken = True

    def _run(self):
        while not self._stop:
            self._wake.wait(self._interval)
            self._wake.clear()
            with self._lock:
                target = self._target
            if target is None or self._broken:
                continue
            pos = _offset(target[1], target[2])
            with self._lock:
                self._emit(target, pos, 1)

    def _reached(self, done):
        with self._lock:
            target = self._target
            if target is not None:
                self._emit(target, done, target[3] // STEPS)

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


def reached(done):
    """The reader going through the file being profiled from its start has
    read @done bytes of it (not for an unpacked stream: its bytes are not
    the file's)."""
    if _active is not None:
        _active._reached(done)


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
