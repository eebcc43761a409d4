/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgroup.c — RLIMIT_AS bounds each process alone and misses shared memory;
 * a memory cgroup bounds the sum (tmpfs, memfd and SysV pages included). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "utils.h"

#define V1_ROOT "/sys/fs/cgroup"
/* Our groups live under one parent per controller. A monitor killed with
 * SIGKILL cannot remove its group: each start removes the empty ones. */
#define V1_PARENT "reckon-sandbox"

static char v1_memory[160];
static char v1_pids[160];

static bool
write_text (const char *dir, const char *name, const char *text)
{
  char path[256];
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

/* Whether this v1 controller's hierarchy is there and ours to write; if so,
 * names the run's group in @out (it is made by v1_make). */
static bool
v1_name (const char *controller, char *out, size_t size)
{
  char parent[96];

  out[0] = '\0';
  snprintf (parent, sizeof parent, V1_ROOT "/%s", controller);
  if (access (parent, W_OK) != 0)
    return false;
  snprintf (out, size, V1_ROOT "/%s/" V1_PARENT "/run-%d-%lld%09ld", controller, (int) getpid (),
            (long long) v1_stamp.tv_sec, v1_stamp.tv_nsec);
  return true;
}

/* Makes the group named by v1_name (and its parent); false (errno set)
 * if it cannot. */
static bool
v1_make (const char *group)
{
  char parent[160];

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
  char parent[160];
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

/* cgroup v1, the helper process: makes the groups and joins the memory
 * group itself at once, then sets the limits. The first move of a task in
 * a v1 hierarchy waits for an RCU grace period (the threadgroup lock
 * switching to its writer mode: two timer ticks, 8 ms at HZ=250); the
 * helper's move starts that wait while the monitor and PID-1 set up the
 * namespaces, and the move of PID-1 and the program a moment later finds
 * it over (or joins it). Sweeps the groups of dead monitors meanwhile
 * (also in the grace period's shadow), then tells the monitor over @fd "+"
 * when the groups are ready, or why not. */
static void __attribute__((noreturn))
v1_helper (int fd, uint64_t memory, uint64_t max_tasks)
{
  char num[32], self[32], why[300] = "";

  snprintf (num, sizeof num, "%llu", (unsigned long long) memory);
  snprintf (self, sizeof self, "%d", (int) getpid ());
  if (!v1_make (v1_memory))
    snprintf (why, sizeof why, "cannot create the cgroup %s: %s", v1_memory, strerror (errno));
  else if (!write_text (v1_memory, "cgroup.procs", self))
    snprintf (why, sizeof why, "cannot move the sandbox into its memory cgroup: %s", strerror (errno));
  else if (!write_text (v1_memory, "memory.limit_in_bytes", num))
    snprintf (why, sizeof why, "cannot set the memory limit of the cgroup: %s", strerror (errno));
  else
    /* With swap accounting, swap may not take what RAM may not. */
    (void) write_text (v1_memory, "memory.memsw.limit_in_bytes", num);
  if (why[0] == '\0' && v1_pids[0] != '\0')
    {
      snprintf (num, sizeof num, "%llu", (unsigned long long) max_tasks);
      if (!v1_make (v1_pids))
        snprintf (why, sizeof why, "cannot create the cgroup %s: %s", v1_pids, strerror (errno));
      else if (!write_text (v1_pids, "pids.max", num))
        snprintf (why, sizeof why, "cannot set the task limit of the cgroup: %s", strerror (errno));
    }
  v1_sweep (v1_memory);
  if (v1_pids[0] != '\0')
    v1_sweep (v1_pids);
  if (why[0] == '\0')
    strcpy (why, "+");
  (void) !write (fd, why, strlen (why));
  _exit (0);
}

static pid_t v1_helper_pid;
static int v1_helper_fd = -1;

void
sandbox_cgroup_prepare (uint64_t memory, uint64_t max_tasks)
{
  struct stat st;
  int fds[2];

  if (geteuid () != 0 || access (V1_ROOT "/cgroup.controllers", F_OK) == 0
      || stat (V1_ROOT "/memory/memory.limit_in_bytes", &st) != 0)
    return;
  clock_gettime (CLOCK_MONOTONIC, &v1_stamp);
  if (!v1_name ("memory", v1_memory, sizeof v1_memory))
    return;
  (void) v1_name ("pids", v1_pids, sizeof v1_pids);
  if (pipe2 (fds, O_CLOEXEC) != 0)
    die_with_error ("cannot create a pipe");
  v1_helper_pid = fork ();
  if (v1_helper_pid < 0)
    die_with_error ("cannot start the cgroup helper");
  if (v1_helper_pid == 0)
    {
      close (fds[0]);
      v1_helper (fds[1], memory, max_tasks);
    }
  close (fds[1]);
  v1_helper_fd = fds[0];
}

static void
reap_helper (void)
{
  while (v1_helper_pid > 0 && waitpid (v1_helper_pid, NULL, 0) < 0 && errno == EINTR)
    ;
  v1_helper_pid = 0;
}

bool
sandbox_cgroup_pending (void)
{
  return v1_helper_fd >= 0;
}

static bool
attach_v1 (const pid_t *pids, size_t n_pids, uint64_t memory, char *describe, size_t size)
{
  char why[300], pidtext[32];
  ssize_t n;

  if (v1_helper_fd < 0)
    return false;
  while ((n = read (v1_helper_fd, why, sizeof why - 1)) < 0 && errno == EINTR)
    ;
  close (v1_helper_fd);
  v1_helper_fd = -1;
  /* It exits once it has answered (it leaves the memory group so). */
  reap_helper ();
  /* Root running unbounded by mistake is worse than not running. */
  if (n < 0)
    die_with_error ("cannot read from the cgroup helper");
  why[n] = '\0';
  if (strcmp (why, "+") != 0)
    die ("%s", why[0] ? why : "the cgroup helper failed");
  for (size_t i = 0; i < n_pids; i++)
    {
      snprintf (pidtext, sizeof pidtext, "%d", (int) pids[i]);
      if (!write_text (v1_memory, "cgroup.procs", pidtext))
        die_with_error ("cannot move the sandbox into its memory cgroup");
      if (v1_pids[0] != '\0' && !write_text (v1_pids, "cgroup.procs", pidtext))
        die_with_error ("cannot move the sandbox into its pids cgroup");
    }
  snprintf (describe, size, "cgroup v1 of its own: memory.limit_in_bytes %llu (memory, tmpfs, memfd, SysV shm together), %s",
            (unsigned long long) memory, v1_pids[0] ? "pids.max set" : "no pids controller");
  return true;
}

/* cgroup v2: we do not make groups (a desktop delegates them to the user's
 * systemd; the caller runs us in a transient scope with MemoryMax and
 * TasksMax), but we say whether the group we run in has limits. */
static bool
detect_v2 (char *describe, size_t size)
{
  char line[512], path[700], mem[64] = "", pids[64] = "";
  FILE *f;
  bool found = false;

  if (access (V1_ROOT "/cgroup.controllers", F_OK) != 0)
    return false;
  f = fopen ("/proc/self/cgroup", "re");
  if (f == NULL)
    return false;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, "0::", 3) == 0)
      {
        line[strcspn (line, "\n")] = '\0';
        found = true;
        break;
      }
  fclose (f);
  if (!found)
    return false;
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
      snprintf (describe, size, "cgroup v2 without a memory.max above us: per-process RLIMIT_AS only");
      return false;
    }
  snprintf (describe, size, "cgroup v2 of the caller: memory.max %s, pids.max %s", mem, pids[0] ? pids : "max");
  return true;
}

bool
sandbox_cgroup_attach (const pid_t *pids, size_t n_pids, uint64_t memory, char *describe, size_t size)
{
  snprintf (describe, size, "no cgroup: per-process RLIMIT_AS only");
  if (attach_v1 (pids, n_pids, memory, describe, size))
    return true;
  return detect_v2 (describe, size);
}

bool
sandbox_cgroup_oom_killed (void)
{
  char path[256], buf[512];
  char *p;

  if (v1_memory[0] == '\0')
    return false;
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

  /* Reaped already, unless the run failed before (it stays in the memory
   * group until it exits). */
  reap_helper ();

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
    }
}
