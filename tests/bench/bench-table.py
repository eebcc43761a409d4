# SPDX-License-Identifier: GPL-3.0-or-later
"""Python half of bench-table: builds a 1,000,000 x 10 DataFrame (int, float,
string, datetime, bool), writes it with reckon.table.write and with
DataFrame.to_csv, and prints the timings as JSON.

Usage: bench-table.py OUTDIR RUNS"""

import json
import statistics
import sys
import time

import numpy as np
import pandas as pd

from reckon import table

out, runs = sys.argv[1], int(sys.argv[2])
n = 1_000_000
rng = np.random.default_rng(42)
words = np.array(["alpha", "beta", "gamma", "delta", "épsilon", "zeta", "eta, theta", "iota"],
                 dtype=object)
df = pd.DataFrame({
    "id": np.arange(n, dtype=np.int64),
    "qty": rng.integers(-1_000_000, 1_000_000, n),
    "price": rng.random(n) * 1000,
    "ratio": rng.standard_normal(n),
    "name": words[rng.integers(0, len(words), n)],
    "code": pd.Series(np.arange(n)).map("C{:07d}".format),
    "when": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 10**9, n), unit="s"),
    "day": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 3650, n), unit="D"),
    "flag": rng.random(n) < 0.5,
    "score": np.where(rng.random(n) < 0.1, np.nan, rng.random(n)),
})

rkt = out + "/bench.rkt"
csv = out + "/bench.csv"
write_s, csv_s = [], []
for _ in range(runs):
    t = time.perf_counter()
    info = table.write(df, rkt)
    write_s.append(time.perf_counter() - t)
# to_csv takes seconds a run: fewer runs keep the benchmark under a minute.
for _ in range(max(1, runs - 1)):
    t = time.perf_counter()
    df.to_csv(csv, index=False)
    csv_s.append(time.perf_counter() - t)

print(json.dumps({
    "rkt": rkt, "csv": csv, "rows": n, "columns": df.shape[1],
    "write_s": statistics.median(write_s), "to_csv_s": statistics.median(csv_s),
    "rkt_bytes": info["bytes"],
}))
