/* SPDX-License-Identifier: GPL-3.0-or-later */
/* workspace-fs.c — the capped workspace (--workspace-fs tmpfs): copies a
 * tree into it and back out, beneath descriptors, never following a link. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workspace-fs.h"

/* One open folder per level on each side: deeper trees are not copied. */
#define MAX_DEPTH 256
/* Files with several names a copy remembers, to link their other names to
 * the first copy instead of writing (and counting) the data again. */
#define MAX_LINKED 64

struct linked
{
  dev_t dev;
  ino_t ino;
  int dirfd;   /* where the first name was written, a dup */
  char *name;
};

struct copy
{
  uint64_t budget;   /* data bytes the whole copy may still hold */
  uint64_t entries;  /* names that may still be looked at */
  bool link_inputs;  /* into the tmpfs: inputs become links */
  struct workspace_copy *out;
  struct linked linked[MAX_LINKED];
  size_t n_linked;
};

/* The inputs: names fixed by the command line, then added files. PID-1
 * keeps them in static storage (its filter has no use for more). */
static char inputs[WORKSPACE_MAX_INPUTS][256];
static size_t n_inputs;

bool
workspace_add_input (const char *name)
{
  size_t len = strlen (name);

  if (len == 0 || len >= sizeof inputs[0] || name[0] == '.' || strchr (name, '/') != NULL)
    return false;
  if (workspace_is_input (name))
    return true;
  if (n_inputs == WORKSPACE_MAX_INPUTS)
    return false;
  memcpy (inputs[n_inputs++], name, len + 1);
  return true;
}

bool
workspace_is_input (const char *name)
{
  for (size_t i = 0; i < n_inputs; i++)
    if (strcmp (inputs[i], name) == 0)
      return true;
  return false;
}

size_t
workspace_n_inputs (void)
{
  return n_inputs;
}

const char *
workspace_input (size_t i)
{
  return i < n_inputs ? inputs[i] : NULL;
}

/* In the tmpfs, @name stands for the input of that name: a link into the
 * read-only view of the host's folder. */
static bool
link_input (int ddir, const char *name)
{
  char target[sizeof WORKSPACE_INPUTS + sizeof inputs[0]];

  snprintf (target, sizeof target, "%s/%s", WORKSPACE_INPUTS, name);
  return symlinkat (target, ddir, name) == 0;
}

/* Whether @name in @ddir is still the link link_input() made for it: an
 * input removed by the caller while the program ran and now added again. */
static bool
is_input_link (int ddir, const char *name)
{
  char want[sizeof WORKSPACE_INPUTS + sizeof inputs[0]];
  char got[sizeof want + 1];
  ssize_t n;

  if (!workspace_is_input (name))
    return false;
  snprintf (want, sizeof want, "%s/%s", WORKSPACE_INPUTS, name);
  n = readlinkat (ddir, name, got, sizeof got - 1);
  if (n < 0 || (size_t) n >= sizeof got - 1)
    return false;
  got[n] = '\0';
  return strcmp (got, want) == 0;
}

static void
forget_links (struct copy *c)
{
  for (size_t i = 0; i < c->n_linked; i++)
    {
      close (c->linked[i].dirfd);
      free (c->linked[i].name);
    }
  c->n_linked = 0;
}

static const struct linked *
find_link (struct copy *c, const struct stat *st)
{
  for (size_t i = 0; i < c->n_linked; i++)
    if (c->linked[i].dev == st->st_dev && c->linked[i].ino == st->st_ino)
      return &c->linked[i];
  return NULL;
}

static void
remember_link (struct copy *c, const struct stat *st, int ddir, const char *name)
{
  struct linked *l = &c->linked[c->n_linked];

  if (st->st_nlink < 2 || c->n_linked == MAX_LINKED)
    return;
  l->dirfd = fcntl (ddir, F_DUPFD_CLOEXEC, 3);
  l->name = strdup (name);
  if (l->dirfd < 0 || l->name == NULL)
    {
      if (l->dirfd >= 0)
        close (l->dirfd);
      free (l->name);
      return;
    }
  l->dev = st->st_dev;
  l->ino = st->st_ino;
  c->n_linked++;
}

/* Charges @bytes to the whole copy's budget; false (and says so) past it. */
static bool
charge (struct copy *c, uint64_t bytes)
{
  if (bytes > c->budget)
    {
      if (c->out->error[0] == '\0')
        snprintf (c->out->error, sizeof c->out->error, "the files come to more than the disk limit");
      return false;
    }
  c->budget -= bytes;
  return true;
}

/* False once a copy has looked at more names than the tree can hold many
 * times over: a program that keeps making and removing files while it is
 * saved cannot keep the save going for ever. */
static bool
next_entry (struct copy *c)
{
  if (c->entries == 0)
    {
      if (c->out->error[0] == '\0')
        snprintf (c->out->error, sizeof c->out->error, "the workspace kept changing while it was copied");
      return false;
    }
  c->entries--;
  return true;
}

static void
fail (struct copy *c, const char *what, const char *name, int err)
{
  char line[1024];

  if (c->out->error[0] != '\0')
    return;
  /* Cut to fit: a long name is still recognisable from its start. */
  snprintf (line, sizeof line, "%s %s: %s", what, name, strerror (err));
  memcpy (c->out->error, line, sizeof c->out->error - 1);
  c->out->error[sizeof c->out->error - 1] = '\0';
}

/* Gives the owner @need bits back on the folder or regular file @name,
 * through an O_PATH descriptor, so that a link is never followed. */
static void
give_owner_bits (int dirfd, const char *name, mode_t need)
{
  int fd = openat (dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;

  if (fd < 0)
    return;
  if (fstat (fd, &st) == 0 && (S_ISDIR (st.st_mode) || S_ISREG (st.st_mode))
      && (st.st_mode & need) != need)
    {
      char path[64];
      snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
      (void) chmod (path, (st.st_mode & 07777) | need);
    }
  close (fd);
}

static int
open_dir (int dirfd, const char *name)
{
  int fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  struct stat st;

  if (fd < 0 && errno == EACCES)
    {
      give_owner_bits (dirfd, name, S_IRWXU);
      fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
  /* Readable but not searchable: listing it needs search too. */
  if (fd >= 0 && fstat (fd, &st) == 0 && (st.st_mode & S_IRWXU) != S_IRWXU)
    (void) fchmod (fd, (st.st_mode & 07777) | S_IRWXU);
  return fd;
}

/* A listing of @dirfd that does not move @dirfd's own offset. */
static DIR *
list_dir (int dirfd)
{
  int fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d;

  if (fd < 0)
    return NULL;
  d = fdopendir (fd);
  if (d == NULL)
    close (fd);
  return d;
}

static bool
is_dot (const char *name)
{
  return strcmp (name, ".") == 0 || strcmp (name, "..") == 0;
}

static void
remove_entry (struct copy *c, int dirfd, const char *name, int depth)
{
  int fd;
  DIR *d;
  struct dirent *e;

  if (unlinkat (dirfd, name, 0) == 0)
    {
      c->out->removed++;
      return;
    }
  if (errno != EISDIR && errno != EPERM)
    {
      if (errno != ENOENT)
        fail (c, "cannot remove", name, errno);
      return;
    }
  if (depth >= MAX_DEPTH || (fd = open_dir (dirfd, name)) < 0)
    {
      fail (c, "cannot remove the folder", name, depth >= MAX_DEPTH ? ELOOP : errno);
      return;
    }
  d = list_dir (fd);
  while (d != NULL && (e = readdir (d)) != NULL && next_entry (c))
    if (!is_dot (e->d_name))
      remove_entry (c, fd, e->d_name, depth + 1);
  if (d != NULL)
    closedir (d);
  close (fd);
  if (unlinkat (dirfd, name, AT_REMOVEDIR) == 0)
    c->out->removed++;
  else
    fail (c, "cannot remove the folder", name, errno);
}

/* Data extents only: a sparse file stays sparse (and costs no budget for
 * its holes). */
static bool
copy_data (struct copy *c, int s, int d, off_t size, const char *name)
{
  off_t off = 0;

  while (off < size)
    {
      off_t data = lseek (s, off, SEEK_DATA), hole, in;

      if (data < 0 && errno == ENXIO)
        break;
      if (data < 0)
        data = off;  /* no SEEK_DATA here: all of it */
      hole = lseek (s, data, SEEK_HOLE);
      if (hole < 0 || hole > size)
        hole = size;
      if (data >= hole)
        break;
      if (!charge (c, (uint64_t) (hole - data)))
        return false;
      in = data;
      if (lseek (d, data, SEEK_SET) != data)
        {
          fail (c, "cannot copy", name, errno);
          return false;
        }
      while (in < hole)
        {
          size_t chunk = hole - in > (1 << 30) ? (1 << 30) : (size_t) (hole - in);
          ssize_t n = sendfile (d, s, &in, chunk);
          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0)
            {
              fail (c, "cannot copy", name, errno);
              return false;
            }
          if (n == 0)
            break;  /* it shrank meanwhile */
          c->out->bytes += (uint64_t) n;
        }
      off = hole;
    }
  return true;
}

/* A hidden name, unique within this process, for a file on its way. */
static void
temp_name (char tmp[static 64])
{
  static unsigned int counter;

  snprintf (tmp, 64, ".reckon-save-%d-%u", (int) getpid (), counter++);
}

/* Gives @name in @ddir to a file in one rename: the file open as @fd
 * (made with O_TMPFILE), the name @from of @fromdir, or (@fd and @fromdir
 * both -1) the temporary name @from in @ddir itself. Linked first under a
 * hidden temporary name, then renamed over whatever @name was (the rename
 * by its system call: glibc turns renameat2 (..., 0) into renameat, which
 * PID-1's filter refuses). */
static bool
publish (int fromdir, const char *from, int fd, int ddir, const char *name)
{
  char tmp[64], path[64];
  int r;

  if (fd < 0 && fromdir < 0)
    return syscall (SYS_renameat2, ddir, from, ddir, name, 0) == 0;
  temp_name (tmp);
  if (fd >= 0)
    {
      snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
      r = linkat (AT_FDCWD, path, ddir, tmp, AT_SYMLINK_FOLLOW);
    }
  else
    r = linkat (fromdir, from, ddir, tmp, 0);
  if (r != 0)
    return false;
  if (syscall (SYS_renameat2, ddir, tmp, ddir, name, 0) != 0)
    {
      int err = errno;
      (void) unlinkat (ddir, tmp, 0);
      errno = err;
      return false;
    }
  return true;
}

static void
copy_file (struct copy *c, int sdir, int ddir, const char *name, const struct stat *seen)
{
  struct stat st, dst;
  char tmp[64] = "";
  mode_t mode;
  int s, d;

  s = openat (sdir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (s < 0 && errno == EACCES)
    {
      give_owner_bits (sdir, name, S_IRUSR);
      s = openat (sdir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    }
  if (s < 0)
    {
      if (errno == ENOENT || errno == ELOOP)
        c->out->skipped++;  /* gone, or now a link */
      else
        fail (c, "cannot read", name, errno);
      return;
    }
  if (fstat (s, &st) != 0 || !S_ISREG (st.st_mode) || st.st_ino != seen->st_ino)
    {
      close (s);
      c->out->skipped++;
      return;
    }
  mode = (st.st_mode & 0777) | S_IRUSR | S_IWUSR;
  /* Another name of a file this copy already wrote: a link to it, its
   * data neither written nor counted again. */
  {
    const struct linked *l = find_link (c, &st);
    struct stat first;
    if (l != NULL && fstatat (l->dirfd, l->name, &first, AT_SYMLINK_NOFOLLOW) == 0
        && fstatat (ddir, name, &dst, AT_SYMLINK_NOFOLLOW) == 0
        && first.st_dev == dst.st_dev && first.st_ino == dst.st_ino)
      {
        c->out->kept++;  /* already that link (a rename onto it would keep both names) */
        close (s);
        return;
      }
    if (l != NULL)
      {
        if (!publish (l->dirfd, l->name, -1, ddir, name))
          fail (c, "cannot link", name, errno);
        else
          c->out->files++;
        close (s);
        return;
      }
  }
  if (fstatat (ddir, name, &dst, AT_SYMLINK_NOFOLLOW) == 0)
    {
      if (S_ISREG (dst.st_mode) && dst.st_size == st.st_size
          && dst.st_mtim.tv_sec == st.st_mtim.tv_sec && dst.st_mtim.tv_nsec == st.st_mtim.tv_nsec)
        {
          /* Unchanged, but still part of the whole: the cap is on what
           * the copy leaves, not on what it writes. */
          uint64_t held = (uint64_t) st.st_blocks * 512;
          if (!charge (c, held < (uint64_t) st.st_size ? held : (uint64_t) st.st_size))
            {
              close (s);
              return;
            }
          remember_link (c, &st, ddir, name);
          if ((dst.st_mode & 07777) != mode)
            {
              int p = openat (ddir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
              char path[64];
              snprintf (path, sizeof path, "/proc/self/fd/%d", p);
              if (p >= 0)
                {
                  (void) chmod (path, mode);
                  close (p);
                }
            }
          c->out->kept++;
          close (s);
          return;
        }
      if (!S_ISREG (dst.st_mode))
        remove_entry (c, ddir, name, 0);
      else if ((dst.st_mode & S_IWUSR) == 0)
        give_owner_bits (ddir, name, S_IRUSR | S_IWUSR);
    }
  /* Written under no name (O_TMPFILE), then given the file's name in one
   * rename: a save stopped half-way (--timeout, a kill) leaves each file
   * either as it was or whole, never truncated. */
  d = openat (ddir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (d < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
    {
      /* A file system without O_TMPFILE: a hidden name, renamed the same
       * way (a stop half-way may leave it; the next save removes it). */
      temp_name (tmp);
      d = openat (ddir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
      if (d < 0)
        tmp[0] = '\0';
    }
  if (d < 0)
    {
      fail (c, "cannot write", name, errno);
      close (s);
      return;
    }
  if (copy_data (c, s, d, st.st_size, name))
    {
      struct timespec times[2] = { st.st_atim, st.st_mtim };
      /* After the data: the mode keeps no set-id bit, whatever the source. */
      if (ftruncate (d, st.st_size) != 0)
        fail (c, "cannot write", name, errno);
      else if (fchmod (d, mode) != 0)
        fail (c, "cannot set the mode of", name, errno);
      else
        {
          (void) futimens (d, times);
          if (!(tmp[0] != '\0' ? publish (-1, tmp, -1, ddir, name) : publish (-1, NULL, d, ddir, name)))
            fail (c, "cannot write", name, errno);
          else
            {
              c->out->files++;
              remember_link (c, &st, ddir, name);
              tmp[0] = '\0';
            }
        }
    }
  if (tmp[0] != '\0')
    (void) unlinkat (ddir, tmp, 0);
  close (d);
  close (s);
}

static void copy_dir (struct copy *c, int sdir, int ddir, int depth);

static void
copy_subdir (struct copy *c, int sdir, int ddir, const char *name, const struct stat *seen, int depth)
{
  struct stat st, dst;
  int s, d;

  if (depth + 1 >= MAX_DEPTH)
    {
      fail (c, "not copied (more than 256 folders deep):", name, ELOOP);
      return;
    }
  s = open_dir (sdir, name);
  if (s < 0)
    {
      if (errno == ENOENT || errno == ELOOP || errno == ENOTDIR)
        c->out->skipped++;
      else
        fail (c, "cannot read the folder", name, errno);
      return;
    }
  if (fstat (s, &st) != 0 || st.st_ino != seen->st_ino)
    {
      close (s);
      c->out->skipped++;
      return;
    }
  if (fstatat (ddir, name, &dst, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR (dst.st_mode))
    remove_entry (c, ddir, name, depth);
  if (mkdirat (ddir, name, 0700) != 0 && errno != EEXIST)
    {
      fail (c, "cannot create the folder", name, errno);
      close (s);
      return;
    }
  d = open_dir (ddir, name);
  if (d < 0)
    {
      fail (c, "cannot open the folder", name, errno);
      close (s);
      return;
    }
  copy_dir (c, s, d, depth + 1);
  if (fchmod (d, (st.st_mode & 0777) | S_IRWXU) != 0)
    fail (c, "cannot set the mode of", name, errno);
  close (d);
  close (s);
}

static void
copy_dir (struct copy *c, int sdir, int ddir, int depth)
{
  DIR *d = list_dir (sdir);
  struct dirent *e;

  if (d == NULL)
    {
      fail (c, "cannot list", "a folder", errno);
      return;
    }
  while ((e = readdir (d)) != NULL && next_entry (c))
    {
      struct stat st;

      if (is_dot (e->d_name) || (depth == 0 && strcmp (e->d_name, WORKSPACE_INCOMING) == 0)
          || fstatat (sdir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (depth == 0 && workspace_is_input (e->d_name))
        {
          /* Never copied, either way: linked in, left alone going out. */
          if (c->link_inputs && S_ISREG (st.st_mode) && !link_input (ddir, e->d_name))
            fail (c, "cannot link the input", e->d_name, errno);
          continue;
        }
      if (S_ISREG (st.st_mode))
        copy_file (c, sdir, ddir, e->d_name, &st);
      else if (S_ISDIR (st.st_mode))
        copy_subdir (c, sdir, ddir, e->d_name, &st, depth);
      else
        c->out->skipped++;
    }
  closedir (d);
}

/* Removes from @ddir, all the way down, what @sdir does not have, or has
 * as something else (a folder for a file, a link, ...): first, so that the
 * destination never holds the old and the new together (the monitor's
 * walk of a bound folder would count both against --disk). */
static void
prune_dir (struct copy *c, int sdir, int ddir, int depth)
{
  DIR *d = list_dir (ddir);
  struct dirent *e;

  while (d != NULL && (e = readdir (d)) != NULL && next_entry (c))
    {
      struct stat st, dst;

      if (is_dot (e->d_name)
          || (depth == 0 && (strcmp (e->d_name, WORKSPACE_INCOMING) == 0 || workspace_is_input (e->d_name)))
          || fstatat (ddir, e->d_name, &dst, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (fstatat (sdir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
          && ((S_ISREG (st.st_mode) && S_ISREG (dst.st_mode)) || (S_ISDIR (st.st_mode) && S_ISDIR (dst.st_mode))))
        {
          if (S_ISDIR (st.st_mode) && depth + 1 < MAX_DEPTH)
            {
              int s2 = open_dir (sdir, e->d_name), d2 = open_dir (ddir, e->d_name);
              if (s2 >= 0 && d2 >= 0)
                prune_dir (c, s2, d2, depth + 1);
              if (s2 >= 0)
                close (s2);
              if (d2 >= 0)
                close (d2);
            }
          continue;
        }
      remove_entry (c, ddir, e->d_name, depth);
    }
  if (d != NULL)
    closedir (d);
}

bool
workspace_copy_tree (int src_dirfd, int dst_dirfd, uint64_t budget, uint64_t max_entries,
                     struct workspace_copy *out)
{
  struct copy c = { .budget = budget, .entries = max_entries, .out = out };
  struct stat st;

  memset (out, 0, sizeof *out);
  /* The top folder too may have lost its owner bits (chmod 000). */
  if (fstat (src_dirfd, &st) == 0 && (st.st_mode & S_IRWXU) != S_IRWXU)
    (void) fchmod (src_dirfd, (st.st_mode & 07777) | S_IRWXU);
  prune_dir (&c, src_dirfd, dst_dirfd, 0);
  copy_dir (&c, src_dirfd, dst_dirfd, 0);
  forget_links (&c);
  return out->error[0] == '\0';
}

bool
workspace_copy_in (int host_dirfd, int tmpfs_dirfd, uint64_t budget, uint64_t max_entries,
                   struct workspace_copy *out)
{
  struct copy c = { .budget = budget, .entries = max_entries, .link_inputs = true, .out = out };

  memset (out, 0, sizeof *out);
  copy_dir (&c, host_dirfd, tmpfs_dirfd, 0);
  forget_links (&c);
  return out->error[0] == '\0';
}

/* The app's own files staged under WORKSPACE_INCOMING/.reckon/ (the
 * profiler's readings): each replaces its namesake in the tmpfs and on the
 * host; folders are made as needed. */
static void take_own_files (struct copy *c, int in, int tmpfs_dir, int host_dir, int depth);

/* The folder @name of @in, made on both sides where missing, taken in. */
static void
take_own_folder (struct copy *c, int in, int tmpfs_dir, int host_dir, const char *name, int depth)
{
  int sub_in, sub_tmpfs, sub_host;

  (void) mkdirat (tmpfs_dir, name, 0700);
  (void) mkdirat (host_dir, name, 0700);
  sub_in = open_dir (in, name);
  sub_tmpfs = open_dir (tmpfs_dir, name);
  sub_host = open_dir (host_dir, name);
  if (sub_in >= 0 && sub_tmpfs >= 0 && sub_host >= 0)
    take_own_files (c, sub_in, sub_tmpfs, sub_host, depth);
  else
    fail (c, "cannot open the folder", name, errno);
  if (sub_in >= 0)
    close (sub_in);
  if (sub_tmpfs >= 0)
    close (sub_tmpfs);
  if (sub_host >= 0)
    close (sub_host);
}

static void
take_own_files (struct copy *c, int in, int tmpfs_dir, int host_dir, int depth)
{
  DIR *d = list_dir (in);
  struct dirent *e;

  while (d != NULL && (e = readdir (d)) != NULL && next_entry (c))
    {
      struct stat st;

      /* Half-written files keep hidden names until they are whole. */
      if (e->d_name[0] == '.' || fstatat (in, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (S_ISDIR (st.st_mode) && depth < 8)
        take_own_folder (c, in, tmpfs_dir, host_dir, e->d_name, depth + 1);
      else if (S_ISREG (st.st_mode))
        {
          uint64_t files = c->out->files, kept = c->out->kept;

          /* The rename by its system call: glibc turns renameat2 (..., 0)
           * into renameat, which PID-1's filter refuses. */
          copy_file (c, in, tmpfs_dir, e->d_name, &st);
          if (c->out->files == files && c->out->kept == kept)
            fail (c, "not added", e->d_name, ENOSPC);
          else if (syscall (SYS_renameat2, in, e->d_name, host_dir, e->d_name, 0) != 0)
            fail (c, "not added", e->d_name, errno);
        }
    }
  if (d != NULL)
    closedir (d);
}

bool
workspace_take_incoming (int host_dirfd, int tmpfs_dirfd, uint64_t budget, struct workspace_copy *out)
{
  struct copy c = { .budget = budget, .entries = 4096, .out = out };
  int in = openat (host_dirfd, WORKSPACE_INCOMING, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d;
  struct dirent *e;

  memset (out, 0, sizeof *out);
  if (in < 0)
    return errno == ENOENT;
  d = list_dir (in);
  while (d != NULL && (e = readdir (d)) != NULL && next_entry (&c))
    {
      struct stat st, there;

      if (is_dot (e->d_name) || fstatat (in, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (S_ISDIR (st.st_mode) && strcmp (e->d_name, ".reckon") == 0)
        {
          take_own_folder (&c, in, tmpfs_dirfd, host_dirfd, e->d_name, 0);
          continue;
        }
      /* Half-written files (an import still copying) keep hidden names. */
      if (!S_ISREG (st.st_mode) || e->d_name[0] == '.')
        continue;
      if (fstatat (tmpfs_dirfd, e->d_name, &there, AT_SYMLINK_NOFOLLOW) == 0)
        {
          /* An input the caller removed and adds again: its link is there
           * already, the host file comes back under it. */
          if (S_ISLNK (there.st_mode) && is_input_link (tmpfs_dirfd, e->d_name))
            {
              if (renameat2 (in, e->d_name, host_dirfd, e->d_name, RENAME_NOREPLACE) != 0)
                fail (&c, "not added", e->d_name, errno);
              else
                out->files++;
              continue;
            }
          fail (&c, "not added, the workspace already has", e->d_name, EEXIST);
          continue;
        }
      /* An input: on the host under its name, in the tmpfs a link to it. */
      if (n_inputs == WORKSPACE_MAX_INPUTS || strlen (e->d_name) >= sizeof inputs[0])
        fail (&c, "not added (too many files added)", e->d_name, ENOSPC);
      else if (renameat2 (in, e->d_name, host_dirfd, e->d_name, RENAME_NOREPLACE) != 0)
        fail (&c, "not added", e->d_name, errno);
      else if (!workspace_add_input (e->d_name) || !link_input (tmpfs_dirfd, e->d_name))
        fail (&c, "not added", e->d_name, errno);
      else
        out->files++;
    }
  if (d != NULL)
    closedir (d);
  close (in);
  forget_links (&c);
  return out->error[0] == '\0';
}
