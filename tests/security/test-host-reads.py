#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-host-reads.py — issue 10, finding 2: host code that reads workspace
# content never follows a path the sandbox can change under it. Speaks TAP.
#
# The attack (docs/threat-model.md class 67): while `reckon-cli exec -o` exports the
# cell's charts, sandboxed code swaps .reckon/charts with a symlink to a host
# folder (renameat2 RENAME_EXCHANGE in a loop), and keeps the sandbox alive
# through the export by making the kernel deaf to "shutdown". The host folder
# holds decoy sidecars under the charts' sidecar names; inotify reports any
# open of them. Nothing in the sandbox can open them (they are not mounted),
# so an open can only be the host following the swapped path.
import ctypes
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get('RECKON_BUILD_ROOT', '')
CLI = os.path.join(BUILD, 'src', 'cli', 'reckon-cli')
N_CHARTS = 16
ROUNDS = 6
IN_ACCESS = 0x1
IN_OPEN = 0x20

CELL = r'''
import ctypes, json, os, threading
import numpy as np, pandas as pd, reckon
n = 20001                      # above the inline limit: data go to a sidecar
for i in range(%(n)d):
    reckon.chart(pd.DataFrame({"x": np.arange(n), "y": np.full(n, float(i))}),
                 kind="line", x="x", y="y", title="c%%d" %% i)
os.symlink(%(host)r, ".reckon/evil")
libc = ctypes.CDLL(None, use_errno=True)
def swap():
    while True:
        libc.syscall(316, -100, b".reckon/charts", -100, b".reckon/evil", 2)   # renameat2 RENAME_EXCHANGE
threading.Thread(target=swap, daemon=True).start()
# Deaf to "shutdown": the sandbox lives on while the host exports.
json.loads = lambda *a, **k: {}
print("swapping")
'''

tap = []


def ok(cond, name, detail=''):
    tap.append((bool(cond), name, detail))


def main():
    if not os.access(CLI, os.X_OK):
        print('1..1\nok 1 - host reads beneath the workspace # SKIP reckon-cli is not built')
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    base = tempfile.mkdtemp(prefix='rk-host-reads-')
    try:
        host = os.path.join(base, 'host-secrets')
        os.mkdir(host)
        os.chmod(base, 0o755)
        os.chmod(host, 0o755)
        decoys = []
        for i in range(1, N_CHARTS + 1):
            path = os.path.join(host, 'c%d.bin' % i)
            with open(path, 'wb') as f:
                f.write(struct.pack('<d', 7777777.0) * 40002)
            os.chmod(path, 0o644)
            decoys.append(path)
        ifd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if ifd < 0:
            print('1..1\nok 1 - host reads beneath the workspace # SKIP inotify is not available')
            return 0
        for path in decoys:
            if libc.inotify_add_watch(ifd, path.encode(), IN_OPEN | IN_ACCESS) < 0:
                raise OSError(ctypes.get_errno(), 'inotify_add_watch')
        script = os.path.join(base, 'cell.py')
        with open(script, 'w') as f:
            f.write(CELL % {'n': N_CHARTS, 'host': host})

        opened = 0
        exported = failed = 0
        for r in range(ROUNDS):
            out = os.path.join(base, 'out%d' % r)
            t0 = time.monotonic()
            p = subprocess.run([CLI, 'exec', '-o', out, script], capture_output=True, text=True,
                               timeout=300)
            elapsed = time.monotonic() - t0
            pngs = [n for n in os.listdir(out) if n.endswith('.png')] if os.path.isdir(out) else []
            exported += len(pngs)
            failed += N_CHARTS - len(pngs)
            try:
                data = os.read(ifd, 65536)
            except BlockingIOError:
                data = b''
            opened += len(data) // 16 if data else 0
            print('# round %d: exit %d in %.1f s, %d of %d charts exported, stdout %r' %
                  (r + 1, p.returncode, elapsed, len(pngs), N_CHARTS, p.stdout[-80:]))
            if 'swapping' not in p.stdout:
                print('# stderr: %s' % p.stderr[-400:].replace('\n', ' | '))
            ok('swapping' in p.stdout, 'round %d: the hostile cell ran and started swapping' % (r + 1))
        print('# %d charts exported, %d refused (a symlink on the way), %d opens of host decoys' %
              (exported, failed, opened))
        ok(opened == 0, 'no host file behind a swapped folder was opened by the export',
           '%d inotify events on the decoys' % opened)
        ok(exported > 0, 'charts whose folder was in place were still exported')
        os.close(ifd)
    finally:
        shutil.rmtree(base, ignore_errors=True)

    print('1..%d' % len(tap))
    for i, (good, name, detail) in enumerate(tap, 1):
        print('%s %d - %s%s' % ('ok' if good else 'not ok', i, name, ' # ' + detail if detail and not good else ''))
    return 0 if all(g for g, _, _ in tap) else 1


if __name__ == '__main__':
    sys.exit(main())
