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


def ensure(path, size):
    """The CSV at @path, of about @size bytes, written once and kept (with
    its truth beside it, as @path.truth.json) for the tests and benchmarks
    that follow; several processes asking at once wait for one writer.
    Returns (region sums, rows)."""
    import fcntl
    import json
    import os

    os.makedirs(os.path.dirname(path), exist_ok=True)
    truth_path = path + ".truth.json"
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(truth_path) as f:
                truth = json.load(f)
            if truth.get("size") == os.path.getsize(path) and truth.get("asked") == size:
                return truth["sums"], truth["rows"]
        except (OSError, ValueError):
            pass
        write(path, size)
        sums, rows = region_sums(path)
        with open(truth_path + ".tmp", "w") as f:
            json.dump({"asked": size, "size": os.path.getsize(path), "sums": sums, "rows": rows}, f)
        os.replace(truth_path + ".tmp", truth_path)
        return sums, rows


def parse_sums(text):
    """{region: value} from lines 'SUM region value' in @text."""
    out = {}
    for line in text.splitlines():
        parts = line.strip().split()
        if len(parts) == 3 and parts[0] == "SUM":
            out[parts[1]] = float(parts[2])
    return out


def sums_agree(got, want):
    """Whether @got matches the exact sums to a cent per 10^11 (the float
    sums of the engines add in another order than the exact ones)."""
    return set(got) == set(want) and all(abs(got[k] - want[k]) <= max(0.01, abs(want[k]) * 1e-11) for k in want)
