/* test-table-kernel.c — tables the real kernel writes inside the real sandbox,
 * read on the host with RkTable; and a cell that tampers with its table file
 * afterwards (junk, truncation, a symlink out of the workspace). */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "rk-kernel.h"
#include "rk-table.h"
#include "rk-util.h"

typedef struct
{
  char          *workspace;
  RkKernel      *kernel;
  GPtrArray     *events;
  RkKernelEvent *done;
  GError        *error;
  gboolean       finished;
} Fixture;

static gboolean
sandbox_usable (char **reason)
{
  const char *sandbox = rk_sandbox_path ();
  g_autofree char *ws = NULL;
  int status = 0;
  const char *argv[] = { sandbox, "--workspace", NULL, "--", "/bin/true", NULL };

  if (!g_file_test (sandbox, G_FILE_TEST_IS_EXECUTABLE))
    {
      *reason = g_strdup_printf ("reckon-sandbox not found at %s", sandbox);
      return FALSE;
    }
  ws = g_dir_make_tmp ("rk-table-probe-XXXXXX", NULL);
  argv[2] = ws;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      *reason = g_strdup_printf ("reckon-sandbox (%s) cannot run a program on this machine", sandbox);
      g_rmdir (ws);
      return FALSE;
    }
  g_rmdir (ws);
  return TRUE;
}

static void
event_cb (RkKernel      *kernel,
          RkKernelEvent *ev,
          Fixture       *f)
{
  g_ptr_array_add (f->events, rk_kernel_event_ref (ev));
}

static void
wait_until (gboolean *flag,
            int       seconds)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;

  while (!*flag)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      if (!*flag)
        g_usleep (1000);
    }
}

static void
start_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  Fixture *f = user_data;

  rk_kernel_start_finish (RK_KERNEL (object), result, &f->error);
  f->finished = TRUE;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);

        if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
          remove_tree (child);
        else
          g_unlink (child);
      }
  g_rmdir (path);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *reason = NULL;
  RkKernelLimits limits = { 0 };

  memset (f, 0, sizeof *f);
  if (!sandbox_usable (&reason))
    {
      g_test_skip (reason);
      return;
    }
  limits.memory_bytes = 1024u * 1024 * 1024;
  f->workspace = g_dir_make_tmp ("rk-table-kernel-XXXXXX", NULL);
  f->kernel = rk_kernel_new (f->workspace, &limits);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_kernel_event_unref);
  g_signal_connect (f->kernel, "event", G_CALLBACK (event_cb), f);
  rk_kernel_start_async (f->kernel, NULL, start_cb, f);
  wait_until (&f->finished, 120);
  g_assert_no_error (f->error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->kernel == NULL)
    return;
  rk_kernel_shutdown (f->kernel);
  g_clear_object (&f->kernel);
  g_clear_pointer (&f->events, g_ptr_array_unref);
  g_clear_pointer (&f->done, rk_kernel_event_unref);
  g_clear_error (&f->error);
  remove_tree (f->workspace);
  g_free (f->workspace);
}

static void
execute_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Fixture *f = user_data;

  f->done = rk_kernel_execute_finish (RK_KERNEL (object), result, &f->error);
  f->finished = TRUE;
}

/* Runs a cell; returns its TABLE event, if any. */
static RkKernelEvent *
run (Fixture    *f,
     const char *code)
{
  g_ptr_array_set_size (f->events, 0);
  g_clear_pointer (&f->done, rk_kernel_event_unref);
  f->finished = FALSE;
  rk_kernel_execute_async (f->kernel, code, NULL, execute_cb, f);
  wait_until (&f->finished, 120);
  g_assert_no_error (f->error);
  g_assert_nonnull (f->done);
  for (guint i = 0; i < f->events->len; i++)
    {
      RkKernelEvent *ev = g_ptr_array_index (f->events, i);
      if (ev->type == RK_KERNEL_EVENT_TABLE)
        return ev;
    }
  return NULL;
}

static RkTable *
open_in_workspace (Fixture     *f,
                   const char  *path,
                   GError     **error)
{
  int dirfd = open (f->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  RkTable *table;

  g_assert_cmpint (dirfd, >=, 0);
  table = rk_table_open_at (dirfd, path, error);
  close (dirfd);
  return table;
}

static void
test_round_trip (Fixture       *f,
                 gconstpointer  data)
{
  RkKernelEvent *ev;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) table = NULL;
  g_autofree char *text = NULL;

  if (f->kernel == NULL)
    return;
  ev = run (f,
            "import pandas as pd, numpy as np\n"
            "df = pd.DataFrame({'city': ['Lyon', 'Zürich', None],\n"
            "                   'n': pd.array([3, None, 1], dtype='Int64'),\n"
            "                   'x': [0.5, np.nan, 2.0],\n"
            "                   'when': pd.to_datetime(['2024-05-01', None, '2024-05-03']),\n"
            "                   'ok': [True, False, True]}).set_index('city')\n"
            "df\n");
  g_assert_nonnull (ev);
  g_assert_cmpint (ev->rows, ==, 3);
  g_assert_cmpint (ev->columns, ==, 5);
  table = open_in_workspace (f, ev->path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rk_table_get_n_rows (table), ==, 3);
  g_assert_cmpuint (rk_table_get_n_columns (table), ==, 5);
  g_assert_cmpuint (rk_table_get_n_index_columns (table), ==, 1);
  g_assert_cmpstr (rk_table_get_column_name (table, 0), ==, "city");
  text = rk_table_get_cell_text (table, 1, 0);
  g_assert_cmpstr (text, ==, "Zürich");
  g_clear_pointer (&text, g_free);
  text = rk_table_get_cell_text (table, 2, 3);
  g_assert_cmpstr (text, ==, "2024-05-03");
  g_assert_true (rk_table_sort (table, 2, TRUE, &error));
  g_assert_cmpuint (rk_table_get_row_at (table, 0), ==, 0);   /* 0.5 first, NaN last */
  g_assert_cmpuint (rk_table_get_row_at (table, 2), ==, 1);

  /* A bigger one, shown explicitly. */
  ev = run (f,
            "import reckon\n"
            "big = pd.DataFrame({'i': np.arange(200000), 's': np.arange(200000).astype(str)})\n"
            "reckon.show(big, name='big')\n");
  g_assert_nonnull (ev);
  g_assert_cmpstr (ev->name, ==, "big");
  g_clear_object (&table);
  table = open_in_workspace (f, ev->path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rk_table_get_n_rows (table), ==, 200000);
  g_clear_pointer (&text, g_free);
  text = rk_table_get_cell_text (table, 199999, 1);
  g_assert_cmpstr (text, ==, "199999");
}

static void
test_tampered (Fixture       *f,
               gconstpointer  data)
{
  RkKernelEvent *ev;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) table = NULL;
  g_autofree char *path = NULL;
  g_autofree char *code = NULL;

  if (f->kernel == NULL)
    return;
  ev = run (f, "import pandas as pd\npd.DataFrame({'a': range(1000), 'b': ['x'] * 1000})\n");
  g_assert_nonnull (ev);
  path = g_strdup (ev->path);

  /* Opened first, then truncated by the sandbox: still readable, no SIGBUS. */
  table = open_in_workspace (f, path, &error);
  g_assert_no_error (error);
  code = g_strdup_printf ("import os\nos.truncate('/workspace/%s', 100)\n", path);
  run (f, code);
  for (guint r = 0; r < rk_table_get_n_rows (table); r++)
    for (guint c = 0; c < rk_table_get_n_columns (table); c++)
      g_free (rk_table_get_cell_text (table, r, c));
  g_clear_object (&table);

  /* Reopened truncated: refused. */
  table = open_in_workspace (f, path, &error);
  g_assert_null (table);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);

  /* Junk. */
  g_free (code);
  code = g_strdup_printf ("open('/workspace/%s', 'wb').write(b'RKTABLE\\0' + b'\\xff' * 500)\n", path);
  run (f, code);
  table = open_in_workspace (f, path, &error);
  g_assert_null (table);
  g_assert_nonnull (error);
  g_clear_error (&error);

  /* A symlink to a host file: inside the sandbox it points elsewhere, on the
   * host it would read the host's file. Refused. */
  g_free (code);
  code = g_strdup_printf ("import os\nos.remove('/workspace/%s')\nos.symlink('/etc/passwd', '/workspace/%s')\n",
                          path, path);
  run (f, code);
  table = open_in_workspace (f, path, &error);
  g_assert_null (table);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/rk/table/kernel/round-trip", Fixture, NULL, fixture_setup, test_round_trip, fixture_teardown);
  g_test_add ("/rk/table/kernel/tampered", Fixture, NULL, fixture_setup, test_tampered, fixture_teardown);

  return g_test_run ();
}
