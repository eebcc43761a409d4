#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-cli-ask.py — `reckon-cli ask` end to end, as a user runs it: the
scripted model server over real HTTP, the real sandbox, both wire formats,
tool calls and fenced code, artifacts in --out, faults and exit statuses.
Speaks TAP."""
import csv
import json
import os
import random
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
        self.script_path = os.path.join(tmp, "script.json")
        self.record = os.path.join(tmp, "record.jsonl")
        with open(self.script_path, "w") as f:
            json.dump(script, f)
        self.proc = subprocess.Popen([MOCK, self.script_path, "--record", self.record],
                                     stdout=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}"

    def chat_requests(self):
        out = []
        if not os.path.exists(self.record):
            return out
        for line in open(self.record):
            r = json.loads(line)
            if r["path"] in ("/v1/chat/completions", "/api/chat"):
                out.append(json.loads(r["body"]))
        return out

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(10)


def ask(server_url, args, stdin=None, timeout=120):
    cmd = [CLI, "ask", "--endpoint", server_url, "--model", "m", "--idle-timeout", "3"] + args
    start = time.monotonic()
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - start


CODE = (
    "import pandas as pd\n"
    "import matplotlib.pyplot as plt\n"
    "df = pd.read_csv('numbers.csv')\n"
    "print(f\"total={df['amount'].sum():.4f}\")\n"
    "summary = df.groupby('group')['amount'].sum().reset_index()\n"
    "summary.plot(kind='bar', x='group', y='amount')\n"
    "import reckon\n"
    "reckon.chart(summary, kind='bar', x='group', y='amount', title='Amount by group')\n"
    "summary\n"
)


def end_to_end(api, fenced):
    name = f"{api} {'fenced' if fenced else 'tool call'}"
    tmp = tempfile.mkdtemp(prefix="rk-ask-")
    try:
        rng = random.Random()
        rows = [(g, round(rng.uniform(-500, 500), 4)) for g in rng.choices("ABCD", k=300)]
        data = os.path.join(tmp, "numbers.csv")
        with open(data, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["group", "amount"])
            w.writerows(rows)
        total = f"{sum(a for _, a in rows):.4f}"

        if fenced:
            first = {"text": "Let me add it up.", "code": CODE}
        else:
            first = {"text": "Let me add it up.",
                     "tool_calls": [{"id": "call_7", "name": "python",
                                     "arguments": json.dumps({"code": CODE})}]}
        server = Server({"api": api, "models": ["m"],
                         "turns": [first, {"text": "The total is as printed."}]}, tmp)
        out = os.path.join(tmp, "out")
        args = ["--api", api, "--file", data, "--approve", "auto", "--out", out]
        if fenced:
            args.append("--no-tools")
        p, _ = ask(server.url, args + ["What is the total amount?"])
        reqs = server.chat_requests()
        server.stop()

        check(f"{name}: exit 0", p.returncode == 0, p.stderr)
        check(f"{name}: answer printed", "The total is as printed." in p.stdout, p.stdout)
        check(f"{name}: code shown", "read_csv('numbers.csv')" in p.stdout, p.stdout)
        obs = json.dumps(reqs[1]["messages"][-1]) if len(reqs) > 1 else ""
        check(f"{name}: observation holds the number computed from the file",
              f"total={total}" in obs, obs[:400])
        system = reqs[0]["messages"][0]["content"] if reqs else ""
        check(f"{name}: the model was told the file's schema",
              "numbers.csv" in system and "amount" in system, system[:400])
        files = sorted(os.listdir(out)) if os.path.isdir(out) else []
        check(f"{name}: a table arrives in --out as CSV",
              any(f.endswith(".csv") and f != "numbers.csv" for f in files), files)
        check(f"{name}: a figure arrives in --out as PNG",
              any(f.endswith(".png") for f in files), files)
        check(f"{name}: a native chart arrives in --out drawn as PNG", "Amount by group.png" in files, files)
        for f in files:
            if f.endswith(".png"):
                with open(os.path.join(out, f), "rb") as fh:
                    check(f"{name}: the figure is a PNG", fh.read(8) == b"\x89PNG\r\n\x1a\n")
                break
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def faults():
    tmp = tempfile.mkdtemp(prefix="rk-ask-")
    try:
        # Nothing listens: a port that was just free.
        server = Server({"models": ["m"], "turns": []}, tmp)
        url = server.url
        server.stop()
        p, _ = ask(url, ["--api", "openai", "Hello?"])
        check("refused: exit 3", p.returncode == 3, (p.returncode, p.stderr))
        check("refused: one sentence naming the endpoint",
              url in p.stderr and p.stderr.strip().count("\n") == 0, p.stderr)

        server = Server({"api": "ollama", "models": ["llama3.1:8b", "qwen2.5:7b"], "turns": [],
                         "check_model": True}, tmp)
        p, _ = ask(server.url, ["--api", "ollama", "Hello?"])
        server.stop()
        check("missing model: exit 4", p.returncode == 4, (p.returncode, p.stderr))
        check("missing model: names the models there are",
              "llama3.1:8b" in p.stderr and "qwen2.5:7b" in p.stderr, p.stderr)

        cases = [("500", 7, "HTTP 500"), ("cut", 7, "cut"), ("malformed", 7, "malformed"),
                 ("stall", 7, "stall")]
        for fault, code, label in cases:
            transcript = os.path.join(tmp, f"t-{fault}.json")
            server = Server({"api": "openai", "models": ["m"],
                             "turns": [{"text": "Partial answer ", "fault": fault, "stall_seconds": 30}]}, tmp)
            p, took = ask(server.url, ["--api", "openai", "--transcript", transcript, "Hello?"])
            server.stop()
            check(f"{label}: exit {code}", p.returncode == code, (p.returncode, p.stderr))
            check(f"{label}: one sentence naming the endpoint",
                  server.url in p.stderr and p.stderr.strip().count("\n") == 0, p.stderr)
            try:
                saved = json.load(open(transcript))
                text = json.dumps(saved)
                kept = "Hello?" in text
            except (OSError, ValueError) as e:
                kept, text = False, str(e)
            check(f"{label}: the transcript keeps the question", kept, text[:300])
            if fault == "stall":
                check("stall: gives up after the idle timeout, not the stall", took < 20, took)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def approval_and_limits():
    tmp = tempfile.mkdtemp(prefix="rk-ask-")
    try:
        server = Server({"api": "openai", "models": ["m"],
                         "turns": [{"code": "print('ran ' + 'it')\n"}, {"text": "Done."}]}, tmp)
        p, _ = ask(server.url, ["--api", "openai", "--no-tools", "Go"], stdin="n\n")
        server.stop()
        check("approval n: nothing runs", "ran it" not in p.stdout, p.stdout)
        check("approval n: exit 9", p.returncode == 9, (p.returncode, p.stderr))
        check("approval n: says so on stderr", "not run" in p.stderr and "“n”" in p.stderr, p.stderr)

        server = Server({"api": "openai", "models": ["m"],
                         "turns": [{"code": "print('ran ' + 'it')\n"}, {"text": "Done."}]}, tmp)
        p, _ = ask(server.url, ["--api", "openai", "--no-tools", "Go"],
                   stdin="e\nprint('edited ' + 'code')\n.\n")
        server.stop()
        check("approval e: the edited code runs", "edited code" in p.stdout and "ran it" not in p.stdout,
              p.stdout + p.stderr)

        bad = {"code": "1/0\n"}
        server = Server({"api": "openai", "models": ["m"], "turns": [bad] * 5}, tmp)
        p, _ = ask(server.url, ["--api", "openai", "--no-tools", "--approve", "auto",
                                "--max-repairs", "2", "Go"])
        server.stop()
        check("repair limit: exit 8", p.returncode == 8, (p.returncode, p.stderr))
        check("repair limit: clear message", "automatic repairs" in p.stderr and "division by zero" in p.stderr,
              p.stderr)

        server = Server({"api": "openai", "models": ["m"],
                         "turns": [{"code": "x = 1\nprint(x / 0)\n"},
                                   {"code": "x = 1\nprint(x / 4)\n"}, {"text": "A quarter."}]}, tmp)
        p, _ = ask(server.url, ["--api", "openai", "--no-tools", "--approve", "auto", "--json", "Go"])
        server.stop()
        events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        diffs = [e.get("diff") for e in events if e["event"] == "code" and e.get("diff")]
        check("--json: one JSON event a line", events and all("event" in e for e in events), p.stdout[:300])
        check("--json: the revision carries a unified diff",
              diffs and "-print(x / 0)" in diffs[0] and "+print(x / 4)" in diffs[0], diffs)
        check("--json: the answer event", any(e["event"] == "answer" and e["text"] == "A quarter." for e in events))

        # --memory reaches the sandbox; a cell over it is told the flag.
        server = Server({"api": "openai", "models": ["m"],
                         "turns": [{"code": "b = bytearray(1 << 30)\n"}, {"text": "Too big."}]}, tmp)
        p, _ = ask(server.url, ["--api", "openai", "--no-tools", "--approve", "auto", "--max-repairs", "0",
                                "--memory", "512M", "--timeout", "30", "Go"])
        server.stop()
        check("ask --memory 512M: a 1 GiB cell names the limit, its size and the flag",
              "MemoryError" in p.stderr and
              "the cell reached the sandbox's \u201cmemory\u201d limit (512.0\u00a0MiB); "
              "run again with --memory 1G to raise it." in p.stderr, p.stderr)
        p, _ = ask("http://127.0.0.1:9", ["--disk", "lots", "Go"])
        check("ask --disk lots: exit 2 and one sentence",
              p.returncode == 2 and p.stderr == "reckon-cli ask: --disk takes a size such as 512M or 4G, not \u201clots\u201d.\n",
              (p.returncode, p.stderr))
        p, _ = ask("http://127.0.0.1:9", ["--timeout", "0", "--json", "Go"])
        check("ask --timeout 0 --json: a failed event with exit 2",
              p.returncode == 2 and '"exit": 2' in p.stdout.replace('"exit":2', '"exit": 2') and "--timeout must be" in p.stdout,
              (p.returncode, p.stdout, p.stderr))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def exports():
    """ask --transcript, then export --html and --notebook without -w: the
    tables, figures and charts are there (kept beside the transcript), the
    answer once, the whole first question as the title, the file's profile;
    without those results, one stderr line per item not embedded."""
    tmp = tempfile.mkdtemp(prefix="rk-ask-")
    try:
        data = os.path.join(tmp, "numbers.csv")
        with open(data, "w") as f:
            f.write("group,amount\nA,1.5\nB,2.25\nA,3\nC,4\n")
        answer = "The grand total is 10.75, most of it in group A."
        question = ("Please add up every amount in the file and tell me the grand total "
                    "for each group, from the largest to the smallest")
        server = Server({"api": "openai", "models": ["m"],
                         "turns": [{"tool_calls": [{"id": "call_1", "name": "python",
                                                    "arguments": json.dumps({"code": CODE})}]},
                                   {"text": answer}]}, tmp)
        transcript = os.path.join(tmp, "talk.json")
        p, _ = ask(server.url, ["--api", "openai", "--file", data, "--approve", "auto",
                                "--transcript", transcript, question])
        server.stop()
        check("exports: ask --transcript exit 0", p.returncode == 0, (p.returncode, p.stderr))
        check("exports: ask keeps the results beside the transcript",
              os.path.isdir(transcript + ".results"), os.listdir(tmp))

        html_path = os.path.join(tmp, "talk.html")
        e = subprocess.run([CLI, "export", "--html", transcript, "--out", html_path],
                           capture_output=True, text=True, timeout=60)
        html = open(html_path).read() if os.path.exists(html_path) else ""
        check("exports: export --html without -w exit 0, nothing missing",
              e.returncode == 0 and "not embedded" not in e.stderr, (e.returncode, e.stderr))
        check("exports: the report embeds the table", '<table class="dataframe"' in html, html[:300])
        check("exports: the report embeds the native chart", 'class="chart"' in html and "<svg" in html)
        check("exports: the report embeds the figure", "data:image/png;base64," in html)
        check("exports: the final answer once, not twice", html.count("The grand total is") == 1,
              html.count("The grand total is"))
        check("exports: the whole first question is the title, not cut",
              f"<title>{question}</title>" in html and f"<h1>{question}</h1>" in html,
              html[html.find("<title>"):html.find("<title>") + 200])
        prof = html[html.find('class="profile"'):]
        check("exports: the file's profile is in the report",
              "numbers.csv" in prof[:400] and "amount" in prof[:4000], prof[:400])

        nb_path = os.path.join(tmp, "talk.ipynb")
        e = subprocess.run([CLI, "export", "--notebook", transcript, "--out", nb_path],
                           capture_output=True, text=True, timeout=60)
        try:
            cells = json.load(open(nb_path))["cells"]
        except (OSError, ValueError, KeyError):
            cells = []
        text = lambda c: "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        markdown = [text(c) for c in cells if c["cell_type"] == "markdown"]
        outputs = json.dumps([c.get("outputs", []) for c in cells])
        check("exports: export --notebook exit 0, nothing missing",
              e.returncode == 0 and "not embedded" not in e.stderr, (e.returncode, e.stderr))
        check("exports: the notebook embeds the table and the pictures",
              "text/html" in outputs and "image/png" in outputs, outputs[:300])
        check("exports: the notebook has the answer once",
              sum(m.count("The grand total is") for m in markdown) == 1, markdown)
        check("exports: the notebook has the file's profile",
              any("numbers.csv" in m and "amount" in m for m in markdown), markdown[:3])

        # The same transcript where no results are: each table, figure and
        # chart named on stderr, one line each.
        bare = os.path.join(tmp, "bare.json")
        shutil.copy(transcript, bare)
        saved = json.load(open(transcript))
        kinds = [x["kind"] for x in saved["entries"] if x["kind"] in ("table", "figure", "chart")]
        e = subprocess.run([CLI, "export", "--html", bare, "--out", os.path.join(tmp, "bare.html")],
                           capture_output=True, text=True, timeout=60)
        lines = [line for line in e.stderr.splitlines() if line.startswith("reckon: not embedded")]
        check("exports: without -w, one stderr line per table, figure and chart not embedded",
              e.returncode == 0 and len(kinds) >= 3 and len(lines) == len(kinds)
              and e.stderr.count("\n") == len(kinds), (kinds, e.stderr))
        check("exports: each line names its item",
              any("Table" in line for line in lines) and any("Chart" in line and "Amount by group" in line
                                                             for line in lines), lines)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cancel():
    tmp = tempfile.mkdtemp(prefix="rk-ask-")
    try:
        server = Server({"api": "openai", "models": ["m"],
                         "turns": [{"code": "import time\nprint('spinning', flush=True)\nwhile True:\n    pass\n"}]}, tmp)
        proc = subprocess.Popen([CLI, "ask", "--endpoint", server.url, "--model", "m", "--api", "openai",
                                 "--no-tools", "--approve", "auto", "Spin"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = ""
        deadline = time.monotonic() + 60
        while "spinning" not in line and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
        time.sleep(0.3)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        took = time.monotonic() - sent
        server.stop()
        check("Ctrl+C during a running cell: exit 5", proc.returncode == 5, proc.returncode)
        check("Ctrl+C during a running cell: stops without waiting for the cell (which spins forever)", took < 5.0, took)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def descendants(root):
    """Host PIDs of every process below @root."""
    children = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(pid))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def living(pids):
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.append(pid)
        except OSError:
            pass
    return alive


def client_killed():
    """SIGKILL of the client leaves no sandboxed process alive a second later."""
    tmp = tempfile.mkdtemp(prefix="rk-ask-")
    try:
        code = os.path.join(tmp, "spin.py")
        with open(code, "w") as f:
            f.write("import os\nif os.fork() == 0:\n    os.setsid()\n    while True: pass\n"
                    "print('spinning', flush=True)\nwhile True:\n    pass\n")
        proc = subprocess.Popen([CLI, "exec", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = proc.stdout.readline()
        tree = descendants(proc.pid)
        proc.kill()
        proc.wait()
        time.sleep(1.0)
        check("SIGKILL of the client: the cell was running in the sandbox",
              "spinning" in line and len(tree) >= 3, (line, tree))
        check("SIGKILL of the client: no sandboxed process alive a second later",
              living(tree) == [], living(tree))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if not os.access(os.environ.get("RECKON_SANDBOX", ""), os.X_OK):
        print("1..0 # SKIP reckon-sandbox is not built")
        return
    for api in ("openai", "ollama"):
        for fenced in (False, True):
            end_to_end(api, fenced)
    faults()
    exports()
    approval_and_limits()
    cancel()
    client_killed()
    print(f"1..{len(results)}")
    for i, (name, ok, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok:
            for line in str(detail).splitlines()[:20]:
                print(f"# {line}")


main()
