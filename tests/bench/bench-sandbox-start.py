#!/usr/bin/python3
# bench-sandbox-start.py — what reckon-sandbox adds to starting a program:
# median wall time of `python3 -c pass` run plainly, through reckon-sandbox,
# and through bubblewrap with equivalent flags (same namespaces, same
# read-only binds, tmpfs /tmp, /proc, /dev, die-with-parent, new session).
# Targets: no slower than bwrap, and under 10 ms added at the median.

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PY = '/usr/bin/python3'
RUNS = int(os.environ.get('RECKON_BENCH_RUNS', '30'))


def medians_ms(cmds):
    """Median wall time of each command, run round-robin so that load from
    other processes hits all of them alike."""
    times = [[] for _ in cmds]
    for i in range(RUNS + 2):
        for k, cmd in enumerate(cmds):
            t0 = time.perf_counter()
            subprocess.run(cmd, stdin=subprocess.DEVNULL, check=True)
            if i >= 2:  # the first rounds warm the page cache
                times[k].append((time.perf_counter() - t0) * 1000)
    return [statistics.median(t) for t in times]


def bwrap_cmd(ws):
    cmd = ['bwrap', '--unshare-all', '--die-with-parent', '--new-session', '--clearenv',
           '--ro-bind', '/usr', '/usr']
    for top in ('bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'):
        path = '/' + top
        if os.path.islink(path):
            cmd += ['--symlink', os.readlink(path), path]
        elif os.path.isdir(path):
            cmd += ['--ro-bind', path, path]
    for etc in ('ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'fonts', 'alternatives',
                'matplotlibrc', 'localtime', 'timezone', 'mime.types', 'python3', 'python3.11'):
        path = '/etc/' + etc
        if os.path.lexists(path):
            cmd += ['--ro-bind', path, path]
    cmd += ['--bind', ws, '/workspace', '--tmpfs', '/tmp', '--proc', '/proc', '--dev', '/dev',
            '--tmpfs', '/dev/shm', '--chdir', '/workspace',
            '--setenv', 'PATH', '/usr/bin:/bin', '--setenv', 'HOME', '/workspace',
            '--setenv', 'LANG', 'C.UTF-8', '--']
    return cmd


def main():
    sandbox = os.environ.get('RECKON_SANDBOX')
    if not sandbox:
        print('RECKON_SANDBOX is not set: nothing to measure')
        return 77
    ws = tempfile.mkdtemp(prefix='reckon-bench-')
    try:
        prog = [PY, '-c', 'pass']
        cmds = [prog, [sandbox, '--workspace', ws, '--'] + prog]
        if shutil.which('bwrap'):
            cmds.append(bwrap_cmd(ws) + prog)
        got = medians_ms(cmds)
        plain, ours = got[0], got[1]
        bw = got[2] if len(got) > 2 else None
    finally:
        shutil.rmtree(ws, ignore_errors=True)

    added = ours - plain
    print(f'python3 -c pass, median of {RUNS} runs each (round-robin), load average {os.getloadavg()[0]:.1f}:')
    print(f'  plain          {plain:7.1f} ms')
    print(f'  reckon-sandbox {ours:7.1f} ms  ({ours / plain:.2f}x plain, +{added:.1f} ms)')
    if bw is not None:
        print(f'  bwrap          {bw:7.1f} ms  ({bw / plain:.2f}x plain, +{bw - plain:.1f} ms)'
              '  [bwrap runs without a seccomp filter here]')
        print(f'  reckon-sandbox / bwrap = {ours / bw:.2f}')
        print(f'target: no slower than bwrap: {"met" if ours <= bw else "NOT met"}')
    else:
        print('target: no slower than bwrap: not measured (bwrap is not installed)')
    print(f'target: < 10 ms added at the median: {"met" if added < 10 else "NOT met"} (+{added:.1f} ms)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
