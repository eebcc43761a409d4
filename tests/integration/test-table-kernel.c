/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-table-kernel.c — tables the real kernel writes inside the real sandbox,
 * read on the host with RkTable; and a cell that tampers with its table file
 * afterwards (junk, truncation, a symlink out of the workspace). */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>

#include "rk-kernel.h"
#include "rk-sandbox-launcher.h"
#include "rk-table.h"
#include "rk-test-kernel.h"
#include "rk-util.h"

/* Unlike the other kernel tests, this one has never asserted at teardown
 * that the kernel is finalized: it drops its reference first. */
static void
fixture_teardown (RkTestKernel  *f,
                  gconstpointer  data)
{
  if (f->kernel != NULL)
    {
      rk_kernel_shutdown (f->kernel);
      g_clear_object (&f->kernel);
    }
  rk_test_kernel_teardown (f, data);
}

/* Runs a cell; returns its TABLE event, if any. */
static RkKernelEvent *
run (RkTestKernel *f,
     const char   *code)
{
  rk_test_kernel_run (f, code);
  return rk_test_kernel_find (f, RK_KERNEL_EVENT_TABLE, NULL);
}

static RkTable *
open_in_workspace (RkTestKernel  *f,
                   const char    *path,
                   GError       **error)
{
  return rk_table_open_beneath (f->workspace, path, error);
}

static void
test_round_trip (RkTestKernel  *f,
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
test_tampered (RkTestKernel  *f,
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
  /* A capped workspace never saves a link to the host: the table is gone. */
  if (rk_sandbox_launcher_has_capped_workspace ())
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  else
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/rk/table/kernel/round-trip", RkTestKernel, NULL, rk_test_kernel_setup, test_round_trip, fixture_teardown);
  g_test_add ("/rk/table/kernel/tampered", RkTestKernel, NULL, rk_test_kernel_setup, test_tampered, fixture_teardown);

  return g_test_run ();
}
