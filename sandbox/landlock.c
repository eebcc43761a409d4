/* SPDX-License-Identifier: GPL-3.0-or-later */
/* landlock.c — what the program may touch in its own root: the workspace,
 * /tmp, /dev/shm and a few device nodes read-write, system paths read-only;
 * no TCP at all (ABI 4), no abstract sockets outside the sandbox (ABI 6). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "utils.h"

/* The UAPI header of Debian 12 stops at ABI 2: the later bits, by value. */
#define FS_REFER      (1ULL << 13)  /* ABI 2 */
#define FS_TRUNCATE   (1ULL << 14)  /* ABI 3 */
#define FS_IOCTL_DEV  (1ULL << 15)  /* ABI 5 */
#define NET_BIND_TCP    (1ULL << 0) /* ABI 4 */
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */

/* The attribute grows with the ABI; the kernel takes the size we pass. */
struct ruleset_attr
{
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_RO_EXEC (FS_READ | LANDLOCK_ACCESS_FS_EXECUTE)

int
sandbox_landlock_abi (void)
{
  long abi = syscall (SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

  return abi < 0 ? 0 : (int) abi;
}

static uint64_t
handled_fs (int abi)
{
  uint64_t fs = (1ULL << 13) - 1;  /* ABI 1: EXECUTE .. MAKE_SYM */

  if (abi >= 2)
    fs |= FS_REFER;
  if (abi >= 3)
    fs |= FS_TRUNCATE;
  if (abi >= 5)
    fs |= FS_IOCTL_DEV;
  return fs;
}

static void
allow_path (int ruleset, const char *path, uint64_t access, uint64_t handled)
{
  struct landlock_path_beneath_attr rule = { .allowed_access = access & handled };
  int fd = open (path, O_PATH | O_CLOEXEC);

  if (fd < 0)
    return;  /* absent here (lib32 and the like): nothing to allow */
  /* Rights that only make sense on files are refused on a file rule. */
  {
    struct stat st;
    if (fstat (fd, &st) == 0 && !S_ISDIR (st.st_mode))
      rule.allowed_access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE
                             | LANDLOCK_ACCESS_FS_WRITE_FILE | FS_TRUNCATE | FS_IOCTL_DEV;
  }
  rule.parent_fd = fd;
  if (syscall (SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
    die_with_error ("cannot add the Landlock rule for %s", path);
  close (fd);
}

void
sandbox_landlock_apply (const char *workspace, const char *const *ro_paths, size_t n_ro_paths, bool tcp)
{
  const char *const rw[] = { workspace, "/tmp", "/dev/shm" };
  static const char *const ro[] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
  };
  static const char *const devices[] = {
    "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
  };
  int abi = sandbox_landlock_abi ();
  struct ruleset_attr attr = { 0 };
  size_t size = sizeof attr.handled_access_fs;
  uint64_t fs;
  int ruleset;

  if (abi <= 0)
    return;
  fs = handled_fs (abi);
  attr.handled_access_fs = fs;
  if (abi >= 4 && !tcp)
    attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
  if (abi >= 4)
    size = 2 * sizeof (uint64_t);
  if (abi >= 6)
    {
      attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET;
      size = sizeof attr;
    }
  ruleset = (int) syscall (SYS_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0)
    die_with_error ("cannot create the Landlock ruleset (ABI %d)", abi);

  for (size_t i = 0; i < sizeof rw / sizeof rw[0]; i++)
    allow_path (ruleset, rw[i], fs, fs);
  for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++)
    allow_path (ruleset, ro[i], FS_RO_EXEC, fs);
  for (size_t i = 0; i < n_ro_paths; i++)
    allow_path (ruleset, ro_paths[i], FS_RO_EXEC, fs);
  for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
    allow_path (ruleset, devices[i], LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | FS_IOCTL_DEV, fs);
  /* /proc of our own PID namespace (its knobs are mounted read-only), and
   * listing folders from the root down (names only, no contents). */
  allow_path (ruleset, "/proc", FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE, fs);
  allow_path (ruleset, "/", LANDLOCK_ACCESS_FS_READ_DIR, fs);

  if (syscall (SYS_landlock_restrict_self, ruleset, 0) != 0)
    die_with_error ("cannot enforce the Landlock ruleset");
  close (ruleset);
}

void
sandbox_landlock_describe (char *buf, size_t size)
{
  int abi = sandbox_landlock_abi ();

  if (abi <= 0)
    snprintf (buf, size, "landlock: not available on this kernel (mount namespace only)");
  else
    snprintf (buf, size, "landlock: ABI %d: files%s%s", abi,
              abi >= 4 ? ", no TCP" : "", abi >= 6 ? ", abstract sockets scoped" : "");
}
