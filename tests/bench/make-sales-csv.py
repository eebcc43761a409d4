#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""make-sales-csv.py PATH ROWS [SEED] — a sales export as analysts have them:
date, region, product, amount, units, customer (about 39 bytes a row, so
11 M rows make the 420 MB case of issue #16). Also prints, as JSON on
stdout, the exact groupby('region')['amount'].sum() in cents, computed
while writing, for the checks that read the file back."""

import json
import sys

import numpy as np
import pandas as pd

REGIONS = np.array(["North", "South", "East", "West", "Central", "Islands"])
PRODUCTS = np.array(["P%02d" % i for i in range(1, 41)])
CHUNK = 1000000


def main(path, rows, seed=16):
    rng = np.random.default_rng(seed)
    days = pd.date_range("2019-01-01", "2024-12-31", freq="D").strftime("%Y-%m-%d").to_numpy()
    cents = {str(r): 0 for r in REGIONS}
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("date,region,product,amount,units,customer\n")
        done = 0
        while done < rows:
            n = min(CHUNK, rows - done)
            region = rng.integers(0, len(REGIONS), n)
            amount = rng.integers(1, 100000, n)          # cents
            df = pd.DataFrame({
                "date": days[rng.integers(0, len(days), n)],
                "region": REGIONS[region],
                "product": PRODUCTS[rng.integers(0, len(PRODUCTS), n)],
                "amount": amount / 100.0,
                "units": rng.integers(1, 100, n),
                "customer": np.char.add("C", np.char.zfill(rng.integers(0, 100000, n).astype(str), 6)),
            })
            for i, r in enumerate(REGIONS):
                cents[str(r)] += int(amount[region == i].sum())
            df.to_csv(f, header=False, index=False, float_format="%.2f", lineterminator="\n")
            done += n
    json.dump({"rows": rows, "region_amount_cents": cents}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 16)
