/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-font-cache.c — rk-font-cache: the font list a first kernel built is
 * kept on the host and put in later workspaces; a workspace a cell
 * tampered with (symlinks, a list nested a million deep, a huge file)
 * gives the host nothing. */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "rk-font-cache.h"
#include "rk-workspace.h"

static char *cache_home;

static char *
host_list (const char *name)
{
  return g_build_filename (cache_home, "reckon", "matplotlib", name, NULL);
}

static int
open_dir (const char *path)
{
  int fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  return fd;
}

static char *
make_workspace_with_list (const char *name,
                          const char *contents)
{
  g_autoptr(GError) error = NULL;
  char *ws = g_dir_make_tmp ("reckon-font-XXXXXX", &error);
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;

  g_assert_no_error (error);
  dir = g_build_filename (ws, ".reckon", "fontcache", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  return ws;
}

static void
keep (const char *ws)
{
  int fd = open_dir (ws);

  rk_font_cache_keep (fd);
  close (fd);
}

/* Hostile workspaces first, while the host has no list: each gives none. */
static void
test_hostile (void)
{
  g_autofree char *kept = host_list ("fontlist-v330.json");
  g_autoptr(GString) deep = g_string_new ("{\"a\":");
  g_autofree char *ws1 = NULL, *ws2 = NULL, *ws3 = NULL, *ws4 = NULL;
  g_autofree char *outside = NULL, *link = NULL, *reckon = NULL, *big = NULL;

  /* Nested a million deep: refused before json-glib recurses. */
  for (int i = 0; i < 1000000; i++)
    g_string_append_c (deep, '[');
  ws1 = make_workspace_with_list ("fontlist-v330.json", deep->str);
  keep (ws1);
  g_assert_false (g_file_test (kept, G_FILE_TEST_EXISTS));

  /* Over the size cap. */
  big = g_strnfill (5 * 1024 * 1024, ' ');
  big[0] = '{';
  big[5 * 1024 * 1024 - 1] = '}';
  ws2 = make_workspace_with_list ("fontlist-v330.json", big);
  keep (ws2);
  g_assert_false (g_file_test (kept, G_FILE_TEST_EXISTS));

  /* The list is a symlink to a file outside the workspace. */
  ws3 = make_workspace_with_list ("other.json", "{}");
  outside = g_build_filename (cache_home, "secret.json", NULL);
  g_assert_true (g_file_set_contents (outside, "{\"secret\": 1}", -1, NULL));
  link = g_build_filename (ws3, ".reckon", "fontcache", "fontlist-v330.json", NULL);
  g_assert_cmpint (symlink (outside, link), ==, 0);
  keep (ws3);
  g_assert_false (g_file_test (kept, G_FILE_TEST_EXISTS));

  /* .reckon itself is a symlink to a folder that holds a valid list. */
  ws4 = g_dir_make_tmp ("reckon-font-XXXXXX", NULL);
  reckon = g_build_filename (ws4, ".reckon", NULL);
  g_assert_cmpint (symlink (ws3, reckon), ==, 0);
  keep (ws4);
  g_assert_false (g_file_test (kept, G_FILE_TEST_EXISTS));

  rk_workspace_delete_folder (ws1, NULL);
  rk_workspace_delete_folder (ws2, NULL);
  rk_workspace_delete_folder (ws3, NULL);
  rk_workspace_delete_folder (ws4, NULL);
}

/* A valid list is kept, then seeded into a fresh workspace, replacing
 * (never following) a symlink a cell left at its name. */
static void
test_keep_and_seed (void)
{
  static const char list[] = "{\"_version\": 330, \"ttflist\": []}";
  g_autofree char *ws = make_workspace_with_list ("fontlist-v330.json", list);
  g_autofree char *kept = host_list ("fontlist-v330.json");
  g_autofree char *fresh = g_dir_make_tmp ("reckon-font-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (fresh, ".reckon", "fontcache", NULL);
  g_autofree char *seeded = g_build_filename (dir, "fontlist-v330.json", NULL);
  g_autofree char *target = g_build_filename (cache_home, "target.json", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *target_contents = NULL;
  int fd;

  keep (ws);
  g_assert_true (g_file_get_contents (kept, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, list);
  g_clear_pointer (&contents, g_free);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (target, "untouched", -1, NULL));
  g_assert_cmpint (symlink (target, seeded), ==, 0);
  fd = open_dir (fresh);
  rk_font_cache_seed (fd);
  close (fd);
  g_assert_false (g_file_test (seeded, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_get_contents (seeded, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, list);
  g_assert_true (g_file_get_contents (target, &target_contents, NULL, NULL));
  g_assert_cmpstr (target_contents, ==, "untouched");

  rk_workspace_delete_folder (ws, NULL);
  rk_workspace_delete_folder (fresh, NULL);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  /* Before GLib reads it: the host's cache is this test's own. */
  cache_home = g_dir_make_tmp ("rk-font-cache-XXXXXX", &error);
  g_assert_no_error (error);
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/font-cache/hostile", test_hostile);
  g_test_add_func ("/rk/font-cache/keep-and-seed", test_keep_and_seed);

  status = g_test_run ();
  rk_workspace_delete_folder (cache_home, NULL);
  g_free (cache_home);
  return status;
}
