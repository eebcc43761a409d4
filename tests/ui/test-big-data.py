# SPDX-License-Identifier: GPL-3.0-or-later
"""test-big-data.py — a 3 GB CSV with text columns in the real window,
through AT-SPI, with every limit at its default: the file gets a card that
says it is read in parts, with its exact row count; the question goes to
the (scripted) model with a prompt that says the table is a lazy Dask
DataFrame; the code it answers with runs after Run and prints the sum of
amount by region, checked against awk's exact sums. The workspace holds no
copy of the file (it is the same file, an input the sandbox binds
read-only), so the workspace's disk limit never sees it. The file is
written once into the build folder and kept (tests/lib/bigcsv.py)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import bigcsv  # noqa: E402
import pyatspi  # noqa: E402
from reckonui import App, MockServer, TapSuite, RECKON_APP, wait_for  # noqa: E402

t = TapSuite()
BUILD = os.environ["RECKON_BUILD_ROOT"]
BIG = os.path.join(BUILD, "big-data", "sales-3g.csv")
sums, rows = bigcsv.ensure(BIG, 3 * 10**9)
t.ok(True, f"the 3 GB CSV is there ({os.path.getsize(BIG)} bytes, {rows} rows)")

CODE = ("import reckon\n"
        "df = reckon.load('sales-3g.csv')\n"
        "r = reckon.compute(df.groupby('region')['amount'].sum())\n"
        "for k, v in sorted(r.items()):\n"
        "    print(f'SUM {k} {v:.2f}')\n")
script = {
    "api": "openai",
    "models": [{"name": "qwen2.5-coder:7b", "tools": True}],
    "turns": [
        {"text": "I will add up the amounts by region.", "tool_calls": [{"name": "python", "arguments": {"code": CODE}}]},
        {"text": "Those are the totals by region."},
    ],
    "repeat_last": True,
}
server = MockServer(script)
# Memory and disk limits at their defaults; the cell's time limit raised (a
# full pass over 3 GB takes minutes on two cores).
app = App(settings={"endpoint": server.url, "api-kind": "openai", "model": "qwen2.5-coder:7b",
                    "cell-time-limit": 1800})


def shot(name):
    t.shot(app, f"big-data-{name}")


def wait_text(text, timeout=60):
    return app.wait_text(text, timeout)


def check(name, fn):
    return t.check(name, fn)


def workspace_file():
    found = []
    for root, _, files in os.walk(os.path.join(app.home, "cache")):
        found += [os.path.join(root, f) for f in files if f == "sales-3g.csv"]
    return found[0] if found else None


try:
    app.start(timeout=60)
    t.ok(True, "the window appears")
    subprocess.Popen([RECKON_APP, BIG], env=app.env)
    check("the 3 GB file gets a card that says it is read in parts",
          lambda: (wait_text("sales-3g.csv", 60), wait_text("Large file: read in parts", 300)))
    count = f"{rows:,}"
    check(f"the card has the exact row count ({count})",
          lambda: wait_for(lambda: any(count in s or str(rows) in s for s in app.texts()), 60, "the row count"))
    shot("card")

    def same_file():
        ws = wait_for(workspace_file, 10, "the file in the workspace")
        a, b = os.stat(ws), os.stat(BIG)
        if os.geteuid() == 0:
            # As root the workspace is the sandbox user's: root's file is copied.
            assert (a.st_mode & 0o777) == 0o444 and a.st_size == b.st_size, f"{ws}: {oct(a.st_mode)}"
        else:
            assert (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino), f"{ws} is a copy"
    check("the workspace holds the user's file itself (a second name; as root a read-only copy)", same_file)

    app.ask("What is the total amount by region?")
    check("the model is told the table is a lazy Dask DataFrame",
          lambda: wait_for(lambda: any("lazy Dask DataFrame" in str(r.get("body", r)) for r in server.requests()),
                           60, "a request that says so"))
    check("the code is offered to run", lambda: app.click("Run", timeout=60))

    def answered():
        got = wait_for(lambda: (lambda g: g if len(g) == len(sums) else None)(
            bigcsv.parse_sums("\n".join(app.texts()))), 1200, "the sums in the window")
        assert bigcsv.sums_agree(got, sums), f"{got} != {sums}"
    check("the sums by region agree with awk's exact sums, under the default limits", answered)
    check("no limit was reached", lambda: not any("limit" in s and "reached" in s for s in app.texts()))
    shot("answer")
except Exception as e:  # the app died or never appeared: report, do not hang
    t.ok(False, "the flow ran to its end", f"{type(e).__name__}: {e}\n{app.output()}")
finally:
    app.cleanup()
    server.stop()
t.done()
