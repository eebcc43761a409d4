#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# run-user-scope-systemd.py — runs test-user-scope (or another TAP test: the
# kernel tests, the escape suite) against a real `systemd --user` on cgroup
# v2, as a desktop has it, on a machine booted with cgroup v1.
#
#   run-user-scope-systemd.py PROGRAM [ARG]...
#
# As root: in a private mount namespace, mounts the machine's one cgroup v2
# hierarchy at /sys/fs/cgroup (where the v1 controllers were), makes a group
# for the unprivileged account reckon-test and delegates it (chown), marks the
# namespace as booted with systemd (/run/systemd/system), then starts the
# real user manager (`systemd --user`) as that account with its own runtime
# folder; its own dbus.socket starts the session bus. PROGRAM runs as that
# account on that bus, and its TAP output is this test's. Everything
# goes with the namespace; the group is removed at the end.
#
# What this does not give: controllers. Every controller of these machines
# is bound to cgroup v1, and a controller bound there cannot be enabled on
# v2, so the scope's MemoryMax and TasksMax are recorded by systemd but not
# enforced by the kernel (test-user-scope says so where it looks).

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time

USER = 'reckon-test'
SYSTEMD = '/usr/lib/systemd/systemd'


def skip(reason):
    print(f'1..0 # SKIP {reason}', flush=True)
    sys.exit(0)


def v2_root():
    """Where the machine's cgroup v2 hierarchy is mounted, or None."""
    with open('/proc/self/mounts') as f:
        for line in f:
            parts = line.split()
            if parts[2] == 'cgroup2':
                return parts[1]
    return None


def inner(argv, group, user):
    """In the private mount namespace, as root."""
    pw = pwd.getpwnam(user)
    subprocess.run(['mount', '-t', 'cgroup2', 'none', '/sys/fs/cgroup'], check=True)
    # This process (and so everything below) moves into the delegated group.
    with open(f'/sys/fs/cgroup{group}/cgroup.procs', 'w') as f:
        f.write(str(os.getpid()))
    subprocess.run(['mount', '-t', 'tmpfs', '-o', 'mode=755', 'none', '/run/user'], check=True)
    os.makedirs('/run/systemd', exist_ok=True)
    subprocess.run(['mount', '-t', 'tmpfs', '-o', 'mode=755', 'none', '/run/systemd'], check=True)
    os.mkdir('/run/systemd/system')
    runtime = f'/run/user/{pw.pw_uid}'
    os.mkdir(runtime, 0o700)
    os.chown(runtime, pw.pw_uid, pw.pw_gid)
    home = tempfile.mkdtemp(prefix='reckon-user-scope-home-')
    os.chown(home, pw.pw_uid, pw.pw_gid)
    env = {
        'HOME': home, 'USER': user, 'LOGNAME': user, 'PATH': '/usr/bin:/bin',
        'XDG_RUNTIME_DIR': runtime,
        'DBUS_SESSION_BUS_ADDRESS': f'unix:path={runtime}/bus',
    }
    for name in ('RECKON_KERNEL_DIR', 'RECKON_SANDBOX', 'RECKON_SOURCE_ROOT', 'RECKON_BUILD_ROOT',
                 'RECKON_TEST_DATA', 'G_DEBUG', 'MALLOC_CHECK_', 'ASAN_OPTIONS', 'UBSAN_OPTIONS',
                 'G_MESSAGES_DEBUG'):
        if name in os.environ:
            env[name] = os.environ[name]
    as_user = ['setpriv', f'--reuid={pw.pw_uid}', f'--regid={pw.pw_gid}', '--init-groups']
    log = open(os.path.join(home, 'systemd.log'), 'w')
    manager = subprocess.Popen(as_user + [SYSTEMD, '--user', '--log-target=console'],
                               env=env, stdout=log, stderr=log)
    try:
        # Until the manager is on its own bus and has started up.
        ready = False
        for _ in range(200):
            if manager.poll() is not None:
                break
            r = subprocess.run(as_user + ['busctl', '--user', 'status', 'org.freedesktop.systemd1'],
                               env=env, capture_output=True)
            if r.returncode == 0:
                ready = True
                break
            time.sleep(0.1)
        if not ready:
            log.flush()
            with open(os.path.join(home, 'systemd.log')) as f:
                tail = f.read()[-600:].replace('\n', ' | ')
            skip(f'systemd --user did not come up on cgroup v2 here: {tail}')
        env['RECKON_TEST_USER_SCOPE_REQUIRED'] = '1'
        rc = subprocess.run(as_user + argv, env=env).returncode
    finally:
        subprocess.run(as_user + ['systemctl', '--user', 'exit'], env=env, capture_output=True)
        try:
            manager.wait(timeout=10)
        except subprocess.TimeoutExpired:
            manager.kill()
            manager.wait()
        shutil.rmtree(home, ignore_errors=True)
    sys.exit(rc)


def remove_group(path):
    for root, dirs, _ in os.walk(path, topdown=False):
        for d in dirs:
            try:
                os.rmdir(os.path.join(root, d))
            except OSError:
                pass
    try:
        os.rmdir(path)
    except OSError:
        pass


def main():
    if len(sys.argv) > 4 and sys.argv[1] == '--inner':
        inner(sys.argv[4:], sys.argv[2], sys.argv[3])
        return
    argv = sys.argv[1:]
    if os.path.exists('/sys/fs/cgroup/cgroup.controllers') and os.geteuid() != 0:
        # A desktop: the machine's own user manager, if there is one.
        sys.exit(subprocess.run(argv).returncode)
    if os.geteuid() != 0:
        skip('no cgroup v2 at /sys/fs/cgroup, and setting one up for a user manager needs root '
             '(a cgroup2 mount in a private mount namespace, a delegated group)')
    if not os.access(SYSTEMD, os.X_OK) or not shutil.which('busctl') or not shutil.which('setpriv'):
        skip(f'{SYSTEMD}, busctl or setpriv is missing: no real user manager to ask')
    root = v2_root()
    if root is None:
        skip('no cgroup v2 hierarchy is mounted on this machine (the test uses the one the kernel has)')
    try:
        pwd.getpwnam(USER)
    except KeyError:
        if subprocess.run(['useradd', '--system', '--no-create-home', '--shell', '/usr/sbin/nologin', USER],
                          capture_output=True).returncode != 0:
            skip(f'no account {USER} and useradd failed')
    pw = pwd.getpwnam(USER)
    # /sys/fs/cgroup of the namespace shows the hierarchy mounted at @root.
    name = f'reckon-user-scope-{os.getpid()}'
    group = f'/{name}/user'
    os.makedirs(f'{root}{group}')
    for dirpath, _, files in os.walk(f'{root}{group}'):
        os.chown(dirpath, pw.pw_uid, pw.pw_gid)
        for f in files:
            if f in ('cgroup.procs', 'cgroup.threads', 'cgroup.subtree_control'):
                os.chown(os.path.join(dirpath, f), pw.pw_uid, pw.pw_gid)
    try:
        rc = subprocess.run(['unshare', '--mount', '--propagation', 'private', '--',
                             sys.executable, os.path.abspath(__file__), '--inner', group, USER, *argv]).returncode
    finally:
        remove_group(f'{root}/{name}')
    sys.exit(rc)


if __name__ == '__main__':
    main()
