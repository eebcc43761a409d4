# SPDX-License-Identifier: GPL-3.0-or-later
"""bigcsv.py — big sales CSVs for the data-size tests and benchmarks, and
the truth they are checked against, computed without Reckon.

    write(path, size)        a CSV of about @size bytes: date, region, product,
                             amount, units, customer (three text columns)
    region_sums(path)        {region: sum of amount}, exact (in cents), by
                             awk streaming through the file once

The rows are a few blocks of random rows written over and over (pandas
writes 100,000 rows in seconds; billions would take hours), so a 3 GB file
takes about as long as the disk needs to take it.
"""

import subprocess

import numpy as np
import pandas as pd

HEADER = b"date,region,product,amount,units,customer\n"
REGIONS = ["North", "South", "East", "West", "Central"]
BLOCK_ROWS = 100_000
BLOCKS = 4


def _block(seed):
    rng = np.random.default_rng(seed)
    days = pd.date_range("2020-01-01", "2025-12-31").strftime("%Y-%m-%d").to_numpy()
    products = np.array(["Product %02d" % i for i in range(40)])
    df = pd.DataFrame({
        "date": days[rng.integers(0, len(days), BLOCK_ROWS)],
        "region": np.array(REGIONS)[rng.integers(0, len(REGIONS), BLOCK_ROWS)],
        "product": products[rng.integers(0, len(products), BLOCK_ROWS)],
        "amount": rng.integers(100, 500000, BLOCK_ROWS) / 100.0,
        "units": rng.integers(1, 20, BLOCK_ROWS),
        "customer": np.char.add("C", np.char.zfill(rng.integers(0, 200000, BLOCK_ROWS).astype(str), 6)),
    })
    return df.to_csv(index=False, header=False, float_format="%.2f").encode()


def write(path, size):
    """Writes about @size bytes (whole rows); returns the number of rows."""
    blocks = [_block(seed) for seed in range(BLOCKS)]
    rows = 0
    with open(path, "wb") as f:
        f.write(HEADER)
        done = len(HEADER)
        i = 0
        while done < size:
            b = blocks[i % BLOCKS]
            if done + len(b) > size:
                # The last block cut at a row's end.
                b = b[: b.rfind(b"\n", 0, size - done) + 1]
                if not b:
                    break
            f.write(b)
            done += len(b)
            rows += b.count(b"\n")
            i += 1
    return rows


def region_sums(path):
    """{region: sum of amount} over the whole file, in cents added as whole
    numbers (exact), by awk, which knows nothing of Reckon or pandas."""
    prog = 'NR > 1 { a = $4; sub(/\\./, "", a); s[$2] += a; n++ } END { for (k in s) printf "%s %.0f\\n", k, s[k]; printf "#rows %d\\n", n }'
    out = subprocess.run(["awk", "-F,", prog, path], check=True, stdout=subprocess.PIPE).stdout.decode()
    sums, rows = {}, None
    for line in out.splitlines():
        key, value = line.rsplit(" ", 1)
        if key == "#rows":
            rows = int(value)
        else:
            sums[key] = int(value) / 100
    return sums, rows
