/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-export.c — artifacts out of a workspace: what must be refused (links
 * out, links swapped in mid-export, FIFOs, devices, "..", absolute names,
 * caps) and what must work (one file, a folder, a zip). */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rk-export.h"
#include "rk-workspace.h"
#include "rk-workspace-private.h"

typedef struct
{
  char *root;
  char *ws;
  RkWorkspace *handle;
  char *out;
  char *secret;  /* outside the workspace: must never be exported */
} Fixture;

#define SECRET "SECRET-CONTENT-outside-the-workspace\n"

static void
put (const char *dir,
     const char *rel,
     const char *contents)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->root = g_dir_make_tmp ("reckon-test-export-XXXXXX", &error);
  g_assert_no_error (error);
  f->ws = g_build_filename (f->root, "ws", NULL);
  f->out = g_build_filename (f->root, "out", NULL);
  f->secret = g_build_filename (f->root, "secret.txt", NULL);
  g_assert_cmpint (g_mkdir (f->ws, 0700), ==, 0);
  f->handle = rk_workspace_open (f->ws, NULL);
  g_assert_true (g_file_set_contents (f->secret, SECRET, -1, NULL));
  put (f->ws, "summary.csv", "a,b\n1,2\n");
  put (f->ws, ".reckon/figures/f1.png", "PNGDATA");
  put (f->ws, "out/summary.csv", "other,file\n");
  _rk_workspace_set_force_fallback (GPOINTER_TO_INT (data));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  _rk_workspace_set_force_fallback (FALSE);
  rk_workspace_delete_folder (f->root, NULL);
  g_free (f->root);
  g_clear_object (&f->handle);
  g_free (f->ws);
  g_free (f->out);
  g_free (f->secret);
}

static char *
read_file (const char *path)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  return contents;
}

static void
test_one_file (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *dest = g_build_filename (f->root, "saved.csv", NULL);
  g_autofree char *got = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (rk_export_file (f->handle, "summary.csv", dest, NULL, NULL, &error));
  g_assert_no_error (error);
  got = read_file (dest);
  g_assert_cmpstr (got, ==, "a,b\n1,2\n");

  /* Replacing an existing file is what "Save" means. */
  g_assert_true (rk_export_file (f->handle, ".reckon/figures/f1.png", dest, NULL, NULL, &error));
  g_clear_pointer (&got, g_free);
  got = read_file (dest);
  g_assert_cmpstr (got, ==, "PNGDATA");
}

static void
expect_refused (Fixture    *f,
                const char *rel,
                GQuark      domain,
                int         code)
{
  g_autofree char *dest = g_build_filename (f->root, "refused.out", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (rk_export_file (f->handle, rel, dest, NULL, NULL, &error));
  g_test_message ("%s: %s", rel, error ? error->message : "(no error)");
  g_assert_error (error, domain, code);
  g_assert_false (g_file_test (dest, G_FILE_TEST_EXISTS));
}

static void
test_refusals (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *link = g_build_filename (f->ws, "link.csv", NULL);
  g_autofree char *dirlink = g_build_filename (f->ws, "dirlink", NULL);
  g_autofree char *fifo = g_build_filename (f->ws, "pipe.csv", NULL);
  g_autofree char *sub = g_build_filename (f->ws, "sub", NULL);
  g_autofree char *procself = g_build_filename (f->ws, "procself", NULL);
  gint64 start;

  g_assert_cmpint (symlink (f->secret, link), ==, 0);
  g_assert_cmpint (symlink (f->root, dirlink), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);

  expect_refused (f, "link.csv", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  expect_refused (f, "dirlink/secret.txt", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  expect_refused (f, "../secret.txt", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  expect_refused (f, "sub/../../secret.txt", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  expect_refused (f, f->secret, RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  expect_refused (f, "", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  expect_refused (f, "sub", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_REGULAR);
  /* A FIFO with no writer: refused at once, never a blocked open or read. */
  start = g_get_monotonic_time ();
  expect_refused (f, "pipe.csv", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_REGULAR);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  /* Nor a way out through /proc's magic links. */
  g_assert_cmpint (symlink ("/proc/self", procself), ==, 0);
  expect_refused (f, "procself/root/etc/passwd", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
  expect_refused (f, "procself/cwd/secret.txt", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_ALLOWED);
}

static void
test_device (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *dev = g_build_filename (f->ws, "null.csv", NULL);

  if (mknod (dev, S_IFCHR | 0600, makedev (1, 3)) != 0)
    {
      g_autofree char *why = g_strdup_printf ("cannot make a device node here (%s): needs root outside a user namespace",
                                              g_strerror (errno));

      g_test_skip (why);
      return;
    }
  expect_refused (f, "null.csv", RK_WORKSPACE_ERROR, RK_WORKSPACE_ERROR_NOT_REGULAR);
}

static void
test_folder (Fixture       *f,
             gconstpointer  data)
{
  const char *paths[] = { "summary.csv", ".reckon/figures/f1.png", "out/summary.csv", "link.csv", NULL };
  g_autofree char *link = g_build_filename (f->ws, "link.csv", NULL);
  g_auto(GStrv) skipped = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  g_autofree char *pa = g_build_filename (f->out, "summary.csv", NULL);
  g_autofree char *pb = g_build_filename (f->out, "summary (2).csv", NULL);
  g_autofree char *pc = g_build_filename (f->out, "f1.png", NULL);
  g_autofree char *pl = g_build_filename (f->out, "link.csv", NULL);

  g_assert_cmpint (symlink (f->secret, link), ==, 0);
  g_assert_true (rk_export_all (f->handle, paths, RK_EXPORT_FOLDER, f->out, NULL, &skipped, NULL, &error));
  g_assert_no_error (error);
  a = read_file (pa);
  b = read_file (pb);
  c = read_file (pc);
  g_assert_cmpstr (a, ==, "a,b\n1,2\n");
  g_assert_cmpstr (b, ==, "other,file\n");
  g_assert_cmpstr (c, ==, "PNGDATA");
  g_assert_false (g_file_test (pl, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (g_strv_length (skipped), ==, 1);
  g_assert_true (g_str_has_prefix (skipped[0], "link.csv: "));
}

static void
test_zip (Fixture       *f,
          gconstpointer  data)
{
  const char *paths[] = { "summary.csv", ".reckon/figures/f1.png", "out/summary.csv", NULL };
  g_autofree char *zip = g_build_filename (f->root, "all.zip", NULL);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) skipped = NULL;
  g_autoptr(GString) listing = g_string_new (NULL);
  struct archive *ar;
  struct archive_entry *entry;

  g_assert_true (rk_export_all (f->handle, paths, RK_EXPORT_ZIP, zip, NULL, &skipped, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (skipped), ==, 0);

  ar = archive_read_new ();
  archive_read_support_format_zip (ar);
  g_assert_cmpint (archive_read_open_filename (ar, zip, 16384), ==, ARCHIVE_OK);
  while (archive_read_next_header (ar, &entry) == ARCHIVE_OK)
    {
      char buf[256];
      la_ssize_t n = archive_read_data (ar, buf, sizeof buf - 1);

      g_assert_cmpint (n, >=, 0);
      buf[n] = '\0';
      g_string_append_printf (listing, "%s=%s|", archive_entry_pathname (entry), buf);
    }
  archive_read_free (ar);
  g_assert_cmpstr (listing->str, ==,
                   "summary.csv=a,b\n1,2\n|f1.png=PNGDATA|summary (2).csv=other,file\n|");
}

static void
test_caps (Fixture       *f,
           gconstpointer  data)
{
  const char *paths[] = { "a.txt", "b.txt", "c.txt", NULL };
  RkExportLimits limits = { 2, 1024 };
  g_autoptr(GError) error = NULL;
  g_autofree char *zip = g_build_filename (f->root, "capped.zip", NULL);
  g_autofree char *big = g_strnfill (600, 'x');

  put (f->ws, "a.txt", big);
  put (f->ws, "b.txt", big);
  put (f->ws, "c.txt", big);

  g_assert_false (rk_export_all (f->handle, paths, RK_EXPORT_FOLDER, f->out, &limits, NULL, NULL, &error));
  g_assert_error (error, RK_EXPORT_ERROR, RK_EXPORT_ERROR_TOO_MANY);
  g_clear_error (&error);

  limits.max_files = 10;
  g_assert_false (rk_export_all (f->handle, paths, RK_EXPORT_FOLDER, f->out, &limits, NULL, NULL, &error));
  g_assert_error (error, RK_EXPORT_ERROR, RK_EXPORT_ERROR_TOO_LARGE);
  g_clear_error (&error);
  /* Nothing half-done is left. */
  {
    g_autoptr(GDir) d = g_dir_open (f->out, 0, NULL);

    g_assert_nonnull (d);
    g_assert_null (g_dir_read_name (d));
  }

  g_assert_false (rk_export_all (f->handle, paths, RK_EXPORT_ZIP, zip, &limits, NULL, NULL, &error));
  g_assert_error (error, RK_EXPORT_ERROR, RK_EXPORT_ERROR_TOO_LARGE);
  g_assert_false (g_file_test (zip, G_FILE_TEST_EXISTS));
}

/* Issue 18: a sparse file stays sparse (its holes count at their apparent
 * size), and one counter shared by several exports caps them together. */
static void
test_sparse_and_shared_cap (Fixture       *f,
                            gconstpointer  data)
{
  const char *paths[] = { "sparse.bin", NULL };
  guint64 spent = 0;
  RkExportLimits limits;
  g_autoptr(GError) error = NULL;
  g_autofree char *src = g_build_filename (f->ws, "sparse.bin", NULL);
  g_autofree char *one = g_build_filename (f->root, "one.bin", NULL);
  g_autofree char *copied = g_build_filename (f->out, "sparse.bin", NULL);
  struct stat st;
  int fd;

  fd = open (src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, 64 << 20), ==, 0);
  g_assert_cmpint (pwrite (fd, "end", 3, (64 << 20) - 3), ==, 3);
  close (fd);

  rk_export_limits_init (&limits);
  limits.max_total_bytes = 100 << 20;
  limits.spent = &spent;
  g_assert_true (rk_export_file (f->handle, "sparse.bin", one, &limits, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (spent, ==, 64 << 20);
  g_assert_cmpint (stat (one, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 64 << 20);
  g_assert_cmpint ((gint64) st.st_blocks * 512, <, 1 << 20);

  /* 64 MiB more would pass 100 MiB together: refused, nothing left. */
  g_assert_false (rk_export_all (f->handle, paths, RK_EXPORT_FOLDER, f->out, &limits, NULL, NULL, &error));
  g_assert_error (error, RK_EXPORT_ERROR, RK_EXPORT_ERROR_TOO_LARGE);
  g_assert_false (g_file_test (copied, G_FILE_TEST_EXISTS));
}

/* -- the swap race -------------------------------------------------------- */

typedef struct
{
  char          *ws;
  char          *secret;
  volatile gint  stop;
  guint          swaps;
} Swapper;

static gpointer
swap_thread (gpointer data)
{
  Swapper *s = data;
  g_autofree char *target = g_build_filename (s->ws, "victim.csv", NULL);
  g_autofree char *good = g_build_filename (s->ws, "good.tmp", NULL);
  g_autofree char *link = g_build_filename (s->ws, "link.tmp", NULL);

  while (!g_atomic_int_get (&s->stop))
    {
      /* A regular file, then a symlink to the secret, each renamed into
       * place atomically, as hostile code in the sandbox would. */
      g_file_set_contents (good, "GOOD\n", -1, NULL);
      rename (good, target);
      unlink (link);
      if (symlink (s->secret, link) == 0)
        rename (link, target);
      s->swaps++;
    }
  return NULL;
}

static void
test_swap_race (Fixture       *f,
                gconstpointer  data)
{
  Swapper s = { f->ws, f->secret, 0, 0 };
  g_autofree char *dest = g_build_filename (f->root, "victim-out.csv", NULL);
  g_autofree char *zip = g_build_filename (f->root, "victim.zip", NULL);
  GThread *thread;
  guint exported = 0, refused = 0;

  put (f->ws, "victim.csv", "GOOD\n");
  thread = g_thread_new ("swapper", swap_thread, &s);
  for (guint i = 0; i < 2000; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *got = NULL;

      if (rk_export_file (f->handle, "victim.csv", dest, NULL, NULL, &error))
        {
          got = read_file (dest);
          g_assert_cmpstr (got, ==, "GOOD\n");
          exported++;
        }
      else
        refused++;

      if (i % 10 == 0)
        {
          const char *paths[] = { "victim.csv", NULL };
          g_auto(GStrv) skipped = NULL;
          g_autoptr(GError) zerror = NULL;
          g_autofree char *zout = g_build_filename (f->root, "victim-dir", NULL);
          g_autofree char *zfile = g_build_filename (zout, "victim.csv", NULL);
          g_autofree char *zgot = NULL;

          g_assert_true (rk_export_all (f->handle, paths, RK_EXPORT_FOLDER, zout, NULL, &skipped, NULL, &zerror));
          zgot = read_file (zfile);
          if (zgot != NULL)
            g_assert_cmpstr (zgot, ==, "GOOD\n");
          rk_workspace_delete_folder (zout, NULL);
        }
    }
  g_atomic_int_set (&s.stop, 1);
  g_thread_join (thread);
  g_test_message ("exported %u, refused %u, swaps %u", exported, refused, s.swaps);
  /* Both outcomes happened, so the race was really run. */
  g_assert_cmpuint (exported, >, 0);
  g_assert_cmpuint (refused, >, 0);
  (void) zip;
}

static void
add (const char *name,
     void (*func) (Fixture *, gconstpointer))
{
  g_autofree char *a = g_strdup_printf ("/rk/export/%s", name);
  g_autofree char *b = g_strdup_printf ("/rk/export/fallback/%s", name);

  g_test_add (a, Fixture, GINT_TO_POINTER (FALSE), fixture_set_up, func, fixture_tear_down);
  g_test_add (b, Fixture, GINT_TO_POINTER (TRUE), fixture_set_up, func, fixture_tear_down);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  add ("one-file", test_one_file);
  add ("refusals", test_refusals);
  add ("device", test_device);
  add ("folder", test_folder);
  add ("zip", test_zip);
  add ("caps", test_caps);
  add ("sparse-and-shared-cap", test_sparse_and_shared_cap);
  add ("swap-race", test_swap_race);

  return g_test_run ();
}
