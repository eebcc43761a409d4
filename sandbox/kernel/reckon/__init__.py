"""Helpers for code that runs in Reckon's kernel.

    import reckon
    reckon.show(df, name="sales")      # show a DataFrame/Series as a table now
    reckon.chart(df, kind="bar", x="month", y="total")   # a native chart
"""

from . import _hooks

__all__ = ["show", "chart"]


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
