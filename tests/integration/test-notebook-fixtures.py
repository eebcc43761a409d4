#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-notebook-fixtures.py — the exported notebook's stand-in for `reckon`
reads every import fixture (make-import-fixtures.py) into the same DataFrames
as Reckon's reckon.load: each file is profiled by sandbox/kernel/reckon
(as the sandbox does, here on trusted generated files), its profile goes into
a saved transcript as an attachment entry, `reckon-cli export --notebook`
writes the notebook, and its prelude's reckon.load is compared with
reading.read on the same record: the same sheets, the same text
(DataFrame.to_string) and the same dtypes. Files without a record (PDF,
text, mixed line ends, packed JSON) are left to the guess, not compared.

TAP on stdout; a missing module is a skip."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings


def main():
    source = os.environ.get("RECKON_SOURCE_ROOT")
    build = os.environ.get("RECKON_BUILD_ROOT")
    cli = os.path.join(build or "", "src", "cli", "reckon-cli")
    if source is None or build is None or not os.access(cli, os.X_OK):
        print("1..0 # SKIP reckon-cli is not built or RECKON_SOURCE_ROOT is unset: run through meson test")
        return 0
    try:
        import pandas as pd  # noqa: F401
        import openpyxl  # noqa: F401
        import odf  # noqa: F401
    except ImportError as e:
        print("1..0 # SKIP %s (python3-pandas, python3-openpyxl, python3-odf)" % e)
        return 0

    work = tempfile.mkdtemp(prefix="rk-nb-fixtures-")
    try:
        return run(source, cli, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(source, cli, work):
    fx = os.path.join(work, "files")
    subprocess.run(["/usr/bin/python3", os.path.join(source, "tests", "integration", "make-import-fixtures.py"), fx],
                   check=True)
    # The profiler keeps each reading beside the file, as in a workspace.
    os.environ["RECKON_WORKSPACE"] = fx
    sys.path.insert(0, os.path.join(source, "sandbox", "kernel"))
    from reckon import profile, reading

    warnings.simplefilter("ignore")
    # A table big enough for reckon.load's dtype choice (issue #16: text
    # with few values as category, integers as int32), recorded in its
    # reading: the notebook must replay that choice too.
    with open(os.path.join(fx, "lean.csv"), "w", encoding="utf-8") as out:
        out.write("region,units,customer,id\n")
        for i in range(3000):
            out.write("%s,%d,C%03d,r%d\n" % (("North", "South", "East")[i % 3], i % 97, i % 400, i))
    names = sorted(f for f in os.listdir(fx) if os.path.isfile(os.path.join(fx, f)))
    entries = []
    for f in names:
        reading.LEAN_ABOVE = 1000 if f == "lean.csv" else 16 << 20
        res = profile.profile_file(os.path.join(fx, f))
        if "reading" in res:
            entries.append({"id": len(entries) + 1, "kind": "attachment", "time": 1, "name": f, "title": f,
                            "text": "", "detail": json.dumps(res)})
    n = len(entries)
    entries += [{"id": n + 1, "kind": "code", "time": 1, "cell": "c1", "text": "df = reckon.load('x')\n"},
                {"id": n + 2, "kind": "approval", "time": 1, "cell": "c1", "decision": "approved"}]
    transcript = os.path.join(work, "conversation.json")
    with open(transcript, "w", encoding="utf-8") as out:
        json.dump({"format": "reckon-transcript", "version": 2, "next_id": n + 3, "entries": entries}, out)
    nb_path = os.path.join(work, "conversation.ipynb")
    with open(nb_path, "w", encoding="utf-8") as out:
        subprocess.run([cli, "export", "--notebook", transcript], stdout=out, check=True)
    with open(nb_path, encoding="utf-8") as f:
        prelude = json.load(f)["cells"][0]["source"]

    # The stand-in, as it runs outside Reckon (here `reckon` imports, so
    # take the except branch's body).
    head = "try:\n    import reckon\nexcept ImportError:\n"
    assert head in prelude, "the prelude does not start with try: import reckon"
    ns = {"display": print}
    os.chdir(fx)
    exec(compile(prelude.replace(head, "if True:\n"), "rk-prelude", "exec"), ns)
    recorded = ns["_reckon_readings"]

    compared = [f for f in names if f in recorded]
    print("1..%d" % (len(compared) + 1))
    failed = 0
    for i, f in enumerate(compared, 1):
        shown = f.replace("\\", "\\\\").replace("\n", "\\n")  # one TAP line
        want = reading.read(f, reading.saved_reading(os.path.join(fx, f)))
        try:
            got = ns["reckon"].load(f)
        except Exception as e:  # noqa: BLE001 - reported as the test's failure
            print("not ok %d - %s: the stand-in fails: %s" % (i, shown, type(e).__name__))
            for line in str(e).splitlines():
                print("# " + line)
            failed += 1
            continue
        a = want if isinstance(want, dict) else {None: want}
        b = got if isinstance(got, dict) else {None: got}
        why = None
        if list(a) != list(b):
            why = "sheets %r, the stand-in %r" % (list(a), list(b))
        for k in a:
            if why is None and a[k].to_string() != b[k].to_string():
                why = "sheet %r reads\n%s\nthe stand-in\n%s" % (k, a[k].head(8), b[k].head(8))
            elif why is None and list(a[k].dtypes.astype(str)) != list(b[k].dtypes.astype(str)):
                why = "sheet %r types %s, the stand-in %s" % (k, list(a[k].dtypes.astype(str)),
                                                              list(b[k].dtypes.astype(str)))
        if why:
            print("not ok %d - %s" % (i, shown))
            for line in why.splitlines():
                print("# " + line)
            failed += 1
        elif f == "lean.csv" and list(b[None].dtypes.astype(str)) != ["category", "int32", "category", "object"]:
            print("not ok %d - %s: the dtype choice is not replayed: %s" % (i, shown,
                                                                          list(b[None].dtypes.astype(str))))
            failed += 1
        else:
            print("ok %d - %s reads the same (%s)" % (i, shown, ", ".join(
                "%dx%d" % v.shape for v in b.values())))
    # The awkward ones must be among those compared, not left to the guess.
    must = {"latin1.csv", "semicolon.csv", "excel-sep.csv", "titled.xlsx", "book.xlsx", "sheet.ods",
            "packed.csv.gz", "one.zip", "ragged.csv", "noheader.csv", "records.json", "lean.csv"}
    missing = sorted(must - set(compared))
    if missing:
        print("not ok %d - no reading recorded for %s" % (len(compared) + 1, ", ".join(missing)))
        failed += 1
    else:
        print("ok %d - the awkward files all have their reading in the notebook" % (len(compared) + 1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
