/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-font-cache.c — matplotlib's font list, kept on the host between
 * kernels and read from a workspace a cell could have tampered with. */
#define G_LOG_DOMAIN "rk-font-cache"
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-workspace.h"
#include "rk-font-cache.h"
#include "rk-json.h"

#define FONT_CACHE_REL      ".reckon/fontcache"
#define FONT_CACHE_MAX      (4 * 1024 * 1024)
#define FONT_LIST_MAX_DEPTH 16  /* matplotlib's fontlist-*.json is 3 deep */

/* Building the font list costs the kernel seconds at every start (its
 * MPLCONFIGDIR is a fresh tmpfs), so the host keeps one copy, taken from the
 * first kernel's workspace (.reckon/fontcache/) before any cell ran, and
 * puts it there for the later ones. The workspace, not a bind: the sandbox
 * may run as a user who cannot read the host's cache folder. */
static char *
font_cache_dir (void)
{
  return g_build_filename (g_get_user_cache_dir (), "reckon", "matplotlib", NULL);
}

static gboolean
font_cache_present (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return FALSE;
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "fontlist-") && g_str_has_suffix (name, ".json"))
      return TRUE;
  return FALSE;
}

/* Reads at most FONT_CACHE_MAX bytes of the regular file open at @fd
 * (taken). */
static char *
read_font_list (int    fd,
                gsize *len_out)
{
  g_autofree char *buf = g_malloc (FONT_CACHE_MAX + 1);
  gsize len = 0;

  for (;;)
    {
      gssize n = read (fd, buf + len, FONT_CACHE_MAX + 1 - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (gsize) n;
      if (len > FONT_CACHE_MAX)
        break;
    }
  close (fd);
  if (len == 0 || len > FONT_CACHE_MAX)
    return NULL;
  buf[len] = '\0';
  *len_out = len;
  return g_steal_pointer (&buf);
}

/* Opens (creating it if @create) the folder @rel beneath the workspace
 * open at @workspace_fd, through fds only: no folder on the way may be a
 * symlink. */
static int
open_workspace_dir (int         workspace_fd,
                    const char *rel,
                    gboolean    create)
{
  int cur;
  g_auto(GStrv) parts = NULL;

  if (!create)
    return rk_workspace_open_folder_at (workspace_fd, rel, NULL);
  parts = g_strsplit (rel, "/", -1);
  cur = dup (workspace_fd);
  if (cur < 0)
    return -1;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      int next;

      if (mkdirat (cur, parts[i], 0755) != 0 && errno != EEXIST)
        {
          close (cur);
          return -1;
        }
      next = rk_workspace_open_folder_at (cur, parts[i], NULL);
      close (cur);
      if (next < 0)
        return -1;
      cur = next;
    }
  return cur;
}

/* Everything read from the workspace here goes through fds opened beneath
 * it (rk_workspace_open_file_at): a cell may have swapped .reckon or
 * .reckon/fontcache for a symlink, or does so while this runs. */
void
rk_font_cache_keep (int workspace_fd)
{
  g_autofree char *dir = font_cache_dir ();
  DIR *d;
  struct dirent *entry;
  int dfd;

  if (font_cache_present (dir))
    return;
  dfd = open_workspace_dir (workspace_fd, FONT_CACHE_REL, FALSE);
  if (dfd < 0)
    return;
  d = fdopendir (dfd);
  if (d == NULL)
    {
      close (dfd);
      return;
    }
  while ((entry = readdir (d)) != NULL)
    {
      const char *name = entry->d_name;
      g_autofree char *dst = NULL;
      g_autofree char *contents = NULL;
      g_autoptr(JsonObject) list = NULL;
      gsize len = 0;
      int fd;

      if (!g_str_has_prefix (name, "fontlist-") || !g_str_has_suffix (name, ".json") ||
          strlen (name) > 64 || strchr (name, '/') != NULL)
        continue;
      fd = rk_workspace_open_file_at (dirfd (d), name, NULL);
      if (fd < 0)
        continue;
      contents = read_font_list (fd, &len);
      if (contents == NULL ||
          (list = rk_json_parse_object (contents, (gssize) len, FONT_CACHE_MAX, FONT_LIST_MAX_DEPTH,
                                        RK_JSON_SCAN_DEFAULT, NULL)) == NULL)
        continue;
      dst = g_build_filename (dir, name, NULL);
      if (g_mkdir_with_parents (dir, 0700) == 0)
        g_file_set_contents (dst, contents, (gssize) len, NULL);
    }
  closedir (d);
}

/* Copies the host's font list into the workspace for a kernel about to
 * start. No kernel runs in the workspace now, and the folders are made and
 * written through fds opened beneath it, never by path. */
void
rk_font_cache_seed (int workspace_fd)
{
  g_autofree char *dir = font_cache_dir ();
  g_autoptr(GDir) d = NULL;
  const char *name;
  int seed;

  if (!font_cache_present (dir))
    return;
  seed = open_workspace_dir (workspace_fd, FONT_CACHE_REL, TRUE);
  if (seed < 0)
    return;
  d = g_dir_open (dir, 0, NULL);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *src = g_build_filename (dir, name, NULL);
      g_autofree char *contents = NULL;
      gsize len;
      int fd;

      if (!g_str_has_prefix (name, "fontlist-") || !g_str_has_suffix (name, ".json") ||
          strlen (name) > 64)
        continue;
      if (!g_file_get_contents (src, &contents, &len, NULL) || len > FONT_CACHE_MAX)
        continue;
      /* Whatever an earlier cell left at that name (a symlink out, say) is
       * removed, never followed. */
      unlinkat (seed, name, 0);
      fd = openat (seed, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd < 0)
        continue;
      if (write (fd, contents, len) != (gssize) len)
        unlinkat (seed, name, 0);
      close (fd);
    }
  close (seed);
}
