/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-result-open.c — a cell's table or chart opened from the workspace in
 * a worker thread: a chart, a file that is no table, a path outside. */
#include "config.h"

#include "rk-chart.h"
#include "rk-result-open.h"
#include "rk-table.h"

static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GObject *
open_result (RkWorkspace  *workspace,
             RkEntryKind   kind,
             const char   *rel_path,
             GError      **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  rk_result_open_async (workspace, kind, rel_path, 20, NULL, done_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return rk_result_open_finish (result, error);
}

static void
test_open (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkWorkspace) ws = rk_workspace_new_temporary (NULL, &error);
  g_autofree char *chart_path = NULL;
  g_autofree char *table_path = NULL;
  g_autoptr(GObject) chart = NULL;
  g_autoptr(GObject) table = NULL;
  g_autoptr(GObject) outside = NULL;
  g_autoptr(GError) table_error = NULL;
  g_autoptr(GError) outside_error = NULL;

  g_assert_no_error (error);
  chart_path = g_build_filename (rk_workspace_get_path (ws), "c.json", NULL);
  table_path = g_build_filename (rk_workspace_get_path (ws), "t.rkt", NULL);
  g_assert_true (g_file_set_contents (chart_path,
                                      "{\"version\":1,\"kind\":\"bar\",\"categories\":[\"a\"],"
                                      "\"series\":[{\"name\":\"s\",\"y\":[1]}]}", -1, NULL));
  g_assert_true (g_file_set_contents (table_path, "not a table", -1, NULL));

  chart = open_result (ws, RK_ENTRY_CHART, "c.json", &error);
  g_assert_no_error (error);
  g_assert_true (RK_IS_CHART (chart));

  table = open_result (ws, RK_ENTRY_TABLE, "t.rkt", &table_error);
  g_assert_null (table);
  g_assert_nonnull (table_error);

  outside = open_result (ws, RK_ENTRY_CHART, "../c.json", &outside_error);
  g_assert_null (outside);
  g_assert_nonnull (outside_error);

  g_assert_true (rk_workspace_delete (ws, NULL));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/result-open/open", test_open);
  return g_test_run ();
}
