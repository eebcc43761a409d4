#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench-lean-load.py — issue #16's 420 MB case, every peer in the same run,
all inside reckon-sandbox: a generated sales export (11 M rows, date,
region, product, amount, units, customer; RECKON_BENCH_ROWS to change)
is profiled (against `wc -l` on the host), then its groupby('region')
['amount'].sum() is answered by

  reckon.load, default 2 GiB memory limit (must answer, as pandas);
  plain pd.read_csv under 8 GiB (its peak memory is the yardstick);
  plain pd.read_csv under the default 2 GiB (issue #16: it fails);
  reckon.load(engine="dask") under 2 GiB (the lazy path, same answer).

Each answer is checked to the cent against the sums the generator
computed while writing. Targets printed, never asserted on time: peak RSS
of reckon.load <= 0.4 x plain read_csv's; profile <= 3 x wc -l.
"""

import json
import os
import subprocess
import sys
import time

PEAK_TARGET = 0.4
PROFILE_TARGET = 3.0

PEER = r"""
import json, resource, sys, time
sys.path.insert(0, "/opt/reckon/kernel")
how = sys.argv[1]
t0, c0 = time.perf_counter(), time.process_time()
try:
    if how == "plain":
        import pandas as pd
        df = pd.read_csv("/workspace/sales.csv")
    else:
        import reckon
        from reckon import _hooks
        _hooks.WORKSPACE = "/workspace"
        df = reckon.load("sales.csv", engine=None if how == "reckon" else "dask")
    kind = type(df).__module__.split(".")[0]
    g = df.groupby("region")["amount"].sum()
    g = g.compute() if hasattr(g, "compute") else g
    sums = {str(k): int(round(v * 100)) for k, v in g.items()}
    err = None
except MemoryError as e:
    kind, sums, err = None, None, "MemoryError"
except Exception as e:
    kind, sums, err = None, None, "%s: %s" % (type(e).__name__, str(e)[:200])
print(json.dumps({"kind": kind, "sums": sums, "error": err, "wall": time.perf_counter() - t0,
                  "cpu": time.process_time() - c0,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main():
    sandbox = os.environ.get("RECKON_SANDBOX")
    kernel = os.environ.get("RECKON_KERNEL_DIR")
    source = os.environ.get("RECKON_SOURCE_ROOT", ".")
    build = os.environ.get("RECKON_BUILD_ROOT", ".")
    if not sandbox or not os.access(sandbox, os.X_OK) or not kernel:
        print("bench-lean-load: skipped, reckon-sandbox is not built (RECKON_SANDBOX)")
        return 77
    rows = int(os.environ.get("RECKON_BENCH_ROWS", "11000000"))
    ws = os.path.join(build, "bench-lean-ws")
    os.makedirs(ws, exist_ok=True)
    os.chmod(ws, 0o755)
    csv = os.path.join(ws, "sales.csv")
    expected_path = os.path.join(ws, "sales.json")
    expected = None
    if os.path.exists(expected_path):
        with open(expected_path) as f:
            expected = json.load(f)
    if expected is None or expected.get("rows") != rows or not os.path.exists(csv):
        print("bench-lean-load: generating %d rows (once)" % rows, flush=True)
        out = subprocess.run(["/usr/bin/python3", os.path.join(source, "tests", "bench", "make-sales-csv.py"),
                              csv, str(rows)], stdout=subprocess.PIPE, check=True).stdout
        expected = json.loads(out)
        with open(expected_path, "w") as f:
            json.dump(expected, f)
    # Readings from an earlier run would skip the profiler's work below.
    subprocess.run(["rm", "-rf", os.path.join(ws, ".reckon")], check=False)

    def in_sandbox(args, memory=2 << 30, timeout=1800):
        cmd = [sandbox, "--workspace", ws, "--ro-bind", kernel, "/opt/reckon/kernel", "--memory", str(memory),
               "--timeout", str(timeout), "--max-procs", "32", "--", "/usr/bin/python3", "-I", "-B"] + args
        t0 = time.monotonic()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        return r, time.monotonic() - t0

    size = os.path.getsize(csv)
    t0 = time.monotonic()
    wc = subprocess.run(["wc", "-l", csv], stdout=subprocess.PIPE, check=True)
    wc_s = time.monotonic() - t0
    r, profile_s = in_sandbox(["/opt/reckon/kernel/reckon_profile.py", "/workspace/sales.csv"])
    if r.returncode != 0:
        print("bench-lean-load: the profiler failed: %s" % r.stderr.decode()[-500:])
        return 1
    doc = json.loads(r.stdout)["files"][0]
    t = doc.get("tables", [{}])[0]
    print("bench-lean-load: %.0f MB, %d rows; all peers inside reckon-sandbox, one after the other"
          % (size / 1e6, rows))
    print("  profile: %.2f s wall (sandbox start included), wc -l: %.2f s -> ratio %.2f (target <= %.1f)"
          % (profile_s, wc_s, profile_s / max(wc_s, 1e-3), PROFILE_TARGET))
    print("  profile says: %s rows (wc -l %s), engine %s, about %d MiB in memory"
          % (t.get("rows"), wc.stdout.split()[0].decode(), doc.get("engine"), doc.get("memory_estimate", 0) >> 20))

    want = expected["region_amount_cents"]
    results = {}
    failed = False
    for name, how, memory in (("reckon.load, 2 GiB", "reckon", 2 << 30),
                              ("plain read_csv, 8 GiB", "plain", 8 << 30),
                              ("plain read_csv, 2 GiB", "plain", 2 << 30),
                              ("reckon.load dask, 2 GiB", "dask", 2 << 30)):
        r, wall = in_sandbox(["-c", PEER, how], memory)
        try:
            res = json.loads(r.stdout.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            res = {"kind": None, "sums": None, "error": "exit %d: %s" % (r.returncode, r.stderr.decode()[-200:]),
                   "wall": wall, "cpu": 0, "peak_mib": 0}
        results[name] = res
        right = res["sums"] == want
        print("  %-26s %-7s %7.1f s wall %7.1f s CPU %7.0f MiB peak  %s"
              % (name, res["kind"] or "-", res["wall"], res["cpu"], res["peak_mib"],
                 "answer right to the cent" if right else "no answer: %s" % res["error"] if res["sums"] is None
                 else "WRONG answer"))
        if name.startswith("reckon") and not right:
            failed = True
    lean, plain = results["reckon.load, 2 GiB"], results["plain read_csv, 8 GiB"]
    if lean["peak_mib"] and plain["peak_mib"]:
        ratio = lean["peak_mib"] / plain["peak_mib"]
        print("  peak RSS reckon.load / plain read_csv: %.2f (target <= %.1f: %s)"
              % (ratio, PEAK_TARGET, "met" if ratio <= PEAK_TARGET else "NOT met"))
        print("  rows/s: reckon.load %.0f, plain read_csv %.0f (wall, including the groupby)"
              % (rows / lean["wall"], rows / plain["wall"]))
    if lean["kind"] != "pandas":
        print("  reckon.load did not give pandas for the 420 MB case")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
