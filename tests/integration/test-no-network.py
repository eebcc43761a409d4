#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test-no-network.py — code that tries the network (urllib, a socket,
pandas.read_csv of a URL) gets one plain sentence, in what `reckon-cli ask`
prints and in what goes back to the model: not a URLError and its traceback.
The scripted model server over real HTTP, the real sandbox. Speaks TAP."""
import json
import os
import signal
import subprocess
import sys
import tempfile

BUILD = os.environ["RECKON_BUILD_ROOT"]
CLI = os.path.join(BUILD, "src", "cli", "reckon-cli")
MOCK = os.path.join(BUILD, "tests", "lib", "reckon-mock-server")
SENTENCE = "Code runs without network access; add the file instead."

CELLS = {
    "urllib": "import urllib.request\ndata = urllib.request.urlopen('https://example.com/sales.csv').read()\n",
    "socket": "import socket\ns = socket.socket()\ns.connect(('93.184.216.34', 80))\n",
    "pandas": "import pandas as pd\ndf = pd.read_csv('https://example.com/sales.csv')\n",
}

results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond), detail))


def chat_requests(record):
    out = []
    if os.path.exists(record):
        for line in open(record):
            r = json.loads(line)
            if r["path"] in ("/v1/chat/completions", "/api/chat"):
                out.append(json.loads(r["body"]))
    return out


def one(what, code, tmp):
    script = os.path.join(tmp, what + ".json")
    record = os.path.join(tmp, what + ".jsonl")
    with open(script, "w") as f:
        json.dump({"api": "openai", "models": ["m"],
                   "turns": [{"code": code}, {"text": "I cannot reach the web."}]}, f)
    server = subprocess.Popen([MOCK, script, "--record", record], stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        p = subprocess.run([CLI, "ask", "--endpoint", f"http://127.0.0.1:{port}", "--model", "m",
                            "--api", "openai", "--no-tools", "--approve", "auto", "--max-repairs", "1",
                            "--idle-timeout", "3", "Load the sales from the web"],
                           capture_output=True, text=True, timeout=180)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    requests = chat_requests(record)
    check(f"{what}: the CLI prints the sentence", SENTENCE in p.stderr, p.stderr)
    check(f"{what}: the CLI shows no URLError, gaierror or errno",
          all(w not in p.stderr for w in ("URLError", "gaierror", "Errno", "urllib/request.py")), p.stderr)
    sent = json.dumps(requests[1]["messages"][-1]) if len(requests) > 1 else ""
    check(f"{what}: the model is told the sentence", SENTENCE in sent, sent[:600])
    check(f"{what}: the model sees no library traceback",
          "URLError" not in sent and "Errno" not in sent and "/usr/lib/python3" not in sent, sent[:600])


def main():
    if not os.access(os.environ.get("RECKON_SANDBOX", ""), os.X_OK):
        print("1..0 # SKIP reckon-sandbox is not built")
        return
    with tempfile.TemporaryDirectory() as tmp:
        for what, code in CELLS.items():
            one(what, code, tmp)
    print(f"1..{len(results)}")
    for i, (name, ok, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok:
            for line in str(detail).splitlines()[:20]:
                print(f"# {line}")


main()
