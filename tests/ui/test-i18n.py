# SPDX-License-Identifier: GPL-3.0-or-later
"""test-i18n.py — the real window in German, through AT-SPI: the app is
started with LANGUAGE=de and LANG=de_DE.UTF-8 and no model server, and the
no-model page, the composer's hint and the main buttons must carry the
translations of po/de.po (read from the catalogue, so a better wording does
not break the test) while their English names are gone. Preferences opens in
German too. Each step saves a screenshot, checked to be non-blank."""
import os
import re
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from reckonui import App, TapSuite, BUILD, SOURCE, key, wait_for  # noqa: E402

t = TapSuite()


def closed_port():
    """A port nothing listens on: bound, then closed again."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def catalogue(path):
    """msgid -> msgstr of the singular, untranslated and fuzzy entries left out."""
    out = {}
    text = open(path, encoding="utf-8").read()
    for block in text.split("\n\n"):
        if "#, fuzzy" in block or "msgid_plural" in block or "msgctxt" in block:
            continue
        m = re.search(r'^msgid ((?:".*"\n?)+)msgstr ((?:".*"\n?)+)', block, re.M)
        if not m:
            continue
        join = lambda s: "".join(re.findall(r'"(.*)"', s)).replace('\\"', '"').replace("\\n", "\n")
        msgid, msgstr = join(m.group(1)), join(m.group(2))
        if msgid and msgstr:
            out[msgid] = msgstr
    return out


def has_locale(name):
    p = subprocess.run(["locale", "-a"], capture_output=True, text=True)
    want = name.lower().replace("utf-8", "utf8")
    return any(l.strip().lower() == want for l in p.stdout.splitlines())


if not has_locale("de_DE.UTF-8"):
    print("1..0 # SKIP the de_DE.UTF-8 locale is not generated (.ci/install-deps does it)", flush=True)
    sys.exit(0)

de = catalogue(os.path.join(SOURCE, "po", "de.po"))
mo = os.path.join(BUILD, "po", "de", "LC_MESSAGES", "reckon.mo")
t.ok(os.path.exists(mo), "the German catalogue is compiled in the build tree", mo)

# English -> German for what the window shows first; the role says where.
EXPECT = [
    ("No Model Server Found", None),                          # the no-model page's title
    ("No model server: add files or use Run Python", None),   # the composer's hint
    ("Send", pyatspi.ROLE_PUSH_BUTTON),
    ("Attach", pyatspi.ROLE_PUSH_BUTTON),
    ("Run Python", pyatspi.ROLE_PUSH_BUTTON),
    ("Check Again", pyatspi.ROLE_PUSH_BUTTON),
]
missing = [en for en, _ in EXPECT if en not in de or de[en] == en]
t.ok(not missing, "po/de.po translates the strings this test looks for", missing)

app = App(settings={"endpoint": f"http://127.0.0.1:{closed_port()}"},
          env={"LANGUAGE": "de", "LANG": "de_DE.UTF-8"})


def shot(name):
    path, colors = app.screenshot(f"i18n-{name}")
    t.ok(colors > 16, f"screenshot {name} is not blank ({colors} colours)", path)
    print(f"# screenshot: {path}", flush=True)


def shown(text, role, timeout):
    if role is None:
        return wait_for(lambda: any(text in s for s in app.texts()), timeout, f"text {text!r} in the window")
    return app.find(text, role, timeout=timeout)


def check(name, fn):
    try:
        fn()
        t.ok(True, name)
    except (TimeoutError, AssertionError, KeyError) as e:
        t.ok(False, name, e)


try:
    app.start(timeout=60)
    t.ok(True, "the window appears on the accessibility bus")

    for en, role in EXPECT:
        if en in de:
            check(f"“{en}” shows as “{de[en]}”", lambda en=en, role=role: shown(de[en], role, 30 if en == EXPECT[0][0] else 10))

    def no_english():
        texts = app.texts()
        left = [en for en, _ in EXPECT if any(en == s for s in texts)]
        assert not left, f"still in English: {left}"
    check("none of these shows in English any more", no_english)
    shot("window-de")

    def preferences():
        key("ctrl+comma")
        wait_for(lambda: any(de["Privacy"] == s for s in app.texts()), 10, f"text {de['Privacy']!r}")
        app.find(de["Allow Model Servers on Other _Computers"].replace("_", ""), timeout=5)
        shot("preferences-de")
        key("Escape")
    check("Preferences opens in German", preferences)
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
t.done()
