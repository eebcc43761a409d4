/* SPDX-License-Identifier: GPL-3.0-or-later */
/* syscall-filter.c — the system call filter of reckon-sandbox: an allowlist of
 * what a Python data kernel uses (measured with strace -f over the kernel,
 * import, agent and CLI suites and a corpus of analyses), everything else
 * ENOSYS; plus Flatpak's deny list and the additions of the threat model,
 * kept with their own errno (docs/sandbox.md, "System calls"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sched.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/personality.h>
#include <sys/socket.h>

#include "syscall-filter.h"
#include "utils.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* Allowed whatever the arguments. Unlisted calls, and every number above
 * the newest this libseccomp knows, get ENOSYS: callers fall back. */
static const char *const allowed[] = {
  /* files and folders (glibc 2.36 on x86-64 still uses the old names for
   * access, readlink, mkdir, rename, link, unlink, rmdir, chmod) */
  "read", "write", "readv", "writev", "pread64", "pwrite64", "lseek", "openat", "close",
  "close_range", "newfstatat", "fstat", "statx", "statfs", "fstatfs", "access", "faccessat2",
  "readlink", "getdents64", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat2", "link", "linkat",
  "symlink", "chmod", "fchmod", "fchmodat", "fchmodat2", "truncate", "ftruncate", "fallocate",
  "utimensat", "chdir", "getcwd", "umask", "fsync", "fdatasync", "fadvise64",
  "dup", "dup2", "dup3", "fcntl", "pipe2", "sendfile",
  "getxattr", "lgetxattr", "listxattr", "llistxattr",
  /* memory */
  "brk", "mmap", "munmap", "mprotect", "mremap", "madvise", "msync",
  /* processes and threads */
  "vfork", "execve", "exit", "exit_group", "wait4", "waitid",
  "futex", "set_robust_list", "rseq", "set_tid_address", "arch_prctl", "prctl",
  "getpid", "getppid", "gettid", "getpgid", "getsid", "setsid", "setpgid", "kill", "tgkill",
  "getuid", "geteuid", "getgid", "getegid", "getgroups",
  "prlimit64", "getrusage", "sysinfo", "uname", "times",
  "getpriority", "setpriority", "sched_yield", "sched_getaffinity",
  /* signals and time */
  "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigtimedwait", "rt_sigsuspend",
  "rt_sigpending", "rt_sigqueueinfo", "sigaltstack", "pause", "alarm", "restart_syscall",
  "clock_gettime", "clock_getres", "clock_nanosleep", "getitimer", "setitimer",
  /* waiting */
  "poll", "ppoll", "pselect6", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
  "eventfd2", "inotify_init1", "inotify_add_watch", "inotify_rm_watch",
  /* local sockets (socket and socketpair: AF_UNIX only, below) */
  "bind", "listen", "accept4", "connect", "getsockname", "getpeername",
  "sendto", "recvfrom", "sendmsg", "recvmsg", "shutdown", "getsockopt", "setsockopt",
  /* randomness */
  "getrandom",
};

/* Names libseccomp 2.5.4 does not know, so it cannot place them in the
 * filter: each stays at the default (ENOSYS), and why that is right. Any
 * other unknown name fails the build. */
static const struct
{
  const char *name;
  const char *why;
} unknown_names[] = {
  { "fchmodat2", "Linux 6.6; glibc 2.36 never calls it, newer glibc falls back to fchmodat on ENOSYS" },
  { "open_tree_attr", "Linux 6.15, a mount call: denied (ENOSYS) like open_tree" },
  { "listmount", "Linux 6.8, lists mounts: denied (ENOSYS)" },
  { "statmount", "Linux 6.8, reads mounts: denied (ENOSYS)" },
};

static bool
unknown_name_ok (const char *name)
{
  for (size_t i = 0; i < sizeof unknown_names / sizeof unknown_names[0]; i++)
    if (strcmp (unknown_names[i].name, name) == 0)
      return true;
  return false;
}

struct rule
{
  const char *name;
  int errnum;
};

/* Denied whatever the arguments. */
static const struct rule denied[] = {
  /* Flatpak's setup_seccomp, verbatim: EPERM. */
  { "syslog", EPERM },
  { "uselib", EPERM },
  { "acct", EPERM },
  { "quotactl", EPERM },
  { "add_key", EPERM },
  { "keyctl", EPERM },
  { "request_key", EPERM },
  { "move_pages", EPERM },
  { "mbind", EPERM },
  { "get_mempolicy", EPERM },
  { "set_mempolicy", EPERM },
  { "migrate_pages", EPERM },
  { "unshare", EPERM },
  { "setns", EPERM },
  { "mount", EPERM },
  { "umount", EPERM },
  { "umount2", EPERM },
  { "pivot_root", EPERM },
  { "chroot", EPERM },
  /* Device nodes: what the kernel says without privileges. */
  { "mknod", EPERM },
  { "mknodat", EPERM },
  /* Newer than this libseccomp: the default answers them (unknown_names). */
  { "open_tree_attr", ENOSYS },
  { "listmount", ENOSYS },
  { "statmount", ENOSYS },
  /* Flatpak: ENOSYS, so callers fall back (CVE-2021-41133). */
  { "clone3", ENOSYS },
  { "open_tree", ENOSYS },
  { "move_mount", ENOSYS },
  { "fsopen", ENOSYS },
  { "fsconfig", ENOSYS },
  { "fsmount", ENOSYS },
  { "fspick", ENOSYS },
  { "mount_setattr", ENOSYS },
  /* Flatpak without --devel / multiarch. */
  { "perf_event_open", EPERM },
  { "ptrace", EPERM },
  { "modify_ldt", EPERM },
  /* Additions (docs/threat-model.md): io_uring as ENOSYS (arapuca#33), the rest as
   * Docker's default profile or missing capabilities would answer. */
  { "io_uring_setup", ENOSYS },
  { "io_uring_enter", ENOSYS },
  { "io_uring_register", ENOSYS },
  { "pidfd_open", ENOSYS },
  { "userfaultfd", EPERM },
  { "bpf", EPERM },
  { "kexec_load", EPERM },
  { "kexec_file_load", EPERM },
  { "init_module", EPERM },
  { "finit_module", EPERM },
  { "delete_module", EPERM },
  { "open_by_handle_at", EPERM },
  { "name_to_handle_at", EPERM },
  { "lookup_dcookie", EPERM },
  { "fanotify_init", EPERM },
  { "iopl", EPERM },
  { "ioperm", EPERM },
  { "reboot", EPERM },
  { "swapon", EPERM },
  { "swapoff", EPERM },
  { "settimeofday", EPERM },
  { "clock_settime", EPERM },
  { "clock_adjtime", EPERM },
  { "adjtimex", EPERM },
  { "vhangup", EPERM },
  { "kcmp", EPERM },
  { "pidfd_getfd", EPERM },
  { "process_vm_readv", EPERM },
  { "process_vm_writev", EPERM },
  { "process_madvise", EPERM },
  { "set_mempolicy_home_node", EPERM },
  { "quotactl_fd", EPERM },
  { "sched_setscheduler", EPERM },
  { "sched_setattr", EPERM },
  /* i386 multiplexers whose arguments sit behind a pointer, so the family
   * rule below could not see them; glibc uses the direct calls. */
  { "socketcall", ENOSYS },
};

/* Namespace flags that clone(2) must not get (CLONE_NEWTIME shares its bit
 * with CSIGNAL in clone(2), so it is left to clone3's ENOSYS). */
static const unsigned long clone_ns_flags[] = {
  CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET,
  CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
};

#define DEFAULT_ACTION SCMP_ACT_ERRNO (ENOSYS)

static int n_allowed;

static void
add_action (scmp_filter_ctx ctx, uint32_t action, const char *name,
            unsigned count, const struct scmp_arg_cmp *cmp)
{
  int nr = seccomp_syscall_resolve_name (name);
  int r;

  /* libseccomp ignores a name it does not know: a typo or a call newer
   * than it would silently get the default. Only the listed ones may. */
  if (nr == __NR_SCMP_ERROR)
    {
      if (unknown_name_ok (name))
        return;
      die ("libseccomp does not know the system call %s: add it to unknown_names with a reason, or fix the name", name);
    }
  r = seccomp_rule_add_array (ctx, action, nr, count, cmp);
  /* EACCES: the same action as the default (the ENOSYS entries of the deny
   * list, kept there to say so); EDOM/EFAULT: no such call on one arch. */
  if (r == -EDOM || r == -EFAULT || (r == -EACCES && action == DEFAULT_ACTION))
    return;
  if (r < 0)
    {
      errno = -r;
      die_with_error ("cannot add the seccomp rule for %s", name);
    }
}

static void
add_rule (scmp_filter_ctx ctx, int errnum, const char *name,
          unsigned count, const struct scmp_arg_cmp *cmp)
{
  add_action (ctx, SCMP_ACT_ERRNO (errnum), name, count, cmp);
}

static void
allow (scmp_filter_ctx ctx, const char *name, unsigned count, const struct scmp_arg_cmp *cmp)
{
  if (seccomp_syscall_resolve_name (name) != __NR_SCMP_ERROR)
    n_allowed++;
  add_action (ctx, SCMP_ACT_ALLOW, name, count, cmp);
}

int
seccomp_filter_allowed_count (void)
{
  return n_allowed;
}

bool
seccomp_filter_check_name (const char *name)
{
  return seccomp_syscall_resolve_name (name) != __NR_SCMP_ERROR || unknown_name_ok (name);
}

/* The filter @ctx compiled, with @compat's rules for the other
 * architectures merged in first when given; both are released.
 * libseccomp 2.5 can only export to an fd: go through a memfd. */
static struct sock_fprog *
export_filter (scmp_filter_ctx ctx,
               scmp_filter_ctx compat)
{
  struct sock_fprog *prog = calloc (1, sizeof *prog);
  int fd = memfd_create ("reckon-seccomp", MFD_CLOEXEC);
  struct stat st;
  int r;

  if (prog == NULL)
    die ("out of memory");
  /* On success the merge releases @compat. */
  if (compat != NULL && (r = seccomp_merge (ctx, compat)) < 0)
    {
      errno = -r;
      die_with_error ("cannot merge the seccomp architectures");
    }
  if (fd < 0)
    die_with_error ("cannot create a memfd for the seccomp filter");
  r = seccomp_export_bpf (ctx, fd);
  if (r < 0)
    {
      errno = -r;
      die_with_error ("cannot compile the seccomp filter");
    }
  if (fstat (fd, &st) != 0 || st.st_size <= 0 || st.st_size % sizeof (struct sock_filter) != 0
      || st.st_size / sizeof (struct sock_filter) > USHRT_MAX)
    die ("the compiled seccomp filter has a bad size");
  prog->len = (unsigned short) (st.st_size / sizeof (struct sock_filter));
  prog->filter = malloc ((size_t) st.st_size);
  if (prog->filter == NULL)
    die ("out of memory");
  if (pread (fd, prog->filter, (size_t) st.st_size, 0) != st.st_size)
    die_with_error ("cannot read the compiled seccomp filter");
  close (fd);
  seccomp_release (ctx);
  return prog;
}

/* The rules, for the native architecture or (@compat) for i386 and x32,
 * which no Python here uses: there sockets are refused altogether, as the
 * i386 socketcall multiplexer hides the family behind a pointer. */
static void
add_rules (scmp_filter_ctx ctx, bool compat, bool inet)
{
  struct scmp_arg_cmp cmp[1];

  n_allowed = 0;
  for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
    allow (ctx, allowed[i], 0, NULL);
  for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++)
    add_rule (ctx, denied[i].errnum, denied[i].name, 0, NULL);

  /* clone: threads and forks, never new namespaces. */
  {
    unsigned long all = 0;
    for (size_t i = 0; i < sizeof clone_ns_flags / sizeof clone_ns_flags[0]; i++)
      {
        cmp[0] = SCMP_A0 (SCMP_CMP_MASKED_EQ, clone_ns_flags[i], clone_ns_flags[i]);
        add_rule (ctx, EPERM, "clone", 1, cmp);
        all |= clone_ns_flags[i];
      }
    cmp[0] = SCMP_A0 (SCMP_CMP_MASKED_EQ, all, 0);
    allow (ctx, "clone", 1, cmp);
  }

  /* ioctl: all here; TIOCSTI and TIOCLINUX are refused by the second
   * filter (build_ioctl_filter), as libseccomp lets an unconditional rule
   * replace conditional ones of another action for the same call. */
  allow (ctx, "ioctl", 0, NULL);

  cmp[0] = SCMP_A0 (SCMP_CMP_NE, PER_LINUX);
  add_rule (ctx, EPERM, "personality", 1, cmp);
  cmp[0] = SCMP_A0 (SCMP_CMP_EQ, PER_LINUX);
  allow (ctx, "personality", 1, cmp);

  /* Only local sockets: the network namespace is empty anyway. */
  if (compat)
    {
      add_rule (ctx, EAFNOSUPPORT, "socket", 0, NULL);
      add_rule (ctx, EAFNOSUPPORT, "socketpair", 0, NULL);
      return;
    }
  cmp[0] = SCMP_A0 (SCMP_CMP_NE, AF_UNIX);
  add_rule (ctx, EAFNOSUPPORT, "socketpair", 1, cmp);
  cmp[0] = SCMP_A0 (SCMP_CMP_EQ, AF_UNIX);
  allow (ctx, "socketpair", 1, cmp);
  if (!inet)
    {
      cmp[0] = SCMP_A0 (SCMP_CMP_NE, AF_UNIX);
      add_rule (ctx, EAFNOSUPPORT, "socket", 1, cmp);
      cmp[0] = SCMP_A0 (SCMP_CMP_EQ, AF_UNIX);
      allow (ctx, "socket", 1, cmp);
      return;
    }
  /* --net loopback: IPv4 and IPv6 too, inside a network namespace that
   * still has nothing but its own lo (AF_UNIX 1, AF_INET 2, AF_INET6 10;
   * every other family, from 0 up, refused). */
  for (int family = 0; family < AF_MAX; family++)
    {
      cmp[0] = SCMP_A0 (SCMP_CMP_EQ, (scmp_datum_t) family);
      if (family == AF_UNIX || family == AF_INET || family == AF_INET6)
        allow (ctx, "socket", 1, cmp);
      else
        add_rule (ctx, EAFNOSUPPORT, "socket", 1, cmp);
    }
  cmp[0] = SCMP_A0 (SCMP_CMP_GE, AF_MAX);
  add_rule (ctx, EAFNOSUPPORT, "socket", 1, cmp);
}

static scmp_filter_ctx
new_context (uint32_t default_action, bool compat)
{
  scmp_filter_ctx ctx = seccomp_init (default_action);
  static const uint32_t extra_arches[] = { SCMP_ARCH_X86, SCMP_ARCH_X32 };
  int r;

  if (ctx == NULL)
    die ("cannot initialise seccomp");
  /* Unknown architectures are killed, never allowed. */
  seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  /* A binary tree over the syscall numbers instead of a chain of 140
   * comparisons: every call of the program pays for the filter. */
  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  if (!compat)
    return ctx;
  for (size_t i = 0; i < sizeof extra_arches / sizeof extra_arches[0]; i++)
    {
      if (seccomp_arch_native () == extra_arches[i])
        continue;
      r = seccomp_arch_add (ctx, extra_arches[i]);
      if (r < 0 && r != -EEXIST)
        {
          errno = -r;
          die_with_error ("cannot add a seccomp architecture");
        }
    }
  r = seccomp_arch_remove (ctx, SCMP_ARCH_NATIVE);
  if (r < 0)
    {
      errno = -r;
      die_with_error ("cannot set up the compat seccomp architectures");
    }
  return ctx;
}

/* Socket buffer sizes a program may not set (issue 18): each socket keeps
 * the default (net.core.wmem_default), as the kernel counts socket memory
 * per socket, not per user or (without a cgroup) per run. */
static const int socket_buffer_options[] = { SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE };

/* The second filter: everything allowed but two terminal ioctls, growing
 * a pipe (F_SETPIPE_SZ: pipe pages are counted per user, and past
 * pipe-user-pages-soft every new pipe of the host user gets two pages)
 * and socket buffer sizes. An ioctl request or fcntl command is an
 * unsigned int: compare only its low 32 bits, or a value with junk in the
 * high half passes the filter (CVE-2019-10063). */
struct sock_fprog *
build_ioctl_filter (void)
{
  scmp_filter_ctx ctx = new_context (SCMP_ACT_ALLOW, false);
  scmp_filter_ctx compat = new_context (SCMP_ACT_ALLOW, true);
  struct scmp_arg_cmp cmp[2];

  for (int i = 0; i < 2; i++)
    {
      scmp_filter_ctx c = i == 0 ? ctx : compat;
      cmp[0] = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCSTI);
      add_rule (c, EPERM, "ioctl", 1, cmp);
      cmp[0] = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCLINUX);
      add_rule (c, EPERM, "ioctl", 1, cmp);
      cmp[0] = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, F_SETPIPE_SZ);
      add_rule (c, EPERM, "fcntl", 1, cmp);
      add_rule (c, EPERM, "fcntl64", 1, cmp);
    }
  /* i386 and x32 have no sockets at all (the main filter). */
  for (size_t k = 0; k < sizeof socket_buffer_options / sizeof socket_buffer_options[0]; k++)
    {
      cmp[0] = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, SOL_SOCKET);
      cmp[1] = SCMP_A2 (SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, (scmp_datum_t) socket_buffer_options[k]);
      add_rule (ctx, EPERM, "setsockopt", 2, cmp);
    }
  return export_filter (ctx, compat);
}

/* PID-1's own filter, once the program runs: wait, pass signals on,
 * report, and save a capped workspace (workspace-fs.c), nothing else.
 * Native calls only: any other architecture is killed. */
static const char *const pid1_allowed[] = {
  "poll", "ppoll", "read", "rt_sigreturn", "restart_syscall", "wait4", "kill", "write", "close",
  "exit", "exit_group", "clock_gettime",
  /* the save */
  "openat", "fstat", "newfstatat", "getdents64", "fcntl", "lseek", "sendfile", "ftruncate",
  "fchmod", "chmod", "utimensat", "mkdirat", "unlinkat", "linkat", "getpid",
  /* moving an added file in, linking an input, knowing an input's link */
  "renameat2", "symlinkat", "readlinkat",
  /* malloc, for the folder listings */
  "brk", "mmap", "munmap", "mremap", "madvise",
};

struct sock_fprog *
build_pid1_filter (void)
{
  scmp_filter_ctx ctx = new_context (DEFAULT_ACTION, false);

  for (size_t i = 0; i < sizeof pid1_allowed / sizeof pid1_allowed[0]; i++)
    add_action (ctx, SCMP_ACT_ALLOW, pid1_allowed[i], 0, NULL);
  return export_filter (ctx, NULL);
}

int
seccomp_pid1_allowed_count (void)
{
  return (int) (sizeof pid1_allowed / sizeof pid1_allowed[0]);
}

struct sock_fprog *
build_seccomp_filter (bool inet)
{
  scmp_filter_ctx ctx = new_context (DEFAULT_ACTION, false);
  scmp_filter_ctx compat = new_context (DEFAULT_ACTION, true);

  add_rules (compat, true, false);
  add_rules (ctx, false, inet);
  return export_filter (ctx, compat);
}
