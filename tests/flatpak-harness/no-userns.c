/* SPDX-License-Identifier: GPL-3.0-or-later */
/* no-userns.c — tests only: runs a command under the part of Flatpak's
 * seccomp filter that matters to Reckon (no new user namespaces, no mounts),
 * so that a plain machine behaves like the inside of a Flatpak app.
 *
 *   no-userns COMMAND [ARG]...
 *
 * Denied as Flatpak's setup_seccomp denies them: unshare, setns, clone with
 * CLONE_NEWUSER, mount, umount2, pivot_root, chroot (EPERM); clone3 and the
 * new mount API (ENOSYS, CVE-2021-41133). No_new_privs is set first, as
 * bubblewrap does, so the filter needs no privilege. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int
deny (scmp_filter_ctx ctx, int err, const char *name)
{
  int nr = seccomp_syscall_resolve_name (name);

  if (nr == __NR_SCMP_ERROR)
    return 0;   /* not on this architecture */
  return seccomp_rule_add (ctx, SCMP_ACT_ERRNO (err), nr, 0);
}

int
main (int argc, char **argv)
{
  static const char *const eperm[] = { "unshare", "setns", "mount", "umount", "umount2", "pivot_root", "chroot" };
  static const char *const enosys[] = { "clone3", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
                                        "fspick", "mount_setattr" };
  scmp_filter_ctx ctx;
  int rc = 0;

  if (argc < 2)
    {
      fprintf (stderr, "usage: no-userns COMMAND [ARG]...\n");
      return 2;
    }
  ctx = seccomp_init (SCMP_ACT_ALLOW);
  if (ctx == NULL)
    {
      fprintf (stderr, "no-userns: seccomp_init failed\n");
      return 125;
    }
  for (size_t i = 0; i < sizeof eperm / sizeof eperm[0]; i++)
    rc |= deny (ctx, EPERM, eperm[i]);
  for (size_t i = 0; i < sizeof enosys / sizeof enosys[0]; i++)
    rc |= deny (ctx, ENOSYS, enosys[i]);
  /* clone(2) itself stays (threads, fork), but not with CLONE_NEWUSER. */
  rc |= seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (clone), 1,
                          SCMP_A0 (SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
  if (rc != 0)
    {
      fprintf (stderr, "no-userns: cannot build the filter: %s\n", strerror (-rc));
      return 125;
    }
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || seccomp_load (ctx) != 0)
    {
      fprintf (stderr, "no-userns: cannot load the filter\n");
      return 125;
    }
  seccomp_release (ctx);
  execvp (argv[1], argv + 1);
  fprintf (stderr, "no-userns: cannot run %s: %s\n", argv[1], strerror (errno));
  return errno == ENOENT ? 127 : 126;
}
