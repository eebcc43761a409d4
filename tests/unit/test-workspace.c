/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-workspace.c — RkWorkspace: the handle keeps the folder it opened,
 * resolves names beneath it only, goes and comes back with the folder, and
 * removes folders without following links. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-workspace.h"
#include "rk-workspace-private.h"

static void
put (RkWorkspace *ws,
     const char  *rel,
     const char  *text)
{
  g_autofree char *path = g_build_filename (rk_workspace_get_path (ws), rel, NULL);
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
test_beneath (gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkWorkspace) ws = rk_workspace_new_temporary (NULL, &error);
  g_autoptr(RkWorkspace) outside = rk_workspace_new_temporary (NULL, &error);
  g_autofree char *link = NULL;
  g_autofree char *dirlink = NULL;
  g_autofree char *secret = NULL;
  g_autoptr(GBytes) bytes = NULL;
  int fd;

  _rk_workspace_set_force_fallback (GPOINTER_TO_INT (data));
  g_assert_no_error (error);
  g_assert_true (rk_workspace_exists (ws));
  put (ws, "sub/a.csv", "a,b\n");
  put (outside, "secret.txt", "secret\n");
  link = g_build_filename (rk_workspace_get_path (ws), "link.txt", NULL);
  dirlink = g_build_filename (rk_workspace_get_path (ws), "out", NULL);
  secret = g_build_filename (rk_workspace_get_path (outside), "secret.txt", NULL);
  g_assert_cmpint (symlink (secret, link), ==, 0);
  g_assert_cmpint (symlink (rk_workspace_get_path (outside), dirlink), ==, 0);

  bytes = rk_workspace_read_file (ws, "sub/a.csv", 100, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "a,b\n", 4);
  g_assert_null (rk_workspace_read_file (ws, "sub/a.csv", 2, &error));
  g_assert_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_TOO_LARGE);
  g_clear_error (&error);

  /* Out of the folder, by any road: refused. */
  g_assert_cmpint (rk_workspace_open_file (ws, "link.txt", &error), ==, -1);
  g_assert_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  g_clear_error (&error);
  g_assert_cmpint (rk_workspace_open_file (ws, "out/secret.txt", &error), ==, -1);
  g_assert_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  g_clear_error (&error);
  g_assert_cmpint (rk_workspace_open_folder (ws, "out", &error), ==, -1);
  g_assert_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  g_clear_error (&error);
  g_assert_cmpint (rk_workspace_open_file (ws, "../x", &error), ==, -1);
  g_assert_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  g_clear_error (&error);
  g_assert_cmpint (rk_workspace_open_file (ws, "sub", &error), ==, -1);
  g_assert_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_REGULAR);
  g_clear_error (&error);

  fd = rk_workspace_open_folder (ws, "sub", &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  g_clear_pointer (&bytes, g_bytes_unref);
  bytes = rk_workspace_read_file_at (fd, "a.csv", 100, &error);
  g_assert_no_error (error);
  close (fd);

  _rk_workspace_set_force_fallback (FALSE);
  g_assert_true (rk_workspace_delete (ws, &error));
  g_assert_true (rk_workspace_delete (outside, &error));
}

/* The handle holds the folder it opened: a folder swapped in at the same
 * path (a symlink out) is not what it reads. */
static void
test_holds_folder (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkWorkspace) ws = rk_workspace_new_temporary (NULL, &error);
  g_autoptr(RkWorkspace) outside = rk_workspace_new_temporary (NULL, &error);
  g_autofree char *moved = NULL;
  g_autoptr(GBytes) bytes = NULL;

  g_assert_no_error (error);
  put (ws, "data.csv", "mine\n");
  put (outside, "data.csv", "not mine\n");
  moved = g_strconcat (rk_workspace_get_path (ws), "-moved", NULL);
  g_assert_cmpint (g_rename (rk_workspace_get_path (ws), moved), ==, 0);
  g_assert_cmpint (symlink (rk_workspace_get_path (outside), rk_workspace_get_path (ws)), ==, 0);

  bytes = rk_workspace_read_file (ws, "data.csv", 100, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "mine\n", 5);

  /* Deleting by the path only unlinks the symlink there. */
  g_assert_true (rk_workspace_delete (ws, &error));
  g_assert_true (g_file_test (rk_workspace_get_path (outside), G_FILE_TEST_IS_DIR));
  g_assert_true (rk_workspace_delete_folder (moved, &error));
  g_assert_true (rk_workspace_delete (outside, &error));
}

/* Expiry and restart: deleted, the handle is gone and says so; made again
 * at the same path, it opens the new folder. */
static void
test_gone_and_back (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkWorkspace) ws = rk_workspace_new_temporary (NULL, &error);
  g_autofree char *path = NULL;
  g_autoptr(RkWorkspace) again = NULL;
  int fd;

  g_assert_no_error (error);
  path = g_strdup (rk_workspace_get_path (ws));
  put (ws, "a.txt", "a");
  g_assert_true (rk_workspace_delete (ws, &error));
  g_assert_no_error (error);
  g_assert_false (rk_workspace_exists (ws));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpint (rk_workspace_open_file (ws, "a.txt", &error), ==, -1);
  g_assert_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_GONE);
  g_clear_error (&error);
  g_assert_cmpint (rk_workspace_dup_fd (ws, &error), ==, -1);
  g_assert_error (error, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_GONE);
  g_clear_error (&error);
  /* A restored session's handle of a folder that is not there. */
  again = rk_workspace_new (path);
  g_assert_false (rk_workspace_exists (again));
  g_assert_null (rk_workspace_open (path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_true (rk_workspace_make (ws, &error));
  g_assert_no_error (error);
  g_assert_true (rk_workspace_exists (ws));
  g_assert_cmpstr (rk_workspace_get_path (ws), ==, path);
  put (ws, "b.txt", "b");
  fd = rk_workspace_open_file (ws, "b.txt", &error);
  g_assert_no_error (error);
  close (fd);
  /* Made twice: the folder is there already. */
  g_assert_false (rk_workspace_make (ws, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_true (rk_workspace_delete (ws, &error));
  g_assert_finalize_object (g_steal_pointer (&ws));
}

static void
read_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GBytes **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = rk_workspace_read_file_finish (RK_WORKSPACE (source), result, &error);
  g_assert_no_error (error);
}

static void
test_read_async (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkWorkspace) ws = rk_workspace_new_temporary (NULL, &error);
  GBytes *bytes = NULL;

  g_assert_no_error (error);
  put (ws, "fig.png", "PNG");
  rk_workspace_read_file_async (ws, "fig.png", 1024, NULL, read_done_cb, &bytes);
  while (bytes == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 3);
  g_bytes_unref (bytes);
  g_assert_true (rk_workspace_delete (ws, &error));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/rk/workspace/beneath/openat2", GINT_TO_POINTER (FALSE), test_beneath);
  g_test_add_data_func ("/rk/workspace/beneath/fallback", GINT_TO_POINTER (TRUE), test_beneath);
  g_test_add_func ("/rk/workspace/holds-folder", test_holds_folder);
  g_test_add_func ("/rk/workspace/gone-and-back", test_gone_and_back);
  g_test_add_func ("/rk/workspace/read-async", test_read_async);

  return g_test_run ();
}
