#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# portal.py — tests only: a stand-in for the Flatpak portal's sandboxed Spawn
# (org.freedesktop.portal.Flatpak.Spawn with SANDBOX | NO_NETWORK |
# CLEAR_ENV), for a plain machine. It runs OUTSIDE the harness's seccomp
# filter, as the real portal runs outside the app, and starts each command in
# bubblewrap with new user, PID, IPC, UTS and (with no-network) network
# namespaces, the runtime read-only, its own /tmp and /dev, no home folder,
# only the exposed paths, and a clean environment. It never shares PIDs.
#
#   portal.py SOCKET APP_DIR... (the folders that stand for /app)
#
# Wire (flatpak-spawn in this folder speaks it): the client sends one JSON
# request with its fds (SCM_RIGHTS); the portal answers {"pid": N}, then
# {"exit": WAIT_STATUS} when the command ends. {"signal": N, "pg": B} from
# the client is SpawnSignal: kill or killpg of the bubblewrap process. A
# client that goes away changes nothing (no --watch-bus).
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading

SOCKET = sys.argv[1]
APP_DIRS = sys.argv[2:]
ETC_FILES = ['ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'alternatives', 'fonts', 'matplotlibrc',
             'localtime', 'mime.types', 'ssl']
STATE = tempfile.mkdtemp(prefix='rk-portal-')
PASSWD = os.path.join(STATE, 'passwd')
GROUP = os.path.join(STATE, 'group')
with open(PASSWD, 'w') as f:
    f.write('root:x:0:0:root:/:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/:/usr/sbin/nologin\n')
with open(GROUP, 'w') as f:
    f.write('root:x:0:\nnogroup:x:65534:\n')


def bwrap_argv(req):
    # A Flatpak app never runs as root: inside, the command is an ordinary
    # uid (mapped to whoever runs the harness, so the workspace stays its).
    a = ['bwrap', '--unshare-user', '--uid', '1000', '--gid', '1000', '--unshare-pid', '--unshare-ipc',
         '--unshare-uts', '--unshare-cgroup-try', '--hostname', 'flatpak-sub', '--die-with-parent']
    if req.get('no_network'):
        a.append('--unshare-net')
    a += ['--ro-bind', '/usr', '/usr']
    for name in ('lib', 'lib64', 'bin', 'sbin'):
        if os.path.islink('/' + name):
            a += ['--symlink', os.readlink('/' + name), '/' + name]
    for name in ETC_FILES:
        if os.path.exists('/etc/' + name):
            a += ['--ro-bind', '/etc/' + name, '/etc/' + name]
    a += ['--ro-bind', PASSWD, '/etc/passwd', '--ro-bind', GROUP, '/etc/group']
    a += ['--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/dev/shm', '--dir', '/var/tmp']
    for d in APP_DIRS:
        a += ['--ro-bind', d, d]
    for p in req.get('expose_ro', []):
        a += ['--ro-bind', p, p]
    for p in req.get('expose', []):
        a += ['--bind', p, p]
    if req.get('cwd'):
        a += ['--chdir', req['cwd']]
    a.append('--clearenv')
    env = {'PATH': '/usr/bin:/bin'}
    if not req.get('clear_env'):
        env.update(req.get('inherit_env', {}))
    env.update(req.get('env', {}))
    for k, v in env.items():
        a += ['--setenv', k, v]
    return a + ['--'] + req['argv']


def send(conn, obj, lock):
    with lock:
        try:
            conn.sendall(json.dumps(obj).encode() + b'\n')
        except OSError:
            pass


def serve(conn):
    lock = threading.Lock()
    buf = b''
    fds = []
    while b'\n' not in buf:
        msg, got, _flags, _addr = socket.recv_fds(conn, 1 << 20, 64)
        if not msg:
            return
        buf += msg
        fds += got
    line, buf = buf.split(b'\n', 1)
    req = json.loads(line)
    targets = req['fds']              # fds[i] is the number fds received [i] gets
    if not req.get('sandbox'):
        send(conn, {'error': 'only sandboxed spawn is emulated'}, lock)
        return
    argv = bwrap_argv(req)



    def child_setup():
        os.setsid()                   # the portal's child is its own process group
        # Out of the way first, then onto the numbers asked for; everything
        # else is closed at exec (close-on-exec, so Popen's own pipe works).
        for i, fd in enumerate(fds):
            os.dup2(fd, 200 + i, inheritable=False)
        for i, target in enumerate(targets):
            os.dup2(200 + i, target, inheritable=True)
        for fd in range(3, 256):
            if fd not in targets:
                try:
                    fcntl.fcntl(fd, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
                except OSError:
                    pass

    try:
        proc = subprocess.Popen(argv, preexec_fn=child_setup, close_fds=False,
                                stdin=None, stdout=None, stderr=None)
    except OSError as e:
        send(conn, {'error': str(e)}, lock)
        return
    finally:
        for fd in fds:
            os.close(fd)
    send(conn, {'pid': proc.pid}, lock)

    def wait():
        _pid, status = os.waitpid(proc.pid, 0)
        proc.returncode = 0
        send(conn, {'exit': status}, lock)
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    threading.Thread(target=wait, daemon=True).start()
    while True:
        while b'\n' not in buf:
            try:
                msg = conn.recv(4096)
            except OSError:
                msg = b''
            if not msg:
                conn.close()
                return
            buf += msg
        line, buf = buf.split(b'\n', 1)
        cmd = json.loads(line)
        if 'signal' in cmd:
            try:
                if cmd.get('pg'):
                    os.killpg(proc.pid, int(cmd['signal']))
                else:
                    os.kill(proc.pid, int(cmd['signal']))
            except OSError:
                pass


def main():
    if os.path.exists(SOCKET):
        os.unlink(SOCKET)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(SOCKET)
    srv.listen(64)
    print('ready', flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == '__main__':
    main()
