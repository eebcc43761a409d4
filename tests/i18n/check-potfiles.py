#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-potfiles.py — every source file with translatable strings is listed
in po/POTFILES.in, every listed file exists, and xgettext can read them all.
Speaks TAP."""
import os
import re
import subprocess
import sys
import tempfile

root = os.environ.get("RECKON_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
potfiles = os.path.join(root, "po", "POTFILES.in")
listed = [l.strip() for l in open(potfiles) if l.strip() and not l.startswith("#")]
marked = []
for top in ("src", "sandbox"):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        for name in files:
            if name.endswith((".c", ".h")):
                path = os.path.join(dirpath, name)
                text = open(path, encoding="utf-8", errors="replace").read()
                if re.search(r'\b(N?_|g_dngettext|ngettext)\s*\(\s*"', text):
                    marked.append(os.path.relpath(path, root))
# Templates, the desktop file, the metainfo and the schema carry strings too.
for top in ("ui", "data"):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        for name in files:
            path = os.path.join(dirpath, name)
            if name.endswith(".ui"):
                if 'translatable="yes"' in open(path, encoding="utf-8", errors="replace").read():
                    marked.append(os.path.relpath(path, root))
            elif name.endswith((".desktop.in", ".metainfo.xml.in", ".gschema.xml")):
                marked.append(os.path.relpath(path, root))

tests = []
missing = sorted(set(marked) - set(listed))
tests.append(("every file with translatable strings is in POTFILES.in", not missing, missing))
absent = [p for p in listed if not os.path.exists(os.path.join(root, p))]
tests.append(("every file in POTFILES.in exists", not absent, absent))
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "reckon.pot")
    p = subprocess.run(["xgettext", "--from-code=UTF-8", "--keyword=_", "--keyword=N_",
                        "--keyword=g_dngettext:2,3", "-o", out, "-D", root] + listed,
                       capture_output=True, text=True)
    tests.append(("xgettext extracts the catalogue", p.returncode == 0 and os.path.exists(out), p.stderr))
    if os.path.exists(out):
        n = open(out, encoding="utf-8").read().count("\nmsgid ") - 1
        tests.append((f"the catalogue holds strings ({n})", n > 50, n))

print(f"1..{len(tests)}")
for i, (name, ok, detail) in enumerate(tests, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok:
        print(f"# {detail}")
