# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers for code that runs in Reckon's kernel.

    import reckon
    reckon.show(df, name="sales")      # show a DataFrame/Series as a table now
    reckon.chart(df, kind="bar", x="month", y="total")   # a native chart
    df = reckon.load("sales.csv")      # a workspace file, read as its profile says
    big = reckon.load("big.csv")       # past a third of the memory limit: a lazy Dask DataFrame
    big.groupby("region")["amount"].sum().compute()   # a small result, as pandas
"""

import os

from . import _hooks

__all__ = ["show", "chart", "load", "compute", "is_lazy"]


def load(name, sheet=None, engine=None):
    """Read a file of the workspace exactly as its profile read it (the same
    delimiter, header, skipped lines, encoding, decimal mark, date columns,
    compression and sheets, and the dtypes it chose: text with few distinct
    values as category, integers as int32 where they fit, dates parsed).
    Returns a pandas DataFrame, or a dict of DataFrames (sheet name ->
    DataFrame) for a workbook with several sheets when no sheet is named.

    A text table whose estimated size in memory is over a third of the
    sandbox's memory limit comes back as a lazy dask.dataframe read in
    blocks: compute small results with .compute(). engine="pandas" or
    engine="dask" chooses instead."""
    from . import reading

    if engine not in (None, "pandas", "dask"):
        raise ValueError("engine is 'pandas' or 'dask', not %r" % (engine,))
    path = _workspace_file(name)
    found = reading.saved_reading(path)
    try:
        if found is None:
            found = reading.detect(path)
        if engine is None:
            engine = reading.engine_for(path, found)
        return reading.read(path, found, sheet, engine)
    except reading.ReadError as e:
        raise ValueError("%s: %s" % (os.path.basename(path), e)) from None


def is_lazy(obj):
    """Is @obj a lazy Dask collection (what reckon.load gives past memory)?"""
    return type(obj).__module__.startswith("dask.") and hasattr(obj, "__dask_graph__")


def compute(obj, sample=None):
    """@obj as pandas: a lazy Dask result is computed (with the threaded
    scheduler), anything else comes back as it is. @sample: for a lazy
    frame or series, about that many rows drawn evenly from its parts in
    one pass, instead of all of them (for a chart of a huge column)."""
    if not is_lazy(obj):
        return obj
    if sample is not None and hasattr(obj, "npartitions"):
        per_part = max(1, int(sample) // max(1, obj.npartitions))
        obj = obj.map_partitions(lambda p: p.sample(n=min(len(p), per_part), random_state=0)
                                 if len(p) > per_part else p)
    return obj.compute()


def _workspace_file(name):
    name = os.fspath(name)
    candidates = [name] if os.path.isabs(name) else [os.path.join(_hooks.WORKSPACE, name), name]
    for c in candidates:
        if os.path.isfile(c):
            return c
    try:
        files = sorted(f for f in os.listdir(_hooks.WORKSPACE)
                       if not f.startswith(".") and os.path.isfile(os.path.join(_hooks.WORKSPACE, f)))
    except OSError:
        files = []
    raise FileNotFoundError("There is no file %r in the workspace; its files are: %s"
                            % (name, ", ".join(files[:30]) or "none"))


def show(obj, name=None):
    """Show obj now: a DataFrame or Series becomes a table, anything else its repr."""
    _hooks.show(obj, name)


def __getattr__(name):
    # reckon.chart comes from reckon/chart.py, loaded on first use so that the
    # kernel works (and imports fast) whether or not that module is present.
    if name == "chart":
        try:
            from .chart import chart as chart_fn
        except ModuleNotFoundError as e:
            if e.name != __name__ + ".chart":
                raise
            raise AttributeError("reckon.chart is not available in this version of Reckon") from None
        globals()["chart"] = chart_fn
        return chart_fn
    raise AttributeError("module 'reckon' has no attribute %r" % name)
