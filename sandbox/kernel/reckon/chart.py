# SPDX-License-Identifier: GPL-3.0-or-later
"""reckon.chart — write a native chart spec (docs/chart-spec.md) for Reckon to draw.

Runs inside the sandbox. The spec goes to /workspace/.reckon/charts/cN.json
(large series in a float64 sidecar cN.bin next to it), then a `chart` event
is emitted through reckon._hooks when the kernel has set it up.
"""

import json
import math
import os

__all__ = ["chart", "Chart", "KINDS"]

KINDS = ("line", "area", "bar", "scatter", "histogram", "box")
SPEC_VERSION = 1

# Above this many points in a chart, arrays go to the binary sidecar instead
# of the JSON (a million points as JSON text is ~20 MB and slow to parse).
INLINE_MAX_POINTS = 20000
# Limits mirrored from the parser in src/core/rk-chart.c.
MAX_SERIES = 64
MAX_TOTAL_POINTS = 1 << 24
MAX_CATEGORIES = 10000
MAX_STRING = 1024
MAX_OUTLIERS = 10000

_counter = 0


class Chart:
    """What chart() returns: the path of the spec, with a short repr."""

    __slots__ = ("path", "kind", "title")

    def __init__(self, path, kind, title):
        self.path = path
        self.kind = kind
        self.title = title

    def __repr__(self):
        if self.title:
            title = self.title if len(self.title) <= 40 else self.title[:39] + "…"
            return "<chart %s %r: %s>" % (self.kind, title, self.path)
        return "<chart %s: %s>" % (self.kind, self.path)

    def __fspath__(self):
        return self.path


def _workspace():
    return os.environ.get("RECKON_WORKSPACE") or (
        "/workspace" if os.path.isdir("/workspace") else os.getcwd())


def _text(value, what):
    if value is None:
        return None
    s = str(value)
    if len(s.encode("utf-8", "replace")) > MAX_STRING:
        s = s.encode("utf-8", "replace")[:MAX_STRING - 3].decode("utf-8", "ignore") + "…"
    return s


def _np():
    import numpy
    return numpy


def _is_datetime(values):
    np = _np()
    try:
        import pandas as pd
        if isinstance(values, (pd.Series, pd.Index)):
            return pd.api.types.is_datetime64_any_dtype(values.dtype)
    except ImportError:  # pragma: no cover
        pass
    arr = np.asarray(values)
    if np.issubdtype(arr.dtype, np.datetime64):
        return True
    if arr.dtype == object and len(arr) > 0:
        import datetime
        first = next((v for v in arr if v is not None), None)
        return isinstance(first, (datetime.date, datetime.datetime))
    return False


def _to_epoch_ms(values):
    """Datetimes to float64 epoch milliseconds; NaT becomes NaN. Timezone-aware
    values keep their wall-clock time (the chart shows times as the data has them)."""
    np = _np()
    import pandas as pd
    idx = pd.DatetimeIndex(pd.to_datetime(pd.Series(values).values
                                          if not isinstance(values, pd.Series)
                                          else values))
    if idx.tz is not None:
        idx = idx.tz_localize(None)
    ns = idx.asi8.astype(np.float64)
    ms = ns / 1e6
    ms[np.asarray(idx.isna())] = np.nan
    return ms


def _to_float(values):
    np = _np()
    try:
        import pandas as pd
        if isinstance(values, (pd.Series, pd.Index)):
            if pd.api.types.is_bool_dtype(values.dtype):
                values = values.astype(float)
            return pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    except ImportError:  # pragma: no cover
        pass
    arr = np.asarray(values)
    if arr.dtype.kind in "biuf":
        return arr.astype(np.float64)
    out = np.empty(len(arr), dtype=np.float64)
    for i, v in enumerate(arr):
        try:
            out[i] = float(v) if v is not None else np.nan
        except (TypeError, ValueError):
            out[i] = np.nan
    return out


def _is_numeric(values):
    np = _np()
    try:
        import pandas as pd
        if isinstance(values, (pd.Series, pd.Index)):
            return (pd.api.types.is_numeric_dtype(values.dtype)
                    and not pd.api.types.is_bool_dtype(values.dtype))
    except ImportError:  # pragma: no cover
        pass
    return np.asarray(values).dtype.kind in "iuf"


def _labels(values):
    out = []
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            out.append("")
        elif isinstance(v, tuple):  # a MultiIndex level combination
            out.append(_text(" / ".join(str(p) for p in v), "category"))
        elif hasattr(v, "strftime") and hasattr(v, "hour"):
            if (v.hour, v.minute, v.second) == (0, 0, 0):
                out.append(v.strftime("%Y-%m-%d"))
            else:
                out.append(v.strftime("%Y-%m-%d %H:%M"))
        else:
            out.append(_text(v, "category"))
    return out


def _columns(data, x, y):
    """Normalise the input to (x_values or None, x_name, [(name, y_values)])."""
    np = _np()
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None

    if pd is not None and isinstance(data, pd.DataFrame):
        if x is not None:
            if x not in data.columns:
                raise KeyError("chart: no column %r (columns: %s)" % (x, ", ".join(map(str, data.columns))))
            xv, xname = data[x], str(x)
            rest = [c for c in data.columns if c != x]
        else:
            xv = data.index
            xname = str(data.index.name) if data.index.name is not None else None
            if isinstance(xv, pd.RangeIndex):
                xv = None
            rest = list(data.columns)
        if y is None:
            ycols = [c for c in rest if _is_numeric(data[c])]
            if not ycols:
                raise ValueError("chart: the DataFrame has no numeric column to plot; pass y=")
        else:
            ycols = [y] if not isinstance(y, (list, tuple)) else list(y)
            for c in ycols:
                if c not in data.columns:
                    raise KeyError("chart: no column %r (columns: %s)" % (c, ", ".join(map(str, data.columns))))
        return xv, xname, [(str(c), data[c]) for c in ycols]

    if pd is not None and isinstance(data, pd.Series):
        xv = data.index if x is None else x
        if isinstance(xv, pd.RangeIndex):
            xv = None
        xname = str(data.index.name) if x is None and data.index.name is not None else None
        return xv, xname, [(str(data.name) if data.name is not None else "value", data)]

    if isinstance(data, dict):
        series = []
        for k, v in data.items():
            if x is not None and k == x:
                continue
            series.append((str(k), v))
        xv = data[x] if x is not None else None
        return xv, (str(x) if x is not None else None), series

    if y is not None:
        # chart(xs, y=ys) or chart(xs, y=[ys1, ys2])
        ys = y if isinstance(y, (list, tuple)) and len(y) > 0 and hasattr(y[0], "__len__") else [y]
        return data, None, [("value" if len(ys) == 1 else "series %d" % (i + 1), s)
                            for i, s in enumerate(ys)]
    if isinstance(data, (list, tuple)) and len(data) > 0 and hasattr(data[0], "__len__") \
            and not isinstance(data[0], str):
        return x, None, [("series %d" % (i + 1), s) for i, s in enumerate(data)]
    arr = np.asarray(data)
    if arr.ndim == 2:
        return x, None, [("series %d" % (i + 1), arr[:, i]) for i in range(arr.shape[1])]
    return x, None, [("value", arr)]


class _Writer:
    def __init__(self, big):
        self.big = big
        self.chunks = []
        self.offset = 0

    def array(self, values):
        np = _np()
        arr = np.ascontiguousarray(values, dtype="<f8")
        if not self.big:
            return [None if not math.isfinite(v) else (int(v) if v.is_integer() and abs(v) < 2**53 else v)
                    for v in arr.tolist()]
        ref = {"offset": self.offset, "count": int(arr.shape[0])}
        self.chunks.append(arr.tobytes())
        self.offset += arr.nbytes
        return ref


def _finite(v):
    v = float(v)
    return v if math.isfinite(v) else None


def _box_stats(name, values):
    np = _np()
    v = _to_float(values)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    iqr = q3 - q1
    lo_lim, hi_lim = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    inside = v[(v >= lo_lim) & (v <= hi_lim)]
    low = float(inside.min()) if inside.size else float(q1)
    high = float(inside.max()) if inside.size else float(q3)
    out = v[(v < lo_lim) | (v > hi_lim)]
    if out.size > MAX_OUTLIERS:
        # keep the extremes and an even sample of the rest
        out = np.sort(out)
        keep = np.unique(np.concatenate([out[:10], out[-10:],
                                         out[np.linspace(0, out.size - 1, MAX_OUTLIERS - 20).astype(int)]]))
        out = keep
    return {"name": name, "q1": float(q1), "median": float(med), "q3": float(q3),
            "low": low, "high": high, "mean": float(v.mean()), "n": int(v.size),
            "outliers": [float(o) for o in out]}


def _atomic_write(path, payload):
    from ._hooks import atomic_file

    with atomic_file(path, ".tmp-", mode=0o644) as f:
        f.write(payload)


def _next_name(folder):
    global _counter
    while True:
        _counter += 1
        name = "c%d" % _counter
        if not os.path.exists(os.path.join(folder, name + ".json")):
            return name


def chart(data, kind="line", x=None, y=None, title=None, xlabel=None, ylabel=None,
          stacked=False, bins=None, ylim=None, **_ignored):
    """Draw `data` as a native Reckon chart.

    data: a DataFrame (x: a column, else the index; y: a column name or list of
    names, else every numeric column), a Series (index as x), a dict of arrays,
    or arrays (chart(ys) or chart(xs, y=ys)).
    kind: line, area, bar, scatter, histogram or box. stacked: for bar and area.
    bins: histogram bin count or edges (default: numpy's "auto", at most 200).
    """
    np = _np()
    if kind not in KINDS:
        raise ValueError("chart: kind must be one of %s, not %r" % (", ".join(KINDS), kind))

    xv, xname, series = _columns(data, x, y)
    try:
        import pandas as pd
        if isinstance(xv, pd.PeriodIndex):
            xv = xv.to_timestamp()
        elif isinstance(xv, pd.Series) and isinstance(xv.dtype, pd.PeriodDtype):
            xv = xv.dt.to_timestamp()
    except (ImportError, AttributeError):  # pragma: no cover
        pass
    if len(series) > MAX_SERIES:
        raise ValueError("chart: too many series (%d; at most %d)" % (len(series), MAX_SERIES))

    spec = {"version": SPEC_VERSION, "kind": kind}
    if title is not None:
        spec["title"] = _text(title, "title")
    ylabel_auto = series[0][0] if len(series) == 1 else None

    total = 0
    if kind in ("line", "area", "scatter"):
        total = sum(len(s) for _, s in series) * 2
    big = total > INLINE_MAX_POINTS
    w = _Writer(big)
    out_series = []

    if kind in ("line", "area", "scatter", "bar"):
        n = len(series[0][1])
        for name, s in series:
            if len(s) != n:
                raise ValueError("chart: series %r has %d values, %r has %d" % (series[0][0], n, name, len(s)))
        if xv is not None and len(xv) != n:
            raise ValueError("chart: x has %d values but y has %d" % (len(xv), n))
        if kind == "bar" or (xv is not None and not _is_datetime(xv) and not _is_numeric(xv)):
            xtype = "category"
            cats = _labels(xv) if xv is not None else [str(i) for i in range(n)]
            if len(cats) > MAX_CATEGORIES:
                raise ValueError("chart: too many categories for a %s chart (%d; at most %d)"
                                 % (kind, len(cats), MAX_CATEGORIES))
            spec["categories"] = cats
            xs = None
        elif xv is None:
            xtype = "number"
            xs = np.arange(n, dtype=np.float64)
        elif _is_datetime(xv):
            xtype = "time"
            xs = _to_epoch_ms(xv)
        else:
            xtype = "number"
            xs = _to_float(xv)
        shared_x = w.array(xs) if xs is not None else None
        for name, s in series:
            entry = {"name": _text(name, "name")}
            if shared_x is not None:
                entry["x"] = shared_x
            ys = _to_float(s)
            if len(ys) and not np.isfinite(ys).any() and any(v is not None and v == v for v in list(s)[:1000]):
                raise ValueError("chart: %r has no numbers to plot" % name)
            entry["y"] = w.array(ys)
            out_series.append(entry)
        spec["x"] = {"type": xtype}
        if kind in ("bar", "area"):
            spec["stacked"] = bool(stacked)
    elif kind == "histogram":
        for name, s in series:
            v = _to_float(s)
            v = v[np.isfinite(v)]
            if bins is None:
                edges = np.histogram_bin_edges(v, bins="auto") if v.size else np.array([0.0, 1.0])
                if len(edges) > 201:
                    edges = np.histogram_bin_edges(v, bins=200)
            else:
                edges = np.histogram_bin_edges(v, bins=bins)
            counts, edges = np.histogram(v, bins=edges)
            out_series.append({"name": _text(name, "name"),
                               "edges": [float(e) for e in edges],
                               "counts": [int(c) for c in counts]})
        spec["x"] = {"type": "number"}
        if xlabel is None and len(series) == 1:
            xlabel = series[0][0]
        if ylabel is None:
            ylabel = "count"
        ylabel_auto = None
    else:  # box
        for name, s in series:
            stats = _box_stats(_text(name, "name"), s)
            if stats is not None:
                out_series.append(stats)
        spec["x"] = {"type": "category"}

    if xlabel is None and kind not in ("histogram", "box"):
        xlabel = xname
    if xlabel is not None:
        spec["x"]["label"] = _text(xlabel, "label")
    yl = ylabel if ylabel is not None else ylabel_auto
    spec["y"] = {}
    if yl is not None:
        spec["y"]["label"] = _text(yl, "label")
    if ylim is not None:
        lo, hi = ylim
        spec["y"]["min"] = _finite(lo)
        spec["y"]["max"] = _finite(hi)
    spec["series"] = out_series

    try:
        from . import _hooks  # filled in by the kernel
    except ImportError:
        _hooks = None
    in_kernel = (_hooks is not None and callable(getattr(_hooks, "emit", None))
                 and getattr(_hooks, "_emit_impl", True) is not None
                 and getattr(_hooks, "current_id", True) is not None)

    workspace = getattr(_hooks, "WORKSPACE", None) if in_kernel else None
    folder = os.path.join(workspace or _workspace(), ".reckon", "charts")
    os.makedirs(folder, exist_ok=True)
    name = _next_name(folder)
    if big:
        spec["data"] = name + ".bin"
        _atomic_write(os.path.join(folder, name + ".bin"), b"".join(w.chunks))
    payload = json.dumps(spec, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    _atomic_write(os.path.join(folder, name + ".json"), payload)

    rel = ".reckon/charts/%s.json" % name
    if in_kernel:
        _hooks.emit({"type": "chart", "path": rel, "title": spec.get("title") or ""})
        return Chart(rel, kind, spec.get("title"))
    return Chart(os.path.join(folder, name + ".json"), kind, spec.get("title"))
