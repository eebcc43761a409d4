#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-sandbox-start.py — what reckon-sandbox adds to starting a program:
# median wall time of `python3 -c pass` run plainly, through reckon-sandbox,
# and through bubblewrap with equivalent flags (same namespaces, same
# read-only binds, tmpfs /tmp, /proc, /dev, die-with-parent, new session).
# Targets: no slower than bwrap, and under 10 ms added at the median.
# The sandbox measured is the hardened default (allowlist filter, Landlock,
# cgroup where one can be had, per-user counters, terminal relay). Also: the
# time to save a workspace kept on a capped filesystem (reckon-sandbox
# --workspace-fs tmpfs: the copy from the tmpfs back to the host's folder,
# as reckon-sandbox --debug times it) against `cp -a` of the same tree from
# a tmpfs to the same disk (docs/sandbox.md, "A capped workspace").

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PY = '/usr/bin/python3'
RUNS = int(os.environ.get('RECKON_BENCH_RUNS', '30'))


CLEAN_ENV = {'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8', 'HOME': '/'}


def medians_ms(cmds):
    """Median wall time and median CPU time (user + system, children
    included) of each command, run round-robin so that load from other
    processes hits all of them alike. CPU time is the steadier figure on a
    busy machine."""
    wall = [[] for _ in cmds]
    cpu = [[] for _ in cmds]
    for i in range(RUNS + 2):
        for k, cmd in enumerate(cmds):
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, env=CLEAN_ENV)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = 0
            if status != 0:
                raise SystemExit(f'{cmd[0]} failed with status {status}')
            if i >= 2:  # the first rounds warm the page cache
                wall[k].append((time.perf_counter() - t0) * 1000)
                cpu[k].append((ru.ru_utime + ru.ru_stime) * 1000)
    return [statistics.median(t) for t in wall], [statistics.median(t) for t in cpu]


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


TREE = '''
import os, sys
n_files, size = int(sys.argv[1]), int(sys.argv[2])
chunk = bytes(range(256)) * 4096
for i in range(n_files):
    sub = f"d{i % 4}"
    os.makedirs(sub, exist_ok=True)
    with open(f"{sub}/f{i}.csv", "wb") as f:
        left = size // n_files
        while left > 0:
            f.write(chunk[:min(left, len(chunk))])
            left -= len(chunk)
'''


def saved_ms(sandbox, ws, n_files, size, prog_args=None):
    """Runs a program in a capped workspace and returns how long saving it
    took, as reckon-sandbox --debug reports it."""
    argv = prog_args if prog_args is not None else [PY, '-c', TREE, str(n_files), str(size)]
    p = subprocess.run([sandbox, '--workspace', ws, '--workspace-fs', 'tmpfs', '--disk', str(size + (64 << 20)),
                        '--max-files', '1000', '--debug', '--'] + argv,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=CLEAN_ENV, text=True)
    for line in p.stderr.splitlines():
        if 'debug: workspace saved:' in line and p.returncode == 0:
            return float(line.rsplit(' in ', 1)[1].split()[0])
    raise SystemExit(f'no save reported (exit {p.returncode}): {p.stderr[-300:]}')


def save_medians(sandbox, n_files, size, rounds=5):
    """Median time to save a fresh workspace of @n_files files, @size bytes
    in all, written by the program into its capped workspace; `cp -a` of
    the same tree from /dev/shm to the same disk as the peer; and a save
    when nothing changed (a kernel session's save after a cell that wrote
    nothing)."""
    disk = tempfile.mkdtemp(prefix='reckon-bench-save-')
    shm = tempfile.mkdtemp(prefix='reckon-bench-', dir='/dev/shm')
    ours, peer, same = [], [], []
    try:
        subprocess.run([PY, '-c', TREE, str(n_files), str(size)], cwd=shm, check=True)
        for i in range(rounds):
            ws = os.path.join(disk, f'ws{i}')
            os.mkdir(ws)
            ours.append(saved_ms(sandbox, ws, n_files, size))
            same.append(saved_ms(sandbox, ws, n_files, size, [PY, '-c', 'pass']))
            shutil.rmtree(ws)
            dest = os.path.join(disk, f'cp{i}')
            t0 = time.perf_counter()
            subprocess.run(['cp', '-a', shm, dest], check=True)
            peer.append((time.perf_counter() - t0) * 1000)
            shutil.rmtree(dest)
    finally:
        shutil.rmtree(shm, ignore_errors=True)
        shutil.rmtree(disk, ignore_errors=True)
    return statistics.median(ours), statistics.median(peer), statistics.median(same)


def main():
    sandbox = os.environ.get('RECKON_SANDBOX')
    if not sandbox:
        print('RECKON_SANDBOX is not set: nothing to measure')
        return 77
    ws = tempfile.mkdtemp(prefix='reckon-bench-')
    # Its own folder for bwrap: as root, reckon-sandbox hands a root-owned
    # workspace to its unprivileged uid, which bwrap's user may not enter.
    bw_ws = tempfile.mkdtemp(prefix='reckon-bench-bwrap-')
    try:
        prog = [PY, '-c', 'pass']
        cmds = [prog, [sandbox, '--workspace', ws, '--'] + prog]
        if shutil.which('bwrap'):
            cmds.append(bwrap_cmd(bw_ws) + prog)
        got, cpu = medians_ms(cmds)
        plain, ours = got[0], got[1]
        bw = got[2] if len(got) > 2 else None
    finally:
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(bw_ws, ignore_errors=True)

    added = ours - plain
    print(f'python3 -c pass, median of {RUNS} runs each (round-robin), '
          f'load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs:')
    print(f'  {"":16} {"wall":>9} {"cpu":>9}')
    print(f'  {"plain":16} {plain:7.1f}ms {cpu[0]:7.1f}ms')
    print(f'  {"reckon-sandbox":16} {ours:7.1f}ms {cpu[1]:7.1f}ms'
          f'   wall {ours / plain:.2f}x plain, +{added:.1f} ms; cpu +{cpu[1] - cpu[0]:.1f} ms')
    if bw is not None:
        # bwrap's monitor exits without reaping its PID-1, so the program's
        # CPU time never reaches our rusage: no CPU figure for it.
        print(f'  {"bwrap":16} {bw:7.1f}ms {"n/a":>9}'
              f'   wall {bw / plain:.2f}x plain, +{bw - plain:.1f} ms  (bwrap without a seccomp filter)')
        print(f'  reckon-sandbox / bwrap (wall): {ours / bw:.2f}')
        print(f'target: no slower than bwrap (wall median): {"met" if ours <= bw else "NOT met"}')
    else:
        print('target: no slower than bwrap: not measured (bwrap is not installed)')
    print(f'target: < 10 ms added at the median (wall): {"met" if added < 10 else "NOT met"} (+{added:.1f} ms)')

    print('saving a capped workspace (--workspace-fs tmpfs) to its folder on disk, '
          'median of 5, against cp -a of the same tree from /dev/shm to the same disk:')
    all_met = True
    for n_files, size in ((40, 10 << 20), (20, 200 << 20)):
        ms, cp_ms, same_ms = save_medians(sandbox, n_files, size)
        all_met &= ms <= cp_ms
        print(f'  {n_files} files, {size >> 20:3} MiB: save {ms:7.1f} ms ({(size >> 20) / (ms / 1000):5.0f} MiB/s), '
              f'cp -a {cp_ms:7.1f} ms: {ms / cp_ms:.2f}x cp -a; {ms / ours:5.1f}x a sandbox start; '
              f'nothing changed: {same_ms:.2f} ms')
    print(f'target (save): no slower than cp -a (median): {"met" if all_met else "NOT met"}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
