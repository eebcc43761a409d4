#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-lean-reading.py — reckon.load on big tables (issue #16): the dtype
choice (category for text with few values, int32 only where every value
fits), the chunked read giving the same values as one plain read_csv, the
choice recorded in the reading and replayed, the profile's engine fields,
and the switch to a lazy Dask DataFrame past a share of the memory limit
(with the same results as pandas). Runs the Python side directly, with the
size thresholds lowered so that small files take the big-file paths.
"""

import os
import resource
import sys
import tempfile

resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
sys.path.insert(0, os.path.join(os.environ.get("RECKON_SOURCE_ROOT", "."), "sandbox", "kernel"))
os.environ.pop("RECKON_MEMORY_LIMIT", None)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import reckon  # noqa: E402
from reckon import _hooks  # noqa: E402
from reckon import profile as pf  # noqa: E402
from reckon import reading as rd  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))


def write_sales(path, rows=30000, seed=3):
    """A table whose later rows hold what the first do not: an integer past
    int32 in the last rows, a text column that is only numbers in one
    stretch, a column empty in another."""
    rng = np.random.default_rng(seed)
    regions = np.array(["North", "South", "East", "West", "Central"])
    df = pd.DataFrame({
        "date": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 1500, rows), unit="D"),
        "region": regions[rng.integers(0, 5, rows)],
        "amount": rng.integers(1, 100000, rows) / 100.0,
        "units": rng.integers(1, 100, rows),
        "big": rng.integers(0, 1000, rows),
        "customer": np.char.add("C", rng.integers(0, 3000, rows).astype(str)),
        "code": np.char.add("K", rng.integers(0, 50, rows).astype(str)).astype(object),
        "note": np.where(rng.random(rows) < 0.5, "yes", "no").astype(object),
        "id": np.char.add("row", np.arange(rows).astype(str)),
    })
    df.loc[rows - 5:, "big"] = 2 ** 40
    df.loc[10000:14000, "code"] = "123"
    df.loc[15000:26000, "note"] = None
    df["date"] = df["date"].dt.strftime("%Y-%m-%d")
    df.to_csv(path, index=False)


def plain(path):
    return pd.read_csv(path, parse_dates=["date"], low_memory=False)


def same_values(a, b):
    """Equal values whatever the dtypes (category vs text, int32 vs int64)."""
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return False, "shape %s vs %s" % (a.shape, b.shape)
    for c in a.columns:
        x, y = a[c], b[c]
        if isinstance(x.dtype, pd.CategoricalDtype):
            x = x.astype(object)
        if isinstance(y.dtype, pd.CategoricalDtype):
            y = y.astype(object)
        x = x.astype(object).where(x.notna(), None).map(str).to_numpy()
        y = y.astype(object).where(y.notna(), None).map(str).to_numpy()
        if not (x == y).all():
            i = int(np.flatnonzero(x != y)[0])
            return False, "column %s row %d: %r vs %r" % (c, i, x[i], y[i])
    return True, ""


def small_thresholds():
    rd.LEAN_ABOVE = 1000
    rd.CHUNKED_ABOVE = 1000
    rd.CHUNK_BYTES = 64 * 1024
    rd.MIN_CHUNK_ROWS = 1000         # chunks of about 1,300 rows: some wholly "123", some wholly empty


def test_choice_and_chunks(d):
    path = os.path.join(d, "sales.csv")
    write_sales(path)
    reading = rd.detect(path)
    df = rd.read_csv(path, reading)
    dt = df.dtypes
    # Nothing recorded: the first chunk chooses (customer, with 3,000 values
    # in 30,000 rows but most distinct in a chunk, stays text then).
    check("low-cardinality text is category (region, code, note)",
          all(isinstance(dt[c], pd.CategoricalDtype) for c in ("region", "code", "note")), str(dt))
    check("text with a value a row stays text (id)", dt["id"] == object, str(dt["id"]))
    check("integers that fit are int32 (units)", dt["units"] == np.int32, str(dt["units"]))
    check("integers past int32 in a late chunk stay int64 (big)", dt["big"] == np.int64, str(dt["big"]))
    check("floats stay float64 (amount)", dt["amount"] == np.float64, str(dt["amount"]))
    check("dates parsed once (date)", str(dt["date"]) == "datetime64[ns]", str(dt["date"]))
    ok, why = same_values(df, plain(path))
    check("chunked lean read gives the values of one plain read_csv", ok, why)
    check("categories of a stretch of numbers are text", "123" in list(df["code"].cat.categories),
          str(df["code"].cat.categories[:5]))
    g = df.groupby("region")["amount"].sum()
    p = plain(path).groupby("region")["amount"].sum()
    check("groupby sum equal to plain pandas", np.allclose(g.sort_index().to_numpy(), p.sort_index().to_numpy(),
                                                           rtol=0, atol=1e-6), "%s / %s" % (g, p))


def test_downcast_exact():
    s = pd.Series([1, 2, 2 ** 31 - 1])
    check("int32 when every value fits", rd._downcast(s).dtype == np.int32)
    s = pd.Series([1, -2 ** 31 - 1])
    check("int64 kept when one does not", rd._downcast(s).dtype == np.int64)
    s = pd.Series([0.5, 1.25])
    check("floats never downcast", rd._downcast(s).dtype == np.float64)


def test_record_and_replay(d):
    path = os.path.join(d, "sales.csv")
    os.environ["RECKON_WORKSPACE"] = d
    _hooks.WORKSPACE = d
    result = pf.profile_file(path)
    saved = rd.saved_reading(path) or {}
    names = list(pd.read_csv(path, nrows=1).columns)
    cats = [names[j] for j in saved.get("category", ())]
    check("the profiler records the categories in the reading", set(cats) >= {"region", "customer", "code", "note"}, str(cats))
    check("the profiler records the int32 columns", [names[j] for j in saved.get("downcast", ())][:1] == ["units"],
          str(saved.get("downcast")))
    check("the profile names the engine and the memory estimate",
          result.get("engine") == "pandas" and isinstance(result.get("memory_estimate"), int)
          and result["memory_estimate"] > 0 and "large" not in result, str({k: result.get(k) for k in
                                                                          ("engine", "memory_estimate", "large")}))
    cols = result["tables"][0]["column_info"]
    check("the profile marks category columns", [c["name"] for c in cols if c.get("dtype") == "category"] == cats,
          str(cols))
    check("the profile's reading keeps the column numbers as numbers",
          result["reading"].get("category") == saved.get("category"), str(result["reading"]))
    df = reckon.load("sales.csv")
    check("reckon.load replays the recorded dtypes",
          all(isinstance(df[c].dtype, pd.CategoricalDtype) for c in cats) and df["units"].dtype == np.int32,
          str(df.dtypes))
    # A changed reading is what is replayed: the record, not a new guess.
    saved["category"] = []
    rd.save_reading(path, saved)
    df = reckon.load("sales.csv")
    check("an empty recorded choice means no categories", not any(isinstance(t, pd.CategoricalDtype)
                                                                  for t in df.dtypes), str(df.dtypes))
    pf.profile_file(path)      # back to the profiler's choice
    estimate = result["memory_estimate"]
    actual = int(reckon.load("sales.csv").memory_usage(deep=True).sum())
    check("the memory estimate is within a factor of two of the loaded frame",
          actual / 2 <= estimate <= actual * 2, "estimate %d, frame %d" % (estimate, actual))


def test_dask_switch(d):
    path = os.path.join(d, "sales.csv")
    os.environ["RECKON_WORKSPACE"] = d
    _hooks.WORKSPACE = d
    size = os.path.getsize(path)
    os.environ["RECKON_MEMORY_LIMIT"] = str(size)      # a third of it is far less than the table
    try:
        check("memory_limit() takes RECKON_MEMORY_LIMIT", rd.memory_limit() == size, str(rd.memory_limit()))
        result = pf.profile_file(path)
        check("the profile says dask, large, and the limit it saw",
              result.get("engine") == "dask" and result.get("large") is True
              and result.get("memory_limit") == size and result["tables"][0].get("lazy") is True,
              str({k: result.get(k) for k in ("engine", "large", "memory_limit")}))
        check("the profile's notes say so", any("Dask" in n for n in result.get("notes", ())),
              str(result.get("notes")))
        ddf = reckon.load("sales.csv")
        check("reckon.load returns a lazy Dask DataFrame", reckon.is_lazy(ddf) and ddf.npartitions >= 1,
              type(ddf).__name__)
        p = plain(path)
        g = reckon.compute(ddf.groupby("region")["amount"].sum())
        want = p.groupby("region")["amount"].sum()
        check("its groupby sum, computed, is pandas and equals plain pandas",
              isinstance(g, pd.Series) and np.allclose(g.sort_index().to_numpy(), want.sort_index().to_numpy(),
                                                       rtol=0, atol=1e-6), "%s / %s" % (g, want))
        check("its row count equals pandas'", len(ddf) == len(p), "%d / %d" % (len(ddf), len(p)))
        n = ddf["units"].sum().compute()
        check("integer sums equal", int(n) == int(p["units"].sum()), "%s / %s" % (n, p["units"].sum()))
        check("dates are datetimes in the lazy frame too", str(ddf.dtypes["date"]) == "datetime64[ns]",
              str(ddf.dtypes["date"]))
        codes = reckon.compute(ddf["code"].value_counts())
        check("a category column's values, computed, equal pandas'",
              codes.sort_index().to_dict() == p["code"].astype(str).value_counts().sort_index().to_dict(),
              str(codes.head()))
        s = reckon.compute(ddf["amount"], sample=1000)
        check("reckon.compute(sample=) draws about that many rows", 500 <= len(s) <= 2000, str(len(s)))
        df = reckon.load("sales.csv", engine="pandas")
        check("engine='pandas' overrides", isinstance(df, pd.DataFrame), type(df).__name__)
        check("reckon.compute leaves pandas alone", reckon.compute(df) is df)
    finally:
        os.environ.pop("RECKON_MEMORY_LIMIT", None)
    check("no limit, no Dask", rd.engine_for(path, rd.saved_reading(path) or {}, limit=0) == "pandas")
    # A cell holding a line break: Dask's blocks would cut it.
    quoted = os.path.join(d, "quoted.csv")
    with open(quoted, "w") as f:
        f.write("a,b\n")
        for i in range(3000):
            f.write('%d,"line one\nline two %d"\n' % (i, i))
    os.environ["RECKON_MEMORY_LIMIT"] = "1000"
    try:
        result = pf.profile_file(quoted)
        check("a table with line breaks in cells stays pandas", result.get("engine") == "pandas"
              and isinstance(reckon.load("quoted.csv"), pd.DataFrame) and len(reckon.load("quoted.csv")) == 3000,
              str(result.get("engine")))
    finally:
        os.environ.pop("RECKON_MEMORY_LIMIT", None)


def test_row_count(d):
    path = os.path.join(d, "lines.csv")
    with open(path, "wb") as f:
        f.write(b"a,b\n" + b"1,2\n" * 3000000 + b"3,4")
    size, lines = pf._unpacked_size_and_lines(path, {})
    check("the streamed row count counts a last line without its line break",
          (size, lines) == (os.path.getsize(path), 3000002), str((size, lines)))


def main():
    small_thresholds()
    with tempfile.TemporaryDirectory() as d:
        test_choice_and_chunks(d)
        test_downcast_exact()
        test_record_and_replay(d)
        test_dask_switch(d)
        test_row_count(d)
    print("1..%d" % len(results))
    for i, (name, ok, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        if not ok and detail:
            print("# %s" % detail[:2000].replace("\n", "\n# "))
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
