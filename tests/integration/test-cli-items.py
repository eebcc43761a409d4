#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-cli-items.py — each command-line item of "the command line, as a new
user found it" (issue 9) and the terminal hygiene of issue 10: the exit
status, the stream (stdout or stderr) and the wording, against the real
binary, the real sandbox and the scripted model server. Speaks TAP."""
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BUILD = os.environ["RECKON_BUILD_ROOT"]
CLI = os.path.join(BUILD, "src", "cli", "reckon-cli")
MOCK = os.path.join(BUILD, "tests", "lib", "reckon-mock-server")

results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


class Server:
    def __init__(self, script, tmp):
        fd, self.script_path = tempfile.mkstemp(suffix=".json", dir=tmp)
        self.record = self.script_path + ".record"
        with os.fdopen(fd, "w") as f:
            json.dump(script, f)
        self.proc = subprocess.Popen([MOCK, self.script_path, "--record", self.record],
                                     stdout=subprocess.PIPE, text=True)
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline())}"

    def requests(self, chat_only=True):
        if not os.path.exists(self.record):
            return []
        out = [json.loads(line) for line in open(self.record)]
        if chat_only:
            out = [r for r in out if r["path"] in ("/v1/chat/completions", "/api/chat")]
        return out

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(10)


def run(args, stdin="", env=None, timeout=120):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([CLI] + args, input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=full_env)


def ask(server, args, stdin="", env=None):
    return run(["ask", "--endpoint", server.url, "--idle-timeout", "5"] + args, stdin=stdin, env=env)


def one_line(text):
    return text.strip() != "" and text.strip().count("\n") == 0


def json_events(stdout):
    events = []
    for line in stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            return None
    return events


# -- the sandbox could not be started ------------------------------------------

def sandbox_missing(tmp):
    env = {"RECKON_SANDBOX": "/nonexistent/bin/reckon-sandbox"}
    code = os.path.join(tmp, "hello.py")
    with open(code, "w") as f:
        f.write("print(6 * 7)\n")
    p = run(["exec", code], env=env)
    check("sandbox missing: exec exits 10", p.returncode == 10, (p.returncode, p.stderr))
    check("sandbox missing: exec says what is missing and where it looked, on stderr",
          "could not be started" in p.stderr and "reckon-sandbox" in p.stderr
          and "/nonexistent/bin/reckon-sandbox" in p.stderr and p.stdout == "", (p.stdout, p.stderr))
    check("sandbox missing: one sentence", one_line(p.stderr), p.stderr)

    data = os.path.join(tmp, "small.csv")
    with open(data, "w") as f:
        f.write("a,b\n1,2\n")
    p = run(["profile", data], env=env)
    check("sandbox missing: profile exits 10 and names the path",
          p.returncode == 10 and "/nonexistent/bin/reckon-sandbox" in p.stderr, (p.returncode, p.stderr))

    server = Server({"api": "openai", "models": ["m"], "turns": [{"text": "never"}]}, tmp)
    p = ask(server, ["--json", "--model", "m", "What is in it?"], env=env)
    server.stop()
    events = json_events(p.stdout)
    check("sandbox missing: ask --json exits 10 with a JSON failure on stdout",
          p.returncode == 10 and events and events[-1]["event"] == "failed" and events[-1]["exit"] == 10
          and "/nonexistent/bin/reckon-sandbox" in events[-1]["text"], (p.returncode, p.stdout, p.stderr))
    check("sandbox missing: nothing was sent to the model", server.requests() == [], server.requests())


# -- messages name --endpoint and --allow-remote, not Preferences -------------

def cli_hints(tmp):
    remote = "http://203.0.113.7:11434"
    for cmd in (["ask", "--endpoint", remote, "Hello?"], ["models", "--endpoint", remote]):
        p = run(cmd)
        check(f"remote ({cmd[0]}): exit 3", p.returncode == 3, (p.returncode, p.stderr))
        check(f"remote ({cmd[0]}): names --allow-remote, not Preferences",
              "--allow-remote" in p.stderr and "Preferences" not in p.stderr and one_line(p.stderr), p.stderr)

    server = Server({"api": "openai", "models": ["m"],
                     "turns": [{"fault": "http", "status": 401, "message": "invalid api key"}]}, tmp)
    p = ask(server, ["--api", "openai", "--model", "m", "Hello?"])
    server.stop()
    check("HTTP 401: exit 7", p.returncode == 7, (p.returncode, p.stderr))
    check("HTTP 401: says where the key goes on the command line, not Preferences",
          "RECKON_API_KEY" in p.stderr and "Preferences" not in p.stderr and "401" in p.stderr, p.stderr)

    # No --endpoint and (normally) nothing listening on the default ports.
    p = run(["models", "--timeout", "5"])
    if p.returncode == 3:
        check("nothing answers: names --endpoint, not Preferences",
              "--endpoint" in p.stderr and "Preferences" not in p.stderr, p.stderr)

    server = Server({"api": "openai", "models": ["m"], "turns": [{"text": "x"}]}, tmp)
    p = ask(server, ["--api", "ollama", "--model", "m", "Hello?"])
    server.stop()
    check("--api ollama against an OpenAI-style server: exit 7 and suggests --api auto",
          p.returncode == 7 and "--api auto" in p.stderr and "404" in p.stderr, (p.returncode, p.stderr))


# -- the model, the question, --out, --json: checked before anything runs -----

def checked_first(tmp):
    server = Server({"api": "openai", "models": ["alpha", "beta"], "check_model": False,
                     "turns": [{"text": "I answer under any name."}]}, tmp)
    p = ask(server, ["--model", "gamma", "Hello?"])
    check("--model not listed: exit 4 (as --help says)", p.returncode == 4, (p.returncode, p.stderr))
    check("--model not listed: names the models there are, on stderr",
          "gamma" in p.stderr and "alpha" in p.stderr and "beta" in p.stderr and p.stdout == "", p.stderr)
    check("--model not listed: nothing was asked", server.requests() == [], server.requests())
    p = ask(server, ["--model", "alpha", "Hello?"])
    check("--model listed: answered", p.returncode == 0 and "I answer under any name." in p.stdout,
          (p.returncode, p.stdout, p.stderr))
    server.stop()

    server = Server({"api": "openai", "models": ["m"], "turns": [{"text": "x"}]}, tmp)
    for question in (["   "], ["", " \t"], []):
        p = ask(server, ["--model", "m"] + question)
        check(f"blank question {question!r}: exit 2 with a sentence on stderr",
              p.returncode == 2 and "question" in p.stderr and p.stdout == "", (p.returncode, p.stderr))
    check("blank question: nothing reached the server", server.requests(chat_only=False) == [],
          server.requests(chat_only=False))

    a_file = os.path.join(tmp, "not-a-folder.txt")
    with open(a_file, "w") as f:
        f.write("x")
    start = time.monotonic()
    p = ask(server, ["--model", "m", "--out", a_file, "Hello?"])
    check("ask --out at a file: exit 2 before starting",
          p.returncode == 2 and "is a file" in p.stderr and server.requests() == [], (p.returncode, p.stderr))
    check("ask --out at a file: at once", time.monotonic() - start < 10)
    p = ask(server, ["--model", "m", "--out", "/proc/version/out", "Hello?"])
    check("ask --out that cannot be made: exit 2 with the reason",
          p.returncode == 2 and "/proc/version/out" in p.stderr and server.requests() == [], (p.returncode, p.stderr))
    p = run(["exec", "--out", a_file, os.path.join(tmp, "hello.py")])
    check("exec --out at a file: exit 2", p.returncode == 2 and "is a file" in p.stderr, (p.returncode, p.stderr))

    p = ask(server, ["--model", "m", "--json", "--file", os.path.join(tmp, "missing.csv"), "Sum it"])
    events = json_events(p.stdout)
    check("ask --json with a missing --file: exit 2, a JSON failure on stdout",
          p.returncode == 2 and events and events[-1]["event"] == "failed"
          and "missing.csv" in events[-1]["text"], (p.returncode, p.stdout, p.stderr))
    check("ask --json with a missing --file: the sentence on stderr too", "missing.csv" in p.stderr, p.stderr)
    p = ask(server, ["--model", "m", "--json", "--no-such-option", "Sum it"])
    events = json_events(p.stdout)
    check("ask --json with an unknown option: a JSON failure on stdout",
          p.returncode == 2 and events and events[-1]["event"] == "failed", (p.returncode, p.stdout))
    p = ask(server, ["--model", "m", "--json", "--approve", "sometimes", "Sum it"])
    events = json_events(p.stdout)
    check("ask --json with a bad option value: a JSON failure on stdout",
          p.returncode == 2 and events and events[-1]["event"] == "failed", (p.returncode, p.stdout))
    server.stop()


# -- the approval prompt, the repair limit, figures, labels -------------------

def conversation(tmp):
    turns = [{"code": "print('ran ' + 'it')\n"}, {"text": "Done."}]
    server = Server({"api": "openai", "models": ["m"], "turns": turns}, tmp)
    p = ask(server, ["--model", "m", "--no-tools", "Go"], stdin="")
    server.stop()
    check("end of input at the prompt: exit 9, nothing ran",
          p.returncode == 9 and "ran it" not in p.stdout, (p.returncode, p.stdout))
    check("end of input at the prompt: says so on stderr", "input ended" in p.stderr, p.stderr)

    data = os.path.join(tmp, "weather.csv")
    with open(data, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["city", "rain_mm"])
        w.writerows([["Oslo", 3], ["Bergen", 9]])
    bad = {"code": "import pandas as pd\ndf = pd.read_csv('weather.csv')\nprint(df['Weather'].mean())\n"}
    server = Server({"api": "openai", "models": ["m"], "turns": [bad] * 4}, tmp)
    p = ask(server, ["--model", "m", "--no-tools", "--approve", "auto", "--max-repairs", "1",
                     "--file", data, "Average weather?"])
    server.stop()
    check("repair limit: exit 8", p.returncode == 8, (p.returncode, p.stderr))
    last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    check("repair limit: in plain words, with the columns there are",
          "no column 'Weather'" in last and "'city'" in last and "'rain_mm'" in last
          and "automatic repair" in last, last)

    code = ("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nprint('plotted')\n")
    turns = [{"text": "I will draw it.", "code": code}, {"text": "The line rises."}]
    server = Server({"api": "openai", "models": ["m"], "turns": turns}, tmp)
    p = ask(server, ["--model", "m", "--no-tools", "--approve", "auto", "Draw"])
    server.stop()
    check("figure without --out: says how to keep it, on stderr",
          "--out" in p.stderr and "not kept" in p.stderr and p.returncode == 0, (p.returncode, p.stderr))
    labels = [m.group(1) for m in re.finditer(r"^── (.+?) ──$", p.stdout, re.M)]
    check("labels: Model, Code, Output, Answer in order", labels == ["Model", "Code", "Output", "Answer"],
          (labels, p.stdout))
    out = p.stdout
    check("labels: each part under its own label",
          out.index("I will draw it.") < out.index("── Code ──") < out.index("plt.plot")
          < out.index("── Output ──") < out.index("\nplotted\n") < out.index("── Answer ──")
          < out.index("The line rises."), out)
    check("labels: the fenced code is shown once", out.count("plt.plot([1, 2, 3])") == 1, out)

    call = json.dumps({"name": "python", "arguments": {"code": "print(6 * 7)"}})
    turns = [{"text": call}, {"text": "It is 42."}]
    server = Server({"api": "openai", "models": ["m"], "turns": turns}, tmp)
    p = ask(server, ["--model", "m", "--approve", "auto", "Six times seven?"])
    server.stop()
    check("tool call written as JSON text: ran", "42" in p.stdout and p.returncode == 0, (p.stdout, p.stderr))
    check("tool call written as JSON text: not printed raw, code shown once",
          '"arguments"' not in p.stdout and p.stdout.count("print(6 * 7)") == 1, p.stdout)


# -- exec, table, profile, help ------------------------------------------------

def files_in(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder)
                  for d, _, fs in os.walk(folder) for f in fs)


def exec_and_table(tmp):
    code = os.path.join(tmp, "make.py")
    with open(code, "w") as f:
        f.write("import pandas as pd, matplotlib.pyplot as plt, os, reckon\n"
                "sales = pd.DataFrame({'month': [1, 2, 3], 'total': [30, 10, 20]})\n"
                "reckon.show(sales, name='sales')\n"
                "plt.bar(sales.month, sales.total)\n"
                "os.makedirs('report', exist_ok=True)\n"
                "open('report/note.txt', 'w').write('done')\n")
    out = os.path.join(tmp, "out")
    p = run(["exec", "--out", out, code])
    saved = files_in(out) if os.path.isdir(out) else []
    check("exec --out: exit 0", p.returncode == 0, (p.returncode, p.stderr))
    m = re.search(r"saved (\d+) files? in", p.stderr)
    check("exec: counts the saved files right", m and int(m.group(1)) == len(saved), (p.stderr, saved))
    check("exec: figures named sensibly", "figure-1.png" in saved, saved)
    check("exec: tables kept as CSV and .rkt", "sales.csv" in saved and "sales.rkt" in saved, saved)
    check("exec: no internal paths", ".reckon" not in p.stderr + p.stdout and "/workspace" not in p.stderr,
          p.stderr)

    rkt = os.path.join(out, "sales.rkt")
    p = run(["table", rkt])
    check("table reads the .rkt --out kept", p.returncode == 0 and "3 rows" in p.stdout, (p.returncode, p.stdout))
    check("table lists columns from 1", re.search(r"^  1\tmonth\t", p.stdout, re.M), p.stdout)
    p = run(["table", "--sort", "2", rkt])
    rows = [line.split("\t") for line in p.stdout.splitlines() if re.match(r"^\d+\t\d+$", line)]
    check("table --sort 2 sorts by the second column (counting from 1)",
          p.returncode == 0 and [r[1] for r in rows] == ["10", "20", "30"], p.stdout)
    p = run(["table", "--sort", "0", rkt])
    check("table --sort 0: exit 2, no such column", p.returncode == 2 and "no column" in p.stderr,
          (p.returncode, p.stderr))

    p = run(["exec", code])
    check("exec without --out: says how to keep the results", "add --out" in p.stderr, p.stderr)

    p = run(["exec", os.path.join(tmp, "no-such-script.py")])
    check("exec with a missing script: exit 2, named on stderr",
          p.returncode == 2 and "no-such-script.py" in p.stderr and p.stdout == "", (p.returncode, p.stderr))

    spin = os.path.join(tmp, "spin.py")
    with open(spin, "w") as f:
        f.write("print('start', flush=True)\nwhile True:\n    pass\n")
    p = run(["exec", "--timeout", "1", spin])
    check("exec --timeout 1: exit 12, '(1 second)' (singular) and the flag to run again with",
          p.returncode == 12 and "limit (1 second); run again with --timeout 2 " in p.stderr, (p.returncode, p.stderr))

    proc = subprocess.Popen([CLI, "exec", spin], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    check("Ctrl+C in exec: exit 5 and says it was stopped",
          "start" in line and proc.returncode == 5 and "stopped (Ctrl+C)" in err, (proc.returncode, err))


def profile(tmp):
    good = os.path.join(tmp, "good.csv")
    with open(good, "w") as f:
        f.write("name,score\nada,3\nbob,5\n")
    missing = os.path.join(tmp, "absent.csv")
    p = run(["profile", good, missing])
    check("profile with a bad file: exit 1", p.returncode == 1, (p.returncode, p.stderr))
    check("profile: the per-file error on stderr, not stdout",
          "absent.csv" in p.stderr and "absent.csv" not in p.stdout, (p.stdout, p.stderr))
    check("profile: the good file still profiled on stdout", "score" in p.stdout, p.stdout)


def help_texts():
    for cmd, word in (("ask", "QUESTION"), ("profile", "FILE…"), ("table", "FILE.rkt"),
                      ("chart", "SPEC.json"), ("exec", "CODE.py")):
        p = run([cmd, "--help"])
        usage = next((l for l in p.stdout.splitlines() if l.strip().startswith("reckon-cli")), "")
        check(f"{cmd} --help: the usage line names {word} once",
              usage.count(word) == 1 and f"reckon-cli {cmd}" in usage, usage)
        check(f"{cmd} --help: documents exit statuses", "Exit status:" in p.stdout and p.returncode == 0,
              p.stdout[-400:])
    p = run(["--help"])
    check("reckon-cli --help: the whole exit-status table",
          all(re.search(rf"^ +{n}  ", p.stdout, re.M) for n in range(0, 14)), p.stdout)


# -- terminal hygiene (issue 10, item 7) ---------------------------------------

HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07"     # OSC 52: write the clipboard
CLEAR = "\x1b[2J\x1b[H"                     # CSI: clear the screen, cursor home
RLO = "\u202e"                              # right-to-left override


C1_CSI = "\u009b"                          # C1 control: CSI in one character


def clean(text):
    return ("\x1b" not in text and "\x07" not in text and RLO not in text and "\u2066" not in text
            and not any("\u0080" <= c <= "\u009f" for c in text))


def hygiene(tmp):
    code = os.path.join(tmp, "hostile.py")
    with open(code, "w") as f:
        f.write("import pandas as pd, reckon, sys\n"
                f"print({HOSTILE!r} + 'visible' + {CLEAR!r} + ' text')\n"
                f"sys.stderr.write({CLEAR!r} + 'err' + {RLO!r} + 'txt.exe\\n')\n"
                f"reckon.show(pd.DataFrame({{'a': [1]}}), name='tab' + {RLO!r} + 'le' + {CLEAR!r})\n"
                f"reckon.chart(pd.DataFrame({{'x': [1, 2], 'y': [3, 4]}}), kind='line', x='x', y='y',"
                f" title={HOSTILE!r} + 'chart' + {RLO!r})\n"
                f"open('note' + {RLO!r} + 'txt.sh', 'w').write('x')\n"
                f"raise ValueError({CLEAR!r} + 'boom')\n")
    out = os.path.join(tmp, "hostile-out")
    p = run(["exec", "--out", out, code])
    check("hostile output: the cell ran (exit 1 from its error)", p.returncode == 1, (p.returncode, p.stderr))
    check("hostile output: stdout has the text but no escape sequence or bidi override",
          "visible" in p.stdout and " text" in p.stdout and clean(p.stdout), repr(p.stdout))
    check("hostile output: stderr (titles, names, errors) is clean too",
          "boom" in p.stderr and "table" in p.stderr and clean(p.stderr), repr(p.stderr))
    check("hostile output: the table title is shown without its override",
          "“table”" in p.stderr, repr(p.stderr))
    rkt = [f for f in os.listdir(out) if f.endswith(".rkt")] if os.path.isdir(out) else []
    if rkt:
        q = run(["table", os.path.join(out, rkt[0])])
        check("hostile table: `table` prints it clean", clean(q.stdout), repr(q.stdout))

    # Issue 17: every line goes through the one sanitiser, also the ones
    # that name a folder, a file or an error: an --out folder whose name
    # carries an escape, a bidi override and a C1 control (the "saved N
    # files in" line printed it raw), one that cannot be made, a --file
    # that is not there.
    hostile_dir = os.path.join(tmp, "out" + HOSTILE + RLO + C1_CSI + "dir")
    p = run(["exec", "--out", hostile_dir, code])
    check("hostile --out folder: the results are saved there, every line clean",
          p.returncode == 1 and "saved" in p.stderr and clean(p.stderr) and clean(p.stdout)
          and os.path.isdir(hostile_dir), repr(p.stderr))
    blocker = os.path.join(tmp, "a-file")
    with open(blocker, "w") as f:
        f.write("x")
    p = run(["exec", "--out", os.path.join(blocker, "o" + HOSTILE + RLO + C1_CSI), code])
    check("hostile --out that cannot be made: one clean line",
          p.returncode == 2 and "cannot be created" in p.stderr and clean(p.stderr), repr(p.stderr))
    p = run(["exec", "--file", os.path.join(tmp, "none" + CLEAR + RLO + C1_CSI + ".csv"), code])
    check("hostile --file that is not there: clean error lines",
          p.returncode != 0 and "could not copy" in p.stderr and clean(p.stderr), repr(p.stderr))

    turns = [{"text": "Look " + HOSTILE + CLEAR + RLO + "here", "code": "print('ok')\n"},
             {"text": "Fine" + CLEAR + "."}]
    server = Server({"api": "openai", "models": ["m"], "turns": turns}, tmp)
    p = ask(server, ["--model", "m", "--no-tools", "--approve", "auto", "Go"])
    server.stop()
    check("hostile model text: ask prints it clean", p.returncode == 0 and "Look" in p.stdout
          and clean(p.stdout) and clean(p.stderr), (repr(p.stdout), repr(p.stderr)))

    server = Server({"api": "openai", "models": ["m"], "turns": turns}, tmp)
    p = ask(server, ["--model", "m", "--no-tools", "--approve", "auto", "--json", "Go"])
    server.stop()
    events = json_events(p.stdout)
    texts = "".join(e.get("text", "") for e in events or [] if e["event"] == "text")
    check("hostile model text, --json: the data kept, escaped, nothing raw on the terminal",
          p.returncode == 0 and RLO in texts and HOSTILE in texts and clean(p.stdout)
          and "\\u202e" in p.stdout, (p.returncode, repr(p.stdout[:600])))


def main():
    if not os.access(os.environ.get("RECKON_SANDBOX", ""), os.X_OK):
        print("1..0 # SKIP reckon-sandbox is not built")
        return
    tmp = tempfile.mkdtemp(prefix="rk-cli-items-")
    try:
        sandbox_missing(tmp)
        cli_hints(tmp)
        checked_first(tmp)
        conversation(tmp)
        exec_and_table(tmp)
        profile(tmp)
        help_texts()
        hygiene(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{len(results)}")
    for i, (name, ok, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok:
            for line in str(detail).splitlines()[:20]:
                print(f"# {line}")


main()
