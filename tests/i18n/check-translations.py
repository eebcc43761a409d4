#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-translations.py — every catalogue in po/LINGUAS is complete for the
CURRENT strings, not only for the template it was last merged with.

A fresh template is extracted from po/POTFILES.in into a temporary folder
(with the same xgettext arguments as meson's `reckon-pot`, the glib preset),
each catalogue is merged with it there (the source tree is not touched), and
the merged catalogue must pass `msgfmt --check` and have no untranslated and
no fuzzy message. The messages that fail are printed, so a new English string
without a translation is caught and named. Speaks TAP."""
import os
import shutil
import subprocess
import sys
import tempfile

root = os.environ.get("RECKON_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
po_dir = os.path.join(root, "po")

# meson's i18n.gettext(preset: 'glib') arguments.
XGETTEXT_ARGS = [
    "--from-code=UTF-8", "--add-comments",
    "--keyword=_", "--keyword=N_", "--keyword=C_:1c,2", "--keyword=NC_:1c,2",
    "--keyword=g_dcgettext:2", "--keyword=g_dngettext:2,3", "--keyword=g_dpgettext2:2c,3",
    "--flag=N_:1:pass-c-format", "--flag=C_:2:pass-c-format", "--flag=NC_:2:pass-c-format",
    "--flag=g_dngettext:2:pass-c-format", "--flag=g_strdup_printf:1:c-format",
    "--flag=g_string_printf:2:c-format", "--flag=g_string_append_printf:2:c-format",
    "--flag=g_error_new:3:c-format", "--flag=g_set_error:4:c-format",
    "--flag=g_markup_printf_escaped:1:c-format", "--flag=g_log:3:c-format",
    "--flag=g_print:1:c-format", "--flag=g_printerr:1:c-format", "--flag=g_printf:1:c-format",
    "--flag=g_fprintf:2:c-format", "--flag=g_sprintf:2:c-format", "--flag=g_snprintf:3:c-format",
]

results = []


def check(name, ok, detail=""):
    results.append((name, ok, detail))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def msgids(po, flag):
    """The msgids of the entries msgattrib selects with FLAG, one a line."""
    p = run(["msgattrib", flag, "--no-obsolete", "--no-wrap", po])
    ids = []
    for block in p.stdout.split("\n\n"):
        text = ""
        active = False
        for line in block.split("\n"):
            if line.startswith("msgid "):
                active = True
                text = line[len("msgid "):].strip('"')
            elif line.startswith('"') and active:
                text += line.strip('"')
            elif line.startswith(("msgstr", "msgid_plural", "msgctxt")):
                active = False
        if text:
            ids.append(text)
    return ids


for tool in ("xgettext", "msgmerge", "msgfmt", "msgattrib"):
    if shutil.which(tool) is None:
        print(f"1..0 # SKIP {tool} is not installed (Debian package gettext)")
        sys.exit(0)

linguas = []
for line in open(os.path.join(po_dir, "LINGUAS"), encoding="utf-8"):
    linguas += [w for w in line.split("#")[0].split() if w]
check(f"po/LINGUAS lists catalogues ({' '.join(linguas)})", bool(linguas))

listed = [l.strip() for l in open(os.path.join(po_dir, "POTFILES.in"), encoding="utf-8")
          if l.strip() and not l.startswith("#")]

with tempfile.TemporaryDirectory(prefix="rk-i18n-") as tmp:
    pot = os.path.join(tmp, "reckon.pot")
    p = run(["xgettext", *XGETTEXT_ARGS, "--package-name=reckon", "-D", root, "-o", pot] + listed)
    extracted = p.returncode == 0 and os.path.exists(pot)
    check("a fresh template is extracted from po/POTFILES.in", extracted, p.stderr)
    n_strings = 0
    if extracted:
        n_strings = open(pot, encoding="utf-8").read().count("\nmsgid ") - 1
    for lang in linguas:
        po = os.path.join(po_dir, lang + ".po")
        if not os.path.exists(po):
            check(f"{lang}: po/{lang}.po exists", False, po)
            continue
        p = run(["msgfmt", "--check", "--check-format", "-o", os.devnull, po])
        check(f"{lang}: msgfmt --check passes on po/{lang}.po", p.returncode == 0, p.stderr)
        if not extracted:
            continue
        merged = os.path.join(tmp, lang + ".po")
        p = run(["msgmerge", "--quiet", "--no-fuzzy-matching", "-o", merged, po, pot])
        if not p.returncode == 0:
            check(f"{lang}: merges with the fresh template", False, p.stderr)
            continue
        p = run(["msgfmt", "--check", "--check-format", "--statistics", "-o", os.devnull, merged])
        check(f"{lang}: msgfmt --check passes against the current strings", p.returncode == 0, p.stderr)
        untranslated = msgids(merged, "--untranslated")
        fuzzy = msgids(merged, "--only-fuzzy")
        check(f"{lang}: no untranslated message among the {n_strings} current strings "
              f"({len(untranslated)} untranslated)", not untranslated,
              "\n".join(f"untranslated: {m}" for m in untranslated))
        check(f"{lang}: no fuzzy message ({len(fuzzy)} fuzzy)", not fuzzy,
              "\n".join(f"fuzzy: {m}" for m in fuzzy))

print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok and detail:
        for line in str(detail).splitlines():
            print(f"# {line}")
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
