/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sec-syscall.c — makes one raw system call through a chosen ABI, for the
 * escape suite: `sec-syscall ABI NR [ARG]...` where ABI is native, i386
 * (int 0x80 from a 64-bit process) or x32. Prints "ok RESULT" or
 * "errno NAME" (like bubblewrap's try-syscall helper). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#define X32_SYSCALL_BIT 0x40000000L

static long
syscall_i386 (long nr, const long a[6])
{
#if defined(__x86_64__) || defined(__i386__)
  long ret;
  /* Five arguments are enough here; the sixth (ebp) is left alone. */
  __asm__ volatile ("int $0x80"
                    : "=a" (ret)
                    : "a" (nr), "b" (a[0]), "c" (a[1]), "d" (a[2]), "S" (a[3]), "D" (a[4])
                    : "memory", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
  ret = (int) ret;
  return ret;
#else
  (void) nr; (void) a;
  return -ENOSYS;
#endif
}

static const char *
errno_name (int e)
{
  switch (e)
    {
    case EPERM: return "EPERM";
    case ENOSYS: return "ENOSYS";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EACCES: return "EACCES";
    case EINVAL: return "EINVAL";
    case EFAULT: return "EFAULT";
    case EBADF: return "EBADF";
    case ENOENT: return "ENOENT";
    case ESRCH: return "ESRCH";
    default: return NULL;
    }
}

int
main (int argc, char **argv)
{
  long a[6] = { 0 };
  long nr, ret;
  int err = 0;

  if (argc < 3)
    {
      fprintf (stderr, "usage: sec-syscall native|i386|x32 NR [ARG]...\n");
      return 2;
    }
  nr = strtol (argv[2], NULL, 0);
  for (int i = 3; i < argc && i - 3 < 6; i++)
    a[i - 3] = strtol (argv[i], NULL, 0);

  if (strcmp (argv[1], "i386") == 0)
    {
      ret = syscall_i386 (nr, a);
      if (ret < 0 && ret > -4096)
        {
          err = (int) -ret;
          ret = -1;
        }
    }
  else
    {
      if (strcmp (argv[1], "x32") == 0)
        nr |= X32_SYSCALL_BIT;
      ret = syscall (nr, a[0], a[1], a[2], a[3], a[4], a[5]);
      if (ret < 0)
        err = errno;
    }

  if (ret < 0)
    {
      const char *name = errno_name (err);
      if (name != NULL)
        printf ("errno %s\n", name);
      else
        printf ("errno %d\n", err);
    }
  else
    printf ("ok %ld\n", ret);
  return 0;
}
