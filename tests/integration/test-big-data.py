#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-big-data.py — data of any size through reckon-cli, against the real
sandbox and kernel, with the default memory and disk limits (2 GiB of
memory, a 1 GiB workspace disk cap; the cell's time limit raised, as a full
pass over 3 GB takes minutes on two cores): a 3 GB CSV with text columns is profiled (exact row
count, "read in parts") and answers a groupby sum checked against awk's
exact sums; the same with --disk 64M (the input is not the workspace's to
count); a 420 MB CSV loads as pandas, not lazily. The files are written
once into the build folder and kept (tests/lib/bigcsv.py). Speaks TAP."""
import os
import subprocess
import sys
import tempfile

BUILD = os.environ["RECKON_BUILD_ROOT"]
SOURCE = os.environ["RECKON_SOURCE_ROOT"]
sys.path.insert(0, os.path.join(SOURCE, "tests", "lib"))
import bigcsv  # noqa: E402

CLI = os.path.join(BUILD, "src", "cli", "reckon-cli")
DATA = os.path.join(BUILD, "big-data")
results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))
    print(("ok" if cond else "not ok"), len(results), "-", name, flush=True)
    if not cond and detail:
        for line in str(detail).splitlines()[-30:]:
            print("#", line, flush=True)


QUERY = """\
import reckon
df = reckon.load({name!r})
print("ENGINE", type(df).__module__.split(".")[0])
r = reckon.compute(df.groupby("region")["amount"].sum())
for k, v in sorted(r.items()):
    print(f"SUM {{k}} {{v:.2f}}")
"""


def exec_query(path, *extra):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(QUERY.format(name=os.path.basename(path)))
    try:
        p = subprocess.run([CLI, "exec", "-f", path, *extra, f.name], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=1500)
    finally:
        os.unlink(f.name)
    engine = [line.split()[1] for line in p.stdout.splitlines() if line.startswith("ENGINE ")]
    return p, (engine[0] if engine else None), bigcsv.parse_sums(p.stdout)


def main():
    big = os.path.join(DATA, "sales-3g.csv")
    sums, rows = bigcsv.ensure(big, 3 * 10**9)
    print("# %s: %d bytes, %d rows" % (big, os.path.getsize(big), rows), flush=True)

    p = subprocess.run([CLI, "profile", big], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=600)
    check("the 3 GB CSV is profiled", p.returncode == 0, p.stderr)
    check("its profile has the exact row count", f"Table: {rows} rows × 6 columns" in p.stdout, p.stdout[:600])
    check("its profile says it is read in parts (a lazy Dask DataFrame)",
          "lazy Dask DataFrame" in p.stdout, p.stdout)

    p, engine, got = exec_query(big, "--timeout", "1800")
    check("reckon.load of the 3 GB CSV answers under the default memory and disk limits", p.returncode == 0, p.stderr)
    check("it is read lazily, by Dask", engine == "dask", engine)
    check("the groupby sum agrees with awk's exact sums", bigcsv.sums_agree(got, sums), f"{got} != {sums}")

    # The input is not the workspace's: a 64 MiB disk cap does not see it.
    p, engine, got = exec_query(big, "--disk", "64M", "--timeout", "1800")
    check("with --disk 64M the 3 GB input still answers (it never counts against the cap)",
          p.returncode == 0 and bigcsv.sums_agree(got, sums), p.stderr + str(got))

    mid = os.path.join(DATA, "sales-420m.csv")
    sums, rows = bigcsv.ensure(mid, 420 * 10**6)
    p, engine, got = exec_query(mid, "--timeout", "1800")
    check("reckon.load of the 420 MB CSV answers under the default memory and disk limits", p.returncode == 0, p.stderr)
    check("it is an ordinary pandas DataFrame, not lazy", engine == "pandas", engine)
    check("its groupby sum agrees with awk's exact sums", bigcsv.sums_agree(got, sums), f"{got} != {sums}")

    print("1..%d" % len(results))
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
