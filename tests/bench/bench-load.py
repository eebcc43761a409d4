# SPDX-License-Identifier: GPL-3.0-or-later
"""bench-load.py — profile plus reckon.load of a 100 MB CSV against pandas
read_csv with the right arguments (the date column parsed), all inside
reckon-sandbox, in the same run, the two alternating. Target: reckon.load no
slower than read_csv itself (ratio of median CPU times <= 1.05, the noise
of a shared machine; wall times are printed too).
"""

import json
import os
import statistics
import subprocess
import sys
import time

RUNS = 3
TARGET = 1.05


def main():
    sandbox = os.environ.get("RECKON_SANDBOX")
    kernel = os.environ.get("RECKON_KERNEL_DIR")
    source = os.environ.get("RECKON_SOURCE_ROOT", ".")
    build = os.environ.get("RECKON_BUILD_ROOT", ".")
    if not sandbox or not os.access(sandbox, os.X_OK) or not kernel:
        print("bench-load: skipped, reckon-sandbox is not built (RECKON_SANDBOX)")
        return 77
    ws = os.path.join(build, "bench-load-ws")
    os.makedirs(ws, exist_ok=True)
    os.chmod(ws, 0o755)  # reckon-sandbox as root opens it as its owner
    csv = os.path.join(ws, "bench.csv")
    if not os.path.exists(csv) or os.path.getsize(csv) < 100 * 1000 * 1000:
        print("bench-load: generating %s (once)" % csv, flush=True)
        subprocess.run(["/usr/bin/python3", os.path.join(source, "tests", "integration", "make-import-fixtures.py"),
                        csv, "bench-csv", "100"], check=True)

    def in_sandbox(args, timeout=600):
        cmd = [sandbox, "--workspace", ws, "--ro-bind", kernel, "/opt/reckon/kernel", "--memory", str(4 << 30),
               "--timeout", str(timeout), "--max-procs", "16", "--", "/usr/bin/python3", "-I", "-B"] + args
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)

    # 1. The profile, as rk_profile_files runs it; it keeps the reading.
    profile_s = []
    for _ in range(RUNS):
        t0 = time.monotonic()
        r = in_sandbox(["/opt/reckon/kernel/reckon_profile.py", "/workspace/bench.csv"])
        profile_s.append(time.monotonic() - t0)
        if r.returncode != 0:
            print("bench-load: the profiler failed: %s" % r.stderr.decode()[-500:])
            return 1
    doc = json.loads(r.stdout)["files"][0]
    if "error" in doc:
        print("bench-load: the profile is an error: %s" % doc["error"])
        return 1
    reading = doc["reading"]
    dates = [doc["tables"][0]["column_info"][d["column"]]["name"] for d in reading.get("dates", [])]

    # 2. reckon.load and read_csv, alternately, in one sandboxed interpreter.
    code = r"""
import json, sys, time
sys.path.insert(0, "/opt/reckon/kernel")
import pandas as pd
import reckon
from reckon import _hooks
_hooks.WORKSPACE = "/workspace"
dates = %r
out = {"load": [], "read_csv": [], "load_cpu": [], "read_csv_cpu": []}
for i in range(%d):
    for what in ("load", "read_csv") if i %% 2 == 0 else ("read_csv", "load"):
        t0, c0 = time.perf_counter(), time.process_time()
        if what == "load":
            a = reckon.load("bench.csv")
        else:
            b = pd.read_csv("/workspace/bench.csv", parse_dates=dates)
        out[what].append(time.perf_counter() - t0)
        out[what + "_cpu"].append(time.process_time() - c0)
# reckon.load's dtypes are leaner (category, int32): the values must be the same.
for c in a.columns:
    if str(a[c].dtype) == "category":
        a[c] = a[c].astype(object)
    elif str(a[c].dtype) == "int32":
        a[c] = a[c].astype("int64")
out["same"] = bool(a.equals(b))
out["shape"] = list(a.shape)
out["dtypes"] = [str(t) for t in a.dtypes]
print(json.dumps(out))
""" % (dates, RUNS)
    r = in_sandbox(["-c", code])
    if r.returncode != 0:
        print("bench-load: the load run failed: %s" % r.stderr.decode()[-800:])
        return 1
    res = json.loads(r.stdout)
    med = {k: statistics.median(v) for k, v in res.items() if isinstance(v, list) and v and isinstance(v[0], float)}
    size = os.path.getsize(csv) / 1e6
    ratio = med["load"] / med["read_csv"]
    ratio_cpu = med["load_cpu"] / med["read_csv_cpu"]
    print("bench-load: %.1f MB CSV, %d rows x %d columns, medians of %d runs, all inside reckon-sandbox"
          % (size, res["shape"][0], res["shape"][1], RUNS))
    print("  dtypes: %s" % ", ".join(res["dtypes"]))
    print("  same DataFrame from both: %s" % ("yes" if res["same"] else "NO"))
    print("                                          wall      CPU")
    print("  profile (reckon_profile.py in sandbox): %6.2f s   (whole run, incl. start)" % statistics.median(profile_s))
    print("  reckon.load('bench.csv'):               %6.2f s  %6.2f s" % (med["load"], med["load_cpu"]))
    print("  pd.read_csv(..., parse_dates=%r):  %6.2f s  %6.2f s" % (dates, med["read_csv"], med["read_csv_cpu"]))
    print("  ratio reckon.load / read_csv:           %6.2f    %6.2f" % (ratio, ratio_cpu))
    print("  ratio (profile + reckon.load) / read_csv: %4.2f" % ((statistics.median(profile_s) + med["load"])
                                                              / med["read_csv"]))
    # CPU time is the judge: on a shared machine wall time mostly measures
    # the neighbours (both are printed).
    print("  target: CPU ratio <= %.2f (no slower than read_csv): %s"
          % (TARGET, "met" if ratio_cpu <= TARGET else "NOT met"))
    return 0 if res["same"] else 1


if __name__ == "__main__":
    sys.exit(main())
