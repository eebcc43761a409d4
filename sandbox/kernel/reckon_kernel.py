# SPDX-License-Identifier: GPL-3.0-or-later
"""Reckon's Python kernel: one interpreter a session, driven by the host.

Requests arrive as JSON lines on fd 3 and events leave as JSON lines on fd 4
(docs/kernel-protocol.md). The kernel moves both pipes to high, close-on-exec
descriptors at start so that user code does not stumble on them; the host
still treats every byte from here as hostile.
"""

import ast
import builtins
import codecs
import errno
import fcntl
import importlib
import io
import json
import linecache
import math
import os
import resource
import signal
import sys
import threading
import time
import traceback
import types
import warnings

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
if KERNEL_DIR not in sys.path:
    # python3 -I does not put the script's folder on sys.path.
    sys.path.insert(0, KERNEL_DIR)

from reckon import _hooks  # noqa: E402
from reckon import network  # noqa: E402

PROTOCOL_VERSION = 1

# CPU seconds one cell may use (the sandbox's own limit covers the session).
CELL_CPU_SECONDS = int(os.environ.get("RECKON_CELL_CPU_SECONDS", "600") or 600)



LAZY_HEAD_ROWS = 10


def _dask_collection(obj):
    """"frame", "series" or "scalar" for a dask.dataframe collection, else
    None (without importing Dask: only an object of its modules is one)."""
    if not type(obj).__module__.startswith("dask.dataframe"):
        return None
    dd = sys.modules.get("dask.dataframe")
    if dd is None:
        return None
    if isinstance(obj, dd.DataFrame):
        return "frame"
    if isinstance(obj, dd.Series):
        return "series"
    if isinstance(obj, dd.core.Scalar):
        return "scalar"
    return None

class CPUTimeLimitExceeded(BaseException):
    """Raised in a cell that used up its CPU time (SIGXCPU)."""


# Events a helper module (reckon.chart, ...) may send through _hooks.emit();
# the kernel alone sends started, stream, result, error and done.
EMITTABLE = frozenset(("chart", "table", "figure"))


def _make_stamp():
    """The per-cell nonce (docs/kernel-protocol.md, "Nonce"): the host gives
    one with each execute, and every event of that cell carries it. It lives
    only in this closure, never in the user's namespace, the reckon package,
    the Kernel object or a module global; the request that brought it is
    dropped as soon as it is read. (Code in the same interpreter can still
    dig it out of memory: see the limits in the protocol document.)"""
    box = [None]

    def set_nonce(value):
        box[0] = value

    def stamp(event):
        if box[0] is not None and "id" in event:
            event["nonce"] = box[0]
        return event

    return set_nonce, stamp


def _size_text(size):
    for unit, step in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= step:
            value = size / step
            return ("%d %s" % (value, unit)) if value == int(value) else ("%.1f %s" % (value, unit))
    return "%d bytes" % size


def _memory_limit_text():
    try:
        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return None
    return _size_text(soft)


def _workspace_limit(workspace):
    """After ENOSPC: which cap of a capped workspace (a tmpfs sized by the
    disk and file limits) is reached, with its size in words, or None when
    the workspace still has room (the error came from /tmp or elsewhere)."""
    try:
        st = os.statvfs(workspace)
    except OSError:
        return None
    if st.f_favail == 0:
        return "files", "%d files" % max(st.f_files - 1, 0)
    if st.f_bavail * st.f_frsize < (1 << 20):
        return "disk", _size_text(st.f_blocks * st.f_frsize)
    return None


REQUEST_FD = 3
EVENT_FD = 4
HIGH_FD = 100

OUTPUT_CAP = 1 << 20          # stream text a cell may send, in bytes
STREAM_CHUNK = 64 * 1024      # largest text in one stream event
RESULT_CAP = 64 * 1024        # repr of a result
TRACEBACK_CAP = 64 * 1024
EVALUE_CAP = 8 * 1024
SCAN_MAX_ENTRIES = 10000
REPORT_MAX_FILES = 200
FLUSH_INTERVAL = 0.05
FIGURE_DPI = 100
FONT_CACHE_REL = os.path.join(".reckon", "fontcache")

# Frames of this file are the kernel's own and are cut from tracebacks.
_THIS_FILE = sys._getframe().f_code.co_filename


def _cap_text(text, limit, keep_end=False):
    if len(text) <= limit:
        return text
    if keep_end:
        return "…" + text[-limit:]
    return text[:limit] + "…"


class KernelStream(io.TextIOBase):
    """sys.stdout / sys.stderr while cells run: buffers text and hands it to
    the kernel at each newline, when the buffer grows, or on the flusher's
    tick, so output shows up while a cell is still running."""

    def __init__(self, kernel, name, fd):
        super().__init__()
        self._kernel = kernel
        self._name = name
        self._fd = fd
        self._buf = []
        self._size = 0
        self._lock = threading.Lock()

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "replace"

    def readable(self):
        return False

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return self._fd

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        if not s:
            return 0
        with self._lock:
            self._buf.append(s)
            self._size += len(s)
            urgent = self._size >= 8192
        if urgent or "\n" in s:
            self.flush()
        return len(s)

    def flush(self):
        with self._lock:
            if not self._buf:
                return
            text = "".join(self._buf)
            self._buf.clear()
            self._size = 0
        self._kernel.stream(self._name, text)


class Kernel:
    def __init__(self):
        self.workspace = os.environ.get("RECKON_WORKSPACE") or os.getcwd()
        _hooks.WORKSPACE = self.workspace
        self.lock = threading.RLock()
        self.cell_id = None
        self.interruptible = False
        self.out_bytes = 0
        self.truncated = 0
        self.write_lock = threading.Lock()
        self.main_thread = threading.main_thread()
        self.table_module_missing_noted = False
        self._set_nonce, self._stamp = _make_stamp()
        self._setup_fds()
        self._make_undumpable()

    # -- descriptors ---------------------------------------------------------

    def _setup_fds(self):
        self.req_fd = fcntl.fcntl(REQUEST_FD, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
        self.ev_fd = fcntl.fcntl(EVENT_FD, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
        devnull = os.open(os.devnull, os.O_RDWR)
        # 3 and 4 now lead nowhere: a cell that writes to them reaches /dev/null.
        os.dup2(devnull, REQUEST_FD)
        os.dup2(devnull, EVENT_FD)
        os.close(devnull)

        # Keep the sandbox's stderr for the kernel's own diagnostics, then route
        # fd 1 and 2 through pipes so output of C code and child processes
        # reaches the cell too.
        self.diag_fd = fcntl.fcntl(2, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
        self.fd_pipes = []
        for fd, name in ((1, "stdout"), (2, "stderr")):
            r, w = os.pipe()
            os.set_blocking(r, False)
            fcntl.fcntl(r, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
            os.dup2(w, fd)
            os.close(w)
            hi = fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
            os.close(r)
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            self.fd_pipes.append((hi, name, decoder))
        self.drain_lock = threading.Lock()

        self.stdout = KernelStream(self, "stdout", 1)
        self.stderr = KernelStream(self, "stderr", 2)
        sys.stdout = self.stdout
        sys.stderr = self.stderr

    @staticmethod
    def _make_undumpable():
        """Processes a cell starts run as the same user: without this they
        could open /proc/KERNEL/fd/N (the event pipe) or /proc/KERNEL/mem.
        The kernel itself keeps access to its own /proc/self."""
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(4, 0, 0, 0, 0)     # PR_SET_DUMPABLE, 0
        except Exception:
            pass

    def diag(self, message):
        try:
            os.write(self.diag_fd, ("reckon-kernel: %s\n" % message).encode("utf-8", "replace"))
        except OSError:
            pass

    # -- events --------------------------------------------------------------

    # Writing the event pipe. Any thread may send; a lock keeps lines whole
    # and in order. A KeyboardInterrupt must never cut a line in half: the
    # main thread (the only one Python runs signal handlers in) blocks SIGINT
    # while it writes, so the interrupt lands after the line.

    def _write_all(self, data):
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.ev_fd, view)
            except InterruptedError:
                continue
            except OSError:
                os._exit(1)    # the host is gone
            view = view[n:]

    def send(self, event):
        event = self._stamp(event)
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        # Lone surrogates (from undecodable bytes) must not reach the host.
        data = line.encode("utf-8", "replace") + b"\n"
        if event.get("type") == "done":
            # A cell that wrote to the event pipe itself may have left a line
            # unfinished: end it, so the host resynchronises on this event.
            data = b"\n" + data
        if threading.current_thread() is not self.main_thread:
            with self.write_lock:
                self._write_all(data)
            return
        old = signal.pthread_sigmask(signal.SIG_BLOCK, (signal.SIGINT,))
        try:
            with self.write_lock:
                self._write_all(data)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def emit(self, event):
        """Events from helper modules (_hooks.emit): the id is already set."""
        with self.lock:
            if self.cell_id is None or event.get("id") != self.cell_id:
                return
            if event.get("type") not in EMITTABLE:
                return
            self.send(dict(event))

    def stream(self, name, text):
        with self.lock:
            if self.cell_id is None:
                return
            data = text.encode("utf-8", "replace")
            room = OUTPUT_CAP - self.out_bytes
            if room <= 0:
                self.truncated += len(data)
                return
            if len(data) > room:
                self.truncated += len(data) - room
                data = data[:room]
            self.out_bytes += len(data)
            text = data.decode("utf-8", "ignore")
            for i in range(0, len(text), STREAM_CHUNK):
                self.send({"type": "stream", "id": self.cell_id, "name": name,
                           "text": text[i:i + STREAM_CHUNK]})

    def drain_fd_pipes(self, final=False):
        with self.drain_lock:
            for fd, name, decoder in self.fd_pipes:
                chunks = []
                while True:
                    try:
                        b = os.read(fd, 65536)
                    except (BlockingIOError, InterruptedError):
                        break
                    if not b:
                        break
                    chunks.append(b)
                text = decoder.decode(b"".join(chunks), final)
                if text:
                    self.stream(name, text)

    def _flusher(self):
        while True:
            time.sleep(FLUSH_INTERVAL)
            try:
                self.stdout.flush()
                self.stderr.flush()
                self.drain_fd_pipes()
            except Exception as e:  # never let the flusher die
                self.diag("flusher: %r" % (e,))

    # -- start-up ------------------------------------------------------------

    def warm_up(self):
        seeded = self._seed_font_cache()
        import numpy  # noqa: F401
        import pandas
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        if not seeded:
            self._export_font_cache()

        def show(*args, **kwargs):
            self.capture_figures()
        plt.show = show
        self.versions = {
            "python": "%d.%d.%d" % sys.version_info[:3],
            "pandas": pandas.__version__,
            "matplotlib": matplotlib.__version__,
        }

    # Building matplotlib's font list takes seconds, and the sandbox's
    # MPLCONFIGDIR is a fresh tmpfs each time. The host keeps a copy of the
    # list and puts it in .reckon/fontcache/ before a start; without one, the
    # list built here is left there for the host to keep.

    def _seed_font_cache(self):
        cfg = os.environ.get("MPLCONFIGDIR")
        seed = os.path.join(self.workspace, FONT_CACHE_REL)
        if not cfg or not os.path.isdir(seed):
            return False
        seeded = False
        try:
            os.makedirs(cfg, exist_ok=True)
            for name in os.listdir(seed):
                if name.startswith("fontlist-") and name.endswith(".json"):
                    with open(os.path.join(seed, name), "rb") as src:
                        data = src.read(4 << 20)
                    with open(os.path.join(cfg, name), "wb") as dst:
                        dst.write(data)
                    seeded = True
        except OSError as e:
            self.diag("font cache seed: %s" % e)
        return seeded

    def _export_font_cache(self):
        cfg = os.environ.get("MPLCONFIGDIR")
        if not cfg:
            return
        export = os.path.join(self.workspace, FONT_CACHE_REL)
        try:
            os.makedirs(export, exist_ok=True)
            for name in os.listdir(cfg):
                if name.startswith("fontlist-") and name.endswith(".json"):
                    target = os.path.join(export, name)
                    if os.path.lexists(target):
                        os.unlink(target)
                    with open(os.path.join(cfg, name), "rb") as src, \
                            open(target, "xb") as dst:
                        dst.write(src.read(4 << 20))
        except OSError as e:
            self.diag("font cache export: %s" % e)

    def start(self):
        signal.signal(signal.SIGINT, self._on_sigint)
        signal.signal(signal.SIGXCPU, self._on_sigxcpu)
        self.warm_up()

        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = builtins
        # Models often call reckon.chart()/reckon.show() without importing it.
        main.__dict__["reckon"] = importlib.import_module("reckon")
        self.user_ns = main.__dict__
        self.main_module = main
        sys.modules["__main__"] = main

        _hooks._emit_impl = self.emit
        _hooks._show_impl = self.show
        threading.Thread(target=self._flusher, name="reckon-flush", daemon=True).start()

        ready = {"type": "ready", "protocol": PROTOCOL_VERSION}
        ready.update(self.versions)
        self.send(ready)

    def _on_sigint(self, signum, frame):
        if self.interruptible:
            raise KeyboardInterrupt
        # Between cells an interrupt has nothing to stop.

    def _on_sigxcpu(self, signum, frame):
        if self.interruptible:
            raise CPUTimeLimitExceeded(
                "the cell used more than its %d seconds of CPU time" % CELL_CPU_SECONDS)

    def _limit_cell_cpu(self):
        """Lowers the soft CPU limit to what this cell may use; returns the old limits."""
        try:
            soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
            usage = resource.getrusage(resource.RUSAGE_SELF)
            # Rounded up, so the cell gets at least its full allowance.
            want = math.ceil(usage.ru_utime + usage.ru_stime) + CELL_CPU_SECONDS
            if soft != resource.RLIM_INFINITY and want >= soft:
                return None
            resource.setrlimit(resource.RLIMIT_CPU, (want, hard))
            return soft, hard
        except (OSError, ValueError):
            return None

    @staticmethod
    def _restore_cpu(limits):
        if limits is not None:
            try:
                resource.setrlimit(resource.RLIMIT_CPU, limits)
            except (OSError, ValueError):
                pass

    # -- requests ------------------------------------------------------------

    def requests(self):
        buf = b""
        while True:
            while b"\n" not in buf:
                try:
                    chunk = os.read(self.req_fd, 65536)
                except InterruptedError:
                    continue
                except KeyboardInterrupt:
                    continue
                if not chunk:
                    return
                buf += chunk
            line, buf = buf.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except ValueError:
                self.diag("ignoring a request that is not JSON")
                continue
            finally:
                # The raw line holds the nonce: keep no reference to it.
                line = None
            if isinstance(req, dict):
                yield req
            req = None

    def run(self):
        self.start()
        for req in self.requests():
            kind = req.get("type")
            if kind == "shutdown":
                break
            if kind == "execute":
                cell_id = req.get("id")
                code = req.get("code")
                nonce = req.pop("nonce", None)
                req = None
                if not isinstance(cell_id, str) or not isinstance(code, str) \
                        or not isinstance(nonce, str):
                    self.diag("execute request without id, code or nonce")
                    continue
                self._set_nonce(nonce)
                nonce = None
                try:
                    self.execute(cell_id, code)
                except KeyboardInterrupt:
                    # An interrupt that lands in the kernel's own bookkeeping
                    # after the cell has already been ended.
                    pass
                finally:
                    self._set_nonce(None)
            else:
                self.diag("unknown request %r" % (kind,))

    # -- cells ---------------------------------------------------------------

    def execute(self, cell_id, code):
        t0 = time.monotonic()
        with self.lock:
            self.cell_id = cell_id
            _hooks.current_id = cell_id
            self.out_bytes = 0
            self.truncated = 0
        self.drain_fd_pipes()            # stray output from before this cell
        sys.stdout = self.stdout
        sys.stderr = self.stderr
        self.send({"type": "started", "id": cell_id})

        before = self.snapshot()
        status = "ok"
        error = None
        filename = "<cell %s>" % "".join(c for c in cell_id[:32] if c.isalnum() or c in "-_.")
        cpu_limits = self._limit_cell_cpu()
        try:
            try:
                self.interruptible = True
                self.run_code(code, filename)
            finally:
                self.interruptible = False
                self._restore_cpu(cpu_limits)
        except KeyboardInterrupt:
            status = "interrupted"
        except BaseException as e:      # SystemExit too: the session goes on
            status = "error"
            error = e

        self.stdout.flush()
        self.stderr.flush()
        self.drain_fd_pipes(final=False)

        if error is not None:
            self.report_error(error)
        if status != "interrupted":
            self.capture_figures()
        else:
            self.close_figures()
        self.report_files(before)

        with self.lock:
            truncated = self.truncated
            if truncated:
                note = "\n[Reckon: output limit of 1 MiB reached; %d more bytes were not shown]\n" % truncated
                self.send({"type": "stream", "id": cell_id, "name": "stderr", "text": note})
            self.send({"type": "done", "id": cell_id, "status": status,
                       "duration_ms": int((time.monotonic() - t0) * 1000),
                       "truncated_bytes": truncated})
            self.cell_id = None
            _hooks.current_id = None

    def run_code(self, code, filename):
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        tree = ast.parse(code, filename, "exec")
        last = None
        name = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not self._ends_with_semicolon(code, tree.body[-1]):
            node = tree.body.pop()
            last = ast.Expression(node.value)
            if isinstance(node.value, ast.Name):
                name = node.value.id
        exec(compile(tree, filename, "exec", dont_inherit=True), self.user_ns)
        if last is not None:
            value = eval(compile(last, filename, "eval", dont_inherit=True), self.user_ns)
            if value is not None:
                self.user_ns["_"] = value
                self.show(value, name)

    @staticmethod
    def _ends_with_semicolon(code, node):
        lines = code.splitlines()
        if node.end_lineno is None or node.end_lineno > len(lines):
            return False
        rest = lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset:]
        return rest.decode("utf-8", "replace").lstrip().startswith(";")

    # -- results and tables --------------------------------------------------

    def show(self, obj, name=None):
        """Show obj: a DataFrame/Series becomes a table plus a short repr."""
        self.stdout.flush()
        self.stderr.flush()
        pd = sys.modules.get("pandas")
        figure_cls = getattr(sys.modules.get("matplotlib.figure"), "Figure", None)
        if figure_cls is not None and isinstance(obj, figure_cls):
            self.save_figure(obj)
            return
        lazy = _dask_collection(obj)
        if lazy is not None:
            text = self.show_lazy(obj, lazy, name)
        elif pd is not None and isinstance(obj, (pd.DataFrame, pd.Series)):
            self.write_table(obj, name)
            with pd.option_context("display.max_rows", 10, "display.max_columns", 20,
                                   "display.width", 120):
                text = repr(obj)
        else:
            text = repr(obj)
        cid = self.cell_id
        if cid is not None:
            self.send({"type": "result", "id": cid, "text": _cap_text(text, RESULT_CAP)})

    def show_lazy(self, obj, kind, name):
        """A Dask DataFrame or Series is never read whole to be shown: the
        first rows of its first part become the table, and the text says
        what it is and how to get results."""
        parts = getattr(obj, "npartitions", 0)
        if kind == "scalar":
            return ("A lazy Dask value, not computed yet: call .compute() to get it, e.g. %s.compute()"
                    % (name or "result"))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                head = obj.head(LAZY_HEAD_ROWS, npartitions=1, compute=True)
        except Exception as e:  # noqa: BLE001 - the note below still says what it is
            head = None
            print("Reckon could not read the first rows of this lazy table: %s" % e, file=sys.stderr)
        if head is not None:
            self.write_table(head, name)
        what = "DataFrame with %d columns" % len(obj.columns) if kind == "frame" else "Series"
        return ("A lazy Dask %s in %d parts, not read into memory: the table shows its first %d rows. "
                "Compute small results, e.g. df.groupby(...).sum().compute() or df.head(20); "
                "len(df) reads the whole file once." % (what, parts, LAZY_HEAD_ROWS))

    def write_table(self, obj, name):
        try:
            table = importlib.import_module("reckon.table")
        except ModuleNotFoundError as e:
            if e.name != "reckon.table":
                raise
            if not self.table_module_missing_noted:
                self.diag("reckon/table.py is missing: DataFrames are shown as text only")
                self.table_module_missing_noted = True
            return
        rel, full = _hooks.artifact_path("tables", "rkt")
        try:
            info = table.write(obj, full)
            rows = int(info["rows"])
            columns = int(info["columns"])
        except Exception as e:
            print("Reckon could not save this table: %s" % e, file=sys.stderr)
            return
        event = {"type": "table", "id": self.cell_id, "path": rel, "rows": rows, "columns": columns}
        if isinstance(name, str) and name:
            event["name"] = name
        self.send(event)

    # -- figures -------------------------------------------------------------

    def capture_figures(self):
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is None or self.cell_id is None:
            return
        self.stdout.flush()
        self.stderr.flush()
        for num in plt.get_fignums():
            self.save_figure(plt.figure(num), close=False)
        plt.close("all")

    def save_figure(self, fig, close=True):
        """Writes one figure as PNG and reports it; a figure shown once is
        closed so that the end of the cell does not show it again."""
        if self.cell_id is None:
            return
        rel, full = _hooks.artifact_path("figures", "png")
        try:
            fig.savefig(full, format="png", dpi=FIGURE_DPI)
            width, height = self._png_size(full)
        except Exception as e:
            print("Reckon could not save a figure: %s" % e, file=sys.stderr)
            return
        message = {"type": "figure", "id": self.cell_id, "path": rel, "format": "png",
                   "width": width, "height": height}
        title = self._figure_title(fig)
        if title:
            message["title"] = title
        self.send(message)
        if close:
            plt = sys.modules.get("matplotlib.pyplot")
            if plt is not None:
                plt.close(fig)

    def close_figures(self):
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            plt.close("all")

    @staticmethod
    def _figure_title(fig):
        """What the figure calls itself, for the list of results: its
        suptitle, else the first axes' title; one line, at most 200 chars."""
        try:
            sup = getattr(fig, "_suptitle", None)
            texts = [sup.get_text()] if sup is not None else []
            for ax in fig.get_axes():
                texts += [ax.get_title(loc) for loc in ("center", "left", "right")]
        except Exception:
            return None
        for text in texts:
            text = " ".join(str(text).split())
            if text:
                return text[:200]
        return None

    @staticmethod
    def _png_size(path):
        with open(path, "rb") as f:
            head = f.read(24)
        if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
            raise ValueError("not a PNG file")
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")

    # -- files ---------------------------------------------------------------

    def snapshot(self):
        """(size, mtime_ns, inode) of regular files in the workspace, outside
        .reckon/, scanning at most SCAN_MAX_ENTRIES entries."""
        files = {}
        seen = 0
        stack = [""]
        while stack:
            rel_dir = stack.pop()
            try:
                it = os.scandir(os.path.join(self.workspace, rel_dir) if rel_dir else self.workspace)
            except OSError:
                continue
            with it:
                for entry in it:
                    seen += 1
                    if seen > SCAN_MAX_ENTRIES:
                        return files
                    if not rel_dir and entry.name in (".reckon", ".reckon-incoming"):
                        continue
                    rel = rel_dir + "/" + entry.name if rel_dir else entry.name
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(rel)
                        elif entry.is_file(follow_symlinks=False):
                            st = entry.stat(follow_symlinks=False)
                            files[rel] = (st.st_size, st.st_mtime_ns, st.st_ino)
                    except OSError:
                        continue
        return files

    def report_files(self, before):
        after = self.snapshot()
        changes = []
        for rel, sig in after.items():
            old = before.get(rel)
            if old == sig:
                continue
            try:
                rel.encode("utf-8")         # skip names that are not UTF-8
            except UnicodeEncodeError:
                continue
            changes.append((rel, sig[0], "created" if old is None else "modified"))
        changes.sort()
        for rel, size, change in changes[:REPORT_MAX_FILES]:
            self.send({"type": "file", "id": self.cell_id, "path": rel, "size": size, "change": change})
        if len(changes) > REPORT_MAX_FILES:
            self.stream("stderr", "[Reckon: %d more changed files are not listed]\n"
                        % (len(changes) - REPORT_MAX_FILES))

    # -- errors --------------------------------------------------------------

    def report_error(self, error):
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == _THIS_FILE:
            tb = tb.tb_next
        if isinstance(error, SyntaxError):
            lines = traceback.format_exception_only(type(error), error)
        else:
            lines = traceback.format_exception(type(error), error, tb)
        try:
            evalue = str(error)
        except Exception:
            evalue = "<unprintable %s>" % type(error).__name__
        event = {"type": "error", "id": self.cell_id,
                 "ename": type(error).__name__,
                 "evalue": _cap_text(evalue, EVALUE_CAP),
                 "traceback": _cap_text("".join(lines), TRACEBACK_CAP, keep_end=True)}
        # A MemoryError here is the sandbox's memory limit (RLIMIT_AS): say so.
        if isinstance(error, MemoryError):
            size = _memory_limit_text()
            event["limit"] = "memory"
            event["evalue"] = ("the cell needed more memory than the sandbox's memory limit (%s) allows" % size
                               if size else "the cell needed more memory than the sandbox's memory limit allows")
        elif isinstance(error, CPUTimeLimitExceeded):
            event["limit"] = "cpu"
        elif network.is_network_error(error):
            # One plain sentence, and the user's own lines: not a URLError
            # from deep inside urllib or pandas.
            event["ename"] = network.ENAME
            event["evalue"] = network.SENTENCE
            event["traceback"] = _cap_text(_own_frames(error, tb) + network.SENTENCE + "\n",
                                           TRACEBACK_CAP, keep_end=True)
        elif isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            # A capped workspace's tmpfs refuses what does not fit at once.
            which = _workspace_limit(self.workspace)
            if which is not None:
                event["limit"] = which[0]
                event["evalue"] = ("the cell wrote more than the workspace's disk limit (%s) allows" % which[1]
                                   if which[0] == "disk" else
                                   "the cell made more files than the workspace's limit (%s) allows" % which[1])
        self.send(event)


def _own_frames(error, tb):
    """The traceback's frames in the user's cells, without the libraries'."""
    frames = [f for f in traceback.extract_tb(tb) if f.filename.startswith("<cell ")]
    if not frames:
        return ""
    return "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))


def main():
    kernel = Kernel()
    kernel.run()
    # Leave without running user atexit hooks that could block the shutdown.
    os._exit(0)


if __name__ == "__main__":
    main()
