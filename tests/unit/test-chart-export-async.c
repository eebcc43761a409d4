/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-chart-export-async.c — a chart exported in a worker thread: the
 * file it writes, an error, and a cancelled export. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "rk-chart-export-async.h"

static const char json[] =
  "{\"version\":1,\"kind\":\"bar\",\"categories\":[\"a\",\"b\"],"
  "\"series\":[{\"name\":\"s\",\"y\":[1,2]}]}";

typedef struct
{
  gboolean  done;
  gboolean  ok;
  GError   *error;
} Result;

static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Result *r = user_data;

  r->ok = rk_chart_export_finish (RK_CHART (source), result, &r->error);
  r->done = TRUE;
}

static gboolean
export (RkChart      *chart,
        const char   *path,
        GCancellable *cancellable,
        GError      **error)
{
  Result r = { 0 };

  rk_chart_export_async (chart, path, RK_CHART_FORMAT_PNG, 300, 200, RK_CHART_STYLE_LIGHT,
                         cancellable, done_cb, &r);
  while (!r.done)
    g_main_context_iteration (NULL, TRUE);
  if (r.error != NULL)
    g_propagate_error (error, r.error);
  return r.ok;
}

static void
test_export (void)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static (json, strlen (json));
  g_autoptr(RkChart) chart = rk_chart_new_from_bytes (bytes, NULL, NULL);
  g_autofree char *dir = g_dir_make_tmp ("rk-chart-export-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "chart.png", NULL);
  g_autofree char *nowhere = g_build_filename (dir, "missing", "chart.png", NULL);
  g_autofree char *data = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) cancelled = NULL;
  gsize len = 0;

  g_assert_nonnull (chart);
  g_assert_true (export (chart, path, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, >, 8);
  g_assert_cmpmem (data, 8, "\x89PNG\r\n\x1a\n", 8);

  g_assert_false (export (chart, nowhere, NULL, &error));
  g_assert_nonnull (error);

  /* cancelled before it ends: the caller hears so, whatever the worker did */
  g_cancellable_cancel (cancellable);
  g_assert_false (export (chart, path, cancellable, &cancelled));
  g_assert_error (cancelled, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/chart-export/async", test_export);
  return g_test_run ();
}
