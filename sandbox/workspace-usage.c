/* workspace-usage.c — counts the workspace from outside with openat/fstatat,
 * never following links and never opening anything but folders. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utils.h"
#include "workspace-usage.h"

/* One open folder per level: deeper trees are reported, not walked. */
#define MAX_DEPTH 256

struct workspace_usage_walker
{
  int dirfd;
  uint64_t max_entries;
  bool repair_modes;
};

struct workspace_usage_walker *
workspace_usage_walker_new (int dirfd, uint64_t max_entries, bool repair_modes)
{
  struct workspace_usage_walker *self = calloc (1, sizeof *self);

  if (self == NULL)
    die ("out of memory");
  self->dirfd = dirfd;
  self->max_entries = max_entries;
  self->repair_modes = repair_modes;
  return self;
}

static int
open_folder (struct workspace_usage_walker *self, int parent, const char *name)
{
  int fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

  if (fd < 0 && errno == EACCES && self->repair_modes)
    {
      /* The owner can always chmod; do it through an O_PATH fd so a folder
       * swapped for a link in between is never followed. */
      int pfd = openat (parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (pfd >= 0)
        {
          char path[64];
          struct stat st;
          snprintf (path, sizeof path, "/proc/self/fd/%d", pfd);
          if (fstat (pfd, &st) == 0 && S_ISDIR (st.st_mode))
            (void) chmod (path, (st.st_mode & 07777) | S_IRWXU);
          close (pfd);
          fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        }
    }
  return fd;
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
      close (fd);
      return;
    }
  while ((e = readdir (dir)) != NULL && u->entries <= self->max_entries && !u->too_deep)
    {
      struct stat st;

      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      if (fstatat (dirfd (dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      u->entries++;
      u->bytes += (uint64_t) st.st_blocks * 512;
      if (S_ISDIR (st.st_mode))
        {
          int child = open_folder (self, dirfd (dir), e->d_name);
          if (child >= 0)
            walk (self, child, depth + 1, u);
        }
    }
  closedir (dir);
}

void
workspace_usage_walk (struct workspace_usage_walker *self, struct workspace_usage *out)
{
  int fd = openat (self->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  memset (out, 0, sizeof *out);
  if (fd >= 0)
    walk (self, fd, 0, out);
}
