#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# run-security.py — the sandbox escape suite (docs/threat-model.md, "Attack classes"):
# hostile programs run through the real reckon-sandbox, one asserted outcome
# each, reported as TAP. Groups follow docs/threat-model.md: info, fs, net, kernel, other.
#
#   run-security.py --helper PATH [--as-user NAME] [--only SUBSTRING]
#
# With --as-user (run as root) the same suite is re-run as an unprivileged
# account, created with useradd if missing.

import argparse
import ctypes
import errno
import fcntl
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time

PY = '/usr/bin/python3'
SANDBOX = os.environ.get('RECKON_SANDBOX', '')
HELPER_INSIDE = '/t/sec-syscall'
HELPER = None
BASE = None
TESTS = []


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def case(group, name):
    def register(fn):
        TESTS.append((group, name, fn))
        return fn
    return register


def check(cond, message):
    if not cond:
        raise Fail(message)


def equal(got, want, what='value'):
    if got != want:
        raise Fail(f'{what}: expected {want!r}, got {got!r}')


_ws_counter = 0


def new_workspace():
    global _ws_counter
    _ws_counter += 1
    path = os.path.join(BASE, f'ws{_ws_counter}')
    os.mkdir(path, 0o755)
    return path


class Result:
    def __init__(self, rc, out, err, status, elapsed):
        self.rc, self.out, self.err, self.status, self.elapsed = rc, out, err, status, elapsed

    def line(self):
        return self.out.decode(errors='replace').strip()

    def json(self):
        try:
            return json.loads(self.out.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise Fail(f'no JSON from the program (rc {self.rc}, stderr {self.err[-400:]!r})')

    def __repr__(self):
        return f'rc={self.rc} status={self.status} stderr={self.err[-300:]!r}'


# Prepended to every Python program run inside: raw system calls via ctypes.
PRELUDE = '''
import ctypes, errno, json, os, sys
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
def sc(nr, *args):
    ctypes.set_errno(0)
    r = _libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if r == 0 and nr in (56,):
        os._exit(0)
    return 'ok' if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
def oserr(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    return 'ok'
'''


def run(code=None, argv=None, opts=(), ws=None, timeout=60, stdin=subprocess.DEVNULL,
        pass_fds=(), stdout=subprocess.PIPE):
    """Runs one program through reckon-sandbox; returns its Result."""
    ws = ws or new_workspace()
    r, w = os.pipe()
    cmd = [SANDBOX, '--workspace', ws, '--status-fd', str(w),
           '--ro-bind', HELPER, HELPER_INSIDE, *opts, '--']
    cmd += argv if argv is not None else [PY, '-c', PRELUDE + textwrap.dedent(code)]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                           pass_fds=(w, *pass_fds), timeout=timeout)
    finally:
        os.close(w)
    elapsed = time.monotonic() - t0
    raw = os.read(r, 4096)
    os.close(r)
    try:
        status = json.loads(raw.decode()) if raw else None
    except ValueError:
        raise Fail(f'bad status line {raw!r}')
    res = Result(p.returncode, p.stdout or b'', p.stderr, status, elapsed)
    res.status_raw = raw
    return res


def py_line(code, **kw):
    res = run(code, **kw)
    if res.rc != 0:
        raise Fail(f'program failed: {res!r} stdout={res.out[-300:]!r}')
    return res.line()


def alive(token):
    """PIDs (host view) whose command line carries @token."""
    found = []
    for pid in os.listdir('/proc'):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                if token.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def token():
    return f'RKTOKEN{os.getpid()}x{time.monotonic_ns()}'


# Single raw system calls with an expected result: all of them run in one
# sandboxed process (the first such test runs the batch), each reported as
# its own test. A call that wrongly succeeded cannot hide another's failure:
# its own test fails.
SYSCALL_BATCH = []
_batch_results = {}


def syscall_case(group, name, call, want):
    SYSCALL_BATCH.append(call)

    def fn():
        if not _batch_results:
            calls = [list(c) for c in SYSCALL_BATCH]
            got = run(f'print(json.dumps([sc(*c) for c in {calls!r}]))').json()
            _batch_results.update(zip(map(tuple, SYSCALL_BATCH), got))
        equal(_batch_results[tuple(call)], want)
    case(group, name)(fn)


# ---------------------------------------------------------------------------
# [SE:info] Sensitive information

@case('info', 'environment is built from scratch (no secrets, bus, display)')
def _():
    env = run('print(json.dumps(dict(os.environ)))').json()
    want = {'PATH', 'LANG', 'HOME', 'TMPDIR', 'MPLBACKEND', 'MPLCONFIGDIR',
            'PYTHONDONTWRITEBYTECODE', 'OPENBLAS_NUM_THREADS'}
    equal(set(env), want, 'variables (docs/sandbox.md)')
    equal(env['PATH'], '/usr/bin:/bin', 'PATH')
    equal(env['HOME'], '/workspace', 'HOME')


@case('info', '--setenv adds to the clean environment, nothing else leaks')
def _():
    env = run('print(json.dumps(dict(os.environ)))',
              opts=['--setenv', 'RK_X', 'a b', '--setenv', 'LANG', 'C']).json()
    equal(env.get('RK_X'), 'a b', 'RK_X')
    equal(env.get('LANG'), 'C', 'LANG')
    check('RECKON_SECRET_API_KEY' not in env, 'a host variable leaked')


@case('info', 'a secret folder of the host (like ~/.ssh) is absent')
def _():
    secret = os.path.join(BASE, 'home', '.ssh')
    os.makedirs(secret, exist_ok=True)
    with open(os.path.join(secret, 'id_ed25519'), 'w') as f:
        f.write('secret')
    got = py_line(f'print(oserr(open, {os.path.join(secret, "id_ed25519")!r}))')
    equal(got, 'ENOENT')


@case('info', '/home, /root, /run/user and /var are not mounted')
def _():
    got = py_line('print([p for p in ("/home", "/root", "/run", "/run/user", "/var", "/mnt", "/opt", "/srv") if os.path.exists(p)])')
    equal(got, '[]')


@case('info', '/etc/shadow is absent')
def _():
    equal(py_line('print(oserr(open, "/etc/shadow"))'), 'ENOENT')


@case('info', '/etc/passwd is synthetic with one user')
def _():
    got = run('print(json.dumps([open("/etc/passwd").read(), open("/etc/group").read()]))').json()
    equal(got[0].splitlines(), ['reckon:x:1000:1000:Reckon:/workspace:/bin/sh'], 'passwd')
    equal(len(got[1].splitlines()), 1, 'group lines')


@case('info', '/proc lists only sandbox PIDs')
def _():
    pids = run('print(json.dumps(sorted(int(p) for p in os.listdir("/proc") if p.isdigit())))').json()
    check(pids[:2] == [1, 2] and len(pids) <= 3, f'unexpected PIDs {pids}')


@case('info', 'the host PID of the caller is not visible in /proc')
def _():
    me = os.getpid()
    equal(py_line(f'print(oserr(open, "/proc/{me}/environ"))'), 'ENOENT')


@case('info', 'host name and uname are the sandbox\'s')
def _():
    got = run('import socket; print(json.dumps([socket.gethostname(), os.uname().nodename]))').json()
    equal(got, ['reckon', 'reckon'])


syscall_case('info', 'syslog(2) is refused with EPERM', (103, 10, 0, 0), 'EPERM')


syscall_case('info', 'add_key is refused with EPERM', (248, 0, 0, 0, 0, 0), 'EPERM')


syscall_case('info', 'keyctl is refused with EPERM', (250, 0, -3, 0), 'EPERM')


syscall_case('info', 'request_key is refused with EPERM', (249, 0, 0, 0, 0), 'EPERM')


@case('info', '/proc/kallsyms shows no kernel addresses, /sys is absent')
def _():
    got = run('''
        try:
            addrs = {l.split()[0] for l in open("/proc/kallsyms")}
        except OSError as e:
            addrs = set()
        print(json.dumps([sorted(addrs - {"0000000000000000"})[:3], os.path.exists("/sys/firmware"), os.path.exists("/sys")]))
    ''').json()
    equal(got, [[], False, False])


@case('info', '/tmp and /dev/shm are private and empty')
def _():
    marker = f'/tmp/reckon-sec-marker-{os.getpid()}'
    open(marker, 'w').close()
    shm = f'/dev/shm/reckon-sec-marker-{os.getpid()}'
    try:
        open(shm, 'w').close()
    except OSError:
        shm = None
    try:
        got = py_line('print([os.listdir("/tmp"), os.listdir("/dev/shm")])')
    finally:
        os.unlink(marker)
        if shm:
            os.unlink(shm)
    equal(got, '[[], []]')


@case('info', 'a fresh workspace holds nothing of an earlier run')
def _():
    run('open("/workspace/left-over", "w").write("x")')
    equal(py_line('print(os.listdir("/workspace"))'), '[]')


@case('info', 'no capabilities, no_new_privs, seccomp filter on, uid 1000')
def _():
    got = run('''
        st = dict(l.split(":", 1) for l in open("/proc/self/status"))
        print(json.dumps({k: st[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "Uid")}))
    ''').json()
    for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'):
        equal(got[k], '0000000000000000', k)
    equal(got['NoNewPrivs'], '1', 'NoNewPrivs')
    equal(got['Seccomp'], '2', 'Seccomp')
    equal(got['Uid'].split(), ['1000'] * 4, 'Uid')


# ---------------------------------------------------------------------------
# [SE:fs] Filesystem manipulation

def write_errno(path):
    return py_line(f'print(oserr(lambda: open({path!r}, "w")))')


@case('fs', 'writing /usr fails with EROFS')
def _():
    equal(write_errno('/usr/reckon-x'), 'EROFS')


@case('fs', 'writing /etc fails with EROFS')
def _():
    equal(write_errno('/etc/reckon-x'), 'EROFS')


@case('fs', 'writing the root folder fails with EROFS')
def _():
    equal(write_errno('/reckon-x'), 'EROFS')


@case('fs', 'writing site-packages fails with EROFS')
def _():
    equal(py_line('import pathlib, json as j; print(oserr(lambda: open(pathlib.Path(j.__file__).parent / "x.py", "w")))'), 'EROFS')


@case('fs', 'a --ro-bind folder cannot be written')
def _():
    src = os.path.join(BASE, 'robind')
    os.makedirs(src, exist_ok=True)
    res = run('print(oserr(lambda: open("/kernel/x", "w")))', opts=['--ro-bind', src, '/kernel'])
    equal(res.line(), 'EROFS')


@case('fs', '--ro-bind over the sandbox\'s own mounts is refused (exit 125)')
def _():
    src = os.path.join(BASE, 'robind3')
    os.makedirs(src, exist_ok=True)
    got = [run('pass', opts=['--ro-bind', src, d]).rc for d in ('/workspace/k', '/proc', '/', '//', '/tmp/x')]
    equal(got, [125] * 5)


@case('fs', 'rmtree of every top folder loses only the workspace and /tmp')
def _():
    # /usr and /proc are left out of the walk only to keep the suite fast
    # (shutil.rmtree visits every file there); /usr is probed directly.
    src = os.path.join(BASE, 'robind2')
    os.makedirs(src, exist_ok=True)
    keep = os.path.join(src, 'keep')
    open(keep, 'w').write('keep')
    ws = new_workspace()
    open(os.path.join(ws, 'lost'), 'w').close()
    got = run('''
        import shutil
        for top in os.listdir("/"):
            if top not in ("usr", "proc"):
                shutil.rmtree("/" + top, ignore_errors=True)
        print(json.dumps([oserr(os.unlink, "/usr/bin/python3"), oserr(os.rmdir, "/usr/share")]))
    ''', ws=ws, opts=['--ro-bind', src, '/kernel']).json()
    equal(got, ['EROFS', 'EROFS'], 'removing from /usr')
    check(os.path.exists(keep), 'a read-only bound file was removed')
    equal(os.listdir(ws), [], 'workspace after rmtree')
    equal(py_line('print(os.path.exists("/usr/bin/python3"))'), 'True', 'next run')


@case('fs', '/workspace and /tmp are nosuid and nodev')
def _():
    got = run('print(json.dumps([bool(os.statvfs(p).f_flag & os.ST_NOSUID) and bool(os.statvfs(p).f_flag & os.ST_NODEV) for p in ("/workspace", "/tmp", "/dev/shm", "/usr")]))').json()
    equal(got, [True, True, True, True])


@case('fs', 'a setuid copy of a binary gains nothing (no_new_privs, nosuid)')
def _():
    got = run('''
        import shutil, subprocess
        shutil.copy("/usr/bin/id", "/workspace/id")
        os.chmod("/workspace/id", 0o4755)
        print(json.dumps(subprocess.run(["/workspace/id", "-u"], capture_output=True, text=True).stdout.split()))
    ''').json()
    equal(got, ['1000'])


@case('fs', 'mknod of a block device fails with EPERM')
def _():
    equal(py_line('import stat; print(oserr(os.mknod, "/workspace/sda", stat.S_IFBLK | 0o600, os.makedev(8, 0)))'), 'EPERM')


syscall_case('fs', 'mount is refused with EPERM', (165, 0, 0, 0, 0, 0), 'EPERM')


syscall_case('fs', 'umount2 is refused with EPERM', (166, 0, 0), 'EPERM')


syscall_case('fs', 'pivot_root is refused with EPERM', (155, 0, 0), 'EPERM')


syscall_case('fs', 'chroot is refused with EPERM', (161, 0), 'EPERM')


syscall_case('fs', 'unshare(CLONE_NEWUSER) is refused with EPERM', (272, 0x10000000), 'EPERM')


syscall_case('fs', 'setns is refused with EPERM', (308, -1, 0), 'EPERM')


@case('fs', 'clone with each namespace flag is refused with EPERM')
def _():
    got = run('print(json.dumps([sc(56, f | 17, 0, 0, 0, 0) for f in (0x10000000, 0x20000, 0x20000000, 0x40000000, 0x8000000, 0x4000000, 0x2000000)]))').json()
    equal(got, ['EPERM'] * 7)


syscall_case('fs', 'clone3 fails with ENOSYS', (435, 0, 0), 'ENOSYS')


for _name, _nr, _args in [('fsopen', 430, (0, 0)), ('fsconfig', 431, (-1, 0, 0, 0, 0)),
                          ('fsmount', 432, (-1, 0, 0)), ('fspick', 433, (-1, 0, 0)),
                          ('open_tree', 428, (-1, 0, 0)), ('move_mount', 429, (-1, 0, -1, 0, 0)),
                          ('mount_setattr', 442, (-1, 0, 0, 0, 0))]:
    syscall_case('fs', f'{_name} fails with ENOSYS (CVE-2021-41133)', (_nr, *_args), 'ENOSYS')


@case('fs', '/proc/self/exe cannot be opened for writing')
def _():
    got = py_line('print(oserr(lambda: open("/proc/self/exe", "r+b")))')
    check(got in ('ETXTBSY', 'EROFS', 'EACCES'), f'got {got}')


syscall_case('fs', 'open_by_handle_at is refused with EPERM', (304, -1, 0, 0), 'EPERM')


@case('fs', 'a hard link from /usr into the workspace fails (EXDEV)')
def _():
    equal(py_line('print(oserr(os.link, "/usr/bin/python3", "/workspace/py"))'), 'EXDEV')


@case('fs', 'one growing file stops at --max-file-size (SIGXFSZ, limit file-size)')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'before.csv'), 'w').write('a,b\n1,2\n')
    res = run(argv=['/bin/sh', '-c', 'exec head -c 64M /dev/zero > big'], ws=ws, opts=['--max-file-size', '8M'])
    equal(res.rc, 128 + 25, 'exit status')
    equal(res.status, {'signal': 25, 'limit': 'file-size'}, 'status')
    check(os.path.getsize(os.path.join(ws, 'big')) <= 8 << 20, 'file grew past the limit')
    equal(open(os.path.join(ws, 'before.csv')).read(), 'a,b\n1,2\n', 'earlier file')
    equal(run('print("ok")', ws=ws).line(), 'ok', 'next run')


@case('fs', 'Python (which ignores SIGXFSZ) gets EFBIG at --max-file-size')
def _():
    ws = new_workspace()
    got = py_line('''
        def grow():
            with open("big", "wb") as f:
                while True:
                    f.write(b"x" * (1 << 20))
        print(oserr(grow))
    ''', ws=ws, opts=['--max-file-size', '8M'])
    equal(got, 'EFBIG')
    check(os.path.getsize(os.path.join(ws, 'big')) <= 8 << 20, 'file grew past the limit')


@case('fs', 'filling the workspace stops at --disk (limit disk, earlier files intact)')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'before.csv'), 'w').write('a,b\n1,2\n')
    res = run('''
        i = 0
        while True:
            with open(f"part{i}", "wb") as f:
                f.write(os.urandom(1 << 20) * 4)
            i += 1
    ''', ws=ws, opts=['--disk', '32M', '--max-file-size', '8M'], timeout=60)
    equal(res.rc, 128 + 9, 'exit status')
    equal(res.status, {'signal': 9, 'limit': 'disk'}, 'status')
    check(b'reckon-sandbox: stopped: disk limit exceeded' in res.err, f'stderr {res.err!r}')
    equal(open(os.path.join(ws, 'before.csv')).read(), 'a,b\n1,2\n', 'earlier file')
    for n in os.listdir(ws):
        if n.startswith('part'):
            os.unlink(os.path.join(ws, n))
    equal(run('print("ok")', ws=ws, opts=['--disk', '32M']).line(), 'ok', 'next run')


@case('fs', 'data hidden in a folder made unreadable still counts against --disk')
def _():
    ws = new_workspace()
    res = run('''
        import time
        os.mkdir("hide")
        for i in range(12):
            with open(f"hide/p{i}", "wb") as f:
                f.write(os.urandom(1 << 20) * 4)
        os.chmod("hide", 0)
        time.sleep(3)
        print("not stopped")
    ''', ws=ws, opts=['--disk', '32M'], timeout=60)
    equal(res.status, {'signal': 9, 'limit': 'disk'}, 'status')
    os.chmod(os.path.join(ws, 'hide'), 0o755)


@case('fs', 'a million empty files stop at --max-files (limit files)')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'before.csv'), 'w').write('x\n')
    res = run('''
        for i in range(10 ** 6):
            open(f"f{i}", "w").close()
        print("created them all")
    ''', ws=ws, opts=['--max-files', '2000'], timeout=90)
    equal(res.status, {'signal': 9, 'limit': 'files'}, 'status')
    equal(res.rc, 128 + 9, 'exit status')
    check(b'reckon-sandbox: stopped: files limit exceeded (2000)' in res.err, f'stderr {res.err!r}')
    equal(open(os.path.join(ws, 'before.csv')).read(), 'x\n', 'earlier file')
    shutil.rmtree(ws)
    os.mkdir(ws)
    equal(run('print("ok")', ws=ws).line(), 'ok', 'next run')


@case('fs', 'folders nested past the walker\'s depth stop the run (limit files)')
def _():
    res = run('''
        for i in range(400):
            os.mkdir("d")
            os.chdir("d")
        import time; time.sleep(3)
        print("not stopped")
    ''', timeout=60)
    equal(res.status, {'signal': 9, 'limit': 'files'}, 'status')


@case('fs', 'filling the private /tmp stops at --tmp-size (ENOSPC)')
def _():
    got = py_line('''
        def fill():
            with open("/tmp/fill", "wb") as f:
                while True:
                    f.write(b"x" * (1 << 20))
                    f.flush()
        print(oserr(fill))
    ''', opts=['--tmp-size', '8M'])
    equal(got, 'ENOSPC')


@case('fs', 'inodes of the private /tmp are capped (ENOSPC)')
def _():
    got = py_line('''
        def many():
            for i in range(10 ** 6):
                os.mkdir(f"/tmp/d{i}")
        print(oserr(many))
    ''', timeout=120)
    equal(got, 'ENOSPC')


@case('fs', '/proc/1/root leads only to the sandbox\'s own root')
def _():
    got = py_line('print(oserr(open, "/proc/1/root/etc/shadow"))')
    check(got in ('ENOENT', 'EACCES'), f'got {got}')


# ---------------------------------------------------------------------------
# [SE:net] External communication

@case('net', 'socket(AF_INET) fails with EAFNOSUPPORT (no urlopen)')
def _():
    equal(py_line('import socket; print(oserr(socket.socket, socket.AF_INET, socket.SOCK_STREAM))'), 'EAFNOSUPPORT')


@case('net', 'urlopen of an https URL fails')
def _():
    got = py_line('''
        import urllib.request
        try:
            urllib.request.urlopen("https://example.com", timeout=5)
            print("reached")
        except Exception as e:
            print("failed")
    ''')
    equal(got, 'failed')


@case('net', 'DNS lookups fail (getaddrinfo)')
def _():
    got = py_line('''
        import socket
        try:
            socket.getaddrinfo("example.com", 443)
            print("resolved")
        except OSError:
            print("failed")
    ''')
    equal(got, 'failed')


@case('net', 'a TCP service on host 127.0.0.1 cannot be reached')
def _():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(('127.0.0.1', 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    try:
        got = py_line(f'''
            import socket
            def go():
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.connect(("127.0.0.1", {port}))
            print(oserr(go))
        ''')
    finally:
        srv.close()
    equal(got, 'EAFNOSUPPORT')


@case('net', 'an abstract socket the host listens on is refused (own netns)')
def _():
    name = f'\0reckon-sec-{os.getpid()}'
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(name)
    srv.listen(1)
    try:
        got = py_line(f'''
            import socket
            def go():
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect({name!r})
            print(oserr(go))
        ''')
    finally:
        srv.close()
    equal(got, 'ECONNREFUSED')


@case('net', 'the abstract X11 socket is refused')
def _():
    got = py_line('''
        import socket
        def go():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect("\\0/tmp/.X11-unix/X0")
        print(oserr(go))
    ''')
    equal(got, 'ECONNREFUSED')


@case('net', 'the session-bus socket path is absent')
def _():
    got = py_line('''
        import socket
        def go():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect("/run/user/%d/bus" % 0)
        print(oserr(go))
    ''')
    equal(got, 'ENOENT')


@case('net', 'AF_UNIX socketpair works (the filter is not deny-all)')
def _():
    equal(py_line('import socket; a, b = socket.socketpair(); a.send(b"x"); print(b.recv(1).decode())'), 'x')


for _fam, _num in [('AF_PACKET', 17), ('AF_BLUETOOTH', 31), ('AF_VSOCK', 40), ('AF_ALG', 38),
                   ('AF_NETLINK', 16), ('AF_INET6', 10)]:
    syscall_case('net', f'socket({_fam}) fails with EAFNOSUPPORT', (41, _num, 2, 0), 'EAFNOSUPPORT')


syscall_case('net', 'a raw ICMP socket is refused', (41, 2, 3, 1), 'EAFNOSUPPORT')


syscall_case('net', 'a socket family with junk in the high bits is refused', (41, (1 << 32) | 2, 1, 0), 'EAFNOSUPPORT')


@case('net', 'the network namespace has only lo')
def _():
    got = py_line('print(sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:]))')
    equal(got, "['lo']")


@case('net', 'SysV shared memory of the host is not reachable (SysV IPC is refused: ENOSYS)')
def _():
    libc = ctypes.CDLL(None, use_errno=True)
    key = 0x52434B00 + (os.getpid() & 0xff)
    shmid = libc.shmget(key, 4096, 0o1600)
    check(shmid >= 0, 'cannot create the host segment')
    try:
        got = py_line(f'''
            libc = ctypes.CDLL(None, use_errno=True)
            r = libc.shmget({key}, 0, 0)
            print(errno.errorcode[ctypes.get_errno()] if r < 0 else "found")
        ''')
    finally:
        libc.shmctl(shmid, 0, None)
    equal(got, 'ENOSYS')


def with_pty(code):
    master, slave = os.openpty()
    try:
        return py_line(code, stdin=slave)
    finally:
        os.close(master)
        os.close(slave)


@case('net', 'TIOCSTI on a terminal fails with EPERM (CVE-2017-5226)')
def _():
    equal(with_pty('import fcntl, termios; print(oserr(fcntl.ioctl, 0, termios.TIOCSTI, b"x"))'), 'EPERM')


@case('net', 'TIOCSTI with junk in the high 32 bits is still refused')
def _():
    equal(with_pty('import termios; b = ctypes.create_string_buffer(b"x"); print(sc(16, 0, (1 << 32) | termios.TIOCSTI, ctypes.addressof(b)))'), 'EPERM')


@case('net', 'TIOCLINUX fails with EPERM (CVE-2023-28100)')
def _():
    equal(with_pty('b = ctypes.create_string_buffer(b"\\x06"); print(sc(16, 0, 0x541C, ctypes.addressof(b)))'), 'EPERM')


@case('net', 'TIOCLINUX with junk in the high 32 bits is still refused')
def _():
    equal(with_pty('b = ctypes.create_string_buffer(b"\\x06"); print(sc(16, 0, (7 << 32) | 0x541C, ctypes.addressof(b)))'), 'EPERM')


@case('net', 'no controlling terminal: /dev/tty cannot be opened, own session')
def _():
    got = with_pty('print([oserr(open, "/dev/tty"), os.getsid(0) == os.getpid()])')
    equal(got, "['ENOENT', True]")


@case('net', 'inherited fds 3..1024 are closed (EBADF)')
def _():
    extra = os.open('/dev/null', os.O_RDONLY)
    os.set_inheritable(extra, True)
    try:
        got = run(f'''
            import os
            print(json.dumps([fd for fd in range(3, 1025) if oserr(os.fstat, fd) != "EBADF"] + [oserr(os.write, {extra}, b"x")]))
        ''', pass_fds=(extra,)).json()
    finally:
        os.close(extra)
    equal(got, ['EBADF'])


@case('net', '--pass-fd keeps exactly that fd, at the same number')
def _():
    r, w = os.pipe()
    try:
        got = run(f'os.write({w}, b"hello"); print(json.dumps([fd for fd in range(1025) if oserr(os.fstat, fd) != "EBADF"]))',
                  opts=['--pass-fd', str(w)], pass_fds=(w,)).json()
        data = os.read(r, 5)
    finally:
        os.close(r)
        os.close(w)
    equal(data, b'hello', 'data through the passed fd')
    equal(got, [0, 1, 2, w], 'open fds')


syscall_case('net', 'ptrace(PTRACE_ATTACH) of PID 1 fails with EPERM', (101, 16, 1, 0, 0), 'EPERM')


@case('net', 'PID 1 (the reaper) cannot be read or written through /proc/1/mem')
def _():
    got = py_line('print([oserr(lambda: open("/proc/1/mem", "r+b")), oserr(lambda: open("/proc/1/environ", "rb").read())])')
    equal(got, "['EACCES', 'EACCES']")


@case('net', 'PID 1 (the reaper) runs under the seccomp filter, without capabilities')
def _():
    got = run('''
        st = dict(l.split(":", 1) for l in open("/proc/1/status"))
        print(json.dumps([st["Seccomp"].strip(), st["CapEff"].strip(), st["CapBnd"].strip()]))
    ''').json()
    equal(got, ['2', '0000000000000000', '0000000000000000'])


syscall_case('net', 'process_vm_readv of PID 1 fails with EPERM', (310, 1, 0, 0, 0, 0, 0), 'EPERM')


@case('net', 'kill(-1, SIGKILL) spares host processes')
def _():
    tok = token()
    victim = subprocess.Popen([PY, '-c', f'import time; time.sleep(30) # {tok}'])
    try:
        run('import signal; os.kill(-1, signal.SIGKILL)')
        time.sleep(0.2)
        equal(victim.poll(), None, 'host process state')
    finally:
        victim.kill()
        victim.wait()


@case('net', 'SIGKILL to the parent (PID 1) is ignored; the run ends normally')
def _():
    res = run('import signal; os.kill(os.getppid(), signal.SIGKILL); import time; time.sleep(0.2); print(os.getppid())')
    equal((res.rc, res.line(), res.status), (0, '1', {'exit': 0}))


@case('net', 'the monitor and host PIDs cannot be signalled (ESRCH)')
def _():
    me = os.getpid()
    equal(py_line(f'print(oserr(os.kill, {me}, 0))'), 'ESRCH')


syscall_case('net', 'pidfd_open fails with ENOSYS', (434, 1, 0), 'ENOSYS')


syscall_case('net', 'pidfd_getfd fails with EPERM', (438, -1, 0, 0), 'EPERM')


# ---------------------------------------------------------------------------
# [SE:kernel] Kernel attack surface: the seccomp list one by one, in one run.

KERNEL_CALLS = [
    # name, x86-64 number, harmless arguments, expected errno
    ('perf_event_open', 298, (0, 0, -1, -1, 0), 'EPERM'),
    ('bpf', 321, (0, 0, 0), 'EPERM'),
    ('io_uring_setup', 425, (1, 0), 'ENOSYS'),
    ('io_uring_enter', 426, (-1, 0, 0, 0, 0, 0), 'ENOSYS'),
    ('io_uring_register', 427, (-1, 0, 0, 0), 'ENOSYS'),
    ('userfaultfd', 323, (0,), 'EPERM'),
    ('personality(ADDR_NO_RANDOMIZE)', 135, (0x0040000,), 'EPERM'),
    ('personality(query 0xffffffff)', 135, (0xffffffff,), 'EPERM'),
    ('modify_ldt', 154, (0, 0, 0), 'EPERM'),
    ('kexec_load', 246, (0, 0, 0, 0), 'EPERM'),
    ('kexec_file_load', 320, (-1, -1, 0, 0, 0), 'EPERM'),
    ('init_module', 175, (0, 0, 0), 'EPERM'),
    ('finit_module', 313, (-1, 0, 0), 'EPERM'),
    ('delete_module', 176, (0, 0), 'EPERM'),
    ('name_to_handle_at', 303, (-100, 0, 0, 0, 0), 'EPERM'),
    ('lookup_dcookie', 212, (0, 0, 0), 'EPERM'),
    ('fanotify_init', 300, (0, 0), 'EPERM'),
    ('iopl', 172, (0,), 'EPERM'),
    ('ioperm', 173, (0, 0, 0), 'EPERM'),
    ('reboot', 169, (0, 0, 0, 0), 'EPERM'),
    ('swapon', 167, (0, 0), 'EPERM'),
    ('swapoff', 168, (0,), 'EPERM'),
    ('settimeofday', 164, (0, 0), 'EPERM'),
    ('clock_settime', 227, (0, 0), 'EPERM'),
    ('clock_adjtime', 305, (0, 0), 'EPERM'),
    ('adjtimex', 159, (0,), 'EPERM'),
    ('vhangup', 153, (), 'EPERM'),
    ('kcmp', 312, (1, 1, 0, 0, 0), 'EPERM'),
    ('process_vm_writev', 311, (1, 0, 0, 0, 0, 0), 'EPERM'),
    ('process_madvise', 440, (-1, 0, 0, 0, 0), 'EPERM'),
    ('uselib', 134, (0,), 'EPERM'),
    ('acct', 163, (0,), 'EPERM'),
    ('quotactl', 179, (0, 0, 0, 0), 'EPERM'),
    ('mbind', 237, (0, 0, 0, 0, 0, 0), 'EPERM'),
    ('set_mempolicy', 238, (0, 0, 0), 'EPERM'),
    ('get_mempolicy', 239, (0, 0, 0, 0, 0), 'EPERM'),
    ('migrate_pages', 256, (0, 0, 0, 0), 'EPERM'),
    ('move_pages', 279, (0, 0, 0, 0, 0, 0), 'EPERM'),
    ('ptrace(PTRACE_TRACEME)', 101, (0, 0, 0, 0), 'EPERM'),
    ('sched_setattr', 314, (0, 0, 0), 'EPERM'),
]

_kernel_results = {}


def kernel_results():
    if not _kernel_results:
        calls = [(nr, list(args)) for _, nr, args, _ in KERNEL_CALLS]
        got = run(f'print(json.dumps([sc(nr, *args) for nr, args in {calls!r}]))').json()
        for (name, _, _, _), r in zip(KERNEL_CALLS, got):
            _kernel_results[name] = r
    return _kernel_results


for _name, _nr, _args, _want in KERNEL_CALLS:
    def _make(name, want):
        def fn():
            equal(kernel_results()[name], want)
        return fn
    case('kernel', f'{_name} fails with {_want}')(_make(_name, _want))


syscall_case('kernel', 'personality(PER_LINUX) still works (the allowed value)', (135, 0), 'ok')


@case('kernel', 'SCHED_FIFO is refused (EPERM)')
def _():
    equal(py_line('print(oserr(os.sched_setscheduler, 0, os.SCHED_FIFO, os.sched_param(1)))'), 'EPERM')


@case('kernel', 'setpriority(-20) is refused (EACCES)')
def _():
    got = py_line('print(oserr(os.setpriority, os.PRIO_PROCESS, 0, -20))')
    check(got in ('EACCES', 'EPERM'), f'got {got}')


def int80_available():
    out = subprocess.run([HELPER, 'i386', '20'], capture_output=True, text=True)
    return out.returncode == 0 and out.stdout.startswith('ok ')


I386_CALLS = [
    ('unshare(CLONE_NEWUSER)', (310, 0x10000000), 'errno EPERM'),
    ('mount', (21, 0, 0, 0, 0, 0), 'errno EPERM'),
    ('ptrace(PTRACE_TRACEME)', (26, 0, 0, 0, 0), 'errno EPERM'),
    ('socketcall (multiplexer)', (102, 1, 0), 'errno EAFNOSUPPORT'),
    ('socket(AF_INET)', (359, 2, 1, 0), 'errno EAFNOSUPPORT'),
    ('io_uring_setup', (425, 1, 0), 'errno ENOSYS'),
    ('keyctl', (288, 0, -3, 0), 'errno EPERM'),
    ('clone3', (435, 0, 0), 'errno ENOSYS'),
]

for _name, _args, _want in I386_CALLS:
    def _make(args, want):
        def fn():
            if not int80_available():
                raise Skip('int 0x80 faults even outside the sandbox on this kernel (no usable i386 ABI)')
            equal(run(argv=[HELPER_INSIDE, 'i386', *map(str, args)]).line(), want)
        return fn
    case('kernel', f'i386 int 0x80 {_name} -> {_want.split()[1]}')(_make(_args, _want))


@case('kernel', 'x32 unshare(CLONE_NEWUSER) does not succeed')
def _():
    got = run(argv=[HELPER_INSIDE, 'x32', '272', str(0x10000000)]).line()
    check(got in ('errno EPERM', 'errno ENOSYS'), f'got {got}')


@case('kernel', 'native raw unshare through the C helper fails with EPERM')
def _():
    equal(run(argv=[HELPER_INSIDE, 'native', '272', str(0x10000000)]).line(), 'errno EPERM')


# The installed filter itself, read back from the running program with
# PTRACE_SECCOMP_GET_FILTER (root only) and evaluated by a small classic-BPF
# interpreter: this checks the i386 and x32 rules even on a kernel where
# `int 0x80` cannot be executed.

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_I386 = 0x40000003
AUDIT_ARCH_AARCH64 = 0xC00000B7
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000

_filter_cache = {}


def children(pid):
    try:
        with open(f'/proc/{pid}/task/{pid}/children') as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def installed_filter(whose='program'):
    """The seccomp filters of the program (or of PID-1), newest first, read
    back through ptrace."""
    if os.geteuid() != 0:
        raise Skip('reading a seccomp filter back needs CAP_SYS_ADMIN (root)')
    if whose in _filter_cache:
        return _filter_cache[whose]
    p = start('import time\nprint("ready", flush=True)\ntime.sleep(30)')
    try:
        wait_line(p)
        pid1 = children(p.pid)
        prog = children(pid1[0]) if pid1 else []
        check(len(prog) == 1, f'cannot find the program under {p.pid}')
        pid = prog[0] if whose == 'program' else pid1[0]
        libc = ctypes.CDLL(None, use_errno=True)
        libc.ptrace.restype = ctypes.c_long
        libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
        check(libc.ptrace(0x4206, pid, None, None) == 0, f'PTRACE_SEIZE: errno {ctypes.get_errno()}')
        try:
            libc.ptrace(0x4207, pid, None, None)  # PTRACE_INTERRUPT
            os.waitpid(pid, 0x40000000)  # __WALL
            # PTRACE_SECCOMP_GET_FILTER, index 0 (the newest) and up: the
            # sandbox stacks an allowlist on an ioctl filter.
            progs = []
            while True:
                n = libc.ptrace(0x420C, pid, ctypes.c_void_p(len(progs)), None)
                if n <= 0:
                    break
                buf = (ctypes.c_uint64 * n)()
                check(libc.ptrace(0x420C, pid, ctypes.c_void_p(len(progs)), ctypes.addressof(buf)) == n, 'short filter')
                progs.append([(v & 0xFFFF, (v >> 16) & 0xFF, (v >> 24) & 0xFF, v >> 32) for v in buf])
            check(progs, f'PTRACE_SECCOMP_GET_FILTER: errno {ctypes.get_errno()}')
        finally:
            libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
    finally:
        p.kill()
        p.wait()
    _filter_cache[whose] = progs
    return progs


def bpf_eval(insns, arch, nr, args=()):
    """Runs a seccomp classic-BPF program on one seccomp_data."""
    import struct
    a6 = list(args) + [0] * (6 - len(args))
    data = struct.pack('<iIQ6Q', nr, arch, 0, *[x & 0xFFFFFFFFFFFFFFFF for x in a6])
    A = X = 0
    mem = [0] * 16
    pc = 0
    for _ in range(100000):
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == 0x20:
            A = struct.unpack_from('<I', data, k)[0]
        elif code == 0x00:
            A = k
        elif code == 0x01:
            X = k
        elif code == 0x60:
            A = mem[k]
        elif code == 0x61:
            X = mem[k]
        elif code == 0x02:
            mem[k] = A
        elif code == 0x03:
            mem[k] = X
        elif code == 0x54:
            A &= k
        elif code == 0x44:
            A |= k
        elif code == 0x04:
            A = (A + k) & 0xFFFFFFFF
        elif code == 0x14:
            A = (A - k) & 0xFFFFFFFF
        elif code == 0x07:
            X = A
        elif code == 0x87:
            A = X
        elif code == 0x05:
            pc += k
        elif code in (0x15, 0x25, 0x35, 0x45, 0x1D, 0x2D, 0x3D, 0x4D):
            v = X if code & 0x08 else k
            op = code & 0xF0
            taken = {0x10: A == v, 0x20: A > v, 0x30: A >= v, 0x40: (A & v) != 0}[op]
            pc += jt if taken else jf
        elif code == 0x06:
            return k
        elif code == 0x16:
            return A
        else:
            raise Fail(f'unknown BPF opcode {code:#x}')
    raise Fail('BPF program did not return')


def stacked_eval(progs, arch, nr, args=()):
    """What the kernel does with stacked filters: the lowest action wins
    (KILL < ERRNO < ALLOW as signed 32-bit), the newest on a tie."""
    best = None
    for insns in progs:
        ret = bpf_eval(insns, arch, nr, args)
        action = ret & 0xFFFF0000
        key = action - (1 << 32) if action & 0x80000000 else action
        if best is None or key < best[0]:
            best = (key, ret)
    return best[1]


def verdict(ret):
    if ret == RET_ALLOW:
        return 'allow'
    if ret == RET_KILL_PROCESS:
        return 'kill'
    if ret & 0xFFFF0000 == 0x00050000:
        return errno.errorcode.get(ret & 0xFFFF, str(ret & 0xFFFF))
    return hex(ret)


@case('kernel', 'installed filter: PID-1 has its own, only what it needs once the program runs')
def _():
    progs = installed_filter('pid1')
    equal(len(progs), 1, 'filters on PID-1')
    X86_64 = 0xC000003E
    got = {name: verdict(stacked_eval(progs, arch, nr)) for name, arch, nr in [
        ('wait4', X86_64, 61), ('kill', X86_64, 62), ('poll', X86_64, 7),
        ('execve', X86_64, 59), ('clone', X86_64, 56), ('socket', X86_64, 41),
        ('ptrace', X86_64, 101), ('setns', X86_64, 308), ('i386 getpid', AUDIT_ARCH_I386, 20)]}
    equal(got, {'wait4': 'allow', 'kill': 'allow', 'poll': 'allow', 'execve': 'ENOSYS',
                'clone': 'ENOSYS', 'socket': 'ENOSYS', 'ptrace': 'ENOSYS', 'setns': 'ENOSYS',
                'i386 getpid': 'kill'}, 'verdicts of PID-1\'s filter')


FILTER_CASES = [
    ('i386 getpid is allowed', AUDIT_ARCH_I386, 20, (), 'allow'),
    ('i386 unshare(CLONE_NEWUSER)', AUDIT_ARCH_I386, 310, (0x10000000,), 'EPERM'),
    ('i386 clone(CLONE_NEWUSER)', AUDIT_ARCH_I386, 120, (0x10000000 | 17,), 'EPERM'),
    ('i386 clone for a thread is allowed', AUDIT_ARCH_I386, 120, (0x3D0F00,), 'allow'),
    ('i386 mount', AUDIT_ARCH_I386, 21, (), 'EPERM'),
    ('i386 ptrace', AUDIT_ARCH_I386, 26, (), 'EPERM'),
    ('i386 socketcall multiplexer', AUDIT_ARCH_I386, 102, (1, 0), 'EAFNOSUPPORT'),
    ('i386 socket(AF_INET)', AUDIT_ARCH_I386, 359, (2, 1, 0), 'EAFNOSUPPORT'),
    ('i386 socket(AF_UNIX) is refused too (no sockets for i386)', AUDIT_ARCH_I386, 359, (1, 1, 0), 'EAFNOSUPPORT'),
    ('x86-64 socket(AF_UNIX) is allowed', AUDIT_ARCH_X86_64, 41, (1, 1, 0), 'allow'),
    ('x86-64 statmount (newer than libseccomp)', AUDIT_ARCH_X86_64, 457, (), 'ENOSYS'),
    ('x86-64 listmount (newer than libseccomp)', AUDIT_ARCH_X86_64, 458, (), 'ENOSYS'),
    ('x86-64 open_tree_attr (newer than libseccomp)', AUDIT_ARCH_X86_64, 467, (), 'ENOSYS'),
    ('x86-64 number 1000 (above all)', AUDIT_ARCH_X86_64, 1000, (), 'ENOSYS'),
    ('x86-64 memfd_create', AUDIT_ARCH_X86_64, 319, (), 'ENOSYS'),
    ('x86-64 shmget', AUDIT_ARCH_X86_64, 29, (), 'ENOSYS'),
    ('i386 ioctl(TIOCSTI)', AUDIT_ARCH_I386, 54, (0, 0x5412, 0), 'EPERM'),
    ('i386 ioctl(TIOCLINUX)', AUDIT_ARCH_I386, 54, (0, 0x541C, 0), 'EPERM'),
    ('i386 io_uring_setup', AUDIT_ARCH_I386, 425, (), 'ENOSYS'),
    ('i386 clone3', AUDIT_ARCH_I386, 435, (), 'ENOSYS'),
    ('i386 keyctl', AUDIT_ARCH_I386, 288, (), 'EPERM'),
    ('i386 personality(ADDR_NO_RANDOMIZE)', AUDIT_ARCH_I386, 136, (0x40000,), 'EPERM'),
    ('i386 bpf', AUDIT_ARCH_I386, 357, (), 'EPERM'),
    ('x32 unshare', AUDIT_ARCH_X86_64, 0x40000000 | 272, (0x10000000,), 'EPERM'),
    ('x32 mount', AUDIT_ARCH_X86_64, 0x40000000 | 165, (), 'EPERM'),
    ('x86-64 ioctl(TIOCSTI) with high bits set', AUDIT_ARCH_X86_64, 16, (0, (5 << 32) | 0x5412), 'EPERM'),
    ('x86-64 read is allowed', AUDIT_ARCH_X86_64, 0, (), 'allow'),
    ('an unknown architecture (aarch64) is killed', AUDIT_ARCH_AARCH64, 0, (), 'kill'),
]

for _name, _arch, _nr, _args, _want in FILTER_CASES:
    def _make(arch, nr, args, want):
        def fn():
            equal(verdict(stacked_eval(installed_filter(), arch, nr, args)), want)
        return fn
    case('kernel', f'installed filter: {_name} -> {_want}')(_make(_arch, _nr, _args, _want))


# ---------------------------------------------------------------------------
# [SE:other] Resources and lifecycle

@case('other', 'fork bomb stops at --max-procs (EAGAIN), tree gone, next run works')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'before.csv'), 'w').write('x\n')
    tok = token()
    res = run(f'''
        # {tok}
        import time
        n = 0
        failed = None
        for i in range(10000):
            try:
                if os.fork() == 0:
                    while True:
                        try:
                            os.fork()
                        except OSError:
                            time.sleep(0.01)
                n += 1
            except OSError as e:
                failed = errno.errorcode[e.errno]
                break
        time.sleep(0.5)
        print(json.dumps([failed, n]))
    ''', ws=ws, opts=['--max-procs', '32'], timeout=60)
    failed, n = res.json()
    equal(failed, 'EAGAIN', 'fork error')
    check(n <= 32, f'{n} forks succeeded')
    equal(alive(tok), [], 'processes left')
    equal(open(os.path.join(ws, 'before.csv')).read(), 'x\n', 'earlier file')
    equal(run('print("ok")', ws=ws).line(), 'ok', 'next run')


@case('other', 'thread bomb stops at --max-procs')
def _():
    got = py_line('''
        import threading, time
        n = 0
        try:
            for i in range(1000):
                threading.Thread(target=time.sleep, args=(2,), daemon=True).start()
                n += 1
        except RuntimeError:
            pass
        print(n < 40)
    ''', opts=['--max-procs', '32'])
    equal(got, 'True')


@case('other', '"x" * 10**11 raises MemoryError under --memory')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'before.csv'), 'w').write('x\n')
    got = py_line('''
        try:
            s = "x" * 10 ** 11
            print("allocated")
        except MemoryError:
            print("MemoryError")
    ''', ws=ws, opts=['--memory', '512M'])
    equal(got, 'MemoryError')
    equal(open(os.path.join(ws, 'before.csv')).read(), 'x\n', 'earlier file')
    equal(run('print("ok")', ws=ws).line(), 'ok', 'next run')


@case('other', 'a huge mmap fails with ENOMEM; touching pages stays under the cap')
def _():
    got = py_line('''
        import mmap
        r = oserr(mmap.mmap, -1, 4 << 30)
        m = mmap.mmap(-1, 64 << 20)
        for i in range(0, 64 << 20, 4096):
            m[i] = 1
        print(r)
    ''', opts=['--memory', '512M'])
    equal(got, 'ENOMEM')


@case('other', 'CPU spin stops at --cpu-seconds (SIGXCPU, limit cpu)')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'before.csv'), 'w').write('x\n')
    res = run('while True: pass', ws=ws, opts=['--cpu-seconds', '1'], timeout=30)
    equal(res.rc, 128 + 24, 'exit status')
    equal(res.status, {'signal': 24, 'limit': 'cpu'}, 'status')
    equal(open(os.path.join(ws, 'before.csv')).read(), 'x\n', 'earlier file')
    equal(run('print("ok")', ws=ws).line(), 'ok', 'next run')


@case('other', 'spinning threads that ignore SIGXCPU die at the hard CPU limit')
def _():
    res = run('''
        import signal, threading
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        def spin():
            while True:
                pass
        for i in range(3):
            threading.Thread(target=spin, daemon=True).start()
        spin()
    ''', opts=['--cpu-seconds', '1'], timeout=30)
    equal(res.status, {'signal': 9}, 'status')


@case('other', 'while True: pass ends at --timeout (exit 124, whole tree)')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'before.csv'), 'w').write('x\n')
    tok = token()
    res = run(f'''
        # {tok}
        if os.fork() == 0:
            os.setsid()
            while True: pass
        while True: pass
    ''', ws=ws, opts=['--timeout', '1'], timeout=30)
    equal(res.rc, 124, 'exit status')
    equal(res.status, {'signal': 9, 'limit': 'timeout'}, 'status')
    check(b'reckon-sandbox: stopped: timeout limit exceeded (1s)' in res.err, f'stderr {res.err!r}')
    equal(alive(tok), [], 'processes left')
    equal(open(os.path.join(ws, 'before.csv')).read(), 'x\n', 'earlier file')
    equal(run('print("ok")', ws=ws).line(), 'ok', 'next run')


@case('other', 'a double-forked, setsid orphan does not outlive the run')
def _():
    tok = token()
    res = run(f'''
        # {tok}
        import time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(60)
            os._exit(0)
        time.sleep(0.2)
        print("main done")
    ''', timeout=30)
    equal(res.line(), 'main done')
    check(res.elapsed < 10, f'run took {res.elapsed:.1f}s')
    equal(alive(tok), [], 'processes left')


def start(code, opts=(), ws=None):
    ws = ws or new_workspace()
    cmd = [SANDBOX, '--workspace', ws, *opts, '--', PY, '-c', PRELUDE + textwrap.dedent(code)]
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_line(p, timeout=20):
    """First stdout line of a running sandbox (the program says it is ready)."""
    import select
    end = time.monotonic() + timeout
    buf = b''
    while b'\n' not in buf:
        left = end - time.monotonic()
        if left <= 0 or not select.select([p.stdout], [], [], left)[0]:
            raise Fail('the program did not become ready')
        chunk = os.read(p.stdout.fileno(), 4096)
        if not chunk:
            raise Fail(f'the program ended early: {p.stderr.read()!r}')
        buf += chunk
    return buf.split(b'\n')[0].decode()


@case('other', 'SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 reach the program')
def _():
    p = start('''
        import signal, time
        got = []
        sigs = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2]
        for s in sigs:
            signal.signal(s, lambda n, f: got.append(n))
        print("ready", flush=True)
        end = time.time() + 10
        while len(got) < len(sigs) and time.time() < end:
            time.sleep(0.01)
        print(json.dumps(sorted(got)))
    ''')
    try:
        wait_line(p)
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
            p.send_signal(s)
            time.sleep(0.05)
        out, err = p.communicate(timeout=20)
    finally:
        p.kill()
    equal(json.loads(out.decode().strip()), sorted(int(s) for s in (1, 2, 3, 10, 12, 15)), 'signals received')
    equal(p.returncode, 0, 'exit status')


@case('other', 'SIGINT to the sandbox becomes KeyboardInterrupt in Python')
def _():
    p = start('''
        import time
        try:
            print("ready", flush=True)
            time.sleep(20)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    ''')
    try:
        wait_line(p)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
    finally:
        p.kill()
    equal(out.decode().strip(), 'interrupted', f'stdout (exit {p.returncode}, stderr {err[-300:]!r})')


@case('other', 'a program ignoring SIGTERM and SIGINT dies when the sandbox is SIGKILLed')
def _():
    tok = token()
    p = start(f'''
        # {tok}
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if os.fork() == 0:
            os.setsid()
            while True: time.sleep(1)
        print("ready", flush=True)
        while True: pass
    ''')
    try:
        wait_line(p)
        p.send_signal(signal.SIGTERM)
        p.send_signal(signal.SIGINT)
        time.sleep(0.3)
        check(p.poll() is None, 'the program should have ignored SIGTERM')
        p.kill()
        p.wait()
        time.sleep(1.0)
        equal(alive(tok), [], 'processes alive a second after SIGKILL')
    finally:
        p.kill()
        p.wait()


@case('other', 'when the sandbox\'s parent dies, everything inside dies (PDEATHSIG)')
def _():
    tok = token()
    ws = new_workspace()
    code = PRELUDE + f'# {tok}\nimport time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\nprint("ready", flush=True)\ntime.sleep(60)\n'
    parent = subprocess.Popen([PY, '-c', textwrap.dedent('''
        import subprocess, sys, time
        p = subprocess.Popen(sys.argv[1:])
        time.sleep(60)
    '''), SANDBOX, '--workspace', ws, '--', PY, '-c', code],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        wait_line(parent)
        check(len(alive(tok)) >= 3, 'the program is not running')
        parent.kill()
        parent.wait()
        time.sleep(1.0)
        equal(alive(tok), [], 'processes alive a second after the parent died')
    finally:
        parent.kill()
        parent.wait()


@case('other', 'a 10 GiB stdout flood is drained by the reader; the monitor stays small')
def _():
    # The reader discards with splice(2) into /dev/null, so 10 GiB takes
    # seconds; the monitor never touches the program's stdout.
    gib = 10
    p = subprocess.Popen([SANDBOX, '--workspace', new_workspace(), '--', PY, '-c',
                          f'import os\nb = b"A" * (1 << 20)\nfor _ in range({gib} << 10): os.write(1, b)'],
                         stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    fd = p.stdout.fileno()
    try:
        fcntl.fcntl(fd, 1031, 1 << 20)  # F_SETPIPE_SZ
    except OSError:
        pass
    null = os.open('/dev/null', os.O_WRONLY)
    total = 0
    peak_kb = 0
    checks = 0
    try:
        while True:
            n = os.splice(fd, null, 1 << 20)
            if n == 0:
                break
            total += n
            checks += 1
            if checks % 512 == 0:
                try:
                    with open(f'/proc/{p.pid}/status') as f:
                        for line in f:
                            if line.startswith('VmRSS:'):
                                peak_kb = max(peak_kb, int(line.split()[1]))
                except OSError:
                    pass
    finally:
        os.close(null)
    p.wait()
    equal(total, gib << 30, 'bytes drained')
    equal(p.returncode, 0, 'exit status')
    check(0 < peak_kb < 16 << 10, f'monitor RSS peaked at {peak_kb} KiB')


@case('other', 'opening 10**6 fds stops at --max-open-files (EMFILE)')
def _():
    got = py_line('''
        fds = []
        def go():
            for i in range(10 ** 6):
                fds.append(os.open("/dev/null", os.O_RDONLY))
        r = oserr(go)
        print(r, len(fds) < 300)
    ''', opts=['--max-open-files', '256'])
    equal(got, 'EMFILE True')


@case('other', 'filling the RAM-backed /dev/shm stops at its size cap (ENOSPC)')
def _():
    got = py_line('''
        def fill():
            with open("/dev/shm/fill", "wb") as f:
                while True:
                    f.write(b"x" * (1 << 20))
                    f.flush()
        print(oserr(fill))
    ''', opts=['--tmp-size', '8M'])
    equal(got, 'ENOSPC')


@case('other', 'a signal death is reported as 128+N and {"signal": N}')
def _():
    res = run('import signal; os.kill(os.getpid(), signal.SIGSEGV)')
    equal((res.rc, res.status), (128 + 11, {'signal': 11}))


@case('other', 'the program\'s exit status and {"exit": N} pass through')
def _():
    res = run('sys.exit(42)')
    equal((res.rc, res.status), (42, {'exit': 42}))


@case('other', 'a missing program exits 127, a non-executable one 126')
def _():
    a = run(argv=['/usr/bin/no-such-program'])
    b = run(argv=['/etc/passwd'])
    equal((a.rc, b.rc), (127, 126))


@case('other', 'a setup failure exits 125 with one line and {"error": ...}')
def _():
    r, w = os.pipe()
    p = subprocess.run([SANDBOX, '--workspace', os.path.join(BASE, 'missing'), '--status-fd', str(w),
                        '--', PY, '-c', 'pass'], capture_output=True, pass_fds=(w,))
    os.close(w)
    status = json.loads(os.read(r, 4096))
    os.close(r)
    equal(p.returncode, 125, 'exit status')
    lines = p.stderr.decode().splitlines()
    check(len(lines) == 1 and lines[0].startswith('reckon-sandbox: '), f'stderr {p.stderr!r}')
    check('error' in status, f'status {status}')


@case('other', 'pandas and matplotlib import and plot under the default limits')
def _():
    ws = new_workspace()
    got = py_line('''
        import pandas, matplotlib.pyplot as plt, numpy
        plt.plot(pandas.Series(numpy.arange(3.0)).cumsum())
        plt.savefig("plot.png")
        print("ok")
    ''', ws=ws, timeout=120)
    equal(got, 'ok')
    check(os.path.getsize(os.path.join(ws, 'plot.png')) > 1000, 'no plot written')


# ---------------------------------------------------------------------------
# [audit] The findings of the outside audit (docs/threat-model.md 66-74), one by one.

def setid_or_root_entries(ws):
    """Entries of @ws (itself included) that carry a set-id bit, or that are
    root's (uid or gid 0) while the suite runs as root."""
    bad = []
    for root, dirs, files in os.walk(ws):
        for name in [None, *dirs, *files]:
            path = root if name is None else os.path.join(root, name)
            st = os.lstat(path)
            if st.st_mode & 0o6000:
                bad.append(f'{os.path.relpath(path, ws)} mode {oct(st.st_mode)}')
            if os.geteuid() == 0 and (st.st_uid == 0 or st.st_gid == 0):
                bad.append(f'{os.path.relpath(path, ws)} owned by {st.st_uid}:{st.st_gid}')
    return bad


@case('audit', 'set-id files made inside leave no set-id bit; as root nothing is root\'s (finding 1)')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'input.csv'), 'w').write('x\n')
    res = run('''
        import shutil
        shutil.copy("/usr/bin/id", "suid")
        os.chmod("suid", 0o6755)
        open("sgid", "w").close()
        os.chmod("sgid", 0o2777)
        os.mkdir("d")
        os.chmod("d", 0o2777)
        shutil.copy("/usr/bin/id", "d/suid2")
        os.chmod("d/suid2", 0o4755)
        print(oct(os.stat("suid").st_mode))
    ''', ws=ws)
    equal(res.rc, 0, f'exit status ({res!r})')
    equal(setid_or_root_entries(ws), [], 'set-id or root-owned entries after the run')
    equal(open(os.path.join(ws, 'input.csv')).read(), 'x\n', 'earlier file')
    equal(run('print(open("input.csv").read().strip())', ws=ws).line(), 'x', 'next run reads it')


@case('audit', 'a root file hard-linked into the workspace from outside is left untouched (root)')
def _():
    if os.geteuid() != 0:
        raise Skip('only root can link a root-owned file into a workspace here')
    ws = new_workspace()
    outside = os.path.join(BASE, f'outside{_ws_counter}')
    with open(outside, 'w') as f:
        f.write('host file\n')
    os.chmod(outside, 0o4755)
    os.link(outside, os.path.join(ws, 'link'))
    res = run('print(open("link").read().strip())', ws=ws)
    st = os.stat(outside)
    equal((st.st_uid, oct(st.st_mode & 0o7777)), (0, '0o4755'), 'owner and mode of the file outside')
    equal(res.line(), 'host file', 'the sandbox reading its link')


@case('audit', 'a set-id bit made during a run is taken away while it runs')
def _():
    ws = new_workspace()
    p = start('''
        import shutil, time
        shutil.copy("/usr/bin/id", "suid")
        os.chmod("suid", 0o4755)
        print("ready", flush=True)
        time.sleep(4)
    ''', ws=ws)
    try:
        wait_line(p)
        end = time.monotonic() + 3
        while time.monotonic() < end and os.lstat(os.path.join(ws, 'suid')).st_mode & 0o6000:
            time.sleep(0.05)
        mode = os.lstat(os.path.join(ws, 'suid')).st_mode
    finally:
        p.kill()
        p.wait()
    equal(oct(mode & 0o6000), '0o0', 'set-id bits 3 s after they were set')


def disk_breach(code, opts=('--disk', '16M'), ws=None):
    res = run(code, ws=ws, opts=list(opts), timeout=60)
    equal(res.status, {'signal': 9, 'limit': 'disk'}, f'status ({res!r}, stdout {res.out[-200:]!r})')
    return res


@case('audit', 'a file held open after unlink counts against --disk (finding 3)')
def _():
    disk_breach('''
        import time
        f = open("big", "wb")
        f.write(os.urandom(1 << 20) * 48)
        f.flush()
        os.unlink("big")
        time.sleep(4)
        print("not stopped")
    ''')


@case('audit', 'an O_TMPFILE file counts against --disk')
def _():
    disk_breach('''
        import time
        fd = os.open("/workspace", os.O_TMPFILE | os.O_RDWR, 0o600)
        os.write(fd, os.urandom(1 << 20) * 48)
        time.sleep(4)
        print("not stopped")
    ''')


@case('audit', 'an unlinked file held only by a setsid child counts against --disk')
def _():
    disk_breach('''
        import time
        fd = os.open("/workspace", os.O_TMPFILE | os.O_RDWR, 0o600)
        os.write(fd, os.urandom(1 << 20) * 48)
        if os.fork() == 0:
            os.setsid()
            time.sleep(6)
            os._exit(0)
        os.close(fd)
        time.sleep(4)
        print("not stopped")
    ''')


@case('audit', 'a file unlinked while mapped, its descriptor closed, counts against --disk')
def _():
    disk_breach('''
        import time
        # Never a name: the walker cannot see it at any moment.
        fd = os.open("/workspace", os.O_TMPFILE | os.O_RDWR, 0o600)
        os.write(fd, os.urandom(1 << 20) * 48)
        # libc's mmap, not Python's: mmap.mmap keeps a duplicate descriptor.
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        p = libc.mmap(None, 48 << 20, 1, 1, fd, 0)   # PROT_READ, MAP_SHARED
        os.close(fd)
        time.sleep(4)
        print("not stopped", p)
    ''')


@case('audit', 'data under a folder readable but not searchable counts against --disk')
def _():
    ws = new_workspace()
    disk_breach('''
        import time
        os.mkdir("hide")
        with open("hide/big", "wb") as f:
            f.write(os.urandom(1 << 20) * 48)
        os.chmod("hide", 0o444)
        time.sleep(4)
        print("not stopped")
    ''', ws=ws)
    check(os.stat(os.path.join(ws, 'hide')).st_mode & 0o700 == 0o700, 'mode of hide not restored')


@case('audit', 'a workspace chmodded to 000 cannot hide its data from --disk')
def _():
    ws = new_workspace()
    disk_breach('''
        import time
        with open("big", "wb") as f:
            f.write(os.urandom(1 << 20) * 48)
        os.chmod("/workspace", 0)
        time.sleep(4)
        print("not stopped")
    ''', ws=ws)
    check(os.stat(ws).st_mode & 0o700 == 0o700, 'mode of the workspace not restored')


@case('audit', 'modes the program took away are restored after the run')
def _():
    ws = new_workspace()
    res = run('''
        os.mkdir("d")
        open("d/f", "w").write("secret")
        open("g", "w").write("x")
        os.chmod("d/f", 0)
        os.chmod("g", 0)
        os.chmod("d", 0o100)
        os.chmod("/workspace", 0)
    ''', ws=ws)
    equal(res.rc, 0, f'exit status ({res!r})')
    check(os.stat(ws).st_mode & 0o700 == 0o700, f'workspace mode {oct(os.stat(ws).st_mode)}')
    for rel in ('d', 'd/f', 'g'):
        st = os.stat(os.path.join(ws, rel))
        want = 0o700 if rel == 'd' else 0o600
        check(st.st_mode & want == want, f'{rel} mode {oct(st.st_mode)}')
    if os.geteuid() != 0:
        equal(open(os.path.join(ws, 'd/f')).read(), 'secret', 'd/f readable by its owner')


def memory_bound():
    """What bounds the total memory of a run here, as the sandbox says."""
    res = run('pass', opts=['--debug'])
    for line in res.err.decode(errors='replace').splitlines():
        if line.startswith('reckon-sandbox: debug: memory: '):
            return line.split('memory: ', 1)[1]
    raise Fail(f'no memory line in --debug output: {res.err!r}')


@case('audit', '12 processes under --memory 256M cannot hold 768 MiB together (finding 4)')
def _():
    how = memory_bound()
    print(f'# total memory bound here: {how}', flush=True)
    if how.startswith('no cgroup') or 'without' in how:
        raise Skip(f'nothing bounds the total here ({how}): only RLIMIT_AS per process, '
                   'the shared /tmp + /dev/shm cap and the filter (no memfd, no SysV shm) hold')
    res = run('''
        import time
        kids = []
        for i in range(12):
            pid = os.fork()
            if pid == 0:
                b = bytearray(64 << 20)
                for j in range(0, len(b), 4096):
                    b[j] = 1
                time.sleep(2)
                os._exit(0)
            kids.append(pid)
        held = 0
        for pid in kids:
            _, st = os.waitpid(pid, 0)
            held += os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0
        print(held)
    ''', opts=['--memory', '256M'], timeout=60)
    if res.status == {'signal': 9, 'limit': 'memory'}:
        check(b'reckon-sandbox: stopped: memory limit exceeded' in res.err, f'stderr {res.err!r}')
        return
    check(res.rc == 0, f'program failed: {res!r}')
    held = int(res.line())
    check(held * 64 < 256, f'{held} processes held 64 MiB each at the same time')


@case('audit', 'the program starts inside its cgroup, which is the root of its view (finding 4)')
def _():
    how = memory_bound()
    if not how.startswith('cgroup v1 of its own'):
        raise Skip(f'the sandbox makes no group of its own here ({how})')
    # The first thing the program runs: nothing of it ever ran outside.
    res = run('''
        print(open('/proc/self/cgroup').read())
    ''')
    check(res.rc == 0, f'program failed: {res!r}')
    lines = dict(l.split(':', 2)[1:] for l in res.out.decode().splitlines() if l.count(':') >= 2)
    for controller in ('memory', 'pids'):
        equal(lines.get(controller), '/', f'{controller} group as the program sees it (the host path stays hidden)')


@case('audit', '--start-fd: nothing of the run exists before the byte; after it the program runs (finding 4)')
def _():
    ws = new_workspace()
    tok = token()
    a, b = socket.socketpair()
    os.dup2(a.fileno(), 77)
    a.close()
    sr, sw = os.pipe()
    p = subprocess.Popen([SANDBOX, '--workspace', ws, '--status-fd', str(sw), '--start-fd', '77', '--',
                          PY, '-c', 'import os, sys; open("/workspace/ran", "w").write(" ".join(sorted('
                          'os.listdir("/proc/self/fd")))); print(sys.argv[1])', tok],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(77, sw))
    os.close(77)
    os.close(sw)
    try:
        time.sleep(0.5)
        # Only the waiting sandbox: no PID-1 (its clone, same command line), no program.
        equal(len(alive(tok)), 1, 'processes of the run before the start byte')
        check(not os.path.exists(os.path.join(ws, 'ran')), 'the program ran before the start byte')
        b.send(b'g')
        out, err = p.communicate(timeout=60)
    finally:
        b.close()
        if p.poll() is None:
            p.kill()
            p.wait()
    status = json.loads(os.read(sr, 4096).decode() or 'null')
    os.close(sr)
    equal((p.returncode, status), (0, {'exit': 0}), f'exit and status (stderr {err[-300:]!r})')
    equal(out.decode().strip(), tok, 'program output')
    with open(os.path.join(ws, 'ran')) as f:
        check('77' not in f.read().split(), 'the start descriptor reached the program')


@case('audit', '--start-fd: the caller gone before the byte is a setup failure, nothing runs')
def _():
    r, w = os.pipe()
    os.close(w)
    ws = new_workspace()
    res = run('open("/workspace/ran", "w")', ws=ws, opts=['--start-fd', str(r)], pass_fds=(r,))
    os.close(r)
    sentence = 'the caller is gone: --start-fd closed before the start byte'
    equal((res.rc, res.status), (125, {'error': sentence}), f'exit and status ({res!r})')
    check(f'reckon-sandbox: {sentence}\n'.encode() in res.err, f'stderr {res.err!r}')
    check(not os.path.exists(os.path.join(ws, 'ran')), 'the program ran')


@case('audit', 'the OOM kill of the program is reported as the memory limit')
def _():
    how = memory_bound()
    if how.startswith('no cgroup') or 'without' in how:
        raise Skip(f'no cgroup here ({how}): a big allocation is a MemoryError (RLIMIT_AS), not an OOM kill')
    res = run('''
        parts = []
        for i in range(64):
            if os.fork() == 0:
                b = bytearray(48 << 20)
                for j in range(0, len(b), 4096):
                    b[j] = 1
                parts.append(b)
                import time; time.sleep(5)
                os._exit(0)
        b = bytearray(200 << 20)
        for j in range(0, len(b), 4096):
            b[j] = 1
        import time; time.sleep(5)
    ''', opts=['--memory', '256M', '--max-procs', '128'], timeout=60)
    equal(res.status, {'signal': 9, 'limit': 'memory'}, f'status ({res!r})')


@case('audit', '/tmp and /dev/shm share one --tmp-size budget')
def _():
    got = py_line('''
        def fill(path):
            with open(path, "wb") as f:
                for i in range(64):
                    f.write(b"x" * (1 << 20))
                    f.flush()
        print(oserr(fill, "/tmp/a"), oserr(fill, "/dev/shm/b"))
    ''', opts=['--tmp-size', '96M'])
    equal(got, 'ok ENOSPC')


@case('audit', 'exhausting inotify instances inside leaves the host user its own (finding 5)')
def _():
    p = start('''
        libc = ctypes.CDLL(None, use_errno=True)
        fds = []
        while len(fds) < 100000:
            fd = libc.inotify_init1(0)
            if fd < 0:
                break
            fds.append(fd)
        print(len(fds), errno.errorcode.get(ctypes.get_errno()), flush=True)
        import time
        time.sleep(10)
    ''', opts=['--max-open-files', '4096'])
    try:
        held = wait_line(p)
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(0)
        err = ctypes.get_errno()
        if fd >= 0:
            os.close(fd)
    finally:
        p.kill()
        p.wait()
    print(f'# the sandbox held {held} inotify instances', flush=True)
    check(fd >= 0, f'the host inotify_init1 failed with {errno.errorcode.get(err)} while the sandbox held {held}')


@case('audit', 'queued signals inside leave the host user room to queue its own')
def _():
    p = start('''
        import signal
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
        libc = ctypes.CDLL(None, use_errno=True)
        n = 0
        while n < 10 ** 6 and libc.sigqueue(os.getpid(), signal.SIGRTMIN, ctypes.c_long(0)) == 0:
            n += 1
        print(n, errno.errorcode.get(ctypes.get_errno()), flush=True)
        import time
        time.sleep(10)
    ''')
    try:
        held = wait_line(p)
        sig = signal.SIGRTMIN + 1
        old = signal.pthread_sigmask(signal.SIG_BLOCK, [sig])
        got = []
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            for i in range(8):
                r = libc.sigqueue(os.getpid(), sig, ctypes.c_long(0))
                got.append('ok' if r == 0 else errno.errorcode.get(ctypes.get_errno()))
            while signal.sigtimedwait([sig], 0) is not None:
                pass
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    finally:
        p.kill()
        p.wait()
    print(f'# the sandbox queued {held}', flush=True)
    equal(got, ['ok'] * 8, 'host sigqueue results')


@case('audit', 'RLIMIT_MSGQUEUE, RLIMIT_SIGPENDING and RLIMIT_MEMLOCK are capped inside')
def _():
    import resource
    host = resource.getrlimit(resource.RLIMIT_SIGPENDING)[0]
    got = run('''
        import resource
        print(json.dumps([resource.getrlimit(r)[1] for r in
                          (resource.RLIMIT_MSGQUEUE, resource.RLIMIT_SIGPENDING, resource.RLIMIT_MEMLOCK)]))
    ''').json()
    check(got[0] <= 64 << 10 and got[2] <= 64 << 10, f'limits {got}')
    check(0 < got[1] <= max(1, host // 4), f'RLIMIT_SIGPENDING {got[1]} (host {host})')


def debug_lines():
    res = run('pass', opts=['--debug'])
    return [l.split('debug: ', 1)[1] for l in res.err.decode(errors='replace').splitlines()
            if l.startswith('reckon-sandbox: debug: ')]


@case('audit', 'memfd, SysV shm and message queues are refused: no memory outside the budget (finding 4)')
def _():
    got = run("""
        import mmap
        libc = ctypes.CDLL(None, use_errno=True)
        def memfd():
            fd = os.memfd_create("x")
            os.ftruncate(fd, 1 << 30)
            m = mmap.mmap(fd, 1 << 30)
        shm = libc.shmget(0, 1 << 30, 0o1600)
        shm_err = errno.errorcode.get(ctypes.get_errno()) if shm < 0 else "ok"
        msg = libc.msgget(0, 0o1600)
        msg_err = errno.errorcode.get(ctypes.get_errno()) if msg < 0 else "ok"
        mq = sc(240, ctypes.c_char_p(b"/q"), 0o100 | 2, 0o600, 0)
        print(json.dumps([oserr(memfd), shm_err, msg_err, mq]))
    """).json()
    equal(got, ['ENOSYS'] * 4, 'memfd_create, shmget, msgget, mq_open')


@case('audit', 'calls newer than libseccomp and numbers above all are ENOSYS (finding 6)')
def _():
    # statmount, listmount, open_tree_attr, setxattrat, file_getattr, beyond
    calls = [(457, 0, 0, 0, 0), (458, 0, 0, 0, 0), (467, -1, 0, 0, 0, 0), (463, -100, 0, 0, 0, 0, 0),
             (468, -100, 0, 0, 0, 0), (470,), (512,), (1000,), (0x3FFFFFFF,)]
    got = run(f'print(json.dumps([sc(*c) for c in {calls!r}]))').json()
    equal(got, ['ENOSYS'] * len(calls), 'results')


@case('audit', 'the allowlist: how many system calls, and Landlock\'s ABI (finding 6)')
def _():
    lines = debug_lines()
    sec = [l for l in lines if l.startswith('seccomp: ')]
    ll = [l for l in lines if l.startswith('landlock: ')]
    check(sec and ll, f'--debug lines: {lines}')
    n = int(sec[0].split()[1])
    print(f'# {sec[0]}', flush=True)
    print(f'# {ll[0]}', flush=True)
    check(0 < n <= 150, f'{n} system calls allowed')


@case('audit', 'Landlock: a path outside the sandbox\'s own tree is out of reach even through /proc')
def _():
    ll = [l for l in debug_lines() if l.startswith('landlock: ')]
    if not ll or 'not a' in ll[0]:
        raise Skip(ll[0] if ll else 'no landlock line in --debug')
    got = py_line("""
        import socket
        r = [oserr(os.listdir, "/proc/1/root/etc"), oserr(open, "/proc/1/root/etc/passwd")]
        r.append(oserr(open, "/etc/passwd"))
        r.append(oserr(open, "/workspace/x", "w"))
        print(json.dumps(r))
    """)
    a, b, c, d = json.loads(got)
    check(a in ('EACCES', 'EPERM') and b in ('EACCES', 'EPERM'), f'/proc/1/root: {a} {b}')
    equal((c, d), ('ok', 'ok'), 'the sandbox\'s own /etc/passwd and workspace')


TERMINAL_PROBE = '''
import termios
r = [os.isatty(0), os.isatty(1), os.isatty(2)]
try:
    a = termios.tcgetattr(0)
    a[3] &= ~(termios.ECHO | termios.ICANON)
    termios.tcsetattr(0, termios.TCSANOW, a)
    r.append("changed")
except termios.error:
    r.append("not a terminal")
import fcntl
r.append(oserr(fcntl.ioctl, 0, termios.TIOCSTI, b"x"))
print(json.dumps(r), flush=True)
'''


def run_on_terminal(opts=()):
    """Runs TERMINAL_PROBE with a pty as stdin, stdout and stderr; returns
    what it printed and whether the pty's modes are as before."""
    import pty
    import select
    import termios
    master, slave = pty.openpty()
    try:
        before = termios.tcgetattr(slave)
        p = subprocess.run([SANDBOX, *opts, '--workspace', new_workspace(), '--', PY, '-c',
                            PRELUDE + TERMINAL_PROBE], stdin=slave, stdout=slave, stderr=slave, timeout=60)
        out = b''
        while b'\n' not in out and select.select([master], [], [], 5)[0]:
            out += os.read(master, 4096)
        same = termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)
    check(p.returncode == 0, f'exit {p.returncode}, output {out!r}')
    line = [l for l in out.decode(errors='replace').splitlines() if l.startswith('[')]
    check(line, f'no output through the terminal: {out!r}')
    return json.loads(line[0]), same


@case('audit', 'the program never gets the caller\'s terminal as fds 0-2; its output still shows (finding 7)')
def _():
    got, same = run_on_terminal()
    equal(got, [False, False, False, 'not a terminal', 'EPERM'], 'isatty 0-2, tcsetattr, TIOCSTI')
    check(same, 'the caller\'s terminal modes changed')


@case('audit', '--pty: a fresh terminal of its own; the caller\'s modes are restored after')
def _():
    got, same = run_on_terminal(['--pty'])
    equal(got, [True, True, True, 'changed', 'EPERM'], 'isatty 0-2, tcsetattr, TIOCSTI')
    check(same, 'the caller\'s terminal modes were not restored')


# ---------------------------------------------------------------------------
# The capped workspace (--workspace-fs tmpfs, issue 10 finding 3): a tmpfs
# with size= and nr_inodes= in the sandbox's own mount namespace, so the
# kernel itself refuses what the walker above has to catch afterwards.

TMPFS = ['--workspace-fs', 'tmpfs', '--disk', '16M', '--max-files', '300']


def tmpfs_fill(code, opts=TMPFS, ws=None):
    """Runs @code, which prints one JSON list [errno name, MiB written];
    returns it after checking that the run ended by itself and was saved."""
    res = run(code, ws=ws, opts=list(opts), timeout=60)
    equal(res.status, {'exit': 0, 'saved': True}, f'status ({res!r}, stdout {res.out[-200:]!r})')
    return res.json()


FILL = '''
def fill(fd):
    chunk = os.urandom(1 << 20)
    n = 0
    try:
        while True:
            os.write(fd, chunk)
            n += 1
    except OSError as e:
        return [errno.errorcode[e.errno], n]
'''


@case('audit', 'capped workspace: an O_TMPFILE file stops at --disk (ENOSPC from the kernel)')
def _():
    got = tmpfs_fill(FILL + textwrap.dedent('''
        fd = os.open("/workspace", os.O_TMPFILE | os.O_RDWR, 0o600)
        print(json.dumps(fill(fd)))
    '''))
    check(got[0] == 'ENOSPC' and got[1] <= 16, f'O_TMPFILE wrote {got[1]} MiB before {got[0]} (cap 16)')


@case('audit', 'capped workspace: a file held open after unlink stops at --disk')
def _():
    got = tmpfs_fill(FILL + textwrap.dedent('''
        fd = os.open("big", os.O_CREAT | os.O_RDWR, 0o600)
        os.unlink("big")
        if os.fork() == 0:   # held by a setsid child too
            os.setsid()
            import time; time.sleep(30)
            os._exit(0)
        print(json.dumps(fill(fd)))
    '''))
    check(got[0] == 'ENOSPC' and got[1] <= 16, f'unlinked file took {got[1]} MiB before {got[0]} (cap 16)')


@case('audit', 'capped workspace: a folder readable but not searchable, or the workspace at 000, hides nothing from --disk')
def _():
    ws = new_workspace()
    got = tmpfs_fill(FILL + textwrap.dedent('''
        os.mkdir("hide")
        fd = os.open("hide/big", os.O_CREAT | os.O_RDWR, 0o600)
        os.write(fd, os.urandom(1 << 20) * 6)
        os.chmod("hide", 0o444)
        os.chmod("/workspace", 0)
        print(json.dumps(fill(fd)))
    '''), ws=ws)
    check(got[0] == 'ENOSPC' and got[1] + 6 <= 16, f'{got[1] + 6} MiB written before {got[0]} (cap 16)')
    # Saved, with modes the owner can use (the run was not stopped: ENOSPC).
    check(os.stat(ws).st_mode & 0o700 == 0o700, f'workspace mode {oct(os.stat(ws).st_mode)}')
    size = os.path.getsize(os.path.join(ws, 'hide', 'big'))
    check(size <= 16 << 20, f'hide/big saved with {size} bytes')


@case('audit', 'capped workspace: files and hard links stop at --max-files (ENOSPC)')
def _():
    got = tmpfs_fill('''
        n = 0
        try:
            for i in range(10 ** 6):
                open(f"f{i}", "w").close()
                n += 1
        except OSError as e:
            made = [errno.errorcode[e.errno], n]
        for i in range(n):
            os.unlink(f"f{i}")
        open("one", "w").close()
        links = 0
        try:
            for i in range(10 ** 6):
                os.link("one", f"l{i}")
                links += 1
        except OSError as e:
            made += [errno.errorcode[e.errno], links]
        for i in range(links):
            os.unlink(f"l{i}")
        print(json.dumps(made))
    ''')
    check(got[0] == 'ENOSPC' and got[1] <= 300, f'{got[1]} files before {got[0]} (cap 300)')
    check(got[2] == 'ENOSPC' and got[3] <= 300, f'{got[3]} hard links before {got[2]} (cap 300)')


@case('audit', 'capped workspace: saved on the host beneath fds: no set-id bits, no links, right owner')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'input.csv'), 'w').write('a\n1\n')
    open(os.path.join(ws, 'old.txt'), 'w').write('old')
    os.mkdir(os.path.join(ws, 'gone'))
    open(os.path.join(ws, 'gone', 'x'), 'w').write('x')
    res = run('''
        import shutil
        print(open("input.csv").read().strip(), file=sys.stderr)
        os.unlink("old.txt")
        shutil.rmtree("gone")
        os.mkdir("out")
        open("out/result.txt", "w").write("result")
        shutil.copy("/usr/bin/id", "suid")
        os.chmod("suid", 0o6755)
        os.mkdir("sgid")
        os.chmod("sgid", 0o2777)
        os.symlink("/etc/passwd", "link")
        os.symlink("/", "out/root")
        import socket
        socket.socket(socket.AF_UNIX).bind("sock")
        with open("sparse", "wb") as f:
            f.truncate(1 << 30)
            f.write(b"head")
        os.chmod("out", 0)
        print("ok")
    ''', ws=ws, opts=TMPFS)
    equal(res.status, {'exit': 0, 'saved': True}, f'status ({res!r})')
    names = sorted(os.listdir(ws))
    equal(names, ['input.csv', 'out', 'sgid', 'sparse', 'suid'], 'saved names')
    equal(open(os.path.join(ws, 'input.csv')).read(), 'a\n1\n', 'input')
    equal(sorted(os.listdir(os.path.join(ws, 'out'))), ['result.txt'], 'out/')
    equal(open(os.path.join(ws, 'out', 'result.txt')).read(), 'result', 'out/result.txt')
    equal(setid_or_root_entries(ws), [], 'set-id or root-owned entries after the save')
    st = os.stat(os.path.join(ws, 'sparse'))
    check(st.st_size == 1 << 30 and st.st_blocks * 512 < 1 << 20,
          f'sparse: size {st.st_size}, {st.st_blocks * 512} bytes on disk (holes must stay holes)')
    owner = os.stat(ws).st_uid
    for root, dirs, files in os.walk(ws):
        for n in dirs + files:
            st = os.lstat(os.path.join(root, n))
            equal(st.st_uid, owner, f'owner of {n}')


@case('audit', 'capped workspace: hard links cannot make the save write more than --disk')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'keep.txt'), 'w').write('keep')
    res = run('''
        with open("big", "wb") as f:
            f.write(os.urandom(1 << 20) * 10)
        for i in range(4):
            os.link("big", f"big{i}")
    ''', ws=ws, opts=TMPFS)
    # Issue 18: the other names are links on the host too, counted once.
    equal(res.status.get('saved'), True, f'status ({res!r})')
    check(host_bytes(ws) <= 16 << 20, f'{host_bytes(ws)} bytes written to the host (cap 16 MiB)')


@case('audit', 'capped workspace: a save asked on --sync-fd lands mid-run; the program cannot ask for one')
def _():
    ws = new_workspace()
    p, a, f = start_synced(ws, TMPFS, '''
        import signal, time
        open("mid.txt", "w").write("mid")
        os.kill(1, signal.SIGRTMIN + 2)        # PID-1's save signal, from inside
        os.kill(1, signal.SIGRTMIN)
        print("ready", flush=True)
        sys.stdin.readline()
        open("end.txt", "w").write("end")
    ''')
    try:
        time.sleep(0.5)
        equal(os.listdir(ws), [], 'the host workspace before any save was asked')
        a.sendall(b'x')
        equal(json.loads(f.readline()), {'id': 1, 'saved': True}, 'answer')
        equal(os.listdir(ws), ['mid.txt'], 'the host workspace after the save')
        p.stdin.write(b'\n')
        p.stdin.close()
        equal(p.wait(timeout=30), 0, f'exit status ({p.stderr.read()!r})')
    finally:
        stop(p, a)
    equal(sorted(os.listdir(ws)), ['end.txt', 'mid.txt'], 'the host workspace after the run')


@case('audit', 'capped workspace: saves asked on --sync-fd before the run starts are each answered')
def _():
    ws = new_workspace()
    a, b = socket.socketpair()
    a.sendall(b'xx')
    p = subprocess.Popen([SANDBOX, '--workspace', ws, *TMPFS, '--sync-fd', str(b.fileno()), '--',
                          PY, '-c', 'import time; time.sleep(1)'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(b.fileno(),))
    b.close()
    try:
        a.settimeout(20)
        f = a.makefile()
        equal([json.loads(f.readline()), json.loads(f.readline())], [{'id': 1, 'saved': True}, {'id': 2, 'saved': True}], 'answers')
        equal(p.wait(timeout=30), 0, 'exit status')
    finally:
        p.kill()
        p.wait()
        a.close()


@case('audit', 'capped workspace: a save during endless file churn still answers, and the run goes on')
def _():
    ws = new_workspace()
    p, a, f = start_synced(ws, TMPFS, '''
        import threading
        def churn():
            i = 0
            while True:
                open(f"c{i}", "w").close()
                if i >= 100:
                    os.unlink(f"c{i - 100}")
                i += 1
        threading.Thread(target=churn, daemon=True).start()
        print("ready", flush=True)
        sys.stdin.readline()
    ''')
    try:
        a.sendall(b'x')
        a.settimeout(30)
        answer = json.loads(f.readline())
        check(answer.get('saved') is True or 'kept changing' in answer.get('error', ''), f'answer {answer}')
        p.stdin.write(b'\n')
        p.stdin.close()
        equal(p.wait(timeout=60), 0, 'exit status')
    finally:
        stop(p, a)


def give_to_workspace_owner(ws, *paths):
    """As root the host stages files as the workspace's owner (rk-import)."""
    if os.geteuid() == 0:
        st = os.stat(ws)
        for p in paths:
            os.chown(p, st.st_uid, st.st_gid)


@case('audit', 'capped workspace: files added mid-run come in through .reckon-incoming in turn with saves; '
               'the program\'s own .reckon-incoming never reaches the host')
def _():
    ws = new_workspace()
    p, a, f = start_synced(ws, TMPFS, '''
        open("made.txt", "w").write("sandbox")
        os.makedirs(".reckon-incoming/.reckon/readings")
        os.symlink("/etc/passwd", ".reckon-incoming/added.csv")
        open(".reckon-incoming/.reckon/readings/r.json", "w").write("forged")
        print("ready", flush=True)
        sys.stdin.readline()
        print(open("added.csv").read(), open(".reckon/readings/r.json").read(), open("made.txt").read())
    ''')
    try:
        a.sendall(b's')
        equal(json.loads(f.readline()), {'id': 1, 'saved': True}, 'save answer')
        equal(sorted(os.listdir(ws)), ['made.txt'], 'the host after the save (no .reckon-incoming of the program)')
        inc = os.path.join(ws, '.reckon-incoming')
        os.makedirs(os.path.join(inc, '.reckon', 'readings'))
        open(os.path.join(inc, 'added.csv'), 'w').write('host-data')
        open(os.path.join(inc, 'made.txt'), 'w').write('clash')
        open(os.path.join(inc, '.half.csv'), 'w').write('still being copied')
        open(os.path.join(inc, '.reckon', 'readings', 'r.json'), 'w').write('host-reading')
        give_to_workspace_owner(ws, inc, os.path.join(inc, '.reckon'), os.path.join(inc, '.reckon', 'readings'),
                                os.path.join(inc, 'added.csv'), os.path.join(inc, 'made.txt'),
                                os.path.join(inc, '.half.csv'),
                                os.path.join(inc, '.reckon', 'readings', 'r.json'))
        a.sendall(b'ls')
        answer = json.loads(f.readline())
        equal((answer.get('id'), answer.get('loaded')), (2, False), f'load answer {answer}')
        check('made.txt' in answer.get('error', ''), f'the clash is named: {answer}')
        equal(json.loads(f.readline()), {'id': 3, 'saved': True}, 'the save after the load')
        equal(open(os.path.join(ws, 'added.csv')).read(), 'host-data', 'the added file, on the host')
        equal(open(os.path.join(ws, '.reckon', 'readings', 'r.json')).read(), 'host-reading', 'the reading replaced')
        equal(open(os.path.join(ws, 'made.txt')).read(), 'sandbox', 'the clash did not replace the program\'s file')
        equal(sorted(os.listdir(inc)), ['.half.csv', '.reckon', 'made.txt'],
              'what stays staged (a hidden name is a file still being written)')
        p.stdin.write(b'\n')
        p.stdin.close()
        equal(p.wait(timeout=30), 0, f'exit status ({p.stderr.read()!r})')
        equal(p.stdout.read().decode().split(), ['host-data', 'host-reading', 'sandbox'], 'what the program read')
    finally:
        stop(p, a)


@case('net', '--net loopback: TCP on the run\'s own lo works; no route out, the host\'s loopback services '
             'refused, other families still refused; refused with --nested')
def _():
    host = socket.socket()
    host.bind(('127.0.0.1', 0))
    host.listen()
    port = host.getsockname()[1]
    try:
        res = run(f'''
        import socket
        out = {{}}
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
        c = socket.create_connection(s.getsockname(), timeout=5)
        a, _ = s.accept(); c.sendall(b"x"); out["own_lo"] = a.recv(1).decode()
        out["host_port"] = oserr(socket.create_connection, ("127.0.0.1", {port}), timeout=3)
        out["out"] = oserr(socket.create_connection, ("192.0.2.1", 80), timeout=3)
        out["packet"] = oserr(socket.socket, socket.AF_PACKET, socket.SOCK_RAW)
        out["netlink"] = oserr(socket.socket, socket.AF_NETLINK, socket.SOCK_RAW)
        out["ifaces"] = sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:])
        print(json.dumps(out))
        ''', opts=('--net', 'loopback'))
        equal(res.rc, 0, f'exit status ({res!r})')
        out = res.json()
        equal(out['own_lo'], 'x', 'a TCP server and client on the run\'s own lo')
        equal(out['host_port'], 'ECONNREFUSED', 'a port listening on the host\'s loopback')
        equal(out['out'], 'ENETUNREACH', 'an address outside')
        equal((out['packet'], out['netlink']), ('EAFNOSUPPORT', 'EAFNOSUPPORT'), 'other families')
        equal(out['ifaces'], ['lo'], 'interfaces')
        res = run('import socket; socket.socket()')
        check(b'Address family not supported' in res.err, f'without --net loopback, no IP socket ({res!r})')
        res = run('print(1)', opts=('--net', 'loopback', '--nested'))
        equal(res.rc, 125, f'--net loopback with --nested refused ({res!r})')
    finally:
        host.close()


def make_input(ws, name, size, sparse=True):
    """An input as rk-import leaves it: a read-only file at the top of the
    workspace, owned by the workspace's owner."""
    path = os.path.join(ws, name)
    with open(path, 'wb') as f:
        f.write(b'a,b\n1,2\n')
        if sparse:
            f.truncate(size)
        else:
            chunk = b'1,2\n' * (1 << 18)
            while f.tell() + len(chunk) <= size:
                f.write(chunk)
            f.truncate(size)
    os.chmod(path, 0o444)
    give_to_workspace_owner(ws, path)
    return path


def spawn_synced(ws, opts, code, status=False, forge=False):
    """Starts @code (after PRELUDE, and FORGE with @forge) in a sandbox on
    @ws with a --sync-fd and, with @status, a --status-fd. Returns
    (process, the caller's socket, the status read end or None)."""
    a, b = socket.socketpair()
    fds = [b.fileno()]
    extra = []
    r = w = None
    if status:
        r, w = os.pipe()
        fds.append(w)
        extra = ['--status-fd', str(w)]
    cmd = [SANDBOX, '--workspace', ws, *opts, '--sync-fd', str(b.fileno()), *extra, '--',
           PY, '-c', PRELUDE + (FORGE if forge else '') + textwrap.dedent(code)]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         pass_fds=fds)
    b.close()
    if w is not None:
        os.close(w)
    return p, a, r


def start_synced(ws, opts, code):
    """Starts @code as spawn_synced() does and waits for its "ready" line.
    Returns (process, the caller's socket, a reader of it)."""
    p, a, _ = spawn_synced(ws, opts, code)
    try:
        wait_line(p)
    except BaseException:
        stop(p, a)
        raise
    a.settimeout(20)
    return p, a, a.makefile()


def stage(ws, name, data):
    """A file the caller adds while the program runs, as rk-import stages it:
    read-only in .reckon-incoming/, owned by the workspace's owner."""
    inc = os.path.join(ws, '.reckon-incoming')
    if not os.path.isdir(inc):
        os.mkdir(inc)
        give_to_workspace_owner(ws, inc)
    path = os.path.join(inc, name)
    with open(path, 'wb') as out:
        out.write(data)
    os.chmod(path, 0o444)
    give_to_workspace_owner(ws, path)


INPUT_ATTACKS = '''
out = {}
out["size"] = os.path.getsize("data.csv")
out["read"] = open("data.csv").readline().strip()
out["append"] = oserr(lambda: open("data.csv", "a").write("x"))
out["truncate"] = oserr(os.truncate, "data.csv", 0)
out["chmod"] = oserr(os.chmod, "data.csv", 0o666)
target = os.path.realpath("data.csv")
out["write_target"] = oserr(lambda: open(target, "r+").write("x"))
out["rename_target"] = oserr(os.rename, target, target + ".old")
out["link_target"] = oserr(os.link, target, "linked.csv")
out["made"] = oserr(lambda: open("made.bin", "wb").write(b"x" * 4096))
'''

REFUSED = ('EROFS', 'EACCES', 'EBUSY', 'EPERM')


@case('fs', 'inputs (--input), bound workspace: an input far over --disk is read, never counted, '
            'and cannot be written, truncated, renamed, removed or hard-linked')
def _():
    ws = new_workspace()
    make_input(ws, 'data.csv', 48 << 20, sparse=False)
    res = run(INPUT_ATTACKS + textwrap.dedent('''
    out["rename"] = oserr(os.rename, "data.csv", "moved.csv")
    out["unlink"] = oserr(os.unlink, "data.csv")
    import time
    time.sleep(1.5)  # the monitor walks the workspace meanwhile
    print(json.dumps(out))
    '''), opts=('--disk', '16M', '--input', 'data.csv'), ws=ws)
    equal(res.rc, 0, f'exit status ({res!r})')
    out = res.json()
    equal((out['size'], out['read'], out['made']), (48 << 20, 'a,b', 'ok'),
          'read, and the program writes its own files')
    for op in ('append', 'truncate', 'chmod', 'write_target', 'rename_target', 'rename', 'unlink'):
        check(out[op] in REFUSED, f'{op} refused: {out}')
    equal(out['link_target'], 'EXDEV', 'hard link of the input')
    host = os.path.join(ws, 'data.csv')
    equal((os.path.getsize(host), open(host).readline()), (48 << 20, 'a,b\n'), 'the input on the host')
    # Without --input the same file is any other file of the workspace: it counts.
    res = run('import time; time.sleep(1.5)', opts=('--disk', '16M'), ws=ws)
    equal(res.status.get('limit'), 'disk', f'the same file, not named an input ({res!r})')


@case('fs', 'inputs (--input), capped workspace: a link to the read-only view of the host folder, '
            'never copied into the tmpfs; the program cannot change the host input, even by replacing its link')
def _():
    ws = new_workspace()
    make_input(ws, 'data.csv', 48 << 20, sparse=False)
    res = run(INPUT_ATTACKS + textwrap.dedent('''
    out["link"] = os.readlink("data.csv")
    out["inputs_write"] = oserr(lambda: open("/inputs/new.csv", "w"))
    os.unlink("data.csv")
    open("data.csv", "w").write("forged by the program")
    print(json.dumps(out))
    '''), opts=(*TMPFS, '--input', 'data.csv'), ws=ws)
    equal(res.rc, 0, f'exit status ({res!r})')
    out = res.json()
    equal((out['size'], out['read'], out['link'], out['made']), (48 << 20, 'a,b', '/inputs/data.csv', 'ok'),
          'the input inside, three times --disk')
    for op in ('append', 'truncate', 'chmod', 'write_target', 'rename_target', 'inputs_write'):
        check(out[op] in REFUSED, f'{op} refused: {out}')
    equal(res.status.get('saved'), True, f'saved at the end ({res.status})')
    host = os.path.join(ws, 'data.csv')
    equal((os.path.getsize(host), open(host).readline()), (48 << 20, 'a,b\n'),
          'the host input after the program replaced its link and the workspace was saved')
    equal(sorted(os.listdir(ws)), ['data.csv', 'made.bin'], 'the host folder')


@case('fs', 'inputs added mid-run to a capped workspace: linked in through .reckon-incoming, '
            'not copied, not counted against --disk (neither staged nor linked), read-only inside')
def _():
    ws = new_workspace()
    p, a, f = start_synced(ws, TMPFS, '''
        print("ready", flush=True)
        sys.stdin.readline()
        import time
        time.sleep(1.5)  # the monitor walks the host folder meanwhile
        out = {"size": os.path.getsize("big.csv"), "link": os.readlink("big.csv"),
               "append": oserr(lambda: open("big.csv", "a").write("x")),
               "write_target": oserr(lambda: open("/inputs/big.csv", "r+").write("x"))}
        print(json.dumps(out))
    ''')
    try:
        inc = os.path.join(ws, '.reckon-incoming')
        os.mkdir(inc)
        give_to_workspace_owner(ws, inc)
        make_input(inc, 'big.csv', 48 << 20, sparse=False)
        time.sleep(1.5)  # the monitor walks the host folder while the file waits there
        a.sendall(b'l')
        answer = json.loads(f.readline())
        equal(answer.get('loaded'), True, f'load answer {answer}')
        p.stdin.write(b'\n')
        p.stdin.close()
        equal(p.wait(timeout=30), 0, f'exit status ({p.stderr.read()!r})')
        out = json.loads(p.stdout.read().decode().splitlines()[-1])
        equal((out['size'], out['link']), (48 << 20, '/inputs/big.csv'), 'the added input inside')
        check(out['append'] in REFUSED and out['write_target'] in REFUSED, f'the added input is read-only: {out}')
        equal(os.path.getsize(os.path.join(ws, 'big.csv')), 48 << 20, 'the input on the host')
    finally:
        p.kill()
        p.wait()
        a.close()


@case('fs', 'capped workspace: an input removed by the caller and added again while the program runs comes back under its '
            'link; a file the program made under that name still refuses the take')
def _():
    ws = new_workspace()
    make_input(ws, 'data.csv', 4096, sparse=True)
    p, a, f = start_synced(ws, (*TMPFS, '--input', 'data.csv'), '''
        open("mine.csv", "w").write("the program's own")
        print("ready", flush=True)
        sys.stdin.readline()
        out = {"link": os.readlink("data.csv"), "read": open("data.csv").readline().strip(),
               "mine": open("mine.csv").read()}
        print(json.dumps(out))
    ''')
    try:
        os.unlink(os.path.join(ws, 'data.csv'))
        stage(ws, 'data.csv', b'again,1\n')
        a.sendall(b'l')
        equal(json.loads(f.readline()).get('loaded'), True, 'the removed input taken again')
        stage(ws, 'mine.csv', b'forged by the caller\n')
        a.sendall(b'l')
        answer = json.loads(f.readline())
        equal(answer.get('loaded'), False, f'a name the program made is not replaced ({answer})')
        p.stdin.write(b'\n')
        p.stdin.close()
        equal(p.wait(timeout=30), 0, f'exit status ({p.stderr.read()!r})')
        out = json.loads(p.stdout.read().decode().splitlines()[-1])
        equal((out['link'], out['read'], out['mine']), ('/inputs/data.csv', 'again,1', "the program's own"),
              'inside')
    finally:
        p.kill()
        p.wait()
        a.close()


@case('fs', '--input takes one name at the top of the workspace, nothing else')
def _():
    for bad in ('../x', 'a/b', '.hidden', ''):
        res = run('print(1)', opts=('--input', bad))
        equal(res.rc, 125, f'--input {bad!r} refused ({res!r})')


@case('audit', 'capped workspace: closing --sync-fd means no save at the end')
def _():
    ws = new_workspace()
    p, a, r = spawn_synced(ws, TMPFS, '''
        print("ready", flush=True)
        sys.stdin.readline()
        open("late.txt", "w").write("late")
    ''', status=True)
    try:
        wait_line(p)
        a.close()
        time.sleep(0.3)
        p.stdin.write(b'\n')
        p.stdin.close()
        equal(p.wait(timeout=30), 0, 'exit status')
        status = json.loads(os.read(r, 4096).decode())
        equal(status.get('saved'), False, f'status {status}')
        check('closed --sync-fd' in status.get('save-error', ''), f'status says why: {status}')
        equal(os.listdir(ws), [], 'the host workspace')
    finally:
        stop(p, a, r)


@case('audit', 'capped workspace: a run stopped by --timeout saves nothing and says so')
def _():
    ws = new_workspace()
    open(os.path.join(ws, 'input.csv'), 'w').write('x\n')
    res = run('''
        import time
        os.unlink("input.csv")
        open("half.txt", "w").write("half")
        time.sleep(60)
    ''', ws=ws, opts=[*TMPFS, '--timeout', '2'])
    equal(res.status, {'signal': 9, 'limit': 'timeout', 'saved': False}, 'status')
    equal(os.listdir(ws), ['input.csv'], 'the host workspace is as it was')


@case('audit', 'capped workspace: a workspace bigger than --disk does not start')
def _():
    ws = new_workspace()
    with open(os.path.join(ws, 'big'), 'wb') as f:
        f.write(b'x' * (20 << 20))
    res = run('print("started")', ws=ws, opts=TMPFS)
    check(b'started' not in res.out, 'the program ran')
    # Whichever sees it first: the monitor's walk of the host folder (the
    # disk limit, as without a tmpfs), or PID-1's copy into the tmpfs.
    check(res.status == {'signal': 9, 'limit': 'disk', 'saved': False}
          or (res.rc == 125 and 'does not fit' in (res.status or {}).get('error', '')), f'{res!r}')
    equal(os.path.getsize(os.path.join(ws, 'big')), 20 << 20, 'the host file')


# ---------------------------------------------------------------------------
# Issue 18 (second audit): forged saves, truncating saves, output
# amplification, per-user kernel resources, the caller's cgroup, escaped
# status and stderr, host paths seen inside.

# rt_sigqueueinfo with a siginfo the program fills itself: any si_code < 0
# and any si_pid, 0 (the kernel's "from outside") included.
FORGE = '''
import signal
class _SigInfo(ctypes.Structure):
    _fields_ = [("signo", ctypes.c_int), ("errno", ctypes.c_int), ("code", ctypes.c_int),
                ("pad", ctypes.c_int), ("pid", ctypes.c_int), ("uid", ctypes.c_uint),
                ("value", ctypes.c_long), ("rest", ctypes.c_char * 96)]
def forge(sig, value, pid=1):
    info = _SigInfo(signo=sig, code=-1, pid=0, uid=0, value=value)   # SI_QUEUE, "from pid 0"
    return sc(129, pid, sig, ctypes.byref(info))
'''


def sync_run(code, ws, opts=(), status=False):
    """spawn_synced() with a capped workspace and FORGE: (process, our end
    of the socket, status read end or None)."""
    return spawn_synced(ws, (*TMPFS, *opts), code, status=status, forge=True)


def stop(p, a, r=None):
    p.kill()
    p.wait()
    a.close()
    if r is not None:
        os.close(r)


@case('audit', 'capped workspace: forged save, take and no-save requests (rt_sigqueueinfo from "pid 0") do nothing '
               '(issue 18, 1)')
def _():
    ws = new_workspace()
    p, a, r = sync_run('''
        got = []
        signal.signal(signal.SIGUSR1, lambda *a: got.append(1))
        open("forged.txt", "w").write("x")
        rt = signal.SIGRTMIN + 2
        res = [forge(rt, ord(c)) for c in "sssl"] + [forge(rt, ord("n")), forge(signal.SIGUSR1, 0)]
        import time; time.sleep(1)
        print(json.dumps([res, len(got)]), flush=True)
        sys.stdin.readline()
        open("end.txt", "w").write("end")
    ''', ws, status=True)
    try:
        sent, forwarded = json.loads(wait_line(p))
        equal(sent, ['ok'] * 6, 'the forged signals were sent (the kernel lets the program forge them)')
        equal(os.listdir(ws), [], 'the host workspace after the forged saves')
        equal(forwarded, 0, 'a forged SIGUSR1 "from outside" passed on to the program')
        a.setblocking(False)
        try:
            extra = a.recv(4096)
        except BlockingIOError:
            extra = b''
        equal(extra, b'', 'answer lines on --sync-fd that match no request')
        a.setblocking(True)
        a.settimeout(20)
        a.sendall(b's')
        equal(json.loads(a.makefile().readline()), {'id': 1, 'saved': True}, 'the first real answer')
        p.stdin.write(b'\n')
        p.stdin.close()
        equal(p.wait(timeout=30), 0, 'exit status')
        status = json.loads(os.read(r, 4096).decode())
        equal(status, {'exit': 0, 'saved': True}, 'status (a forged "no save at the end" cancelled it)')
        equal(sorted(os.listdir(ws)), ['end.txt', 'forged.txt'], 'the host workspace after the run')
    finally:
        stop(p, a, r)


@case('audit', 'capped workspace: --timeout fires while the program forges saves and the caller reads no answers '
               '(issue 18, 1)')
def _():
    ws = new_workspace()
    p, a, r = sync_run('''
        for i in range(200):
            open(f"f{i}", "w").write("x" * 1000)
        print("ready", flush=True)
        rt = signal.SIGRTMIN + 2
        while True:
            forge(rt, ord("s"))
    ''', ws, opts=['--timeout', '3'])
    try:
        wait_line(p)
        a.sendall(b's' * 20000)     # real requests too, their answers never read
        t0 = time.monotonic()
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            raise Fail(f'still running {time.monotonic() - t0:.0f} s after the start with --timeout 3')
        equal(rc, 124, 'exit status (timeout)')
    finally:
        stop(p, a)


@case('audit', 'capped workspace: PID-1\'s own work (saves the caller asks for) counts against --cpu-seconds '
               '(issue 18, 1)')
def _():
    ws = new_workspace()
    p, a, r = sync_run('''
        import time
        data = os.urandom(1 << 20)
        for i in range(12):
            open(f"f{i}", "wb").write(data)
        print("ready", flush=True)
        while True:                    # each save must copy the files again
            for i in range(12):
                os.utime(f"f{i}")
            time.sleep(0.05)
    ''', ws, opts=['--cpu-seconds', '1', '--timeout', '25'], status=True)
    try:
        wait_line(p)
        a.setblocking(False)
        t0 = time.monotonic()
        while p.poll() is None and time.monotonic() - t0 < 20:
            try:
                a.send(b's' * 64)
            except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                pass
            try:
                a.recv(65536)
            except (BlockingIOError, ConnectionResetError):
                pass
            time.sleep(0.01)
        check(p.poll() is not None, 'PID-1 saved for 20 s under --cpu-seconds 1')
        status = json.loads(os.read(r, 4096).decode())
        equal(status.get('limit'), 'cpu', f'status {status}')
    finally:
        stop(p, a, r)


@case('audit', 'capped workspace: a save killed half-way leaves each host file old or new, never cut short '
               '(issue 18, 2)')
def _():
    size = 64 << 20
    for delay in (0.03, 0.08, 0.15, 0.3):
        ws = new_workspace()
        with open(os.path.join(ws, 'data.csv'), 'wb') as f:
            f.write(b'a' * size)
        give_to_workspace_owner(ws, os.path.join(ws, 'data.csv'))
        p, a, r = sync_run(f'''
            with open("data.csv", "r+b") as f:
                f.write(b"b" * {size})
            print("ready", flush=True)
            sys.stdin.readline()
        ''', ws, opts=['--disk', '200M'])
        try:
            wait_line(p)
            a.sendall(b's')
            time.sleep(delay)
            p.kill()                        # the monitor: PID-1 dies with it
            p.wait()
        finally:
            stop(p, a, r)
        time.sleep(0.2)
        with open(os.path.join(ws, 'data.csv'), 'rb') as f:
            data = f.read()
        check(len(data) == size and data.count(data[:1]) == size,
              f'data.csv after a save killed at {delay * 1000:.0f} ms: {len(data)} bytes, '
              f'{data.count(b"a")} of them old and {data.count(b"b")} new')
        left = [n for n in os.listdir(ws) if n != 'data.csv']
        equal(left, [], f'names left beside data.csv (killed at {delay * 1000:.0f} ms)')


def host_bytes(ws):
    """Bytes the host's folder holds on disk, each inode once."""
    seen, total = set(), 0
    for root, dirs, files in os.walk(ws):
        for n in files:
            st = os.lstat(os.path.join(root, n))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


@case('audit', 'capped workspace: repeated saves of hard-linked files hold the data once on the host (issue 18, 3)')
def _():
    ws = new_workspace()
    p, a, r = sync_run('''
        with open("big", "wb") as f:
            f.write(os.urandom(1 << 20) * 10)
        for i in range(6):
            os.link("big", f"big{i}")
        print("ready", flush=True)
        sys.stdin.readline()
    ''', ws, status=True)
    try:
        wait_line(p)
        a.settimeout(30)
        f = a.makefile()
        answers = []
        for i in range(5):
            a.sendall(b's')
            answers.append(json.loads(f.readline()))
        held = host_bytes(ws)
        check(held <= 16 << 20, f'{held >> 20} MiB on the host after 5 saves (cap 16 MiB); answers {answers}')
        equal(answers, [{'id': i + 1, 'saved': True} for i in range(5)], 'answers')
        p.stdin.write(b'\n')
        p.stdin.close()
        equal(p.wait(timeout=30), 0, 'exit status')
        inodes = {os.lstat(os.path.join(ws, n)).st_ino for n in os.listdir(ws)}
        equal(len(inodes), 1, 'the seven names are one file on the host too')
    finally:
        stop(p, a, r)


@case('info', 'the program\'s parent (PID-1; the monitor with --nested) shows no host path in its command line '
              '(issue 18, 7)')
def _():
    ws = new_workspace()
    got = run('''
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
            print(json.dumps(f.read().decode(errors="replace")))
    ''', ws=ws, opts=['--setenv', 'RK_MARK', ws]).json()
    equal(got, 'reckon-sandbox\x00', 'the parent\'s /proc/PID/cmdline')


@case('info', 'the uid and gid maps seen inside name no host uid (issue 18, 7)')
def _():
    got = run('''
        def read(p):
            with open(p) as f:
                return f.read()
        print(json.dumps({n: read(p) for n, p in [
            ("uid_map", "/proc/self/uid_map"), ("gid_map", "/proc/self/gid_map"),
            ("parent_uid_map", f"/proc/{os.getppid()}/uid_map")]}))
    ''').json()
    for name in ('uid_map', 'gid_map', 'parent_uid_map'):
        equal(got[name].split(), ['1000', '1000', '1'], name)


def clean_text(raw, what):
    """@raw must be valid UTF-8 without control characters (C0 but newline, DEL, C1)."""
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as e:
        raise Fail(f'{what} is not valid UTF-8 ({e}): {raw[-300:]!r}')
    bad = [hex(ord(ch)) for ch in text if (ord(ch) < 0x20 and ch != '\n') or 0x7f <= ord(ch) <= 0x9f]
    check(not bad, f'{what} carries raw control characters {bad[:8]}: {raw[-300:]!r}')
    return text


@case('audit', 'capped workspace: a name with ESC, OSC, C1 and bytes that are not UTF-8 reaches the status line and '
               'stderr escaped (issue 18, 6)')
def _():
    res = run('''
        for i in range(255):
            os.mkdir("d")
            os.chdir("d")
        os.mkdir(b"\\x1b]52;c;aGk=\\x07\\xc2\\x9b31m\\xff\\xfe\\x1b[2J")
    ''', opts=TMPFS)
    clean_text(res.status_raw, 'the status line')
    check(res.status is not None and res.status.get('saved') is False, f'status {res.status}')
    check(']52;' in res.status.get('save-error', ''), f'the save error names the folder: {res.status}')
    clean_text(res.err, 'stderr')


@case('audit', 'reckon-cli exec -o: sparse files keep their holes and one cap covers the whole export (issue 18, 3)')
def _():
    cli = os.path.join(os.path.dirname(os.path.dirname(SANDBOX)), 'src', 'cli', 'reckon-cli')
    if not os.access(cli, os.X_OK):
        raise Skip('reckon-cli is not built beside the sandbox')
    base = tempfile.mkdtemp(dir=BASE)
    os.chmod(base, 0o755)
    out = os.path.join(base, 'out')
    script = os.path.join(base, 'cell.py')
    with open(script, 'w') as f:
        f.write(textwrap.dedent('''
            import os
            for i in range(5):
                os.makedirs(f"d{i}", exist_ok=True)
                with open(f"d{i}/sparse.bin", "wb") as f:
                    f.truncate(1 << 30)
                    f.write(b"x")
            print("made")
        '''))
    env = dict(os.environ, RECKON_SANDBOX=SANDBOX, XDG_CACHE_HOME=os.path.join(base, 'cache'),
               XDG_CONFIG_HOME=os.path.join(base, 'config'), XDG_DATA_HOME=os.path.join(base, 'data'))
    p = subprocess.run([cli, 'exec', '-o', out, script], capture_output=True, text=True, timeout=300, env=env)
    check('made' in p.stdout, f'the cell did not run: exit {p.returncode}, stderr {p.stderr[-400:]!r}')
    apparent = held = 0
    for root, dirs, files in os.walk(out):
        for n in files:
            st = os.lstat(os.path.join(root, n))
            apparent += st.st_size
            held += st.st_blocks * 512
    check(held < 64 << 20, f'{held / (1 << 30):.2f} GiB written to the host for {apparent / (1 << 30):.2f} GiB '
                           f'of sparse files (56 KiB of data in the workspace)')
    check(apparent <= 4 << 30, f'{apparent / (1 << 30):.2f} GiB exported in all, over the 4 GiB cap')
    check('larger than' in p.stderr, f'the cap is named: {p.stderr[-400:]!r}')


@case('audit', 'root: the run\'s cgroups nest under the caller\'s own, whose limits hold for the run (issue 18, 5)')
def _():
    how = memory_bound()
    if not how.startswith('cgroup v1 of its own'):
        raise Skip(f'the sandbox makes no group of its own here ({how})')
    own = {}
    with open('/proc/self/cgroup') as f:
        for line in f:
            _, ctrls, path = line.rstrip('\n').split(':', 2)
            for c in ctrls.split(','):
                own[c] = path
    name = f'rk-caller-{os.getpid()}-{time.monotonic_ns()}'
    groups = {c: os.path.join('/sys/fs/cgroup', c, own[c].lstrip('/'), name) for c in ('memory', 'pids')}
    for g in groups.values():
        os.mkdir(g)
    try:
        with open(os.path.join(groups['memory'], 'memory.limit_in_bytes'), 'w') as f:
            f.write(str(300 << 20))
        with open(os.path.join(groups['pids'], 'pids.max'), 'w') as f:
            f.write('30')

        def enter():
            for g in groups.values():
                with open(os.path.join(g, 'cgroup.procs'), 'w') as f:
                    f.write('0')
        ws = new_workspace()
        r, w = os.pipe()
        code = PRELUDE + textwrap.dedent('''
            import time
            kids = 0
            for i in range(45):
                try:
                    if os.fork() == 0:
                        time.sleep(3)
                        os._exit(0)
                    kids += 1
                except OSError:
                    break
            print(kids, flush=True)
            b = bytearray(500 << 20)
            for j in range(0, len(b), 4096):
                b[j] = 1
            print("held", flush=True)
        ''')
        p = subprocess.run([SANDBOX, '--workspace', ws, '--status-fd', str(w), '--memory', '700M',
                            '--max-procs', '64', '--', PY, '-c', code],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(w,), preexec_fn=enter,
                           timeout=60)
        os.close(w)
        status = os.read(r, 4096)
        os.close(r)
        out = p.stdout.decode().split()
        check(out and int(out[0]) < 30, f'{out[:1]} processes inside a caller confined to 30 tasks')
        check('held' not in out, f'the run held 500 MiB inside a caller confined to 300 MiB (status {status!r})')
    finally:
        for g in groups.values():
            for root, dirs, _ in os.walk(g, topdown=False):
                for d in dirs:
                    for _ in range(50):
                        try:
                            os.rmdir(os.path.join(root, d))
                            break
                        except OSError:
                            time.sleep(0.1)
            for _ in range(50):
                try:
                    os.rmdir(g)
                    break
                except OSError:
                    time.sleep(0.1)


HOST_PEER = '''
import errno, fcntl, json, os, socket
out = {}
a, b = socket.socketpair()
fd = os.open("/dev/null", os.O_RDONLY)
try:
    socket.send_fds(a, [b"x"], [fd] * 200)
    out["pass_fds"] = "ok"
except OSError as e:
    out["pass_fds"] = errno.errorcode[e.errno]
r, w = os.pipe()
out["pipe_size"] = fcntl.fcntl(r, 1032)            # F_GETPIPE_SZ
try:
    fcntl.fcntl(r, 1031, 1 << 20)                  # F_SETPIPE_SZ
    out["pipe_grow"] = "ok"
except OSError as e:
    out["pipe_grow"] = errno.errorcode[e.errno]
print(json.dumps(out))
'''


@case('audit', 'fds in flight and pipe buffers inside leave a host process of the same user its own; '
               'pipe and socket buffers cannot be grown (issue 18, 4)')
def _():
    import resource
    ws = new_workspace()

    def caller_limits():
        # A desktop session's default: the sandbox takes a quarter of it.
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
    code = PRELUDE + textwrap.dedent('''
        import fcntl, socket
        held = []
        grown = denied = 0
        # Pipes, each grown to 1 MiB if allowed: pipe pages are counted per user.
        try:
            for i in range(200):
                r, w = os.pipe()
                os.close(w)
                held.append(r)
                try:
                    fcntl.fcntl(r, 1031, 1 << 20)
                    grown += 1
                except OSError:
                    denied += 1
        except OSError:
            pass
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        buf = oserr(s.setsockopt, socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)
        # Descriptors in flight: never received, they stay counted.
        a, b = socket.socketpair()
        sent = 0
        try:
            while True:
                socket.send_fds(a, [b"x"], [0] * 253)
                sent += 253
        except OSError as e:
            why = errno.errorcode[e.errno]
        print(json.dumps({"grown": grown, "denied": denied, "sndbuf": buf, "in_flight": sent, "stopped": why}),
              flush=True)
        sys.stdin.readline()
    ''')
    p = subprocess.Popen([SANDBOX, '--workspace', ws, '--', PY, '-c', code], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=caller_limits)
    try:
        inside = json.loads(wait_line(p, timeout=60))
        owner = os.stat(ws).st_uid if os.geteuid() == 0 else None

        def as_sandbox_user():
            resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
            if owner is not None:
                os.setgroups([])
                os.setgid(owner)
                os.setuid(owner)
        peer = subprocess.run([PY, '-c', HOST_PEER], capture_output=True, text=True, timeout=30,
                              preexec_fn=as_sandbox_user)
        check(peer.returncode == 0, f'host peer failed: {peer.stderr[-300:]!r}')
        host = json.loads(peer.stdout)
        equal(host, {'pass_fds': 'ok', 'pipe_size': 65536, 'pipe_grow': 'ok'},
              f'a host process of the same user, while the program holds {inside}')
        equal((inside['grown'], inside['sndbuf']), (0, 'EPERM'), f'pipes grown and SO_SNDBUF inside ({inside})')
    finally:
        p.kill()
        p.wait()


# ---------------------------------------------------------------------------

def run_as_user(user, argv):
    """Re-runs this suite as @user (root only); prints TAP either way."""
    if os.geteuid() != 0:
        print(f'1..0 # SKIP not running as root, so cannot switch to {user} (the main run is already unprivileged)')
        return 0
    try:
        pwd.getpwnam(user)
    except KeyError:
        r = subprocess.run(['useradd', '--system', '--no-create-home', '--shell', '/usr/sbin/nologin', user],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f'1..0 # SKIP cannot create the account {user}: {r.stderr.strip()}')
            return 0
    for path in (SANDBOX, HELPER, os.path.abspath(__file__)):
        r = subprocess.run(['runuser', '-u', user, '--', 'test', '-r', path], capture_output=True)
        if r.returncode != 0:
            print(f'1..0 # SKIP {user} cannot read {path} (the build tree must be world-readable)')
            return 0
    env = dict(os.environ)
    env.pop('TMPDIR', None)
    env['HOME'] = '/'
    os.chdir('/')
    return subprocess.run(['runuser', '-u', user, '--', PY, os.path.abspath(__file__), *argv], env=env).returncode


def main():
    global HELPER, BASE
    ap = argparse.ArgumentParser()
    ap.add_argument('--helper', required=True)
    ap.add_argument('--as-user')
    ap.add_argument('--only', default='')
    args = ap.parse_args()
    HELPER = os.path.abspath(args.helper)

    if args.as_user:
        sys.exit(run_as_user(args.as_user, ['--helper', HELPER, '--only', args.only]))

    selected = [t for t in TESTS if args.only in f'{t[0]}: {t[1]}']
    print(f'1..{len(selected)}', flush=True)
    if not SANDBOX or not os.access(SANDBOX, os.X_OK):
        for i, (group, name, _) in enumerate(selected, 1):
            print(f'ok {i} - {group}: {name} # SKIP RECKON_SANDBOX is not set')
        return
    os.environ['RECKON_SECRET_API_KEY'] = 'sk-must-not-leak'
    BASE = tempfile.mkdtemp(prefix='reckon-security-')
    os.chmod(BASE, 0o755)
    print(f'# running as uid {os.geteuid()}, workspaces under {BASE}', flush=True)
    failed = 0
    try:
        for i, (group, name, fn) in enumerate(selected, 1):
            t0 = time.monotonic()
            try:
                fn()
                print(f'ok {i} - {group}: {name}', flush=True)
            except Skip as e:
                print(f'ok {i} - {group}: {name} # SKIP {e}', flush=True)
            except Fail as e:
                failed += 1
                print(f'not ok {i} - {group}: {name}\n# {e}', flush=True)
            except Exception as e:
                failed += 1
                print(f'not ok {i} - {group}: {name}\n# {type(e).__name__}: {e}', flush=True)
            spent = time.monotonic() - t0
            if spent > 2:
                print(f'# {spent:.1f}s for {name}', flush=True)
    finally:
        for root, dirs, _ in os.walk(BASE):
            for d in dirs:
                try:
                    os.chmod(os.path.join(root, d), 0o755)
                except OSError:
                    pass
        shutil.rmtree(BASE, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
