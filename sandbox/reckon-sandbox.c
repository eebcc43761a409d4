/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reckon-sandbox.c — runs one program in fresh namespaces with a new root,
 * rlimits, no capabilities and a seccomp filter (docs/architecture.md section 3).
 *
 * Three processes: the monitor (stays outside: maps ids, forwards signals,
 * enforces the wall clock and the workspace limits, reports the status), the
 * PID-1 of the new PID namespace (builds the root, reaps, forwards signals,
 * and takes the whole namespace with it when it exits), and the program.
 * Command line and exit status: docs/sandbox.md (a contract). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/seccomp.h>
#include <limits.h>
#include <linux/capability.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "landlock.h"
#include "terminal.h"
#include "seccomp-filter-bpf.h"
#include "utils.h"
#include "workspace-fs.h"
#include "workspace-usage.h"

#define SANDBOX_UID 1000
#define SANDBOX_GID 1000
#define SANDBOX_USER "reckon"
#define SANDBOX_HOSTNAME "reckon"
/* Build the new root here, in our own mount namespace (bubblewrap does too). */
#define NEWROOT "/tmp"
#define MAX_RO_BINDS 32
#define MAX_PASS_FDS 32
#define MAX_SETENV 64

struct ro_bind
{
  const char *src;
  const char *dest;
  int fd;
};

static struct
{
  const char *workspace;
  uint64_t memory;
  uint64_t cpu_seconds;
  uint64_t timeout;
  uint64_t max_procs;
  uint64_t max_file_size;
  uint64_t disk;
  uint64_t max_files;
  uint64_t max_open_files;
  uint64_t tmp_size;
  bool debug;
  bool pty;
  /* --net loopback: IP sockets on the run's own lo (docs/scale.md). */
  bool net_loopback;
  /* --workspace-fs tmpfs (docs/sandbox.md, "A capped workspace"). */
  bool workspace_tmpfs;
  int sync_fd;
  /* --nested (docs/sandbox.md, "Backends"): inside an outer sandbox. */
  bool nested;
  int control_fd;
  /* --start-fd: one byte here before anything is set up. */
  int start_fd;
  struct ro_bind ro_binds[MAX_RO_BINDS];
  size_t n_ro_binds;
  int pass_fds[MAX_PASS_FDS];
  size_t n_pass_fds;
  const char *setenv[MAX_SETENV][2];
  size_t n_setenv;
  char **argv;
} opt = {
  .memory = 2ULL << 30,
  .cpu_seconds = 3600,
  .max_procs = 64,
  .max_file_size = 1ULL << 30,
  .disk = 1ULL << 30,
  .max_files = 100000,
  .max_open_files = 1024,
  .tmp_size = 256ULL << 20,
  .control_fd = -1,
  .sync_fd = -1,
  .start_fd = -1,
};

/* --nested: the monitor's pid, the program's parent. */
static pid_t nested_monitor;

/* Signals the monitor and PID-1 pass on to the program. */
static const int forwarded_signals[] = {
  SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
};

static int workspace_fd = -1;
/* Root only: the workspace, idmapped so that the unprivileged sandbox user
 * can write the root-owned folder (see prepare_root_workspace). */
static int workspace_tree_fd = -1;
/* The program closes ready_fd when it is set up: PID-1 waits for that
 * before its own last steps, so the two do not take turns on the CPU. */
static int ready_fd = -1;
/* --workspace-fs tmpfs, in PID-1: the host's workspace (never mounted
 * inside), the tmpfs at /workspace, and where PID-1 answers the monitor's
 * save requests (one JSON line each). */
static int host_workspace_fd = -1;
static int tmpfs_workspace_fd = -1;
static int saved_fd = -1;
/* False once the caller closed --sync-fd: it wants no save at the end. */
static bool save_at_end = true;
/* The monitor's requests to PID-1, one byte each ('s' save, 'l' take the
 * staged files in, 'n' no save at the end), on a pipe only the two hold:
 * the program never has it (close-on-exec), so it cannot forge one, as it
 * could a signal (rt_sigqueueinfo sets any si_pid). Answers carry the
 * request's number, counted alike on both sides. */
static int request_fd = -1;
static uid_t host_uid;
static gid_t host_gid;

/* Per-user kernel counters that a user namespace keeps for itself, and
 * which the host's limit also counts (ucounts are hierarchical): the
 * sandbox gets a quarter of what the host user may have, so code that
 * exhausts its own leaves the host's processes of the same user enough. */
static const char *const user_counters[] = {
  "max_inotify_instances", "max_inotify_watches", "max_fanotify_groups", "max_fanotify_marks",
};
static long host_counters[sizeof user_counters / sizeof user_counters[0]];
/* No namespaces of any kind inside (the filter refuses them too). */
static const char *const no_namespaces[] = {
  "max_user_namespaces", "max_mnt_namespaces", "max_pid_namespaces", "max_net_namespaces",
  "max_ipc_namespaces", "max_uts_namespaces", "max_cgroup_namespaces", "max_time_namespaces",
};

/* Where the kernel keeps our command line (/proc/PID/cmdline reads it):
 * options are parsed from a copy, so that the process the program can
 * see wipes its own, which names the caller's folders (and so the user's
 * name and home). */
static char *args_area;
static size_t args_area_len;

static char **
copy_args (int argc, char **argv)
{
  char **copy = calloc ((size_t) argc + 1, sizeof (char *));

  if (copy == NULL)
    die ("out of memory");
  for (int i = 0; i < argc; i++)
    if ((copy[i] = strdup (argv[i])) == NULL)
      die ("out of memory");
  args_area = argv[0];
  args_area_len = (size_t) (argv[argc - 1] + strlen (argv[argc - 1]) + 1 - argv[0]);
  /* Only the kernel's own layout, one string after the other. */
  for (int i = 1; i < argc; i++)
    if (argv[i] != argv[i - 1] + strlen (argv[i - 1]) + 1)
      args_area = NULL;
  return copy;
}

static void
hide_args (void)
{
  static const char name[] = "reckon-sandbox";

  if (args_area == NULL)
    return;
  memset (args_area, 0, args_area_len);
  memcpy (args_area, name, sizeof name <= args_area_len ? sizeof name : args_area_len);
  /* A last byte that is not NUL makes the kernel read the area as a
   * setproctitle(3) title, cut at its first NUL: "reckon-sandbox" alone,
   * not followed by as many NULs as the old command line had bytes. */
  if (args_area_len > sizeof name)
    args_area[args_area_len - 1] = ' ';
}

static void __attribute__((noreturn))
usage (void)
{
  die ("usage: reckon-sandbox --workspace DIR [OPTION]... -- PROGRAM [ARG]...");
}

static uint64_t
size_arg (const char *name, const char *value)
{
  uint64_t v;

  if (value == NULL || !parse_size (value, &v))
    die ("%s needs a number (plain, or with a K, M or G suffix)", name);
  return v;
}

static int
fd_arg (const char *name, const char *value)
{
  uint64_t v;

  if (value == NULL || !parse_size (value, &v) || v > INT_MAX)
    die ("%s needs a file descriptor number", name);
  if (fcntl ((int) v, F_GETFD) < 0)
    die ("%s %d is not an open file descriptor", name, (int) v);
  return (int) v;
}

static void
parse_args (int argc, char **argv)
{
  int i;

  for (i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;

      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (strncmp (a, "--", 2) != 0)
        break;
      if (strcmp (a, "--ro-bind") == 0)
        {
          if (i + 2 >= argc)
            die ("--ro-bind needs SRC and DEST");
          if (opt.n_ro_binds == MAX_RO_BINDS)
            die ("too many --ro-bind options");
          if (argv[i + 2][0] != '/' || strstr (argv[i + 2], "..") != NULL)
            die ("--ro-bind DEST must be an absolute path without '..': %s", argv[i + 2]);
          /* Never over the root or the sandbox's own mounts (a DEST inside
           * /workspace would also create folders in the host's workspace). */
          {
            static const char *const reserved[] = { "/workspace", "/tmp", "/proc", "/dev" };
            const char *d = argv[i + 2];
            if (strspn (d, "/") == strlen (d))
              die ("--ro-bind DEST cannot be /");
            for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
              {
                size_t len = strlen (reserved[k]);
                if (strncmp (d, reserved[k], len) == 0 && (d[len] == '\0' || d[len] == '/'))
                  die ("--ro-bind DEST cannot be inside %s", reserved[k]);
              }
          }
          opt.ro_binds[opt.n_ro_binds].src = argv[i + 1];
          opt.ro_binds[opt.n_ro_binds].dest = argv[i + 2];
          opt.ro_binds[opt.n_ro_binds].fd = -1;
          opt.n_ro_binds++;
          i += 2;
          continue;
        }
      if (strcmp (a, "--setenv") == 0)
        {
          if (i + 2 >= argc)
            die ("--setenv needs NAME and VALUE");
          if (opt.n_setenv == MAX_SETENV)
            die ("too many --setenv options");
          if (argv[i + 1][0] == '\0' || strchr (argv[i + 1], '=') != NULL)
            die ("--setenv NAME must be non-empty and without '='");
          opt.setenv[opt.n_setenv][0] = argv[i + 1];
          opt.setenv[opt.n_setenv][1] = argv[i + 2];
          opt.n_setenv++;
          i += 2;
          continue;
        }
      if (strcmp (a, "--debug") == 0)
        {
          opt.debug = true;
          continue;
        }
      if (strcmp (a, "--pty") == 0)
        {
          opt.pty = true;
          continue;
        }
      if (strcmp (a, "--nested") == 0)
        {
          opt.nested = true;
          continue;
        }
      if (v == NULL)
        die ("%s needs a value", a);
      i++;
      if (strcmp (a, "--workspace") == 0)
        opt.workspace = v;
      else if (strcmp (a, "--memory") == 0)
        opt.memory = size_arg (a, v);
      else if (strcmp (a, "--cpu-seconds") == 0)
        opt.cpu_seconds = size_arg (a, v);
      else if (strcmp (a, "--timeout") == 0)
        opt.timeout = size_arg (a, v);
      else if (strcmp (a, "--max-procs") == 0)
        opt.max_procs = size_arg (a, v);
      else if (strcmp (a, "--max-file-size") == 0)
        opt.max_file_size = size_arg (a, v);
      else if (strcmp (a, "--disk") == 0)
        opt.disk = size_arg (a, v);
      else if (strcmp (a, "--max-files") == 0)
        opt.max_files = size_arg (a, v);
      else if (strcmp (a, "--max-open-files") == 0)
        opt.max_open_files = size_arg (a, v);
      else if (strcmp (a, "--tmp-size") == 0)
        opt.tmp_size = size_arg (a, v);
      else if (strcmp (a, "--pass-fd") == 0)
        {
          if (opt.n_pass_fds == MAX_PASS_FDS)
            die ("too many --pass-fd options");
          opt.pass_fds[opt.n_pass_fds++] = fd_arg (a, v);
        }
      else if (strcmp (a, "--status-fd") == 0)
        status_fd = fd_arg (a, v);
      else if (strcmp (a, "--control-fd") == 0)
        opt.control_fd = fd_arg (a, v);
      else if (strcmp (a, "--sync-fd") == 0)
        opt.sync_fd = fd_arg (a, v);
      else if (strcmp (a, "--start-fd") == 0)
        opt.start_fd = fd_arg (a, v);
      else if (strcmp (a, "--net") == 0)
        {
          if (strcmp (v, "loopback") == 0)
            opt.net_loopback = true;
          else if (strcmp (v, "none") != 0)
            die ("--net is none or loopback");
        }
      else if (strcmp (a, "--input") == 0)
        {
          if (!workspace_add_input (v))
            die ("--input is the name of a file at the top of the workspace (at most %d): %s",
                 WORKSPACE_MAX_INPUTS, v);
        }
      else if (strcmp (a, "--workspace-fs") == 0)
        {
          if (strcmp (v, "tmpfs") == 0)
            opt.workspace_tmpfs = true;
          else if (strcmp (v, "bind") != 0)
            die ("--workspace-fs is bind or tmpfs");
        }
      else
        die ("unknown option %s", a);
    }

  if (i >= argc)
    usage ();
  if (opt.workspace == NULL)
    die ("--workspace is required");
  if (opt.max_procs < 1 || opt.max_procs > 1000000)
    die ("--max-procs must be between 1 and 1000000");
  if (opt.max_open_files < 16)
    die ("--max-open-files must be at least 16");
  if (opt.tmp_size < 4096)
    die ("--tmp-size must be at least 4K");
  /* Only where the network namespace is ours, and so holds nothing but lo. */
  if (opt.net_loopback && opt.nested)
    die ("--net loopback needs a network namespace of its own (not with --nested)");
  if (opt.workspace_tmpfs && opt.nested)
    die ("--workspace-fs tmpfs needs a mount namespace of its own: not with --nested");
  if (opt.workspace_tmpfs && opt.disk < 4096)
    die ("--disk must be at least 4K with --workspace-fs tmpfs");
  if (opt.sync_fd >= 0 && !opt.workspace_tmpfs)
    die ("--sync-fd is only for --workspace-fs tmpfs");
  opt.argv = &argv[i];
}

/* ---------------------------------------------------------------------- */
/* Inside: the new root.                                                   */

static int
open_path_or_die (const char *path)
{
  int fd = open (path, O_PATH | O_CLOEXEC);

  if (fd < 0)
    die_with_error ("cannot open %s", path);
  return fd;
}

static char *
fd_path (int fd, char buf[static 64])
{
  snprintf (buf, 64, "/proc/self/fd/%d", fd);
  return buf;
}

/* Mount flags that a bind mount inherits and that an unprivileged remount
 * must keep, or the kernel refuses it (they are locked). */
static unsigned long
locked_flags (const char *path)
{
  struct statvfs sv;
  unsigned long flags = 0;

  if (statvfs (path, &sv) != 0)
    die_with_error ("cannot statvfs %s", path);
  if (sv.f_flag & ST_NOSUID)
    flags |= MS_NOSUID;
  if (sv.f_flag & ST_NODEV)
    flags |= MS_NODEV;
  if (sv.f_flag & ST_NOEXEC)
    flags |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME)
    flags |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME)
    flags |= MS_NODIRATIME;
  if (sv.f_flag & ST_RELATIME)
    flags |= MS_RELATIME;
  if (sv.f_flag & ST_RDONLY)
    flags |= MS_RDONLY;
  return flags;
}

static void
remount (const char *dest, unsigned long extra)
{
  unsigned long flags = locked_flags (dest) | extra | MS_NOSUID | MS_NODEV;

  if (mount ("none", dest, NULL, MS_REMOUNT | MS_BIND | flags, NULL) != 0)
    die_with_error ("cannot remount %s", dest);
  if (extra & MS_RDONLY)
    {
      /* Submounts stay writable after a plain remount: make them read-only
       * too where the kernel can. */
      struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };
      if (mount_setattr (AT_FDCWD, dest, AT_RECURSIVE, &attr, sizeof attr) != 0 && errno != ENOSYS)
        die_with_error ("cannot make %s read-only", dest);
    }
}

static void
bind_mount (const char *src, const char *dest, unsigned long extra)
{
  if (mount (src, dest, NULL, MS_BIND | MS_REC, NULL) != 0)
    die_with_error ("cannot bind %s", dest);
  remount (dest, extra);
}

static void
make_mount_point (const char *path, bool dir)
{
  if (dir)
    {
      if (mkdir (path, 0755) != 0 && errno != EEXIST)
        die_with_error ("cannot create %s", path);
    }
  else
    {
      int fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
      if (fd < 0)
        die_with_error ("cannot create %s", path);
      close (fd);
    }
}

/* Creates the parents of @dest (absolute, inside NEWROOT) refusing to walk
 * through a symlink, so a --ro-bind cannot land outside the new root. */
static void
make_parents (const char *dest)
{
  char path[PATH_MAX];
  char *p;

  if (snprintf (path, sizeof path, "%s%s", NEWROOT, dest) >= (int) sizeof path)
    die ("path too long: %s", dest);
  for (p = path + strlen (NEWROOT) + 1; (p = strchr (p, '/')) != NULL; p++)
    {
      struct stat st;
      *p = '\0';
      if (lstat (path, &st) == 0)
        {
          if (!S_ISDIR (st.st_mode))
            die ("cannot bind over %s: a parent is not a folder", dest);
        }
      else if (mkdir (path, 0755) != 0)
        die_with_error ("cannot create %s", path);
      *p = '/';
    }
}

static void
bind_host_path (const char *host, const char *inside, unsigned long extra)
{
  char dest[PATH_MAX];
  struct stat st;

  if (lstat (host, &st) != 0)
    return;
  snprintf (dest, sizeof dest, NEWROOT "%s", inside);
  if (S_ISLNK (st.st_mode))
    {
      char target[PATH_MAX];
      ssize_t n = readlink (host, target, sizeof target - 1);
      if (n < 0)
        die_with_error ("cannot read link %s", host);
      target[n] = '\0';
      if (symlink (target, dest) != 0)
        die_with_error ("cannot create %s", dest);
      return;
    }
  make_mount_point (dest, S_ISDIR (st.st_mode));
  bind_mount (host, dest, extra);
}

static void
bring_up_loopback (void)
{
  struct ifreq ifr;
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    die_with_error ("cannot create a socket to bring up lo");
  memset (&ifr, 0, sizeof ifr);
  strcpy (ifr.ifr_name, "lo");
  if (ioctl (fd, SIOCGIFFLAGS, &ifr) != 0)
    die_with_error ("cannot read the flags of lo");
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl (fd, SIOCSIFFLAGS, &ifr) != 0)
    die_with_error ("cannot bring up lo");
  close (fd);
}

/* Written through our own /proc before /proc/sys turns read-only: the
 * files under sys/user are those of the writer's user namespace. */
static void
write_sysctl (const char *name, long value)
{
  char path[128], text[32];
  int fd;

  snprintf (path, sizeof path, NEWROOT "/proc/sys/user/%s", name);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT)
    return;  /* an older kernel without this counter */
  if (fd < 0)
    die_with_error ("cannot open %s", path + strlen (NEWROOT));
  snprintf (text, sizeof text, "%ld", value);
  if (!write_all (fd, text, strlen (text)))
    die_with_error ("cannot write %s", path + strlen (NEWROOT));
  close (fd);
}

static void
limit_user_counters (void)
{
  for (size_t i = 0; i < sizeof user_counters / sizeof user_counters[0]; i++)
    if (host_counters[i] > 0)
      write_sysctl (user_counters[i], host_counters[i] / 4 > 0 ? host_counters[i] / 4 : 1);
  /* One user namespace: the program's own (hide_host_ids), none more. */
  for (size_t i = 0; i < sizeof no_namespaces / sizeof no_namespaces[0]; i++)
    write_sysctl (no_namespaces[i], strcmp (no_namespaces[i], "max_user_namespaces") == 0 ? 1 : 0);
}

static const char *const system_dirs[] = {
  "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};

static const char *const etc_files[] = {
  "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/fonts",
  "/etc/alternatives", "/etc/matplotlibrc", "/etc/localtime", "/etc/timezone",
  "/etc/mime.types", "/etc/python3", "/etc/python3.11",
};

/* Inputs (--input): read-only, so nothing inside writes, grows, renames
 * or replaces them. In a capped workspace, the host's folder itself is
 * shown read-only at WORKSPACE_INPUTS (the tmpfs links to it, see
 * workspace-fs.h); a bound one has each input bound over itself. */
static void
mount_inputs (void)
{
  char buf[64];

  if (opt.workspace_tmpfs)
    {
      make_mount_point (NEWROOT WORKSPACE_INPUTS, true);
      if (workspace_tree_fd >= 0)
        {
          /* As root the idmapped tree is detached, and a detached tree
           * cannot be cloned: attach it at a scratch point, keep PID-1's
           * descriptor (for the saves) on it there, bind it read-only, and
           * detach the scratch point again. */
          make_mount_point (NEWROOT "/.host", true);
          if (move_mount (workspace_tree_fd, "", AT_FDCWD, NEWROOT "/.host", MOVE_MOUNT_F_EMPTY_PATH) != 0)
            die_with_error ("cannot mount the idmapped workspace");
          close (workspace_tree_fd);
          workspace_tree_fd = -1;
          host_workspace_fd = open (NEWROOT "/.host", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
          if (host_workspace_fd < 0)
            die_with_error ("cannot open the idmapped workspace");
          bind_mount (NEWROOT "/.host", NEWROOT WORKSPACE_INPUTS, MS_RDONLY);
          if (umount2 (NEWROOT "/.host", MNT_DETACH) != 0 || rmdir (NEWROOT "/.host") != 0)
            die_with_error ("cannot detach the scratch mount");
        }
      else
        bind_mount (fd_path (host_workspace_fd, buf), NEWROOT WORKSPACE_INPUTS, MS_RDONLY);
      return;
    }
  for (size_t i = 0; i < workspace_n_inputs (); i++)
    {
      char path[PATH_MAX];
      struct stat st;
      int fd;

      snprintf (path, sizeof path, NEWROOT "/workspace/%s", workspace_input (i));
      fd = open (path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        continue;  /* gone since the caller named it */
      if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode))
        bind_mount (fd_path (fd, buf), path, MS_RDONLY);
      close (fd);
    }
}

static void
setup_newroot (void)
{
  char buf[64], opts[128];
  int rootfd, ws_fd;

  /* Open what the caller named before anything is mounted over it (the
   * workspace may well live under /tmp). */
  for (size_t i = 0; i < opt.n_ro_binds; i++)
    opt.ro_binds[i].fd = open_path_or_die (opt.ro_binds[i].src);
  /* Reopened here: an fd from before the clone names a mount of the host's
   * namespace, which cannot be bound into ours. As root the workspace came
   * as a detached tree instead: the unprivileged user PID-1 now runs as may
   * not be able to walk the path to it (/root is 0700). */
  ws_fd = -1;
  if (workspace_tree_fd < 0)
    {
      ws_fd = open (opt.workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (ws_fd < 0)
        die_with_error ("cannot open the workspace %s", opt.workspace);
    }

  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    die_with_error ("cannot make / private");
  if (mount ("tmpfs", NEWROOT, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m,nr_inodes=1024") != 0)
    die_with_error ("cannot mount the new root");
  rootfd = open (NEWROOT, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    die_with_error ("cannot open the new root");

  for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
    bind_host_path (system_dirs[i], system_dirs[i], MS_RDONLY);

  make_mount_point (NEWROOT "/etc", true);
  for (size_t i = 0; i < sizeof etc_files / sizeof etc_files[0]; i++)
    bind_host_path (etc_files[i], etc_files[i], MS_RDONLY);
  write_file_or_die (rootfd, "etc/passwd",
                     SANDBOX_USER ":x:1000:1000:Reckon:/workspace:/bin/sh\n", 0644);
  write_file_or_die (rootfd, "etc/group", SANDBOX_USER ":x:1000:\n", 0644);
  write_file_or_die (rootfd, "etc/hostname", SANDBOX_HOSTNAME "\n", 0644);
  write_file_or_die (rootfd, "etc/hosts", "127.0.0.1 localhost\n::1 localhost\n", 0644);
  write_file_or_die (rootfd, "etc/nsswitch.conf",
                     "passwd: files\ngroup: files\nhosts: files\n", 0644);

  /* /workspace: the only host path that can be written. */
  make_mount_point (NEWROOT "/workspace", true);
  if (opt.workspace_tmpfs)
    {
      /* The kernel caps it: size= bytes of data, nr_inodes= files and
       * folders (hard links count too), whatever is open, unlinked or
       * hidden. The host's folder stays a descriptor of PID-1's. */
      snprintf (opts, sizeof opts, "mode=0755,size=%llu,nr_inodes=%llu",
                (unsigned long long) opt.disk, (unsigned long long) opt.max_files + 1);
      if (mount ("tmpfs", NEWROOT "/workspace", "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
        die_with_error ("cannot mount the workspace's tmpfs");
      host_workspace_fd = workspace_tree_fd >= 0 ? workspace_tree_fd : ws_fd;
    }
  else if (workspace_tree_fd >= 0)
    {
      if (move_mount (workspace_tree_fd, "", AT_FDCWD, NEWROOT "/workspace", MOVE_MOUNT_F_EMPTY_PATH) != 0)
        die_with_error ("cannot mount the idmapped workspace");
      close (workspace_tree_fd);
    }
  else
    {
      bind_mount (fd_path (ws_fd, buf), NEWROOT "/workspace", 0);
      close (ws_fd);
    }
  mount_inputs ();

  for (size_t i = 0; i < opt.n_ro_binds; i++)
    {
      char dest[PATH_MAX];
      struct stat st;
      make_parents (opt.ro_binds[i].dest);
      snprintf (dest, sizeof dest, NEWROOT "%s", opt.ro_binds[i].dest);
      if (fstat (opt.ro_binds[i].fd, &st) != 0)
        die_with_error ("cannot stat %s", opt.ro_binds[i].src);
      if (lstat (dest, &st) == 0 ? S_ISLNK (st.st_mode) : false)
        die ("cannot bind over the link %s", opt.ro_binds[i].dest);
      if (fstat (opt.ro_binds[i].fd, &st) == 0)
        make_mount_point (dest, S_ISDIR (st.st_mode));
      bind_mount (fd_path (opt.ro_binds[i].fd, buf), dest, MS_RDONLY);
      close (opt.ro_binds[i].fd);
    }

  /* Private /tmp and /dev/shm: two folders of one tmpfs, so they share one
   * size and inode cap (mounted at a scratch point, then detached there). */
  make_mount_point (NEWROOT "/.scratch", true);
  snprintf (opts, sizeof opts, "mode=0755,size=%llu,nr_inodes=65536",
            (unsigned long long) opt.tmp_size);
  if (mount ("tmpfs", NEWROOT "/.scratch", "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
    die_with_error ("cannot mount /tmp");
  if (mkdir (NEWROOT "/.scratch/tmp", 01777) != 0 || chmod (NEWROOT "/.scratch/tmp", 01777) != 0
      || mkdir (NEWROOT "/.scratch/shm", 01777) != 0 || chmod (NEWROOT "/.scratch/shm", 01777) != 0)
    die_with_error ("cannot create /tmp");
  make_mount_point (NEWROOT "/tmp", true);
  if (mount (NEWROOT "/.scratch/tmp", NEWROOT "/tmp", NULL, MS_BIND, NULL) != 0)
    die_with_error ("cannot mount /tmp");

  /* /proc of our own PID namespace; its knobs read-only, as bubblewrap does. */
  make_mount_point (NEWROOT "/proc", true);
  if (mount ("proc", NEWROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
    die_with_error ("cannot mount /proc");
  limit_user_counters ();
  {
    static const char *const proc_ro[] = { "sys", "sysrq-trigger", "irq", "bus" };
    for (size_t i = 0; i < sizeof proc_ro / sizeof proc_ro[0]; i++)
      {
        char p[128];
        snprintf (p, sizeof p, NEWROOT "/proc/%s", proc_ro[i]);
        if (access (p, F_OK) == 0)
          bind_mount (p, p, MS_RDONLY);
      }
  }

  /* Minimal /dev: mknod is not allowed in a user namespace, so bind nodes. */
  make_mount_point (NEWROOT "/dev", true);
  if (mount ("tmpfs", NEWROOT "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64") != 0)
    die_with_error ("cannot mount /dev");
  {
    static const char *const nodes[] = { "null", "zero", "full", "random", "urandom" };
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
      {
        char host[64], dest[64];
        snprintf (host, sizeof host, "/dev/%s", nodes[i]);
        snprintf (dest, sizeof dest, NEWROOT "/dev/%s", nodes[i]);
        make_mount_point (dest, false);
        if (mount (host, dest, NULL, MS_BIND, NULL) != 0)
          die_with_error ("cannot bind %s", host);
      }
    if (symlink ("/proc/self/fd", NEWROOT "/dev/fd") != 0
        || symlink ("/proc/self/fd/0", NEWROOT "/dev/stdin") != 0
        || symlink ("/proc/self/fd/1", NEWROOT "/dev/stdout") != 0
        || symlink ("/proc/self/fd/2", NEWROOT "/dev/stderr") != 0)
      die_with_error ("cannot create the /dev links");
    make_mount_point (NEWROOT "/dev/shm", true);
    if (mount (NEWROOT "/.scratch/shm", NEWROOT "/dev/shm", NULL, MS_BIND, NULL) != 0)
      die_with_error ("cannot mount /dev/shm");
    if (umount2 (NEWROOT "/.scratch", MNT_DETACH) != 0 || rmdir (NEWROOT "/.scratch") != 0)
      die_with_error ("cannot detach the scratch mount");
  }

  /* Switch roots; stacking the old root on the new one and detaching it
   * leaves nothing of the host reachable. */
  if (chdir (NEWROOT) != 0)
    die_with_error ("cannot enter the new root");
  if (syscall (SYS_pivot_root, ".", ".") != 0)
    die_with_error ("cannot pivot_root");
  if (umount2 (".", MNT_DETACH) != 0)
    die_with_error ("cannot detach the old root");
  if (chdir ("/") != 0)
    die_with_error ("cannot enter /");
  if (mount ("none", "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
    die_with_error ("cannot make / read-only");
  close (rootfd);
}

/* ---------------------------------------------------------------------- */
/* Inside: privileges.                                                     */

static void
drop_capabilities (void)
{
  struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2];
  int last = CAP_LAST_CAP;
  FILE *f = fopen ("/proc/sys/kernel/cap_last_cap", "re");

  if (f != NULL)
    {
      if (fscanf (f, "%d", &last) != 1)
        last = CAP_LAST_CAP;
      fclose (f);
    }
  /* --nested: an ordinary process of the outer sandbox may hold no
   * CAP_SETPCAP to shrink its bounding set (EPERM); it has no capability to
   * lose, and no_new_privs keeps exec from granting any. */
  for (int cap = 0; cap <= last; cap++)
    if (prctl (PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && !(opt.nested && errno == EPERM))
      die_with_error ("cannot drop capability %d from the bounding set", cap);
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    die_with_error ("cannot clear the ambient capabilities");
  memset (data, 0, sizeof data);
  if (syscall (SYS_capset, &hdr, data) != 0)
    die_with_error ("cannot drop capabilities");
}

static void
set_limit (int resource, uint64_t soft, uint64_t hard, const char *name)
{
  struct rlimit cur, lim;

  if (getrlimit (resource, &cur) != 0)
    die_with_error ("cannot read %s", name);
  /* Raising a hard limit needs privileges we do not have: clamp. */
  lim.rlim_max = hard < cur.rlim_max ? hard : cur.rlim_max;
  lim.rlim_cur = soft < lim.rlim_max ? soft : lim.rlim_max;
  if (setrlimit (resource, &lim) != 0)
    die_with_error ("cannot set %s", name);
}

static void
set_limits (void)
{
  set_limit (RLIMIT_AS, opt.memory, opt.memory, "RLIMIT_AS");
  /* The soft limit sends SIGXCPU (reported as the "cpu" limit); the hard
   * one, a second later, SIGKILL for a program that ignores it. */
  set_limit (RLIMIT_CPU, opt.cpu_seconds, opt.cpu_seconds + 1, "RLIMIT_CPU");
  /* PID-1 counts too: it runs as the same user in the same namespace. */
  set_limit (RLIMIT_NPROC, opt.max_procs + 1, opt.max_procs + 1, "RLIMIT_NPROC");
  set_limit (RLIMIT_FSIZE, opt.max_file_size, opt.max_file_size, "RLIMIT_FSIZE");
  set_limit (RLIMIT_NOFILE, opt.max_open_files, opt.max_open_files, "RLIMIT_NOFILE");
  set_limit (RLIMIT_CORE, 0, 0, "RLIMIT_CORE");
  set_limit (RLIMIT_RTPRIO, 0, 0, "RLIMIT_RTPRIO");
  set_limit (RLIMIT_NICE, 0, 0, "RLIMIT_NICE");
  /* Counted per user across namespaces: a quarter of the host's, so the
   * host's processes of the same user can still queue signals. */
  {
    struct rlimit cur;
    if (getrlimit (RLIMIT_SIGPENDING, &cur) == 0 && cur.rlim_cur != RLIM_INFINITY)
      set_limit (RLIMIT_SIGPENDING, cur.rlim_cur / 4, cur.rlim_cur / 4, "RLIMIT_SIGPENDING");
  }
  set_limit (RLIMIT_MSGQUEUE, 64 << 10, 64 << 10, "RLIMIT_MSGQUEUE");
  set_limit (RLIMIT_MEMLOCK, 64 << 10, 64 << 10, "RLIMIT_MEMLOCK");
}

static void
close_inherited_fds (void)
{
  int keep[MAX_PASS_FDS + 1];
  size_t n = 0;
  unsigned int from = 3;

  for (size_t i = 0; i < opt.n_pass_fds; i++)
    {
      if (opt.pass_fds[i] < 3)
        continue;
      if (fcntl (opt.pass_fds[i], F_SETFD, 0) != 0)
        die_with_error ("cannot pass fd %d", opt.pass_fds[i]);
      keep[n++] = opt.pass_fds[i];
    }
  /* Sort the few kept fds, then mark every gap close-on-exec: the report
   * pipe must stay open until the exec itself succeeds. */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--)
      {
        int t = keep[j];
        keep[j] = keep[j - 1];
        keep[j - 1] = t;
      }
  keep[n++] = INT_MAX;
  for (size_t i = 0; i < n; i++)
    {
      if ((unsigned int) keep[i] > from
          && syscall (SYS_close_range, from, (unsigned int) keep[i] - 1, CLOSE_RANGE_CLOEXEC) != 0)
        {
          /* Older kernels: walk the fd table instead. */
          DIR *d = opendir ("/proc/self/fd");
          struct dirent *e;
          if (d == NULL)
            die_with_error ("cannot list open files");
          while ((e = readdir (d)) != NULL)
            {
              int fd = atoi (e->d_name);
              bool kept = false;
              for (size_t k = 0; k < n; k++)
                kept |= keep[k] == fd;
              if (fd >= 3 && !kept && fd != dirfd (d))
                fcntl (fd, F_SETFD, FD_CLOEXEC);
            }
          closedir (d);
          break;
        }
      from = (unsigned int) keep[i] + 1;
    }
}

static char **
build_environment (void)
{
  static const char *const base[] = {
    "PATH=/usr/bin:/bin",
    "LANG=C.UTF-8",
    "HOME=/workspace",
    "TMPDIR=/tmp",
    "MPLBACKEND=Agg",
    "MPLCONFIGDIR=/tmp/matplotlib",
    "PYTHONDONTWRITEBYTECODE=1",
    "OPENBLAS_NUM_THREADS=1",
  };
  size_t nbase = sizeof base / sizeof base[0];
  char **env = calloc (nbase + opt.n_setenv + 1, sizeof (char *));
  size_t n = 0;

  if (env == NULL)
    die ("out of memory");
  for (size_t i = 0; i < nbase; i++)
    env[n++] = (char *) base[i];
  for (size_t i = 0; i < opt.n_setenv; i++)
    {
      size_t len = strlen (opt.setenv[i][0]);
      char *e;
      /* A --setenv of a base name replaces it. */
      for (size_t k = 0; k < n; k++)
        if (strncmp (env[k], opt.setenv[i][0], len) == 0 && env[k][len] == '=')
          {
            env[k] = env[--n];
            break;
          }
      if (asprintf (&e, "%s=%s", opt.setenv[i][0], opt.setenv[i][1]) < 0)
        die ("out of memory");
      env[n++] = e;
    }
  env[n] = NULL;
  return env;
}

static void
reset_signals (void)
{
  sigset_t all;
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++)
    sigaction (sig, &sa, NULL);
  sigemptyset (&all);
  sigprocmask (SIG_SETMASK, &all, NULL);
}

/* The program: last steps, then exec. Never returns. */
/* The filters (syscall-filter.c) are compiled at build time; installing
 * them allocates nothing, which matters under RLIMIT_AS. The ioctl one
 * first: the allowlist, once in, still lets prctl through. */
static bool
load_filters (void)
{
  struct sock_fprog allowlist = {
    .len = sizeof seccomp_filter_insns / sizeof seccomp_filter_insns[0],
    .filter = (struct sock_filter *) seccomp_filter_insns,
  };
  struct sock_fprog inet = {
    .len = sizeof seccomp_filter_inet_insns / sizeof seccomp_filter_inet_insns[0],
    .filter = (struct sock_filter *) seccomp_filter_inet_insns,
  };
  struct sock_fprog ioctls = {
    .len = sizeof seccomp_ioctl_insns / sizeof seccomp_ioctl_insns[0],
    .filter = (struct sock_filter *) seccomp_ioctl_insns,
  };

  return prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &ioctls, 0, 0) == 0
         && prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, opt.net_loopback ? &inet : &allowlist, 0, 0) == 0;
}

static void
write_own_proc_file (const char *name, const char *content)
{
  char path[64];
  int fd;

  snprintf (path, sizeof path, "/proc/self/%s", name);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || !write_all (fd, content, strlen (content)))
    die_with_error ("cannot write %s", path);
  close (fd);
}

/* The program's own user namespace inside ours, mapping 1000 to 1000: its
 * uid_map and gid_map read "1000 1000 1" instead of naming the host's uid
 * (the second field is shown in the parent namespace's terms). The kernel
 * uid, and so every permission, stays the same. */
static void
hide_host_ids (void)
{
  char map[64];

  if (unshare (CLONE_NEWUSER) != 0)
    die_with_error ("cannot create the program's user namespace");
  /* The new credentials made us undumpable, and our /proc/self files
   * root's: as bubblewrap does, become dumpable again to write them (exec
   * decides it afresh). */
  if (prctl (PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
    die_with_error ("cannot make the program dumpable");
  write_own_proc_file ("setgroups", "deny");
  snprintf (map, sizeof map, "%d %d 1\n", SANDBOX_UID, SANDBOX_UID);
  write_own_proc_file ("uid_map", map);
  snprintf (map, sizeof map, "%d %d 1\n", SANDBOX_GID, SANDBOX_GID);
  write_own_proc_file ("gid_map", map);
}

static void __attribute__((noreturn))
run_program (void)
{
  char **env = build_environment ();
  const char *prog = opt.argv[0];

  if (setsid () < 0)
    die_with_error ("cannot start a new session");
  /* Its own pty (--pty) is its controlling terminal: ^C interrupts it. */
  if (opt.pty && !opt.nested && ioctl (STDIN_FILENO, TIOCSCTTY, 0) != 0)
    die_with_error ("cannot make the pty the controlling terminal");
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    die_with_error ("cannot set the parent-death signal");
  if (getppid () != (opt.nested ? nested_monitor : 1))
    _exit (EXIT_SETUP_FAILED);

  if (!opt.nested)
    hide_host_ids ();
  drop_capabilities ();
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    die_with_error ("cannot set no_new_privs");
  if (chdir (opt.nested ? opt.workspace : "/workspace") != 0)
    die_with_error ("cannot enter the workspace");
  close_inherited_fds ();
  reset_signals ();
  /* Limits late: nothing below allocates (RLIMIT_AS would refuse it). */
  set_limits ();

  /* Nested, the outer sandbox's mounts decide what is reachable (and the
   * paths are the caller's): Landlock only over a root we built. */
  if (!opt.nested)
    {
      const char *ro[MAX_RO_BINDS + 1];
      size_t n_ro = opt.n_ro_binds;
      for (size_t i = 0; i < opt.n_ro_binds; i++)
        ro[i] = opt.ro_binds[i].dest;
      if (opt.workspace_tmpfs)
        ro[n_ro++] = WORKSPACE_INPUTS;
      sandbox_landlock_apply ("/workspace", ro, n_ro, opt.net_loopback);
    }

  /* Last thing before exec, as bubblewrap does. From here on a failure is
   * the program's (126/127), not the sandbox's. */
  if (!load_filters ())
    die_with_error ("cannot load the seccomp filter");
  if (ready_fd >= 0)
    close (ready_fd);

  if (strchr (prog, '/') != NULL)
    execve (prog, opt.argv, env);
  else
    {
      static const char *const path[] = { "/usr/bin/", "/bin/" };
      int err = ENOENT;
      for (size_t i = 0; i < 2; i++)
        {
          char full[PATH_MAX];
          snprintf (full, sizeof full, "%s%s", path[i], prog);
          execve (full, opt.argv, env);
          if (errno != ENOENT)
            err = errno;
        }
      errno = err;
    }
  {
    int err = errno;
    char line[PATH_MAX + 128], text[PATH_MAX];
    int len;
    text_escape (text, sizeof text, prog);
    len = snprintf (line, sizeof line, "reckon-sandbox: cannot run %s: %s\n", text, strerror (err));
    if (len > 0)
      write_all (STDERR_FILENO, line, strnlen (line, sizeof line));
    _exit (err == ENOENT ? 127 : 126);
  }
}

/* Names a copy of the workspace may look at: both trees (the host's may
 * hold more than --max-files before a run), several times over. */
static uint64_t
copy_entries (void)
{
  return 8 * (opt.max_files + 1) + 1024;
}

/* --workspace-fs tmpfs: copies the tmpfs out to the host's workspace. In
 * PID-1, under its filter, with no capabilities: what it writes is the
 * sandbox user's on the host, as if the program had written it. */
static bool
save_workspace (char *error, size_t size)
{
  struct workspace_copy wc;
  struct timespec t0, t1;
  bool ok;

  clock_gettime (CLOCK_MONOTONIC, &t0);
  ok = workspace_copy_tree (tmpfs_workspace_fd, host_workspace_fd, opt.disk, copy_entries (), &wc);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  snprintf (error, size, "%s", wc.error);
  if (opt.debug)
    debug ("workspace saved: %llu files written (%llu bytes), %llu unchanged, %llu removed, "
           "%llu not copied (links, FIFOs, sockets, devices) in %.2f ms",
           (unsigned long long) wc.files, (unsigned long long) wc.bytes, (unsigned long long) wc.kept,
           (unsigned long long) wc.removed, (unsigned long long) wc.skipped,
           (double) (t1.tv_sec - t0.tv_sec) * 1e3 + (double) (t1.tv_nsec - t0.tv_nsec) / 1e6);
  return ok;
}

/* --workspace-fs tmpfs: moves the files the caller added into the host's
 * WORKSPACE_INCOMING folder into the workspace, on both sides. */
static bool
load_workspace (char *error, size_t size)
{
  struct workspace_copy wc;
  bool ok;

  ok = workspace_take_incoming (host_workspace_fd, tmpfs_workspace_fd, opt.disk, &wc);
  snprintf (error, size, "%s", wc.error);
  if (opt.debug)
    debug ("workspace loaded: %llu files added (%llu bytes)", (unsigned long long) wc.files,
           (unsigned long long) wc.bytes);
  return ok;
}

/* Closes every fd from 3 up except @keep (sorted, ascending). */
static void
close_all_but (const int *keep, size_t n)
{
  unsigned int from = 3;

  for (size_t i = 0; i <= n; i++)
    {
      unsigned int to = i < n ? (unsigned int) keep[i] : ~0U;
      if (i < n && keep[i] < 3)
        continue;
      if (to > from && syscall (SYS_close_range, from, i < n ? to - 1 : to, 0) != 0)
        for (unsigned int fd = from; fd < (i < n ? to : 1024U); fd++)
          close ((int) fd);
      if (i < n)
        from = to + 1;
    }
}

static void
noop_handler (int sig)
{
  (void) sig;
}

/* PID-1 of the new PID namespace. Never returns. */
static void __attribute__((noreturn))
run_pid1 (int sync_fd)
{
  sigset_t set;
  struct sigaction sa;
  pid_t child;
  char c;
  int sfd;
  uint64_t requests_answered = 0;

  /* If the monitor dies, we die, and the namespace with us. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    die_with_error ("cannot set the parent-death signal");
  /* Before anything else: all the run starts is inside its cgroup. */
  if (!sandbox_cgroup_join ())
    die_with_error ("cannot join the run's cgroup");
  if (read (sync_fd, &c, 1) != 1)
    _exit (EXIT_SETUP_FAILED);

  /* The monitor has written our id maps: become the sandbox user. The
   * capabilities of this namespace stay, as namespace root is unmapped. */
  if (prctl (PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
    die_with_error ("cannot keep capabilities");
  if (setresgid (SANDBOX_GID, SANDBOX_GID, SANDBOX_GID) != 0)
    die_with_error ("cannot switch to the sandbox group");
  if (host_uid == 0 && setgroups (0, NULL) != 0)
    die_with_error ("cannot drop supplementary groups");
  if (setresuid (SANDBOX_UID, SANDBOX_UID, SANDBOX_UID) != 0)
    die_with_error ("cannot switch to the sandbox user");
  {
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    if (syscall (SYS_capget, &hdr, data) != 0)
      die_with_error ("cannot read capabilities");
    data[0].effective = data[0].permitted;
    data[1].effective = data[1].permitted;
    if (syscall (SYS_capset, &hdr, data) != 0)
      die_with_error ("cannot raise capabilities");
  }
  /* A change of credentials clears the parent-death signal: set it again,
   * then make sure the monitor did not die in between (it holds the other
   * end of the sync pipe open for as long as it lives). */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    die_with_error ("cannot set the parent-death signal");
  {
    struct pollfd pfd = { .fd = sync_fd, .events = POLLIN };
    if (poll (&pfd, 1, 0) != 0)
      _exit (EXIT_SETUP_FAILED);
    close (sync_fd);
  }

  if (sethostname (SANDBOX_HOSTNAME, strlen (SANDBOX_HOSTNAME)) != 0)
    die_with_error ("cannot set the host name");
  bring_up_loopback ();
  setup_newroot ();
  if (opt.workspace_tmpfs)
    {
      struct workspace_copy wc;
      tmpfs_workspace_fd = open ("/workspace", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (tmpfs_workspace_fd < 0)
        die_with_error ("cannot open the workspace's tmpfs");
      if (!workspace_copy_in (host_workspace_fd, tmpfs_workspace_fd, opt.disk, copy_entries (), &wc))
        die ("the workspace does not fit in its tmpfs (--disk %llu bytes, --max-files %llu): %s",
             (unsigned long long) opt.disk, (unsigned long long) opt.max_files, wc.error);
    }
  if (setsid () < 0)
    die_with_error ("cannot start a new session");

  /* Handlers, not SIG_DFL: PID-1 ignores default-action signals. */
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = noop_handler;
  sigemptyset (&set);
  sigaddset (&set, SIGCHLD);
  sigaction (SIGCHLD, &sa, NULL);
  for (size_t i = 0; i < sizeof forwarded_signals / sizeof forwarded_signals[0]; i++)
    {
      sigaddset (&set, forwarded_signals[i]);
      sigaction (forwarded_signals[i], &sa, NULL);
    }
  sigprocmask (SIG_BLOCK, &set, NULL);

  {
    int ready[2];
    if (pipe2 (ready, O_CLOEXEC) != 0)
      die_with_error ("cannot create a pipe");
    child = fork ();
    if (child < 0)
      die_with_error ("cannot start the program");
    if (child == 0)
      {
        close (ready[0]);
        ready_fd = ready[1];
        run_program ();
      }
    close (ready[1]);
    /* The program runs as our uid: without this it could open /proc/1/mem
     * and run code in us, outside its seccomp filter. */
    if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
      die_with_error ("cannot make PID-1 undumpable");
    /* Until the program is set up (or gone): it is the one that counts. */
    while (read (ready[0], &c, 1) < 0 && errno == EINTR)
      ;
    close (ready[0]);
  }
  drop_capabilities ();
  /* Our own work counts against the run's CPU time too (a flood of
   * signals or of saves would otherwise spin us outside --cpu-seconds):
   * the soft limit's SIGXCPU is ignored by a PID-1, the hard one kills us
   * and the namespace, and the monitor reports the cpu limit. */
  set_limit (RLIMIT_CPU, opt.cpu_seconds, opt.cpu_seconds + 1, "RLIMIT_CPU");
  sfd = signalfd (-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0)
    die_with_error ("cannot create a signalfd in PID-1");
  /* Keep only the report pipe and our signalfd (and, with a tmpfs
   * workspace, its two folders, the requests and the save answers): pipes
   * passed to the program must see EOF when it ends, and nothing else here
   * is of use to an attacker. */
  {
    int keep[6] = { report_fd, sfd, host_workspace_fd, tmpfs_workspace_fd, saved_fd, request_fd };
    size_t n = opt.workspace_tmpfs ? 6 : 2;
    for (size_t i = 1; i < n; i++)
      for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--)
        {
          int t = keep[j];
          keep[j] = keep[j - 1];
          keep[j - 1] = t;
        }
    close_all_but (keep, n);
  }
  /* Our own filter, far shorter than the program's: what we still need
   * (poll, read, waitpid, kill, write, exit, and the calls of a capped
   * workspace's save), nothing else. */
  {
    struct sock_fprog pid1_filter = {
      .len = sizeof seccomp_pid1_insns / sizeof seccomp_pid1_insns[0],
      .filter = (struct sock_filter *) seccomp_pid1_insns,
    };
    if (prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &pid1_filter, 0, 0) != 0)
      die_with_error ("cannot load the seccomp filter in PID-1");
  }

  for (;;)
    {
      struct pollfd pfd[2] = { { .fd = sfd, .events = POLLIN }, { .fd = request_fd, .events = POLLIN } };
      struct signalfd_siginfo si;

      if (poll (pfd, request_fd >= 0 ? 2 : 1, -1) < 0)
        continue;
      if (request_fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
        {
          unsigned char bytes[64];
          ssize_t n = read (request_fd, bytes, sizeof bytes);

          /* End of file: the monitor is gone, and the parent-death signal
           * takes us with it. */
          if (n == 0)
            request_fd = -1;
          for (ssize_t i = 0; i < n; i++)
            {
              char error[256], line[700], esc[600];
              bool load = bytes[i] == 'l';
              const char *key = load ? "loaded" : "saved";

              if (bytes[i] == 'n')
                {
                  save_at_end = false;
                  continue;
                }
              requests_answered++;
              if (load ? load_workspace (error, sizeof error) : save_workspace (error, sizeof error))
                snprintf (line, sizeof line, "{\"id\": %llu, \"%s\": true}\n",
                          (unsigned long long) requests_answered, key);
              else
                {
                  json_escape (esc, sizeof esc, error);
                  snprintf (line, sizeof line, "{\"id\": %llu, \"%s\": false, \"error\": %s}\n",
                            (unsigned long long) requests_answered, key, esc);
                }
              write_all (saved_fd, line, strlen (line));
            }
        }
      /* Signals to pass on: only those the monitor sent with kill(), from
       * outside our namespace (si_pid 0, SI_USER, which rt_sigqueueinfo
       * cannot forge); SIGCHLD, whoever sent it, only makes us reap. */
      while (read (sfd, &si, sizeof si) == sizeof si)
        if (si.ssi_signo != SIGCHLD && si.ssi_code == SI_USER && si.ssi_pid == 0)
          kill (child, (int) si.ssi_signo);
      for (;;)
        {
          int status;
          pid_t p = waitpid (-1, &status, WNOHANG);
          if (p <= 0)
            break;
          if (p == child)
            {
              /* The run ends with the program; leaving takes every orphan
               * with us (the kernel kills the namespace). */
              char msg[1 + sizeof status];
              if (opt.workspace_tmpfs)
                {
                  /* Save only once nothing of the run is left to change
                   * the tmpfs: kill(-1) from PID-1 reaches every other
                   * process of the namespace. */
                  char saved[1 + 256] = "W";
                  kill (-1, SIGKILL);
                  while (waitpid (-1, NULL, 0) > 0 || errno == EINTR)
                    ;
                  if (!save_at_end)
                    snprintf (saved + 1, sizeof saved - 1, "the caller closed --sync-fd: no save at the end");
                  else if (!save_workspace (saved + 1, sizeof saved - 1))
                    {
                      char line[1200], text[1100];
                      text_escape (text, sizeof text, saved + 1);
                      snprintf (line, sizeof line, "reckon-sandbox: the workspace was not saved: %s\n", text);
                      write_all (STDERR_FILENO, line, strlen (line));
                    }
                  write_all (report_fd, saved, sizeof saved);
                }
              msg[0] = 'S';
              memcpy (msg + 1, &status, sizeof status);
              write_all (report_fd, msg, sizeof msg);
              _exit (0);
            }
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Outside: the monitor.                                                   */

static void
write_proc_file (pid_t pid, const char *name, const char *content)
{
  char path[64];
  int fd;

  snprintf (path, sizeof path, "/proc/%d/%s", (int) pid, name);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    die_with_error ("cannot open %s", path);
  if (!write_all (fd, content, strlen (content)))
    die_with_error ("cannot write %s", path);
  close (fd);
}

static void
write_id_maps (pid_t pid, uid_t outer_uid, gid_t outer_gid)
{
  char map[64];

  if (host_uid != 0)
    write_proc_file (pid, "setgroups", "deny");
  snprintf (map, sizeof map, "%d %u 1\n", SANDBOX_UID, (unsigned) outer_uid);
  write_proc_file (pid, "uid_map", map);
  snprintf (map, sizeof map, "%d %u 1\n", SANDBOX_GID, (unsigned) outer_gid);
  write_proc_file (pid, "gid_map", map);
}

/* RLIMIT_NPROC is never enforced for host uid 0 (the kernel exempts
 * INIT_USER, whatever the namespace), and nothing the sandbox writes may be
 * root's on the host (a setuid-root file would be a way in for every local
 * user). So as root the program runs as the workspace's owner; a root-owned
 * workspace, and whatever in it is root's, is first given to a uid no
 * account uses. Privileged groups (below 1000) are never the sandbox's. */
#define ROOT_SANDBOX_KUID 2147418110u
#define FIRST_ORDINARY_GID 1000

static void
prepare_root_workspace (struct workspace_usage_walker *walker, uid_t *outer_uid, gid_t *outer_gid)
{
  struct stat st;
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };

  workspace_hand_over (walker, ROOT_SANDBOX_KUID, ROOT_SANDBOX_KUID);
  if (fstat (workspace_fd, &st) != 0)
    die_with_error ("cannot stat the workspace");
  if (st.st_uid == 0)
    die ("the workspace is still owned by root");
  *outer_uid = st.st_uid;
  *outer_gid = st.st_gid >= FIRST_ORDINARY_GID ? st.st_gid : ROOT_SANDBOX_KUID;
  /* Taken now, while still root: the owner may not reach it by path
   * (~/.cache of root is 0700). */
  workspace_tree_fd = open_tree (workspace_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
  if (workspace_tree_fd < 0)
    die_with_error ("cannot clone the workspace mount");
  if (mount_setattr (workspace_tree_fd, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0)
    die_with_error ("cannot make the workspace nosuid");
}

static uint64_t
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* What both monitors (main and run_nested) watch while the program runs:
 * the wall clock and the workspace's size and file count. */
struct monitor
{
  struct workspace_usage_walker *walker;
  uint64_t                       deadline;     /* 0: no --timeout */
  uint64_t                       next_check;
  uint64_t                       interval;
  uint64_t                       disk_allowed;
  struct workspace_usage         last;
  const char                    *limit;        /* the limit crossed, or NULL */
  char                           limit_value[64];
};

static void
monitor_start (struct monitor                *m,
               struct workspace_usage_walker *walker)
{
  memset (m, 0, sizeof *m);
  m->walker = walker;
  m->interval = 150;
  m->disk_allowed = opt.disk;
  if (opt.timeout > 0)
    m->deadline = now_ms () + opt.timeout * 1000;
}

/* The next walk of the workspace: every 150 ms while it changes, backing off
 * to 1 s while it does not, and walking at most a tenth of the time. */
static void
schedule_next_check (struct monitor               *m,
                     const struct workspace_usage *now_usage,
                     uint64_t                      spent)
{
  if (now_usage->bytes != m->last.bytes || now_usage->entries != m->last.entries)
    m->interval = 150;
  else if (m->interval < 1000)
    m->interval = m->interval * 2 > 1000 ? 1000 : m->interval * 2;
  m->last = *now_usage;
  m->next_check = now_ms () + (spent * 10 > m->interval ? spent * 10 : m->interval);
}

/* The clock, then (when due) a walk of the workspace from @root, whose
 * processes' open files count too: TRUE when a limit was crossed (in
 * m->limit and m->limit_value). */
static bool
monitor_check (struct monitor *m,
               pid_t           root)
{
  uint64_t now = now_ms ();

  if (m->deadline != 0 && now >= m->deadline)
    {
      m->limit = "timeout";
      snprintf (m->limit_value, sizeof m->limit_value, "%llus", (unsigned long long) opt.timeout);
      return true;
    }
  if (now >= m->next_check)
    {
      struct workspace_usage u;
      uint64_t spent;

      workspace_usage_walk (m->walker, root, &u);
      spent = now_ms () - now;
      if (u.bytes > m->disk_allowed || u.blind)
        {
          m->limit = "disk";
          snprintf (m->limit_value, sizeof m->limit_value, "%llu bytes", (unsigned long long) opt.disk);
          return true;
        }
      if (u.entries > opt.max_files || u.too_deep)
        {
          m->limit = "files";
          snprintf (m->limit_value, sizeof m->limit_value, "%llu", (unsigned long long) opt.max_files);
          return true;
        }
      schedule_next_check (m, &u, spent);
    }
  return false;
}

/* How long to poll: until the next walk, or the deadline if that comes first. */
static int
monitor_wait_ms (const struct monitor *m)
{
  int wait_ms = (int) (m->next_check - now_ms ());

  if (m->deadline != 0 && (int64_t) (m->deadline - now_ms ()) < wait_ms)
    wait_ms = (int) (m->deadline - now_ms ());
  return wait_ms < 0 ? 0 : wait_ms;
}

/* SIGCHLD and the signals the monitor passes on, blocked and read from
 * the returned signalfd instead. */
static int
monitor_signalfd (void)
{
  sigset_t set;
  int sfd;

  sigemptyset (&set);
  sigaddset (&set, SIGCHLD);
  for (size_t i = 0; i < sizeof forwarded_signals / sizeof forwarded_signals[0]; i++)
    sigaddset (&set, forwarded_signals[i]);
  if (sigprocmask (SIG_BLOCK, &set, NULL) != 0)
    die_with_error ("cannot block signals");
  sfd = signalfd (-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0)
    die_with_error ("cannot create a signalfd");
  return sfd;
}

/* The signals the monitor was sent (on @sfd) go on to @target. */
static void
monitor_forward_signals (int   sfd,
                         pid_t target)
{
  struct signalfd_siginfo si;

  while (read (sfd, &si, sizeof si) == sizeof si)
    if (si.ssi_signo != SIGCHLD)
      kill (target, (int) si.ssi_signo);
}

static void
write_status (const char *json)
{
  if (status_fd >= 0)
    write_all (status_fd, json, strlen (json));
}

static const char *
signal_limit (int sig)
{
  switch (sig)
    {
    case SIGXCPU: return "cpu";
    case SIGXFSZ: return "file-size";
    default: return NULL;
    }
}

/* Added to the status line: with a tmpfs workspace, whether it was saved. */
static char status_extra[700];

static int __attribute__((noreturn))
finish (int status, bool have_status, const char *limit, const char *value)
{
  char json[800];

  terminal_restore ();
  if (limit != NULL)
    {
      char line[256];
      snprintf (line, sizeof line, "reckon-sandbox: stopped: %s limit exceeded (%s)\n", limit, value);
      write_all (STDERR_FILENO, line, strlen (line));
      snprintf (json, sizeof json, "{\"signal\": %d, \"limit\": \"%s\"%s}\n", SIGKILL, limit, status_extra);
      write_status (json);
      exit (strcmp (limit, "timeout") == 0 ? 124 : 128 + SIGKILL);
    }
  if (!have_status)
    {
      write_status ("{\"error\": \"the sandbox ended without a status\"}\n");
      exit (EXIT_SETUP_FAILED);
    }
  if (WIFEXITED (status))
    {
      snprintf (json, sizeof json, "{\"exit\": %d%s}\n", WEXITSTATUS (status), status_extra);
      write_status (json);
      exit (WEXITSTATUS (status));
    }
  {
    int sig = WTERMSIG (status);
    const char *l = signal_limit (sig);
    if (l != NULL)
      snprintf (json, sizeof json, "{\"signal\": %d, \"limit\": \"%s\"%s}\n", sig, l, status_extra);
    else
      snprintf (json, sizeof json, "{\"signal\": %d%s}\n", sig, status_extra);
    write_status (json);
    exit (128 + sig);
  }
}

/* ---------------------------------------------------------------------- */
/* --nested: inside an outer sandbox (docs/sandbox.md, "Backends").        */
/*                                                                         */
/* flatpak-spawn --sandbox --no-network already gives new user, PID,       */
/* network, IPC and UTS namespaces and decides what is mounted; Flatpak's  */
/* own seccomp filter forbids making namespaces here. So no namespaces, no */
/* mounts: the monitor forks the program and applies what is still its    */
/* own (no_new_privs, rlimits, only the passed fds, the clean environment, */
/* the seccomp filter, the wall clock, the workspace limits), and is the   */
/* supervisor that kills every process of the run when it ends.            */

/* kill(-1) reaches every process we may signal in our PID namespace: only
 * safe in the sub-sandbox's own one, where we are the command its init
 * (bubblewrap) started: PID 2 with parent PID 1. In the initial PID
 * namespace PID 2 is always kthreadd, so this cannot be the host's, and a
 * Flatpak app (PID 2 of its own namespace) never runs this itself. */
static bool
nested_may_kill_all (void)
{
  return getpid () == 2 && getppid () == 1;
}

/* Kills the program's session and every process of the run: as a child
 * subreaper the monitor inherits every orphan, whatever it did (setsid,
 * double fork), so it kills and reaps its children until none is left. */
static void
nested_kill_everything (pid_t child)
{
  if (child > 0)
    {
      kill (-child, SIGKILL);
      kill (child, SIGKILL);
    }
  if (nested_may_kill_all ())
    kill (-1, SIGKILL);
  for (int round = 0; round < 1000; round++)
    {
      bool any = false;
      DIR *d = opendir ("/proc");
      struct dirent *e;

      while (d != NULL && (e = readdir (d)) != NULL)
        {
          char path[64], stat[512];
          const char *close_paren;
          int fd, ppid = 0;
          ssize_t n;
          char state;
          pid_t pid = (pid_t) atoi (e->d_name);

          if (pid <= 0 || pid == getpid ())
            continue;
          snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
          fd = open (path, O_RDONLY | O_CLOEXEC);
          if (fd < 0)
            continue;
          n = read (fd, stat, sizeof stat - 1);
          close (fd);
          if (n <= 0)
            continue;
          stat[n] = '\0';
          close_paren = strrchr (stat, ')');
          if (close_paren == NULL || sscanf (close_paren + 1, " %c %d", &state, &ppid) != 2)
            continue;
          if (ppid == getpid ())
            {
              kill (pid, SIGKILL);
              any = true;
            }
        }
      if (d != NULL)
        closedir (d);
      while (waitpid (-1, NULL, WNOHANG) > 0)
        any = true;
      if (!any)
        break;
      poll (NULL, 0, 2);
    }
}

static void __attribute__((noreturn))
run_nested (struct workspace_usage_walker *walker)
{
  int sfd;
  pid_t child;
  struct monitor m;
  int status = 0;
  bool have_status = false;

  /* What is visible is the outer sandbox's choice: a bind can only name a
   * path that is already there, at the same place. */
  for (size_t i = 0; i < opt.n_ro_binds; i++)
    if (strcmp (opt.ro_binds[i].src, opt.ro_binds[i].dest) != 0)
      die ("--nested cannot bind %s at %s: the outer sandbox decides what is visible",
           opt.ro_binds[i].src, opt.ro_binds[i].dest);
  if (opt.workspace[0] != '/')
    die ("--nested needs the workspace as an absolute path");

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    die_with_error ("cannot set no_new_privs");
  if (prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    die_with_error ("cannot become a child subreaper");

  sfd = monitor_signalfd ();
  if (opt.control_fd >= 0)
    fcntl (opt.control_fd, F_SETFD, FD_CLOEXEC);

  nested_monitor = getpid ();
  child = fork ();
  if (child < 0)
    die_with_error ("cannot start the program");
  if (child == 0)
    {
      close (sfd);
      close (workspace_fd);
      if (status_fd >= 0)
        close (status_fd);
      if (opt.control_fd >= 0)
        close (opt.control_fd);
      run_program ();
    }
  /* The program runs as our uid: without this it could open our
   * /proc/PID/mem and run code in us, outside its seccomp filter. */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    die_with_error ("cannot make the monitor undumpable");

  monitor_start (&m, walker);
  for (;;)
    {
      struct pollfd pfd[2] = { { .fd = sfd, .events = POLLIN }, { .fd = opt.control_fd, .events = POLLIN } };
      pid_t p;

      /* From the monitor: orphans of the run are its children too. */
      if (monitor_check (&m, getpid ()))
        break;
      if (poll (pfd, opt.control_fd >= 0 ? 2 : 1, monitor_wait_ms (&m)) < 0 && errno != EINTR)
        die_with_error ("poll failed");
      if (pfd[0].revents & POLLIN)
        monitor_forward_signals (sfd, child);
      if (opt.control_fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
        {
          /* Each byte is a signal for the program; end of file means the
           * caller is gone (closed, killed, disconnected): so is the run. */
          unsigned char bytes[64];
          ssize_t n = read (opt.control_fd, bytes, sizeof bytes);
          if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
            {
              nested_kill_everything (child);
              write_status ("{\"signal\": 9, \"limit\": \"caller\"}\n");
              _exit (128 + SIGKILL);
            }
          for (ssize_t i = 0; i < n; i++)
            for (size_t k = 0; k < sizeof forwarded_signals / sizeof forwarded_signals[0]; k++)
              if (bytes[i] == forwarded_signals[k])
                kill (child, (int) bytes[i]);
        }
      p = waitpid (child, &status, WNOHANG);
      if (p == child)
        {
          have_status = true;
          break;
        }
    }

  /* The run ends with the program: nothing it started outlives it. */
  nested_kill_everything (have_status ? 0 : child);
  if (!have_status && m.limit == NULL)
    m.limit = "timeout";
  workspace_restore (walker);
  if (have_status && WIFEXITED (status) && WEXITSTATUS (status) == EXIT_SETUP_FAILED)
    {
      write_status ("{\"error\": \"the program could not be set up\"}\n");
      exit (EXIT_SETUP_FAILED);
    }
  finish (status, have_status, m.limit, m.limit_value);
}

int
main (int argc, char **argv)
{
  static char report[4096];
  int sync_pipe[2], report_pipe[2], saved_pipe[2] = { -1, -1 }, request_pipe[2] = { -1, -1 };
  /* Requests read from --sync-fd not yet taken by PID-1's pipe, and
   * answers not yet taken by --sync-fd: the monitor never blocks on
   * either side (a full pipe or a caller that does not read would stop
   * the clock and the limits). */
  char requests[64], answers[4096];
  size_t n_requests = 0, n_answers = 0;
  bool sync_open;
  pid_t pid1;
  int sfd;
  uid_t outer_uid;
  gid_t outer_gid;
  pid_t parent = getppid ();
  struct monitor m;
  struct workspace_usage_walker *walker;
  bool oom_killed;
  int pid1_status = 0;
  struct rusage pid1_usage = { 0 };

  /* With 0-2 closed, our own pipes would land there and reach the program
   * as its stdio. */
  for (int fd = 0; fd < 3; fd++)
    if (fcntl (fd, F_GETFD) < 0 && open ("/dev/null", O_RDWR) != fd)
      die_with_error ("cannot open /dev/null");

  /* Die with our caller. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    die_with_error ("cannot set the parent-death signal");
  if (getppid () != parent)
    die ("the caller is gone");
  signal (SIGPIPE, SIG_IGN);

  if (argc < 1)
    usage ();
  argv = copy_args (argc, argv);
  parse_args (argc, argv);
  /* The kernel counts file descriptors in flight over Unix sockets
   * (SCM_RIGHTS) per user, and refuses more once the count passes the
   * sender's RLIMIT_NOFILE: at most a quarter of the caller's own, so
   * processes of the same user (Wayland, PipeWire, D-Bus) can still pass
   * theirs whatever the program holds in flight. */
  {
    struct rlimit nf;
    if (getrlimit (RLIMIT_NOFILE, &nf) == 0 && nf.rlim_cur != RLIM_INFINITY && nf.rlim_cur / 4 < opt.max_open_files)
      opt.max_open_files = nf.rlim_cur / 4 < 16 ? 16 : nf.rlim_cur / 4;
  }
  /* The caller puts us into a cgroup (a systemd scope on cgroup v2) while
   * we wait here, before anything of the run exists. */
  if (opt.start_fd >= 0)
    {
      char go;
      ssize_t n;

      while ((n = read (opt.start_fd, &go, 1)) < 0 && errno == EINTR)
        ;
      close (opt.start_fd);
      if (n != 1)
        die ("the caller is gone: --start-fd closed before the start byte");
    }
  /* PID-1 counts too. */
  if (!opt.nested)
    sandbox_cgroup_prepare (opt.memory, opt.max_procs + 1);

  host_uid = geteuid ();
  host_gid = getegid ();
  for (size_t i = 0; i < sizeof user_counters / sizeof user_counters[0]; i++)
    {
      char path[128], text[32] = "";
      int fd;
      snprintf (path, sizeof path, "/proc/sys/user/%s", user_counters[i]);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd >= 0)
        {
          if (read (fd, text, sizeof text - 1) > 0)
            host_counters[i] = strtol (text, NULL, 10);
          close (fd);
        }
    }
  outer_uid = host_uid;
  outer_gid = host_gid;

  workspace_fd = open (opt.workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (workspace_fd < 0)
    die_with_error ("cannot open the workspace %s", opt.workspace);
  walker = workspace_usage_walker_new (workspace_fd, opt.max_files);
  workspace_usage_set_inputs (walker, opt.workspace_tmpfs);
  workspace_usage_set_max_procs (walker, opt.max_procs);
  if (opt.debug)
    {
      char how[256];
      sandbox_landlock_describe (how, sizeof how);
      debug ("%s", opt.nested ? "landlock: not applied (nested: the outer sandbox's mounts decide what is reachable)" : how);
      debug ("seccomp: %d system calls allowed, all others ENOSYS or EPERM", SECCOMP_FILTER_ALLOWED);
      debug ("open files: RLIMIT_NOFILE %llu (also the cap on descriptors in flight over sockets); "
             "pipe and socket buffer sizes fixed at their defaults (F_SETPIPE_SZ, SO_SNDBUF, SO_RCVBUF: EPERM)",
             (unsigned long long) opt.max_open_files);
      if (opt.nested)
        debug ("memory: no cgroup (nested): per-process RLIMIT_AS only");
      if (opt.workspace_tmpfs)
        debug ("workspace: a tmpfs of its own, size=%llu nr_inodes=%llu (the kernel enforces --disk and "
               "--max-files), copied in at the start, saved when the program ends%s",
               (unsigned long long) opt.disk, (unsigned long long) opt.max_files + 1,
               opt.sync_fd >= 0 ? " and at each --sync-fd request" : "");
    }
  if (opt.nested)
    {
      /* Nested, the monitor is the program's parent, in its PID namespace. */
      hide_args ();
      run_nested (walker);
    }
  sync_open = opt.sync_fd >= 0;
  if (opt.control_fd >= 0)
    die ("--control-fd is only for --nested");
  if (host_uid == 0)
    prepare_root_workspace (walker, &outer_uid, &outer_gid);

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    die_with_error ("cannot set no_new_privs");

  sfd = monitor_signalfd ();

  if (pipe2 (sync_pipe, O_CLOEXEC) != 0 || pipe2 (report_pipe, O_CLOEXEC) != 0
      || (opt.workspace_tmpfs && pipe2 (saved_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
      || (opt.workspace_tmpfs && pipe2 (request_pipe, O_CLOEXEC) != 0))
    die_with_error ("cannot create pipes");
  terminal_setup (opt.pty);

  pid1 = (pid_t) syscall (SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET
                          | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP | SIGCHLD,
                          NULL, NULL, NULL, NULL);
  if (pid1 < 0)
    die_with_error ("cannot create namespaces");
  if (pid1 == 0)
    {
      hide_args ();
      terminal_child ();
      close (sync_pipe[1]);
      close (report_pipe[0]);
      if (saved_pipe[0] >= 0)
        {
          close (saved_pipe[0]);
          /* Blocking: each answer is written whole. */
          fcntl (saved_pipe[1], F_SETFL, 0);
          saved_fd = saved_pipe[1];
          close (request_pipe[1]);
          request_fd = request_pipe[0];
        }
      if (opt.sync_fd >= 0)
        close (opt.sync_fd);
      close (sfd);
      close (workspace_fd);
      status_fd = -1;
      report_fd = report_pipe[1];
      run_pid1 (sync_pipe[0]);
    }

  close (sync_pipe[0]);
  close (report_pipe[1]);
  sandbox_cgroup_close ();
  if (saved_pipe[1] >= 0)
    {
      close (saved_pipe[1]);
      close (request_pipe[0]);
      fcntl (request_pipe[1], F_SETFL, O_NONBLOCK);
      /* Our end of the caller's socket only: its own end is another
       * open file description. */
      if (opt.sync_fd >= 0)
        fcntl (opt.sync_fd, F_SETFL, fcntl (opt.sync_fd, F_GETFL) | O_NONBLOCK);
    }
  terminal_parent ();
  write_id_maps (pid1, outer_uid, outer_gid);
  if (write (sync_pipe[1], "x", 1) != 1)
    die_with_error ("cannot start the sandbox");
  /* sync_pipe[1] stays open: PID-1 checks it to see that we are alive. */
  if (workspace_tree_fd >= 0)
    close (workspace_tree_fd);
  if (opt.debug)
    {
      char how[256];
      sandbox_cgroup_describe (opt.memory, how, sizeof how);
      debug ("memory: %s", how);
    }

  monitor_start (&m, walker);
  for (;;)
    {
      struct pollfd pfd[8] = { { .fd = sfd, .events = POLLIN } };
      int nterm = terminal_poll_fds (pfd + 1);
      int npfd = 1 + nterm;
      int sync_at = -1, saved_at = -1, request_at = -1, answer_at = -1;
      int status;
      pid_t p;

      if (monitor_check (&m, pid1))
        {
          kill (pid1, SIGKILL);
          break;
        }
      /* A capped workspace's save writes each file under no name before
       * it replaces the old one: after the first walk (the copy in), the
       * host's folder may hold both for a moment (the tmpfs itself holds
       * --disk). */
      if (opt.workspace_tmpfs && m.next_check != 0)
        m.disk_allowed = 2 * opt.disk;

      /* A new request is read only once PID-1's pipe took the last ones;
       * answers are read only while there is room to keep them. */
      if (sync_open && n_requests == 0)
        {
          sync_at = npfd++;
          pfd[sync_at] = (struct pollfd) { .fd = opt.sync_fd, .events = POLLIN };
        }
      if (n_requests > 0)
        {
          request_at = npfd++;
          pfd[request_at] = (struct pollfd) { .fd = request_pipe[1], .events = POLLOUT };
        }
      if (saved_pipe[0] >= 0 && n_answers < sizeof answers / 2)
        {
          saved_at = npfd++;
          pfd[saved_at] = (struct pollfd) { .fd = saved_pipe[0], .events = POLLIN };
        }
      if (n_answers > 0 && opt.sync_fd >= 0)
        {
          answer_at = npfd++;
          pfd[answer_at] = (struct pollfd) { .fd = opt.sync_fd, .events = POLLOUT };
        }
      if (poll (pfd, (nfds_t) npfd, monitor_wait_ms (&m)) < 0 && errno != EINTR)
        die_with_error ("poll failed");
      terminal_pump (pfd + 1, nterm);
      if (sync_at >= 0 && (pfd[sync_at].revents & (POLLIN | POLLHUP | POLLERR)))
        {
          /* Each byte asks for one save ('l': one take of the staged
           * files); end of file, for none more. */
          unsigned char bytes[sizeof requests - 1];
          ssize_t n = read (opt.sync_fd, bytes, sizeof bytes);
          for (ssize_t i = 0; i < n; i++)
            requests[n_requests++] = bytes[i] == 'l' ? 'l' : 's';
          if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
            {
              /* The caller wants no more saves, the last one included: it
               * has what it needs, or is about to delete the folder. */
              sync_open = false;
              requests[n_requests++] = 'n';
            }
        }
      if (n_requests > 0)
        {
          ssize_t n = write (request_pipe[1], requests, n_requests);
          if (n > 0)
            {
              memmove (requests, requests + n, n_requests - (size_t) n);
              n_requests -= (size_t) n;
            }
        }
      if (saved_at >= 0 && (pfd[saved_at].revents & POLLIN))
        {
          ssize_t n = read (saved_pipe[0], answers + n_answers, sizeof answers - n_answers);
          if (n > 0)
            n_answers += (size_t) n;
        }
      if (n_answers > 0 && opt.sync_fd >= 0)
        {
          ssize_t n = write (opt.sync_fd, answers, n_answers);
          if (n > 0)
            {
              memmove (answers, answers + n, n_answers - (size_t) n);
              n_answers -= (size_t) n;
            }
          else if (n < 0 && errno != EAGAIN && errno != EINTR)
            n_answers = 0;  /* the caller is gone: nobody to tell */
        }
      if (pfd[0].revents & POLLIN)
        monitor_forward_signals (sfd, pid1);
      p = wait4 (pid1, &status, WNOHANG, &pid1_usage);
      if (p == pid1)
        {
          pid1 = 0;
          pid1_status = status;
          break;
        }
    }

  if (pid1 != 0)
    while (waitpid (pid1, NULL, 0) < 0 && errno == EINTR)
      ;
  terminal_drain ();
  /* Answers to save requests PID-1 wrote before it left: for a second
   * at most, the caller may have stopped reading. */
  if (saved_pipe[0] >= 0 && opt.sync_fd >= 0)
    {
      uint64_t give_up = now_ms () + 1000;
      for (;;)
        {
          struct pollfd out = { .fd = opt.sync_fd, .events = POLLOUT };
          ssize_t n = 0;
          if (n_answers < sizeof answers)
            n = read (saved_pipe[0], answers + n_answers, sizeof answers - n_answers);
          if (n > 0)
            n_answers += (size_t) n;
          if (n_answers == 0 || now_ms () >= give_up)
            break;
          if (poll (&out, 1, (int) (give_up - now_ms ())) <= 0)
            break;
          n = write (opt.sync_fd, answers, n_answers);
          if (n < 0 && errno != EAGAIN && errno != EINTR)
            break;
          if (n > 0)
            {
              memmove (answers, answers + n, n_answers - (size_t) n);
              n_answers -= (size_t) n;
            }
        }
    }
  /* Everything inside is dead: no set-id bit and no unreadable mode leaves. */
  workspace_restore (walker);
  oom_killed = sandbox_cgroup_oom_killed ();
  sandbox_cgroup_remove ();

  {
    size_t len = 0;
    ssize_t n;
    int status = 0;
    bool have_status = false;

    while (len < sizeof report - 1 && (n = read (report_pipe[0], report + len, sizeof report - 1 - len)) > 0)
      len += (size_t) n;
    report[len] = '\0';
    if (m.limit == NULL && len > 0 && report[0] == 'E')
      {
        /* The inside already printed the reason on stderr. */
        char esc[1200], json[1300];
        json_escape (esc, sizeof esc, report + 1);
        snprintf (json, sizeof json, "{\"error\": %s}\n", esc);
        write_status (json);
        exit (EXIT_SETUP_FAILED);
      }
    /* The program may have written into the pipe before exec failed: the
     * status is the last message. */
    if (len >= 1 + sizeof status && report[len - 1 - sizeof status] == 'S')
      {
        memcpy (&status, report + len - sizeof status, sizeof status);
        have_status = true;
      }
    /* With a tmpfs workspace, the save comes just before: 'W' and the
     * reason it failed, or nothing. Without it (the run was stopped),
     * nothing was saved. */
    if (opt.workspace_tmpfs)
      {
        size_t at = len - (have_status ? 1 + sizeof status : 0);
        char esc[600];
        if (have_status && at >= 257 && report[at - 257] == 'W')
          {
            const char *why = report + at - 256;
            json_escape (esc, sizeof esc, why);
            if (why[0] == '\0')
              snprintf (status_extra, sizeof status_extra, ", \"saved\": true");
            else
              snprintf (status_extra, sizeof status_extra, ", \"saved\": false, \"save-error\": %s", esc);
          }
        else
          snprintf (status_extra, sizeof status_extra, ", \"saved\": false");
      }
    /* PID-1's own hard RLIMIT_CPU (its time and that of the processes it
     * reaped): it was killed before it could report. */
    if (m.limit == NULL && !have_status && WIFSIGNALED (pid1_status) && WTERMSIG (pid1_status) == SIGKILL
        && (uint64_t) (pid1_usage.ru_utime.tv_sec + pid1_usage.ru_stime.tv_sec) >= opt.cpu_seconds)
      {
        m.limit = "cpu";
        snprintf (m.limit_value, sizeof m.limit_value, "%llus", (unsigned long long) opt.cpu_seconds);
      }
    /* The cgroup's OOM killer took the program (or PID-1). */
    if (m.limit == NULL && oom_killed
        && (!have_status || (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)))
      {
        m.limit = "memory";
        snprintf (m.limit_value, sizeof m.limit_value, "%llu bytes", (unsigned long long) opt.memory);
      }
    finish (status, have_status, m.limit, m.limit_value);
  }
}
