# SPDX-License-Identifier: GPL-3.0-or-later
"""Plumbing between the kernel and the reckon package.

The kernel (reckon_kernel.py) fills these in at start-up; helper modules such
as chart.py call emit(), artifact_path() and atomic_file() and never touch
the protocol fds.
Outside the kernel (plain python3), emit() does nothing and show() prints.
"""

import contextlib
import os
import tempfile

# Id of the cell that is running, or None between cells. Set by the kernel.
current_id = None

# Root of the user's files; hidden artifacts live under WORKSPACE/.reckon/.
WORKSPACE = os.environ.get("RECKON_WORKSPACE", "/workspace")

_emit_impl = None
_show_impl = None
_counters = {}


def emit(event):
    """Send one event (a dict with "type") to the host, tagged with the
    current cell id. Paths in events must be relative to the workspace."""
    if _emit_impl is None or current_id is None:
        return
    event = dict(event)
    event["id"] = current_id
    _emit_impl(event)


def artifact_path(kind, ext):
    """Return (relative, absolute) paths for a new hidden artifact of the
    given kind ("tables", "figures", "charts"), e.g. .reckon/charts/c3.json.
    The folder is created."""
    n = _counters.get(kind, 0) + 1
    folder = os.path.join(WORKSPACE, ".reckon", kind)
    os.makedirs(folder, exist_ok=True)
    prefix = kind[0]
    while True:
        rel = ".reckon/%s/%s%d.%s" % (kind, prefix, n, ext)
        full = os.path.join(WORKSPACE, rel)
        if not os.path.exists(full):
            break
        n += 1
    _counters[kind] = n
    return rel, full


@contextlib.contextmanager
def atomic_file(path, prefix, suffix="", buffering=-1, mode=None):
    """A new file beside @path, open for writing bytes, that replaces @path
    whole (with permissions @mode, if given) when the block ends, and is
    removed when it fails: a reader never sees half a table or chart."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    try:
        with os.fdopen(fd, "wb", buffering=buffering) as f:
            yield f
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def show(obj, name=None):
    if _show_impl is None:
        print(repr(obj))
        return
    _show_impl(obj, name)
