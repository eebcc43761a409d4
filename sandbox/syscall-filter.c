/* syscall-filter.c — the system call filter of reckon-sandbox: Flatpak's deny list
 * (SECURITY.md, "Seccomp policy") plus the additions listed there. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sched.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
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
  /* Additions (SECURITY.md): io_uring as ENOSYS (arapuca#33), the rest as
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

static void
add_rule (scmp_filter_ctx ctx, int errnum, const char *name,
          unsigned count, const struct scmp_arg_cmp *cmp)
{
  int nr = seccomp_syscall_resolve_name (name);
  int r;

  /* A call that no architecture in the filter has needs no rule. */
  if (nr == __NR_SCMP_ERROR)
    return;
  r = seccomp_rule_add_array (ctx, SCMP_ACT_ERRNO (errnum), nr, count, cmp);
  if (r == -EDOM || r == -EFAULT)
    return;
  if (r < 0)
    {
      errno = -r;
      die_with_error ("cannot add the seccomp rule for %s", name);
    }
}

/* libseccomp 2.5 can only export to an fd: go through a memfd. */
static struct sock_fprog *
export_filter (scmp_filter_ctx ctx)
{
  struct sock_fprog *prog = calloc (1, sizeof *prog);
  int fd = memfd_create ("reckon-seccomp", MFD_CLOEXEC);
  struct stat st;
  int r;

  if (prog == NULL)
    die ("out of memory");
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
  return prog;
}

struct sock_fprog *
build_seccomp_filter (void)
{
  struct sock_fprog *prog;
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  static const uint32_t extra_arches[] = { SCMP_ARCH_X86, SCMP_ARCH_X32 };
  struct scmp_arg_cmp cmp[1];
  int r;

  if (ctx == NULL)
    die ("cannot initialise seccomp");

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
  /* Unknown architectures are killed, never allowed. */
  seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);

  for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++)
    add_rule (ctx, denied[i].errnum, denied[i].name, 0, NULL);

  for (size_t i = 0; i < sizeof clone_ns_flags / sizeof clone_ns_flags[0]; i++)
    {
      cmp[0] = SCMP_A0 (SCMP_CMP_MASKED_EQ, clone_ns_flags[i], clone_ns_flags[i]);
      add_rule (ctx, EPERM, "clone", 1, cmp);
    }

  /* The request is an unsigned int: compare only its low 32 bits, or a
   * value with junk in the high half passes the filter (CVE-2019-10063). */
  cmp[0] = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCSTI);
  add_rule (ctx, EPERM, "ioctl", 1, cmp);
  cmp[0] = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCLINUX);
  add_rule (ctx, EPERM, "ioctl", 1, cmp);

  cmp[0] = SCMP_A0 (SCMP_CMP_NE, PER_LINUX);
  add_rule (ctx, EPERM, "personality", 1, cmp);

  /* Only local sockets: the network namespace is empty anyway. */
  cmp[0] = SCMP_A0 (SCMP_CMP_NE, AF_UNIX);
  add_rule (ctx, EAFNOSUPPORT, "socket", 1, cmp);
  add_rule (ctx, EAFNOSUPPORT, "socketpair", 1, cmp);

  prog = export_filter (ctx);
  seccomp_release (ctx);
  return prog;
}
