# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the RkTable fixtures test-table.c reads, with the real writer.

Usage: table-fixtures.py OUTDIR  (PYTHONPATH must hold sandbox/kernel)."""

import json
import sys

import numpy as np
import pandas as pd

from reckon import table

out = sys.argv[1]
NaT = pd.NaT
results = {}


def w(name, obj):
    results[name] = table.write(obj, "%s/%s.rkt" % (out, name))


w("dtypes", pd.DataFrame({
    "i": [1, -2, 9223372036854775807],
    "f": [1.5, np.nan, 1e-7],
    "b": [True, False, True],
    "s": ["a", 'héllo, "world"\n', None],
    "d": pd.to_datetime(["2024-01-02 03:04:05.123", NaT, "1999-12-31"]),
    "dd": pd.to_datetime(["2024-01-01", "2024-01-02", NaT]),
    "dz": pd.to_datetime(["2024-01-01 12:00", "2024-07-01 12:00", NaT]).tz_localize("Europe/Paris"),
    "c": pd.Categorical(["x", None, "y"]),
    "I": pd.array([1, None, 3], dtype="Int64"),
    "B": pd.array([True, None, False], dtype="boolean"),
    "F": pd.array([1.25, None, 0.5], dtype="Float64"),
    "m": [1, "a", 2.5],
    "u": np.array([1, 2, 2 ** 64 - 1], dtype=np.uint64),
    "td": pd.to_timedelta([1, 2, 3], unit="h"),
}))
# Text a spreadsheet app would read as a formula (issue 10, finding 8).
w("formulas", pd.DataFrame({
    "=cmd": ["=1+1", "+SUM(A1)", "-2+3", "@A1", "\tx", "\r=1", "plain", "-", None],
    "n": [-1, 2, -3, 4, 5, 6, 7, 8, 9],
}))
w("unicode", pd.DataFrame({"名前 ✓": ["😀 emoji", "中文", "\ud800x", "a\0b", ""]}))
w("empty", pd.DataFrame())
w("empty_cols", pd.DataFrame({"a": pd.Series([], dtype="int64"),
                              "s": pd.Series([], dtype=object)}))
w("zero_cols", pd.DataFrame(index=range(5)))
w("one_row", pd.DataFrame({"x": [42]}))
w("index", pd.DataFrame({"k1": ["a", "a", "b"], "k2": [1, 2, 1], "v": [0.5, 1.5, 2.5]})
  .set_index(["k1", "k2"]))
w("series", pd.Series([10, 20], index=pd.Index(["p", "q"], name="key"), name="total"))
w("sort", pd.DataFrame({
    "n": pd.array([3, None, 1, 3, 2, None], dtype="Int64"),
    "f": [2.0, np.nan, 1.0, 2.0, np.nan, -1.0],
    "s": ["b", None, "a", "b", "", "c"],
    "tag": [0, 1, 2, 3, 4, 5],
}))
w("small", pd.DataFrame({"a": [1, 2], "s": ["xy", "z"]}))
w("wide", pd.DataFrame({"c%d" % i: [i] for i in range(30)}))

# Odd frames: each must be written, and open and read on the host.
import datetime
import decimal

odd = [
    pd.DataFrame([[1, 2], [3, 4]], columns=["dup", "dup"]),
    pd.DataFrame({("a", "x"): [1], ("a", "y"): [2.0], ("b", ""): ["s"]}),
    pd.DataFrame({"v": [1, 2]}, index=pd.RangeIndex(5, 7, name="r")),
    pd.DataFrame({"v": [1, 2]}, index=pd.date_range("2024-01-01", periods=2, tz="UTC")),
    pd.DataFrame({"v": [1, 2]}, index=pd.CategoricalIndex(["p", "q"])),
    pd.DataFrame({"v": [1.0, 2.0]}, index=[0.5, np.nan]),
    pd.DataFrame({"s": pd.array(["x", None], dtype="string")}),
    pd.DataFrame({"p": pd.period_range("2024-01", periods=2, freq="M")}),
    pd.DataFrame({"iv": pd.interval_range(0, 2)}),
    pd.DataFrame({"c": [1 + 2j, 3j]}),
    pd.DataFrame({"o": [decimal.Decimal("1.10"), datetime.date(2024, 1, 2)]}),
    pd.DataFrame({"o": [[1, 2], {"k": None}]}),
    pd.DataFrame({"b": [True, None]}),
    pd.DataFrame({"by": [b"\xff\x00bytes", b"ok"]}),
    pd.DataFrame({"f16": np.array([1.5, -2], dtype=np.float16),
                  "u8": np.array([0, 255], dtype=np.uint8),
                  "be": np.array([1, 2], dtype=">i8")}),
    pd.DataFrame({"cat": pd.Categorical([1, None], categories=[1, 2])}),
    pd.DataFrame({"sp": pd.arrays.SparseArray([0, 1])}),
    pd.DataFrame({"dt": pd.to_datetime(["2024-01-01"]).tz_localize(
        datetime.timezone(datetime.timedelta(hours=-3, minutes=-30)))}),
    pd.DataFrame({"x" * 3000: [1]}),
    pd.DataFrame({"t": pd.to_datetime(["1677-09-22", "2262-04-11"])}),
    pd.DataFrame(np.arange(6).reshape(3, 2).T),
    pd.Series([], dtype=float),
    pd.Series([1, 2]).rename(None),
    pd.DataFrame({"oi": pd.Series([1, None, 3], dtype=object),
                  "of": pd.Series([1, 2.5, None], dtype=object),
                  "od": pd.Series([datetime.datetime(2024, 1, 2, 3), None], dtype=object).reindex(range(3)),
                  "os": pd.Series(["a", 1, None], dtype=object)}),
]
for i, frame in enumerate(odd):
    w("odd_%02d" % i, frame)

# Writer errors are clear ValueErrors, not bad files.
try:
    table.write(pd.DataFrame(np.zeros((1, table.MAX_COLUMNS + 1))), out + "/too_wide.rkt")
    results["too_wide"] = "written"
except ValueError:
    results["too_wide"] = "refused"

print(json.dumps(results, sort_keys=True))
