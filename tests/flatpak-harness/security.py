#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# security.py — tests only: the escape suite (tests/security/run-security.py)
# through the flatpak backend, inside the harness (run.py). Each reckon-sandbox
# command of the suite goes through sandbox-via-portal.py: flatpak-spawn
# --sandbox ... reckon-sandbox --nested. The suite's TAP passes through; a
# case listed below, where the flatpak backend differs from the userns one on
# purpose or by a known limit, is marked TODO with the reason (an expected
# failure, never a pass). Any other failure fails this test.
#
#   security.py RUN-SECURITY.PY --helper PATH
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (substring of the case name, why it differs under the flatpak backend)
OUTER = 'provided by the outer sandbox instead'
ROOT = 'harness run as root: the sub-sandbox uid maps to host root (a Flatpak app never runs as root)'
PLUMB = 'harness plumbing: the suite addresses the userns layout (binds at /t, /kernel, /workspace; host PIDs)'
KNOWN = [
    ('environment is built from scratch', 'the flatpak backend adds RECKON_WORKSPACE (the workspace path; there is no /workspace)'),
    ('/home, /root, /run/user and /var are not mounted', OUTER + ': the sub-sandbox has a /var (empty)'),
    ('/etc/passwd is synthetic with one user', OUTER + ': its own synthetic passwd'),
    ('host name and uname are the sandbox', OUTER + ': its own UTS namespace and host name'),
    ('/tmp and /dev/shm are private and empty', OUTER + ': a private /tmp, in which the exposed paths under /tmp appear'),
    ('no capabilities, no_new_privs, seccomp filter on', 'no capability is held, but without CAP_SETPCAP the bounding set cannot be emptied; no_new_privs stops exec from granting any'),
    ('writing /etc fails with EROFS', OUTER + ': the harness root is a tmpfs (Flatpak\'s is the runtime, read-only)'),
    ('writing the root folder fails with EROFS', OUTER + ': the harness root is a tmpfs'),
    ('a --ro-bind folder cannot be written', PLUMB),
    ('rmtree of every top folder', PLUMB),
    ('filling the private /tmp stops at --tmp-size', 'limit: /tmp is the outer sandbox\'s; --tmp-size cannot apply, only RLIMIT_FSIZE per file'),
    ('inodes of the private /tmp are capped', 'limit: /tmp is the outer sandbox\'s; no inode cap'),
    ('filling the RAM-backed /dev/shm', 'limit: /dev/shm is the outer sandbox\'s; only RLIMIT_FSIZE per file'),
    ('/tmp and /dev/shm share one --tmp-size budget', 'limit: /tmp and /dev/shm are the outer sandbox\'s'),
    ('no controlling terminal', OUTER + ': /dev/tty exists but gives ENXIO (no controlling terminal either way)'),
    ('PID 1 (the reaper) cannot be read or written', 'limit: PID 1 is the outer sandbox\'s init (bubblewrap), same uid; ' + ROOT),
    ('PID 1 (the reaper) runs under the seccomp filter', 'limit: PID 1 is the outer sandbox\'s init (bubblewrap), not reckon-sandbox'),
    ('SIGKILL to the parent (PID 1) is ignored', 'PID 1 is bubblewrap\'s init: killing it ends the whole run (nothing survives; no escape)'),
    ('installed filter:', PLUMB + ' (the C helper is looked up under the monitor\'s host PID)'),
    ('fork bomb stops at --max-procs', ROOT + ': RLIMIT_NPROC is never enforced for host root (the run is still stopped, by the walker that cannot follow so many processes)'),
    ('thread bomb stops at --max-procs', ROOT + ': RLIMIT_NPROC is never enforced for host root'),
    ('a setup failure exits 125', PLUMB + ' (a missing workspace cannot be exposed)'),
    ('set-id files made inside leave no set-id bit', ROOT + ': files land as host root'),
    ('cannot hold 768 MiB together', 'limit: no cgroup inside a Flatpak; --memory is RLIMIT_AS per process (docs/sandbox.md)'),
    ('OOM kill of the program is reported', 'limit: no cgroup inside a Flatpak'),
    ('exhausting inotify instances inside', 'limit: the per-user-namespace counters belong to the outer sandbox\'s namespace'),
    ('never gets the caller\'s terminal', 'limit: --nested does not replace a terminal on fds 0-2 yet (the portal passes the caller\'s fds through)'),
    ('--pty: a fresh terminal', 'limit: --nested has no --pty yet'),
    ('hard-linked into the workspace from outside', ROOT + ': the file outside is the sub-sandbox uid\'s own'),
    ('inputs (--input), bound workspace', 'limit: --nested makes no mount, so an input is as writable as the rest of the exposed workspace; the walker counts only what it grew by (docs/sandbox.md, "Inputs")'),
    ('--net loopback', 'the outer sandbox decides the network (flatpak-spawn --no-network: only lo); --nested refuses --net loopback'),
    ('capped workspace:', 'limit: --workspace-fs tmpfs needs a mount namespace of its own, which --nested does not make (the walker bounds the workspace there)'),
    ('the uid and gid maps seen inside name no host uid', 'limit: the maps are the outer sandbox\'s (Flatpak maps the user\'s own uid; --nested can make no user namespace to hide it)'),
    ('--start-fd:', 'not used there: the launcher passes --start-fd only to the userns backend on cgroup v2 (no cgroup of ours in a Flatpak); ' + PLUMB + ' (the fd is not forwarded through the portal)'),
]


def known(name):
    for key, why in KNOWN:
        if key in name:
            return why
    return None


def main():
    runner = sys.argv[1]
    env = dict(os.environ)
    env['RECKON_REAL_SANDBOX'] = env['RECKON_SANDBOX']
    env['RECKON_SANDBOX'] = os.path.join(HERE, 'sandbox-via-portal.py')
    p = subprocess.Popen([sys.executable, runner] + sys.argv[2:], env=env, stdout=subprocess.PIPE, text=True)
    failed = todo = passed = 0
    for line in p.stdout:
        m = re.match(r'not ok (\d+) - (.*)$', line.rstrip('\n'))
        if m and '# TODO' not in line and '# SKIP' not in line:
            why = known(m.group(2))
            if why is not None:
                line = 'not ok %s - %s # TODO flatpak backend: %s\n' % (m.group(1), m.group(2), why)
                todo += 1
            else:
                failed += 1
        elif line.startswith('ok '):
            passed += 1
        sys.stdout.write(line)
        sys.stdout.flush()
    p.wait()
    print('# flatpak backend: %d cases pass, %d differ as listed (TODO, with the reason), %d fail'
          % (passed, todo, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
