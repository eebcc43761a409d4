#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# sandbox-via-portal.py — tests only: takes a reckon-sandbox command line (as
# the security suite writes it) and runs it the way rk-sandbox-launcher's
# flatpak backend does: flatpak-spawn --sandbox --no-network --clear-env
# --sandbox-expose-path=WS --forward-fd=N... reckon-sandbox --nested ...,
# with a control pipe that carries the signals this process receives and
# whose end (this process gone) ends the run. In the sub-sandbox there is no
# /workspace: the workspace is at its own path, so "/workspace" in the
# program's arguments is rewritten to it, and the suite's helper (bound at
# /t/... by the userns backend) is exposed read-only at its own path.
#
#   RECKON_REAL_SANDBOX=/path/reckon-sandbox sandbox-via-portal.py ARGS...
import os
import signal
import subprocess
import sys

VALUE_OPTS = {'--workspace', '--memory', '--cpu-seconds', '--timeout', '--max-procs', '--max-file-size',
              '--disk', '--max-files', '--max-open-files', '--tmp-size', '--pass-fd', '--status-fd'}
CONTROL_FD = 9
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def copy_helper(src):
    import hashlib
    import shutil
    data = open(src, 'rb').read()
    folder = '/var/tmp/rk-flatpak-harness-%s' % hashlib.sha256(data).hexdigest()[:16]
    dest = os.path.join(folder, os.path.basename(src))
    if not os.path.exists(dest):
        os.makedirs(folder, mode=0o755, exist_ok=True)
        tmp = dest + '.%d' % os.getpid()
        shutil.copy(src, tmp)
        os.chmod(tmp, 0o555)
        os.rename(tmp, dest)
    return dest


def main():
    import ctypes
    # Like reckon-sandbox: die with the caller (the control pipe then ends the run).
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)     # PR_SET_PDEATHSIG
    real_sandbox = os.environ['RECKON_REAL_SANDBOX']
    args = sys.argv[1:]
    opts, binds, ws, fds, prog = [], [], None, [], []
    i = 0
    while i < len(args):
        a = args[i]
        if a == '--':
            prog = args[i + 1:]
            break
        if a == '--ro-bind' and i + 2 < len(args):
            src, dest = args[i + 1], args[i + 2]
            if dest.startswith('/t/') and os.path.isfile(src):
                # A copy outside /tmp (reckon-sandbox reserves /tmp), exposed
                # read-only at its own path, as an app's /app files would be.
                real = copy_helper(src)
                binds.append((dest, real))
                opts += ['--ro-bind', real, real]
            else:
                opts += [a, src, dest]
            i += 3
            continue
        if a == '--setenv' and i + 2 < len(args):
            opts += args[i:i + 3]
            i += 3
            continue
        if a in VALUE_OPTS and i + 1 < len(args):
            if a == '--workspace':
                ws = args[i + 1]
            if a in ('--pass-fd', '--status-fd'):
                fds.append(int(args[i + 1]))
            opts += args[i:i + 2]
            i += 2
            continue
        opts.append(a)
        i += 1
    if ws is None:
        os.execv(real_sandbox, [real_sandbox] + args)      # let reckon-sandbox say what is wrong

    wsreal = os.path.realpath(ws) if os.path.isdir(ws) else ws

    def inside(arg):
        for dest, src in binds:
            arg = arg.replace(dest, src)
        return arg.replace('/workspace', wsreal)

    r, w = os.pipe()
    os.dup2(r, CONTROL_FD)
    os.close(r)
    cmd = ['flatpak-spawn', '--sandbox', '--no-network', '--clear-env',
           '--sandbox-expose-path=' + wsreal, '--directory=' + wsreal]
    for _dest, src in binds:
        cmd.append('--sandbox-expose-path-ro=' + src)
    cmd += ['--forward-fd=%d' % fd for fd in fds] + ['--forward-fd=%d' % CONTROL_FD]
    cmd += [real_sandbox, '--nested', '--control-fd', str(CONTROL_FD)] + opts
    cmd += ['--setenv', 'HOME', wsreal, '--setenv', 'RECKON_WORKSPACE', wsreal, '--']
    cmd += [inside(a) for a in prog]
    if os.path.isdir(ws):
        os.chdir(ws)
    proc = subprocess.Popen(cmd, pass_fds=fds + [CONTROL_FD])
    os.close(CONTROL_FD)
    for fd in fds:
        os.close(fd)

    def on_signal(sig, _frame):
        try:
            os.write(w, bytes([int(sig)]))
        except OSError:
            pass

    for sig in FORWARDED:
        signal.signal(sig, on_signal)
    while True:
        try:
            rc = proc.wait()
            break
        except InterruptedError:
            continue
    os.close(w)
    sys.exit(rc if rc >= 0 else 128 - rc)


if __name__ == '__main__':
    main()
