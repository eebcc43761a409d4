#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# run.py — tests only: runs a test program as if Reckon were a Flatpak app
# on this plain machine (issue 11, "A Flatpak harness for a plain machine").
#
#   run.py --no-userns PATH [--mode flatpak|no-backend] -- TEST [ARG]...
#
# flatpak:    the fake portal (portal.py) starts outside; the test runs under
#             no-userns (Flatpak's seccomp: no new user namespaces, no mounts)
#             with flatpak-spawn (bin/) first on PATH and a stand-in for
#             /.flatpak-info, so rk-sandbox-launcher picks the flatpak backend.
# no-backend: the same filter, but no Flatpak and no flatpak-spawn: no
#             backend works, and Reckon must refuse to run code.
# The test's TAP output passes through; the harness adds comment lines that
# say what the outer sandbox provides and what reckon-sandbox still applies.
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--no-userns', required=True)
    ap.add_argument('--mode', choices=('flatpak', 'no-backend'), default='flatpak')
    ap.add_argument('--app-dir', action='append', default=[])
    ap.add_argument('command', nargs=argparse.REMAINDER)
    opts = ap.parse_args()
    cmd = opts.command[1:] if opts.command[:1] == ['--'] else opts.command
    if not shutil.which('bwrap'):
        print('1..0 # SKIP bubblewrap is not installed: the harness cannot make the sub-sandbox')
        return 0

    tmp = tempfile.mkdtemp(prefix='rk-flatpak-harness-')
    portal = None
    env = dict(os.environ)
    try:
        if opts.mode == 'flatpak':
            info = os.path.join(tmp, 'flatpak-info')
            with open(info, 'w') as f:
                f.write('[Application]\nname=io.github.reckon.Reckon\n')
            sock = os.path.join(tmp, 'portal.sock')
            app_dirs = [d for d in opts.app_dir if os.path.isdir(d)]
            portal = subprocess.Popen([sys.executable, os.path.join(HERE, 'portal.py'), sock] + app_dirs,
                                      stdout=subprocess.PIPE, text=True)
            if portal.stdout.readline().strip() != 'ready':
                print('Bail out! the harness portal did not start')
                return 1
            env['PATH'] = os.path.join(HERE, 'bin') + os.pathsep + env.get('PATH', '')
            env['RECKON_TEST_FLATPAK_INFO'] = info
            env['FLATPAK_HARNESS_PORTAL'] = sock
            print('# flatpak harness: the app runs under a seccomp filter like Flatpak\'s (no new user'
                  ' namespaces, no mounts); code runs through flatpak-spawn --sandbox --no-network'
                  ' --clear-env into bubblewrap started by a stand-in portal.')
            print('# provided by the outer sandbox instead of reckon-sandbox: user, PID, network'
                  ' (only lo), IPC and UTS namespaces; the mounts (runtime read-only, private /tmp,'
                  ' /dev and /proc, no home, no D-Bus/X11/Wayland sockets, only the workspace exposed)')
            print('# still applied by reckon-sandbox --nested: no_new_privs, its seccomp filter,'
                  ' rlimits (memory as RLIMIT_AS, processes, CPU, file size, open files), only the'
                  ' passed fds, the clean environment, the wall-clock timeout, the workspace disk and'
                  ' file limits, and the supervisor that kills every process of the run')
        else:
            env.pop('RECKON_TEST_FLATPAK_INFO', None)
            env['PATH'] = '/usr/bin:/bin'
            print('# no-backend harness: no new user namespaces and no Flatpak: Reckon must refuse to run code')
        sys.stdout.flush()
        p = subprocess.run([opts.no_userns] + cmd, env=env)
        return p.returncode
    finally:
        if portal is not None:
            portal.terminate()
            try:
                portal.wait(5)
            except subprocess.TimeoutExpired:
                portal.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
