/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgroup.c — RLIMIT_AS bounds each process alone and misses shared memory;
 * a memory cgroup bounds the sum (tmpfs, memfd and SysV pages included). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "utils.h"

#define V1_ROOT "/sys/fs/cgroup"
/* Our groups live under one parent per controller, inside the caller's
 * own group (so its limits hold for the run too). A monitor killed with
 * SIGKILL cannot remove its group: each start removes the empty ones. */
#define V1_PARENT "reckon-sandbox"

static char v1_memory[PATH_MAX];
static char v1_pids[PATH_MAX];

static bool
write_text (const char *dir, const char *name, const char *text)
{
  char path[PATH_MAX + 32];
  int fd;
  bool ok;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ok = write_all (fd, text, strlen (text));
  close (fd);
  return ok;
}

static bool
read_text (const char *path, char *buf, size_t size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return false;
  n = read (fd, buf, size - 1);
  close (fd);
  if (n < 0)
    return false;
  buf[n] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
  return true;
}

/* The moment the run's groups are named (run-PID-TIME, under one parent
 * per controller). */
static struct timespec v1_stamp;

/* Our own group in the v1 hierarchy of @controller ("4:memory:/a/b" in
 * /proc/self/cgroup), written into @out as a folder under V1_ROOT; false if
 * there is none or it is not reachable from here (a cgroup namespace). */
static bool
v1_own_group (const char *controller, char *out, size_t size)
{
  char line[PATH_MAX + 64];
  bool found = false;
  FILE *f = fopen ("/proc/self/cgroup", "re");

  if (f == NULL)
    return false;
  while (!found && fgets (line, sizeof line, f) != NULL)
    {
      char *list = strchr (line, ':'), *path;
      size_t len = strlen (controller);

      if (list == NULL || (path = strchr (++list, ':')) == NULL)
        continue;
      *path++ = '\0';
      path[strcspn (path, "\n")] = '\0';
      /* The controller alone, or in a list ("cpu,cpuacct"). */
      for (char *c = list; c != NULL && !found; c = strchr (c, ','))
        {
          if (*c == ',')
            c++;
          if (strncmp (c, controller, len) == 0 && (c[len] == ',' || c[len] == '\0'))
            found = path[0] == '/'
                    && snprintf (out, size, V1_ROOT "/%s%s", controller, strcmp (path, "/") == 0 ? "" : path)
                       < (int) size;
        }
    }
  fclose (f);
  return found;
}

/* Whether this v1 controller's hierarchy is there and our own group in it
 * ours to write; if so, names the run's group in @out, beneath ours (it is
 * made by v1_make). Never at the top of the hierarchy when we are not
 * there: the caller's own limits (memory, tasks) must hold for the run. */
static bool
v1_name (const char *controller, char *out, size_t size)
{
  char parent[PATH_MAX];

  out[0] = '\0';
  if (!v1_own_group (controller, parent, sizeof parent) || access (parent, W_OK) != 0)
    return false;
  if (snprintf (out, size, "%s/" V1_PARENT "/run-%d-%lld%09ld", parent, (int) getpid (),
                (long long) v1_stamp.tv_sec, v1_stamp.tv_nsec) >= (int) size)
    {
      out[0] = '\0';
      return false;
    }
  return true;
}

/* Makes the group named by v1_name (and its parent); false (errno set)
 * if it cannot. */
static bool
v1_make (const char *group)
{
  char parent[PATH_MAX];

  snprintf (parent, sizeof parent, "%s", group);
  *strrchr (parent, '/') = '\0';
  if (mkdir (parent, 0700) != 0 && errno != EEXIST)
    return false;
  return mkdir (group, 0700) == 0;
}

/* Removes the empty groups of monitors that are gone, beside @group: only
 * those (one just made by a live monitor is empty for a moment too), and
 * only if empty (rmdir refuses others). */
static void
v1_sweep (const char *group)
{
  char parent[PATH_MAX];
  DIR *d;
  struct dirent *e;

  snprintf (parent, sizeof parent, "%s", group);
  *strrchr (parent, '/') = '\0';
  d = opendir (parent);
  while (d != NULL && (e = readdir (d)) != NULL)
    if (strncmp (e->d_name, "run-", 4) == 0 && kill ((pid_t) atoi (e->d_name + 4), 0) != 0
        && errno == ESRCH)
      (void) unlinkat (dirfd (d), e->d_name, AT_REMOVEDIR);
  if (d != NULL)
    closedir (d);
}

/* The run's groups, opened by the monitor (root) for PID-1 to join:
 * cgroup v1 checks a write to `tasks` against the credentials the file was
 * opened with, so PID-1 may write there from inside its user namespace. */
static int join_fds[2] = { -1, -1 };

static int
open_tasks (const char *group)
{
  char path[PATH_MAX + 16];

  snprintf (path, sizeof path, "%s/tasks", group);
  return open (path, O_WRONLY | O_CLOEXEC);
}

/* Makes one group with its limit (@file = @value) and opens its `tasks`
 * file into @fd; dies if it cannot: root running unbounded by mistake is
 * worse than not running. */
static void
v1_make_group (const char *group, const char *file, uint64_t value, int *fd)
{
  char num[32];

  snprintf (num, sizeof num, "%llu", (unsigned long long) value);
  if (!v1_make (group))
    die_with_error ("cannot create the cgroup %s", group);
  if (!write_text (group, file, num))
    die_with_error ("cannot set %s of the cgroup %s", file, group);
  *fd = open_tasks (group);
  if (*fd < 0)
    die_with_error ("cannot open the tasks of the cgroup %s", group);
}

static void v2_prepare (void);

void
sandbox_cgroup_prepare (uint64_t memory, uint64_t max_tasks)
{
  struct stat st;

  v2_prepare ();
  if (geteuid () != 0 || access (V1_ROOT "/cgroup.controllers", F_OK) == 0
      || stat (V1_ROOT "/memory/memory.limit_in_bytes", &st) != 0)
    return;
  clock_gettime (CLOCK_MONOTONIC, &v1_stamp);
  if (!v1_name ("memory", v1_memory, sizeof v1_memory))
    return;
  (void) v1_name ("pids", v1_pids, sizeof v1_pids);
  v1_make_group (v1_memory, "memory.limit_in_bytes", memory, &join_fds[0]);
  /* With swap accounting, swap may not take what RAM may not. */
  {
    char num[32];
    snprintf (num, sizeof num, "%llu", (unsigned long long) memory);
    (void) write_text (v1_memory, "memory.memsw.limit_in_bytes", num);
  }
  if (v1_pids[0] != '\0')
    v1_make_group (v1_pids, "pids.max", max_tasks, &join_fds[1]);
}

/* A process that moves only itself, one thread, through `tasks` skips the
 * threadgroup lock: 0.1 ms. Moving a process by its PID through
 * `cgroup.procs` takes that lock in writer mode, which waits for an RCU
 * grace period (two timer ticks, about 7 ms here). */
bool
sandbox_cgroup_join (void)
{
  if (join_fds[0] < 0)
    return true;
  for (size_t i = 0; i < 2; i++)
    if (join_fds[i] >= 0 && !write_all (join_fds[i], "0", 1))
      return false;
  sandbox_cgroup_close ();
  /* Our groups become the root of the run's view, which would otherwise
   * start at the caller's (and show ours as "/../../reckon-sandbox/..."). */
  return unshare (CLONE_NEWCGROUP) == 0;
}

void
sandbox_cgroup_close (void)
{
  for (size_t i = 0; i < 2; i++)
    if (join_fds[i] >= 0)
      {
        close (join_fds[i]);
        join_fds[i] = -1;
      }
}

/* cgroup v2: we do not make groups (a desktop delegates them to the user's
 * systemd: Reckon's launcher puts us in a transient scope with MemoryMax
 * and TasksMax before we start, through --start-fd), but we say whether
 * the group we run in has limits, and read its OOM kills. */

/* Our own v2 group ("0::" of /proc/self/cgroup, a path under V1_ROOT), or
 * false if /sys/fs/cgroup is not cgroup v2. */
static bool
v2_own_group (char *line, size_t size)
{
  FILE *f;
  bool found = false;

  if (access (V1_ROOT "/cgroup.controllers", F_OK) != 0)
    return false;
  f = fopen ("/proc/self/cgroup", "re");
  if (f == NULL)
    return false;
  while (fgets (line, (int) size, f) != NULL)
    if (strncmp (line, "0::", 3) == 0)
      {
        line[strcspn (line, "\n")] = '\0';
        found = true;
        break;
      }
  fclose (f);
  return found && line[3] == '/';
}

/* The `oom_kill` count of our v2 group's memory.events (its processes and
 * those below), or -1 if there is none (no memory controller). */
static long long
v2_oom_kills (void)
{
  char line[512], path[700], buf[512];
  char *p;
  int fd;
  ssize_t n;

  if (!v2_own_group (line, sizeof line))
    return -1;
  snprintf (path, sizeof path, V1_ROOT "%s/memory.events", line + 3);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  for (p = buf; (p = strstr (p, "oom_kill ")) != NULL; p++)
    if (p == buf || p[-1] == '\n')
      return strtoll (p + strlen ("oom_kill "), NULL, 10);
  return -1;
}

/* The count before the run: a group that is not the run's own (no scope,
 * the caller's) may have had kills before. */
static long long v2_oom_before = -1;

static void
v2_prepare (void)
{
  v2_oom_before = v2_oom_kills ();
}

static bool
detect_v2 (char *describe, size_t size)
{
  char line[512], own[512], path[700], mem[64] = "", pids[64] = "";

  if (!v2_own_group (line, sizeof line))
    return false;
  snprintf (own, sizeof own, "%s", line + 3);
  /* The nearest limit up the tree is the one in force. */
  for (char *p = line + 3; ; )
    {
      char *slash;
      snprintf (path, sizeof path, V1_ROOT "%s/memory.max", p);
      if (mem[0] == '\0' && read_text (path, mem, sizeof mem) && strcmp (mem, "max") == 0)
        mem[0] = '\0';
      snprintf (path, sizeof path, V1_ROOT "%s/pids.max", p);
      if (pids[0] == '\0' && read_text (path, pids, sizeof pids) && strcmp (pids, "max") == 0)
        pids[0] = '\0';
      slash = strrchr (p, '/');
      if (slash == NULL || slash == p)
        break;
      *slash = '\0';
    }
  if (mem[0] == '\0')
    {
      snprintf (describe, size, "cgroup v2 %s without a memory.max there or above: per-process RLIMIT_AS only",
                own);
      return false;
    }
  snprintf (describe, size, "cgroup v2 %s: memory.max %s (memory, tmpfs pages together), pids.max %s", own, mem,
            pids[0] ? pids : "max");
  return true;
}

bool
sandbox_cgroup_describe (uint64_t memory, char *describe, size_t size)
{
  if (v1_memory[0] != '\0')
    {
      snprintf (describe, size,
                "cgroup v1 of its own: memory.limit_in_bytes %llu (memory, tmpfs, memfd, SysV shm together), %s; "
                "inside the caller's group (its limits hold too): %s",
                (unsigned long long) memory, v1_pids[0] ? "pids.max set" : "no pids controller", v1_memory);
      return true;
    }
  snprintf (describe, size, "no cgroup: per-process RLIMIT_AS only");
  return detect_v2 (describe, size);
}

bool
sandbox_cgroup_oom_killed (void)
{
  char path[PATH_MAX + 32], buf[512];
  char *p;

  if (v1_memory[0] == '\0')
    {
      long long after = v2_oom_before >= 0 ? v2_oom_kills () : -1;
      return after > v2_oom_before;
    }
  snprintf (path, sizeof path, "%s/memory.oom_control", v1_memory);
  {
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
      close (fd);
    if (n <= 0)
      return false;
    buf[n] = '\0';
  }
  p = strstr (buf, "oom_kill ");
  return p != NULL && strtoull (p + strlen ("oom_kill "), NULL, 10) > 0;
}

void
sandbox_cgroup_remove (void)
{
  char *dirs[] = { v1_memory, v1_pids };

  sandbox_cgroup_close ();
  for (size_t i = 0; i < 2; i++)
    {
      if (dirs[i][0] == '\0')
        continue;
      /* The last tasks may take a moment to leave. */
      for (int tries = 0; tries < 50 && rmdir (dirs[i]) != 0 && errno == EBUSY; tries++)
        {
          struct timespec ts = { 0, 10 * 1000 * 1000 };
          nanosleep (&ts, NULL);
        }
      v1_sweep (dirs[i]);
    }
}
