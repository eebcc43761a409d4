/* SPDX-License-Identifier: GPL-3.0-or-later */
/* workspace-usage.c — walks the workspace from outside with openat/fstatat,
 * never following links and never opening anything but folders: to count
 * it, and to take set-id bits and unreadable modes away. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "utils.h"
#include "workspace-fs.h"
#include "workspace-usage.h"

/* One open folder per level: deeper trees are reported, not walked. */
#define MAX_DEPTH 256
/* Processes and distinct unlinked files the open-file scan looks at. */
#define MAX_PROCS 4096
#define MAX_UNLINKED 1024

enum walk_mode
{
  WALK_COUNT,     /* during the run: count, clear set-id bits */
  WALK_RESTORE,   /* after the run: also give the owner its bits back */
  WALK_HAND_OVER, /* before a run as root: chown what is root's */
};

struct workspace_usage_walker
{
  int dirfd;
  uint64_t max_entries;
  dev_t dev;
  enum walk_mode mode;
  uid_t uid;
  gid_t gid;
  size_t max_procs;
  /* Inputs (--input) as they were when the run began: only what they
   * grew by counts (they are read-only wherever the backend can). */
  struct { ino_t ino; uint64_t bytes; } inputs[WORKSPACE_MAX_INPUTS];
  bool capped;
};

struct workspace_usage_walker *
workspace_usage_walker_new (int dirfd, uint64_t max_entries)
{
  struct workspace_usage_walker *self = calloc (1, sizeof *self);
  struct stat st;

  if (self == NULL)
    die ("out of memory");
  if (fstat (dirfd, &st) != 0)
    die_with_error ("cannot stat the workspace");
  self->dirfd = dirfd;
  self->max_entries = max_entries;
  self->dev = st.st_dev;
  self->max_procs = MAX_PROCS;
  return self;
}

void
workspace_usage_set_inputs (struct workspace_usage_walker *self, bool capped)
{
  self->capped = capped;
  for (size_t i = 0; i < workspace_n_inputs (); i++)
    {
      struct stat st;
      if (fstatat (self->dirfd, workspace_input (i), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG (st.st_mode))
        {
          self->inputs[i].ino = st.st_ino;
          self->inputs[i].bytes = (uint64_t) st.st_blocks * 512;
        }
    }
}

static bool
is_input_inode (struct workspace_usage_walker *self, const struct stat *st)
{
  for (size_t i = 0; i < workspace_n_inputs (); i++)
    if (self->inputs[i].ino == st->st_ino && st->st_dev == self->dev)
      return true;
  return false;
}

/* The bytes a file at the top of the workspace counts for. */
static uint64_t
top_file_bytes (struct workspace_usage_walker *self, const char *name, const struct stat *st)
{
  uint64_t bytes = (uint64_t) st->st_blocks * 512;

  for (size_t i = 0; i < workspace_n_inputs (); i++)
    if (self->inputs[i].ino == st->st_ino && strcmp (workspace_input (i), name) == 0)
      return bytes > self->inputs[i].bytes ? bytes - self->inputs[i].bytes : 0;
  /* A capped workspace's host folder: the saves write each file afresh
   * (one name) and give it its owner's write bit, so a file with none, or
   * with another name, was added by the caller while the program ran (an
   * input too, linked in by PID-1: a copy made read-only, or a hard link
   * to the user's own file). */
  if (self->capped && ((st->st_mode & 0222) == 0 || st->st_nlink > 1))
    return 0;
  return bytes;
}

void
workspace_usage_set_max_procs (struct workspace_usage_walker *self, uint64_t max_procs)
{
  self->max_procs = max_procs + 8 < MAX_PROCS ? (size_t) max_procs + 8 : MAX_PROCS;
}

/* chmod through an O_PATH fd, so an entry swapped for a link in between is
 * never followed; only folders and regular files are touched. */
static void
chmod_entry (int parent, const char *name, mode_t clear, mode_t set)
{
  int fd = openat (parent, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;

  if (fd < 0)
    return;
  if (fstat (fd, &st) == 0 && (S_ISDIR (st.st_mode) || S_ISREG (st.st_mode)))
    {
      mode_t want = ((st.st_mode & 07777) & ~clear) | set;
      char path[64];
      snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
      if (want != (st.st_mode & 07777))
        (void) chmod (path, want);
      if (geteuid () == 0 && S_ISREG (st.st_mode))
        (void) removexattr (path, "security.capability");
    }
  close (fd);
}

static int
open_folder (int parent, const char *name)
{
  int fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

  if (fd < 0 && errno == EACCES)
    {
      chmod_entry (parent, name, 0, S_IRWXU);
      fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    }
  return fd;
}

static void
visit (struct workspace_usage_walker *self, int dirfd, const char *name, const struct stat *st)
{
  mode_t clear = S_ISUID | S_ISGID;
  mode_t set = 0;

  if (S_ISLNK (st->st_mode))
    {
      if (self->mode == WALK_HAND_OVER && (st->st_uid == 0 || st->st_gid == 0))
        (void) fchownat (dirfd, name, st->st_uid == 0 ? self->uid : (uid_t) -1,
                         st->st_gid == 0 ? self->gid : (gid_t) -1, AT_SYMLINK_NOFOLLOW);
      return;
    }
  /* A root-owned file with other names may be a hard link to a file
   * outside the workspace, put there by someone who could write the
   * folder (the sandbox cannot make root's files): never touch it. */
  if (S_ISREG (st->st_mode) && st->st_nlink > 1 && st->st_uid == 0)
    return;
  /* Nor an input: the caller's (it may be a hard link to the user's own
   * file), read-only inside, its mode and owner not ours to change. */
  if (S_ISREG (st->st_mode) && is_input_inode (self, st))
    return;
  if (self->mode == WALK_HAND_OVER && (st->st_uid == 0 || st->st_gid == 0))
    {
      int fd = openat (dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0)
        {
          (void) fchownat (fd, "", st->st_uid == 0 ? self->uid : (uid_t) -1,
                           st->st_gid == 0 ? self->gid : (gid_t) -1, AT_EMPTY_PATH);
          close (fd);
        }
    }
  if (self->mode == WALK_RESTORE)
    set = S_ISDIR (st->st_mode) ? S_IRWXU : S_ISREG (st->st_mode) ? S_IRUSR | S_IWUSR : 0;
  /* A chown clears set-id bits on files but not on folders: always check. */
  if ((st->st_mode & clear) || (st->st_mode & set) != set || self->mode == WALK_HAND_OVER
      || (self->mode == WALK_RESTORE && geteuid () == 0))
    chmod_entry (dirfd, name, clear, set);
}

static void
walk (struct workspace_usage_walker *self, int fd, int depth, struct workspace_usage *u)
{
  DIR *dir;
  struct dirent *e;

  if (depth > MAX_DEPTH)
    {
      u->too_deep = true;
      close (fd);
      return;
    }
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      u->blind = true;
      close (fd);
      return;
    }
  while ((e = readdir (dir)) != NULL
         && (self->mode != WALK_COUNT || (u->entries <= self->max_entries && !u->too_deep)))
    {
      struct stat st;

      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      /* A capped workspace's staging folder holds what the caller is adding
       * (the program cannot reach the host folder, and saves never write
       * there): inputs on their way in, counted no more than inputs are. */
      if (self->capped && self->mode == WALK_COUNT && depth == 0 && strcmp (e->d_name, WORKSPACE_INCOMING) == 0)
        continue;
      if (fstatat (dirfd (dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          /* A folder readable but not searchable: search it again after
           * giving the owner its bits back, or call it a breach. */
          if (errno == EACCES)
            {
              struct stat dst;
              if (fstat (dirfd (dir), &dst) == 0)
                (void) fchmod (dirfd (dir), (dst.st_mode & 0777) | S_IRWXU);
              if (fstatat (dirfd (dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                goto found;
            }
          if (errno != ENOENT)
            u->blind = true;
          continue;
        }
    found:
      u->entries++;
      u->bytes += depth == 0 && S_ISREG (st.st_mode) ? top_file_bytes (self, e->d_name, &st)
                                                    : (uint64_t) st.st_blocks * 512;
      visit (self, dirfd (dir), e->d_name, &st);
      if (S_ISDIR (st.st_mode))
        {
          int child = open_folder (dirfd (dir), e->d_name);
          if (child >= 0)
            walk (self, child, depth + 1, u);
          else if (errno != ENOENT)
            u->blind = true;
        }
    }
  closedir (dir);
}

static void
walk_root (struct workspace_usage_walker *self, struct workspace_usage *u)
{
  int fd = openat (self->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat st;

  memset (u, 0, sizeof *u);
  if (fd < 0 && errno == EACCES && fstat (self->dirfd, &st) == 0)
    {
      /* The workspace itself chmodded to 000 (our fd was opened before). */
      (void) fchmod (self->dirfd, (st.st_mode & 0777) | S_IRWXU);
      fd = openat (self->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
  if (fd < 0)
    {
      u->blind = true;
      return;
    }
  if (fstat (fd, &st) == 0 && ((st.st_mode & (S_ISUID | S_ISGID)) || self->mode == WALK_RESTORE))
    (void) fchmod (self->dirfd, (st.st_mode & 0777 & ~(mode_t) (S_ISUID | S_ISGID)) | S_IRWXU);
  walk (self, fd, 0, u);
}

static bool
seen_before (ino_t ino, ino_t *seen, size_t *n_seen)
{
  for (size_t i = 0; i < *n_seen; i++)
    if (seen[i] == ino)
      return true;
  if (*n_seen < MAX_UNLINKED)
    seen[(*n_seen)++] = ino;
  return false;
}

/* Adds the blocks of regular files on the workspace's file system that
 * process @pid holds open with no name left (unlinked, or O_TMPFILE). */
static void
scan_fds (struct workspace_usage_walker *self, pid_t pid, ino_t *seen, size_t *n_seen,
          struct workspace_usage *u)
{
  char path[64];
  DIR *dir;
  struct dirent *e;

  snprintf (path, sizeof path, "/proc/%d/fd", (int) pid);
  dir = opendir (path);
  if (dir == NULL)
    {
      /* EACCES: a process on its way out (no memory map left to check our
       * right to look against); it holds nothing for long. */
      if (errno != ENOENT && errno != ESRCH && errno != EACCES)
        u->blind = true;
      return;
    }
  while ((e = readdir (dir)) != NULL)
    {
      struct stat st;

      if (e->d_name[0] == '.')
        continue;
      if (fstatat (dirfd (dir), e->d_name, &st, 0) != 0 || !S_ISREG (st.st_mode)
          || st.st_dev != self->dev || st.st_nlink != 0)
        continue;
      if (seen_before (st.st_ino, seen, n_seen))
        continue;
      u->bytes += (uint64_t) st.st_blocks * 512;
    }
  closedir (dir);
}

/* Files unlinked while still mapped, their descriptors closed: counted at
 * their mapped length (root could stat them through map_files, an ordinary
 * user may not). System libraries replaced under a running program share
 * the file system, so those paths are left out. */
static void
scan_maps (struct workspace_usage_walker *self, pid_t pid, ino_t *seen, size_t *n_seen,
           struct workspace_usage *u)
{
  static const char *const system[] = { "/usr/", "/lib", "/bin/", "/sbin/", "/etc/", "/opt/", "/app/" };
  char path[64], line[PATH_MAX + 128];
  FILE *f;

  snprintf (path, sizeof path, "/proc/%d/maps", (int) pid);
  f = fopen (path, "re");
  if (f == NULL)
    return;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long long start, end, ino;
      unsigned int dmaj, dmin;
      int name_at = 0;
      bool skip = false;
      size_t len = strlen (line);

      if (len < 11 || strcmp (line + len - 11, " (deleted)\n") != 0)
        continue;
      if (sscanf (line, "%llx-%llx %*s %*s %x:%x %llu %n", &start, &end, &dmaj, &dmin, &ino, &name_at) < 5
          || name_at == 0 || makedev (dmaj, dmin) != self->dev)
        continue;
      for (size_t i = 0; i < sizeof system / sizeof system[0]; i++)
        skip |= strncmp (line + name_at, system[i], strlen (system[i])) == 0;
      if (skip || seen_before ((ino_t) ino, seen, n_seen))
        continue;
      u->bytes += end - start;
    }
  fclose (f);
}

/* Every process of the PID namespace descends from its PID-1 (orphans are
 * reparented to it), so following the children lists finds them all. */
static void
scan_unlinked (struct workspace_usage_walker *self, pid_t pid1, struct workspace_usage *u)
{
  static pid_t procs[MAX_PROCS];
  static ino_t seen[MAX_UNLINKED];
  size_t n = 0, n_seen = 0;

  /* First the processes: more than the run may have (a fork bomb where
   * RLIMIT_NPROC does not hold) is a breach, found before any slow scan. */
  procs[n++] = pid1;
  for (size_t i = 0; i < n; i++)
    {
      char path[64];
      DIR *tasks;
      struct dirent *t;

      snprintf (path, sizeof path, "/proc/%d/task", (int) procs[i]);
      tasks = opendir (path);
      if (tasks == NULL)
        continue;
      while ((t = readdir (tasks)) != NULL && !u->blind)
        {
          char cpath[320], buf[4096];
          ssize_t len;
          int fd;

          if (t->d_name[0] == '.')
            continue;
          snprintf (cpath, sizeof cpath, "/proc/%d/task/%s/children", (int) procs[i], t->d_name);
          fd = open (cpath, O_RDONLY | O_CLOEXEC);
          if (fd < 0)
            continue;
          len = read (fd, buf, sizeof buf - 1);
          close (fd);
          if (len <= 0)
            continue;
          buf[len] = '\0';
          for (char *p = buf, *end; *p != '\0'; p = end)
            {
              long v = strtol (p, &end, 10);
              if (end == p)
                break;
              if (n < self->max_procs)
                procs[n++] = (pid_t) v;
              else
                u->blind = true;
            }
        }
      closedir (tasks);
      if (u->blind)
        return;
    }
  for (size_t i = 1; i < n; i++)
    {
      scan_fds (self, procs[i], seen, &n_seen, u);
      scan_maps (self, procs[i], seen, &n_seen, u);
    }
}

void
workspace_usage_walk (struct workspace_usage_walker *self, pid_t pid1, struct workspace_usage *out)
{
  self->mode = WALK_COUNT;
  walk_root (self, out);
  if (pid1 > 0)
    scan_unlinked (self, pid1, out);
}

void
workspace_restore (struct workspace_usage_walker *self)
{
  struct workspace_usage u;

  self->mode = WALK_RESTORE;
  walk_root (self, &u);
}

void
workspace_hand_over (struct workspace_usage_walker *self, uid_t uid, gid_t gid)
{
  struct workspace_usage u;
  struct stat st;

  self->mode = WALK_HAND_OVER;
  self->uid = uid;
  self->gid = gid;
  if (fstat (self->dirfd, &st) == 0 && (st.st_uid == 0 || st.st_gid == 0))
    {
      if (fchown (self->dirfd, st.st_uid == 0 ? uid : (uid_t) -1, st.st_gid == 0 ? gid : (gid_t) -1) != 0)
        die_with_error ("cannot give the workspace to the sandbox user");
    }
  walk_root (self, &u);
}
