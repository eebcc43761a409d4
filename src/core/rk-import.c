/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-import.c — copying dropped files into a workspace under safe names.
 * The source is opened once (O_NOFOLLOW, non-blocking) and copied from that fd. */
#define G_LOG_DOMAIN "rk-import"
#include "config.h"
#include "rk-import.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

G_DEFINE_QUARK (rk-import-error-quark, rk_import_error)

#define COPY_CHUNK (1024 * 1024)
#define MAX_EXT_BYTES 16

static gboolean
is_unsafe_char (gunichar c)
{
  if (c == '/' || c == '\\' || c == 0)
    return TRUE;
  if (g_unichar_iscntrl (c))
    return TRUE;
  /* Line and paragraph separators, and bidirectional overrides that make a
   * name read differently from what it is ("gpj.exe"). */
  if (c == 0x2028 || c == 0x2029 || (c >= 0x202A && c <= 0x202E) ||
      (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0xFEFF)
    return TRUE;
  return FALSE;
}

/* Cuts @s (valid UTF-8) to at most @max bytes on a character boundary. */
static void
utf8_truncate (GString *s,
               gsize    max)
{
  const char *end;

  if (s->len <= max)
    return;
  end = s->str + max;
  /* Step back to the start of the character that straddles the cut. */
  while (end > s->str && ((guchar) *end & 0xC0) == 0x80)
    end--;
  g_string_truncate (s, end - s->str);
}

/* Position of the extension's dot in @name, or NULL when there is none
 * worth keeping (no dot, a leading dot, or an extension over 16 bytes). */
static const char *
find_extension (const char *name)
{
  const char *dot = strrchr (name, '.');

  if (dot == NULL || dot == name || strlen (dot) > MAX_EXT_BYTES || dot[1] == '\0')
    return NULL;
  return dot;
}

static char *
fit_name (const char *stem_and_ext,
          const char *suffix,
          gsize       max_bytes)
{
  const char *ext = find_extension (stem_and_ext);
  gsize ext_len = ext ? strlen (ext) : 0;
  gsize suffix_len = strlen (suffix);
  g_autoptr(GString) stem = g_string_new_len (stem_and_ext, strlen (stem_and_ext) - ext_len);
  gsize room;

  if (max_bytes < ext_len + suffix_len + 1)
    ext_len = 0, ext = NULL;
  room = max_bytes > ext_len + suffix_len ? max_bytes - ext_len - suffix_len : 1;
  if (ext == NULL)
    g_string_assign (stem, stem_and_ext);
  utf8_truncate (stem, MAX (room, 1));
  /* A cut can leave trailing spaces or dots; they read badly. */
  while (stem->len > 0 && (stem->str[stem->len - 1] == ' ' || stem->str[stem->len - 1] == '.'))
    g_string_truncate (stem, stem->len - 1);
  if (stem->len == 0)
    g_string_assign (stem, "file");
  g_string_append (stem, suffix);
  if (ext != NULL)
    g_string_append (stem, ext);
  return g_string_free (g_steal_pointer (&stem), FALSE);
}

char *
rk_import_sanitize_name (const char *name,
                         gsize       max_bytes)
{
  g_autofree char *valid = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  const char *base;
  const char *p;
  gsize len;

  if (max_bytes < 8)
    max_bytes = 8;
  if (name == NULL)
    name = "";

  /* Last non-empty path component. */
  len = strlen (name);
  while (len > 0 && name[len - 1] == '/')
    len--;
  base = name;
  for (gsize i = 0; i < len; i++)
    if (name[i] == '/')
      base = name + i + 1;
  valid = g_utf8_make_valid (base, len - (base - name));

  for (p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (is_unsafe_char (c))
        continue;
      /* Leading dots (hidden files, "..") and leading blanks go. */
      if (out->len == 0 && (c == '.' || g_unichar_isspace (c)))
        continue;
      g_string_append_unichar (out, c);
    }
  while (out->len > 0 && g_ascii_isspace (out->str[out->len - 1]))
    g_string_truncate (out, out->len - 1);
  if (out->len == 0)
    g_string_assign (out, "file");

  return fit_name (out->str, "", max_bytes);
}

char *
rk_import_numbered_name (const char *name,
                         guint       n,
                         gsize       max_bytes)
{
  g_autofree char *suffix = g_strdup_printf (" (%u)", n);

  return fit_name (name, suffix, max_bytes);
}

static gboolean
set_errno_error (GError    **error,
                 int         errsv,
                 const char *what,
                 const char *display)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
               /* Translators: “%s” is a file name, the last %s the system's reason */
               _("Could not %s “%s”: %s."), what, display, g_strerror (errsv));
  return FALSE;
}

static gboolean
write_all (int          fd,
           const char  *buf,
           gsize        len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, buf, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      buf += n;
      len -= n;
    }
  return TRUE;
}

/* renameat2 (RENAME_NOREPLACE), or link + unlink where it is missing. */
static int
rename_noreplace (int         fromfd,
                  const char *from,
                  int         tofd,
                  const char *to)
{
#ifdef SYS_renameat2
  if (syscall (SYS_renameat2, fromfd, from, tofd, to, RENAME_NOREPLACE) == 0)
    return 0;
  if (errno != EINVAL && errno != ENOSYS)
    return -1;
#endif
  if (linkat (fromfd, from, tofd, to, 0) != 0)
    return -1;
  unlinkat (fromfd, from, 0);
  return 0;
}

/* The folder for the half-copied file: RK_IMPORT_INCOMING at the top of
 * the workspace, which the kernel never reports as results and a capped
 * workspace's saves leave alone, opened without following a symlink the
 * sandboxed code may have put in its place. */
static int
open_staging_dir (int dir)
{
  int fd = openat (dir, RK_IMPORT_INCOMING, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  /* Sandboxed code may have put a link or a file there: it goes. */
  if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
    (void) unlinkat (dir, RK_IMPORT_INCOMING, 0);
  /* Another import may make it at the same moment: EEXIST is fine. */
  if (fd < 0 && (mkdirat (dir, RK_IMPORT_INCOMING, 0700) == 0 || errno == EEXIST))
    fd = openat (dir, RK_IMPORT_INCOMING, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return fd;
}

/* As root, a capped workspace's sandbox user (the workspace's owner) has to
 * read a staged file and move it out of the staging folder. */
static void
give_to_workspace_owner (int dir,
                         int stage,
                         int file)
{
  struct stat st;

  if (geteuid () != 0 || fstat (dir, &st) != 0 || st.st_uid == 0)
    return;
  (void) !fchown (stage, st.st_uid, st.st_gid);
  (void) !fchown (file, st.st_uid, st.st_gid);
}

/* A second name for the dropped file itself, when it is on the
 * workspace's file system: no copy, however big (the sandbox binds it
 * read-only, so nothing inside can change it). Only a file of the
 * workspace's owner that its owner can read: the session never changes its
 * mode or owner (the sandbox's walks leave inputs alone), and the sandbox,
 * which works as that owner, can move it in. As root the workspace is the
 * sandbox user's, so root's files are copied (and the copy handed over). */
static gboolean
link_original (int                src,
               const struct stat *st,
               int                dir,
               int                stage,
               char              *tmp_name)
{
  struct stat ws;
  char path[64];

  if (fstat (dir, &ws) != 0 || ws.st_dev != st->st_dev || ws.st_uid != st->st_uid
      || (st->st_mode & S_IRUSR) == 0)
    return FALSE;
  g_snprintf (path, sizeof path, "/proc/self/fd/%d", src);
  for (guint attempt = 0; attempt < 16; attempt++)
    {
      g_snprintf (tmp_name, 32, ".import-%08x%08x", g_random_int (), g_random_int ());
      if (linkat (AT_FDCWD, path, stage, tmp_name, AT_SYMLINK_FOLLOW) == 0)
        return TRUE;
      if (errno != EEXIST)
        return FALSE;
    }
  return FALSE;
}

/* Whether the workspace's file system has room for @size more bytes, and
 * some to spare for what the session writes. */
static gboolean
has_room_for (int     dir,
              goffset size)
{
  struct statvfs sv;

  if (fstatvfs (dir, &sv) != 0)
    return TRUE;  /* unknown: the copy itself will say */
  return (guint64) sv.f_bavail * sv.f_frsize >= (guint64) size + (64 << 20);
}

static char *
import_file (RkWorkspace  *workspace,
             const char   *source,
             gboolean      staged,
             GCancellable *cancellable,
             GError      **error)
{
  g_autofree char *display = NULL;
  g_autofree char *safe = NULL;
  g_autofree char *buf = NULL;
  char tmp_name[32];
  struct stat st;
  int src = -1, dir = -1, stage = -1, out = -1;
  char *result = NULL;

  g_return_val_if_fail (RK_IS_WORKSPACE (workspace), NULL);
  g_return_val_if_fail (source != NULL, NULL);

  display = g_filename_display_basename (source);

  /* Non-blocking, so a FIFO cannot hang the open; no controlling tty. */
  src = open (source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (src < 0)
    {
      int errsv = errno;

      if (errsv == ELOOP)
        g_set_error (error, RK_IMPORT_ERROR, RK_IMPORT_ERROR_NOT_REGULAR,
                     _("“%s” is a symbolic link; add the file it points to instead."), display);
      else
        set_errno_error (error, errsv, _("open"), display);
      goto out;
    }
  if (fstat (src, &st) != 0)
    {
      set_errno_error (error, errno, _("read"), display);
      goto out;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, RK_IMPORT_ERROR, RK_IMPORT_ERROR_NOT_REGULAR,
                   _("“%s” is not a regular file, so it cannot be added."), display);
      goto out;
    }
  fcntl (src, F_SETFL, fcntl (src, F_GETFL) & ~O_NONBLOCK);

  dir = rk_workspace_dup_fd (workspace, NULL);
  if (dir < 0)
    {
      set_errno_error (error, errno, _("open the workspace for"), display);
      goto out;
    }

  stage = open_staging_dir (dir);
  if (stage < 0)
    {
      set_errno_error (error, errno, _("copy"), display);
      goto out;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  if (link_original (src, &st, dir, stage, tmp_name))
    goto named;
  if (!has_room_for (dir, st.st_size))
    {
      g_autofree char *size = g_format_size ((guint64) st.st_size);
      g_set_error (error, RK_IMPORT_ERROR, RK_IMPORT_ERROR_TOO_LARGE,
                   _("There is not enough free disk space to add “%s” (%s)."), display, size);
      goto out;
    }
  for (guint attempt = 0; out < 0; attempt++)
    {
      g_snprintf (tmp_name, sizeof tmp_name, ".import-%08x%08x", g_random_int (), g_random_int ());
      out = openat (stage, tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (out < 0 && (errno != EEXIST || attempt > 16))
        {
          set_errno_error (error, errno, _("copy"), display);
          goto out;
        }
    }

  buf = g_malloc (COPY_CHUNK);
  for (;;)
    {
      ssize_t n;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto fail_unlink;
      n = read (src, buf, COPY_CHUNK);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          set_errno_error (error, errno, _("read"), display);
          goto fail_unlink;
        }
      if (n == 0)
        break;
      if (!write_all (out, buf, n))
        {
          set_errno_error (error, errno, _("copy"), display);
          goto fail_unlink;
        }
    }
  /* A private copy is an input: nothing may change it (docs/sandbox.md). */
  (void) fchmod (out, 0444);
  if (staged)
    give_to_workspace_owner (dir, stage, out);
  if (close (out) != 0)
    {
      out = -1;
      set_errno_error (error, errno, _("copy"), display);
      goto fail_unlink;
    }
  out = -1;

named:
  {
    g_autofree char *base = g_path_get_basename (source);

    safe = rk_import_sanitize_name (base, RK_IMPORT_NAME_MAX);
  }
  for (guint n = 1; n < 10000; n++)
    {
      g_autofree char *candidate = n == 1 ? g_strdup (safe)
                                          : rk_import_numbered_name (safe, n, RK_IMPORT_NAME_MAX);

      struct stat taken;

      /* Staged, the name must be free in the workspace too. */
      if (staged && fstatat (dir, candidate, &taken, AT_SYMLINK_NOFOLLOW) == 0)
        continue;
      if (rename_noreplace (stage, tmp_name, staged ? stage : dir, candidate) == 0)
        {
          result = g_steal_pointer (&candidate);
          goto out;
        }
      if (errno != EEXIST)
        {
          set_errno_error (error, errno, _("copy"), display);
          goto fail_unlink;
        }
    }
  g_set_error (error, RK_IMPORT_ERROR, RK_IMPORT_ERROR_FAILED,
               _("Too many files are called “%s” already."), safe);

fail_unlink:
  unlinkat (stage, tmp_name, 0);
out:
  if (out >= 0)
    close (out);
  if (stage >= 0)
    close (stage);
  if (dir >= 0)
    close (dir);
  if (src >= 0)
    close (src);
  return result;
}

char *
rk_import_file (RkWorkspace  *workspace,
                const char   *source,
                GCancellable *cancellable,
                GError      **error)
{
  return import_file (workspace, source, FALSE, cancellable, error);
}

/* Moves the whole files of the staging folder @from into @to. At the top
 * (@depth 0) an added file never replaces one, and of the folders only
 * .reckon/ is gone into; beneath it, the app's own files (the profiler's
 * readings) replace their namesakes. Hidden names are files still being
 * written. */
static gboolean
place_staged_in (int      from,
                 int      to,
                 guint    depth,
                 GError **error)
{
  int listing = openat (from, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = listing >= 0 ? fdopendir (listing) : NULL;
  struct dirent *e;
  gboolean ok = TRUE;

  if (d == NULL && listing >= 0)
    close (listing);
  while (ok && d != NULL && (e = readdir (d)) != NULL)
    {
      gboolean own = depth == 0 && strcmp (e->d_name, ".reckon") == 0;
      struct stat st;

      if ((e->d_name[0] == '.' && !own) || fstatat (from, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (S_ISDIR (st.st_mode) && (own || (depth > 0 && depth < 8)))
        {
          int sub_from = openat (from, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          int sub_to;

          (void) mkdirat (to, e->d_name, 0700);
          sub_to = openat (to, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub_from >= 0 && sub_to >= 0)
            ok = place_staged_in (sub_from, sub_to, depth + 1, error);
          if (sub_from >= 0)
            close (sub_from);
          if (sub_to >= 0)
            close (sub_to);
        }
      else if (S_ISREG (st.st_mode)
               && (depth == 0 ? rename_noreplace (from, e->d_name, to, e->d_name)
                              : renameat (from, e->d_name, to, e->d_name)) != 0)
        {
          g_autofree char *display = g_filename_display_name (e->d_name);

          set_errno_error (error, errno, _("copy"), display);
          ok = FALSE;
        }
    }
  if (d != NULL)
    closedir (d);
  return ok;
}

gboolean
rk_import_place_staged (RkWorkspace  *workspace,
                        GError      **error)
{
  int dir = rk_workspace_dup_fd (workspace, NULL);
  int stage = dir >= 0 ? openat (dir, RK_IMPORT_INCOMING, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
  gboolean ok = stage < 0 || place_staged_in (stage, dir, 0, error);

  if (stage >= 0)
    close (stage);
  if (dir >= 0)
    close (dir);
  return ok;
}

void
rk_import_drop_staged (RkWorkspace *workspace,
                       const char  *name)
{
  int dir = rk_workspace_dup_fd (workspace, NULL);
  int stage = dir >= 0 ? openat (dir, RK_IMPORT_INCOMING, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;

  if (stage >= 0 && strchr (name, '/') == NULL)
    unlinkat (stage, name, 0);
  if (stage >= 0)
    close (stage);
  if (dir >= 0)
    close (dir);
}

typedef struct
{
  RkWorkspace *workspace;
  char        *source;
  gboolean     staged;
} ImportData;


static void
import_data_free (gpointer data)
{
  ImportData *d = data;

  g_clear_object (&d->workspace);
  g_free (d->source);
  g_free (d);
}

static void
import_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ImportData *d = task_data;
  GError *error = NULL;
  char *name = import_file (d->workspace, d->source, d->staged, cancellable, &error);

  if (name == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, name, g_free);
}

void
rk_import_file_async (RkWorkspace         *workspace,
                      const char          *source,
                      gboolean             staged,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  ImportData *d = g_new0 (ImportData, 1);

  d->workspace = g_object_ref (workspace);
  d->source = g_strdup (source);
  d->staged = staged;
  g_task_set_source_tag (task, rk_import_file_async);
  g_task_set_task_data (task, d, import_data_free);
  g_task_run_in_thread (task, import_thread);
}

char *
rk_import_file_finish (GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
