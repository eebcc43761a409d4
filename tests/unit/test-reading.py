#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-reading.py — the profiler's reading of delimited text (reckon/reading.py)
over hostile and random bytes: it either reads a table or says one sentence,
never raises anything else, and reckon.load's replay gives the profile's
shape. Runs the Python side directly (the sandbox is tested elsewhere).
"""

import os
import random
import resource
import sys
import tempfile

# A regression that makes pandas allocate without end fails here, not on
# the machine running the tests.
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

sys.path.insert(0, os.path.join(os.environ.get("RECKON_SOURCE_ROOT", "."), "sandbox", "kernel"))

from reckon import profile as pf  # noqa: E402
from reckon import reading as rd  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))


def profile_bytes(data, suffix=".csv", options=None):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f" + suffix)
        with open(path, "wb") as f:
            f.write(data)
        os.environ["RECKON_WORKSPACE"] = d
        result = pf.profile_file(path, options)
        loaded = None
        if "reading" in result and result["reading"]["format"] == "csv":
            saved = rd.saved_reading(path)
            loaded = rd.read(path, saved).shape if saved else None
        return result, loaded


def test_hostile():
    cases = {
        "only a quote": b'"',
        "only delimiters": b",,,\n,,,\n",
        "unclosed quote": b'a,b\n1,"never closed\n2,3\n',
        "nul bytes": b"a,b\n\x00\x00,1\n",
        "one huge line": b"x," * 100000,
        "control characters": b"\x1b[31ma,b\n1,2\n",
        "bom only": b"\xef\xbb\xbf",
        "sep line only": b"sep=;\n",
        "comments only": b"# a\n# b\n",
        "metadata line only": b"506,13\n",
        "wide": (",".join("c%d" % i for i in range(5000)) + "\n" + ",".join("1" for _ in range(5000)) + "\n").encode(),
        "ragged": b"a,b\n1,2,3,4,5\n6\n",
        "utf-16 without bom": "a,b\n1,2\n".encode("utf-16-le"),
        "latin-1 late": b"a,b\n" + b"x,1\n" * 70000 + b"\xe9t\xe9,2\n",
        # pandas 1.5's C tokenizer loops on these line ends until memory runs out.
        "newline then return": b"a,b\n1,2\n\r x",
        "mixed line ends": b"a,b\r1,2\n3,4\r\n5,6\r",
        "too many columns": b"x," * 100000,
    }
    for name, data in cases.items():
        try:
            result, loaded = profile_bytes(data)
        except Exception as e:  # noqa: BLE001
            check("hostile: %s" % name, False, "raised %r" % e)
            continue
        ok = ("error" in result and isinstance(result["error"], str)) or "tables" in result or "lines" in result
        if loaded is not None:
            t = result["tables"][0]
            ok = ok and loaded == (t["rows"], t["columns"])
        check("hostile: %s" % name, ok, str(result.get("error") or result.get("tables", [{}])[0].get("rows")))


def test_random(n=600, seed=7):
    rnd = random.Random(seed)
    alphabet = [b",", b";", b"\t", b"|", b" ", b"\n", b"\r\n", b"\r", b'"', b"'", b"#", b"1", b"2.5", b"x",
                b"Jan 1 2000", b"2012/01/01", b"19-Sep-03", b"\xc3\xa9", b"sep=;\n", b"506,13", b"-", b"1960",
                b"1.234,5", b"NA", b"\x1f\x8b"]
    failures = []
    for i in range(n):
        data = b"".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 300)))
        suffix = rnd.choice([".csv", ".tsv", ".txt"])
        try:
            result, loaded = profile_bytes(data, suffix)
        except Exception as e:  # noqa: BLE001
            failures.append("case %d raised %r" % (i, e))
            continue
        err = result.get("error", "")
        if err.startswith("This file could not be read ("):
            failures.append("case %d: %s" % (i, err))
        elif loaded is not None:
            t = result["tables"][0]
            if loaded != (t["rows"], t["columns"]):
                failures.append("case %d: load %r, profile %r" % (i, loaded, (t["rows"], t["columns"])))
    check("random bytes: one sentence or a table, load = profile (%d cases)" % n, not failures,
          "; ".join(failures[:5]))


def test_packed_limits():
    import gzip
    import zipfile

    with tempfile.TemporaryDirectory() as d:
        # Zip member names are only read, never used as paths.
        path = os.path.join(d, "evil.zip")
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("/etc/../../abs.csv", b"a,b\n1,2\n")
        os.environ["RECKON_WORKSPACE"] = d
        result = pf.profile_file(path)
        check("zip with an absolute member name is read in memory", result.get("tables", [{}])[0].get("rows") == 1,
              str(result))
        check("nothing written outside", not os.path.exists("/abs.csv"))
        # A small cap shows the cap is enforced while reading.
        path = os.path.join(d, "big.csv.gz")
        with open(path, "wb") as f:
            f.write(gzip.compress(b"1,2\n" * 300000))
        try:
            with rd.open_unpacked(path, "gzip", limit=100000) as f:
                while f.read(65536):
                    pass
            check("unpacked-size cap", False, "no error")
        except rd.ReadError as e:
            check("unpacked-size cap", "unpacks to more" in str(e), str(e))


def main():
    test_hostile()
    test_random()
    test_packed_limits()
    print("1..%d" % len(results))
    for i, (name, ok, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        if not ok and detail:
            print("# %s" % detail[:2000].replace("\n", "\n# "))
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
