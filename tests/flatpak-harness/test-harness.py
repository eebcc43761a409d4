#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-harness.py — issue 11, acceptance 1, run by run.py inside the flatpak
# harness (or its no-backend mode): reckon-cli as a user runs it, through the
# backend rk-sandbox-launcher picked. Speaks TAP.
#
#   test-harness.py flatpak      the flatpak backend: code runs, isolated; a
#                                runaway cell and a killed app leave no process
#   test-harness.py no-backend   nothing can sandbox: code is refused, with
#                                one sentence saying why, and nothing runs
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid

BUILD = os.environ.get('RECKON_BUILD_ROOT', '')
CLI = os.path.join(BUILD, 'src', 'cli', 'reckon-cli')
tap = []


def ok(cond, name, detail=''):
    tap.append((bool(cond), name, detail))
    if detail:
        # every line a TAP comment: details are often several lines of output
        print('\n'.join('# ' + line for line in ('%s: %s' % (name, detail)).splitlines()))


def alive(token):
    """PIDs, as this (host) side sees them, whose command line holds token."""
    found = []
    for name in os.listdir('/proc'):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open('/proc/%s/cmdline' % name, 'rb') as f:
                if token.encode() in f.read():
                    found.append(int(name))
        except OSError:
            pass
    return found


def wait_gone(token, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not alive(token):
            return True
        time.sleep(0.1)
    return not alive(token)


def cli(args, timeout=180, **kw):
    return subprocess.run([CLI] + args, capture_output=True, text=True, timeout=timeout, **kw)


def spin_code(token):
    # A child in its own session that double-forks away and sleeps, named by
    # the token; then the cell spins forever.
    return (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c',\n"
        "    'import os, time\\nif os.fork(): os._exit(0)\\nos.setsid()\\ntime.sleep(600)',\n"
        "    '%s-sleeper'], start_new_session=True)\n"
        "print('spinning', flush=True)\n"
        "while True:\n"
        "    pass\n" % token)


def flatpak(tmp):
    v = cli(['--version'])
    ok('Sandbox: flatpak' in v.stdout, 'reckon-cli --version names the flatpak backend', v.stdout.strip())

    script = os.path.join(tmp, 'probe.py')
    with open(script, 'w') as f:
        f.write("import os, socket\n"
                "print('cwd-is-workspace', os.getcwd() == os.environ.get('RECKON_WORKSPACE'))\n"
                "print('home-is-workspace', os.environ.get('HOME') == os.getcwd())\n"
                "print('env', sorted(k for k in os.environ if k not in ('PATH','LANG','HOME','TMPDIR',"
                "'MPLBACKEND','MPLCONFIGDIR','PYTHONDONTWRITEBYTECODE','OPENBLAS_NUM_THREADS',"
                "'RECKON_WORKSPACE','RECKON_CELL_CPU_SECONDS')))\n"
                "print('pids', len([p for p in os.listdir('/proc') if p.isdigit()]))\n"
                "print('home-folder', os.path.exists('/root/.bashrc') or os.path.exists('/home'))\n"
                "try:\n"
                "    socket.create_connection(('1.1.1.1', 53), timeout=2); print('net', 'open')\n"
                "except OSError as e:\n"
                "    print('net', 'closed')\n"
                "import ctypes\n"
                "libc = ctypes.CDLL(None, use_errno=True)\n"
                "print('unshare', 'allowed' if libc.unshare(0x10000000) == 0 else 'denied')\n")
    r = cli(['exec', script])
    out = r.stdout
    print('# exec probe: exit %d; %s' % (r.returncode, ' | '.join(out.splitlines())))
    if r.returncode != 0:
        print('# stderr: %s' % r.stderr[-600:].replace('\n', ' | '))
    ok(r.returncode == 0, 'reckon-cli exec runs code through the flatpak backend')
    ok('cwd-is-workspace True' in out and 'home-is-workspace True' in out,
       'the kernel runs in the workspace, exposed at its own path')
    ok("env []" in out, 'the environment is the clean one reckon-sandbox builds')
    ok('net closed' in out, 'no network inside (the sub-sandbox has only lo)')
    ok('home-folder False' in out, 'no home folder inside')
    ok('unshare denied' in out, 'no new namespaces inside')
    pids = [int(l.split()[1]) for l in out.splitlines() if l.startswith('pids ')]
    ok(pids and pids[0] <= 8, 'only the run\'s own processes are visible', 'pids %s' % pids)

    csv = os.path.join(tmp, 'data.csv')
    with open(csv, 'w') as f:
        f.write('a,b\n1,2\n3,4\n')
    r = cli(['profile', csv])
    ok(r.returncode == 0 and '2 rows' in r.stdout.replace('\n', ' ') or 'rows' in r.stdout,
       'reckon-cli profile runs the profiler through the flatpak backend',
       'exit %d: %s' % (r.returncode, (r.stdout + r.stderr)[-200:].replace('\n', ' | ')))

    # A runaway cell: stopped by --timeout; nothing it started survives.
    token = 'rk%s' % uuid.uuid4().hex[:12]
    script = os.path.join(tmp, 'spin.py')
    with open(script, 'w') as f:
        f.write(spin_code(token))
    t0 = time.monotonic()
    r = cli(['exec', '--timeout', '3', script])
    elapsed = time.monotonic() - t0
    ok(r.returncode == 12 and elapsed < 60, 'a runaway cell is stopped by --timeout',
       'exit %d after %.1f s: %s' % (r.returncode, elapsed, r.stderr.strip()[-300:]))
    ok(wait_gone(token, 5), 'a runaway cell leaves no process behind', 'left: %s' % alive(token))

    # A disconnected app: reckon-cli killed with SIGKILL while the cell spins
    # and its double-forked child sleeps.
    token = 'rk%s' % uuid.uuid4().hex[:12]
    with open(script, 'w') as f:
        f.write(spin_code(token))
    p = subprocess.Popen([CLI, 'exec', script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = False
    end = time.monotonic() + 90
    while time.monotonic() < end and not started:
        started = bool(alive(token + '-sleeper'))
        time.sleep(0.1)
    ok(started, 'the cell of the app to be killed is running')
    p.kill()
    p.wait()
    ok(wait_gone(token, 5), 'SIGKILL of the app leaves no process of its sandbox behind',
       'left: %s' % alive(token))


def no_backend(tmp):
    v = cli(['--version'])
    ok('Sandbox: none' in v.stdout, 'reckon-cli --version says no backend works', v.stdout.strip())
    marker = os.path.join(tmp, 'ran')
    script = os.path.join(tmp, 'code.py')
    with open(script, 'w') as f:
        f.write("open(%r, 'w').write('ran')\nprint('ran')\n" % marker)
    r = cli(['exec', script])
    err = r.stderr.strip()
    print('# exec refused: exit %d: %s' % (r.returncode, err))
    ok(r.returncode != 0, 'reckon-cli exec refuses to run code')
    ok('ran' not in r.stdout and not os.path.exists(marker), 'the code did not run, sandboxed or not')
    ok('user namespaces' in err and 'will not run' in err and err.count('\n') == 0,
       'the refusal is one sentence that says why')
    csv = os.path.join(tmp, 'data.csv')
    with open(csv, 'w') as f:
        f.write('a,b\n1,2\n')
    r = cli(['profile', csv])
    print('# profile refused: exit %d: %s' % (r.returncode, (r.stdout + r.stderr).strip()[-300:]))
    ok('user namespaces' in r.stdout + r.stderr, 'reckon-cli profile refuses too, and says why')


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else 'flatpak'
    if not os.access(CLI, os.X_OK):
        print('1..0 # SKIP reckon-cli is not built')
        return 0
    with tempfile.TemporaryDirectory(prefix='rk-harness-') as tmp:
        os.chmod(tmp, 0o755)
        (flatpak if mode == 'flatpak' else no_backend)(tmp)
    print('1..%d' % len(tap))
    for i, (good, name, detail) in enumerate(tap, 1):
        print('%s %d - %s' % ('ok' if good else 'not ok', i, name))
    return 0 if all(g for g, _, _ in tap) else 1


if __name__ == '__main__':
    sys.exit(main())
