/* test-chart-kernel.c — reckon.chart() in the real kernel inside the real
 * sandbox: the chart event, its spec (inline and with a sidecar) read back by
 * RkChart and drawn. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "rk-chart.h"
#include "rk-kernel.h"
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
  g_autofree char *err = NULL;
  int status = 0;
  const char *argv[] = { sandbox, "--workspace", NULL, "--", "/bin/true", NULL };

  if (!g_file_test (sandbox, G_FILE_TEST_IS_EXECUTABLE))
    {
      *reason = g_strdup_printf ("reckon-sandbox not found at %s", sandbox);
      return FALSE;
    }
  ws = g_dir_make_tmp ("rk-chart-probe-XXXXXX", NULL);
  argv[2] = ws;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
                     NULL, NULL, NULL, &err, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      *reason = g_strdup_printf ("reckon-sandbox cannot run a program on this machine: %s",
                                 err ? g_strstrip (err) : "");
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
start_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  Fixture *f = user_data;

  rk_kernel_start_finish (RK_KERNEL (object), result, &f->error);
  f->finished = TRUE;
}

static void
execute_cb (GObject *object, GAsyncResult *result, gpointer user_data)
{
  Fixture *f = user_data;

  f->done = rk_kernel_execute_finish (RK_KERNEL (object), result, &f->error);
  f->finished = TRUE;
}

static void
fixture_setup (Fixture *f, gconstpointer data)
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
  f->workspace = g_dir_make_tmp ("rk-chart-kernel-XXXXXX", NULL);
  f->kernel = rk_kernel_new (f->workspace, &limits);
  f->events = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_kernel_event_unref);
  g_signal_connect (f->kernel, "event", G_CALLBACK (event_cb), f);
  rk_kernel_start_async (f->kernel, NULL, start_cb, f);
  wait_until (&f->finished, 120);
  g_assert_no_error (f->error);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  if (f->kernel == NULL)
    return;
  rk_kernel_shutdown (f->kernel);
  g_assert_finalize_object (f->kernel);
  g_clear_pointer (&f->events, g_ptr_array_unref);
  g_clear_pointer (&f->done, rk_kernel_event_unref);
  g_clear_error (&f->error);
  remove_tree (f->workspace);
  g_free (f->workspace);
}

static RkKernelEvent *
run (Fixture *f, const char *code)
{
  g_ptr_array_set_size (f->events, 0);
  g_clear_pointer (&f->done, rk_kernel_event_unref);
  f->finished = FALSE;
  rk_kernel_execute_async (f->kernel, code, NULL, execute_cb, f);
  wait_until (&f->finished, 120);
  g_assert_no_error (f->error);
  g_assert_nonnull (f->done);
  return f->done;
}

static RkKernelEvent *
find_chart (Fixture *f)
{
  for (guint i = 0; i < f->events->len; i++)
    {
      RkKernelEvent *ev = g_ptr_array_index (f->events, i);
      if (ev->type == RK_KERNEL_EVENT_CHART)
        return ev;
    }
  return NULL;
}

static RkChart *
load (Fixture *f, RkKernelEvent *ev)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  RkChart *chart;

  g_assert_nonnull (ev);
  g_assert_true (rk_path_is_beneath (ev->path));
  g_assert_true (g_str_has_prefix (ev->path, ".reckon/charts/"));
  path = g_build_filename (f->workspace, ev->path, NULL);
  chart = rk_chart_new_from_file (path, &error);
  g_assert_no_error (error);
  return chart;
}

static void
test_chart_event (Fixture *f, gconstpointer data)
{
  g_autoptr(RkChart) chart = NULL;
  RkKernelEvent *ev;
  cairo_surface_t *surface;
  cairo_t *cr;

  if (f->kernel == NULL)
    return;

  g_assert_cmpint (run (f,
    "import pandas as pd, reckon\n"
    "df = pd.DataFrame({'month': pd.date_range('2024-01-01', periods=12, freq='MS'),\n"
    "                   'sales': range(12), 'costs': [5] * 12})\n"
    "reckon.chart(df, x='month', title='Sales by month')")->status, ==, RK_KERNEL_STATUS_OK);
  ev = find_chart (f);
  g_assert_nonnull (ev);
  g_assert_cmpstr (ev->title, ==, "Sales by month");
  chart = load (f, ev);
  g_assert_cmpint (rk_chart_get_kind (chart), ==, RK_CHART_KIND_LINE);
  g_assert_cmpint (rk_chart_get_x_type (chart), ==, RK_CHART_AXIS_TIME);
  g_assert_cmpuint (rk_chart_get_n_series (chart), ==, 2);
  g_assert_cmpuint (rk_chart_get_n_points (chart, 0), ==, 12);

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 640, 480);
  cr = cairo_create (surface);
  rk_chart_draw (chart, cr, 640, 480, RK_CHART_STYLE_DARK);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
test_chart_sidecar (Fixture *f, gconstpointer data)
{
  g_autoptr(RkChart) chart = NULL;
  RkChartHit hit;

  if (f->kernel == NULL)
    return;

  /* 200 000 points go through the float64 sidecar written in the sandbox */
  g_assert_cmpint (run (f,
    "import numpy as np, reckon\n"
    "y = np.zeros(200000); y[123456] = 7.25\n"
    "reckon.chart(y, kind='line')")->status, ==, RK_KERNEL_STATUS_OK);
  chart = load (f, find_chart (f));
  g_assert_cmpuint (rk_chart_get_n_points (chart, 0), ==, 200000);
  g_assert_true (rk_chart_hit_test (chart, 800, 600, 400, 60, &hit));

  /* a failing chart call is an ordinary Python error, not a chart */
  g_assert_cmpint (run (f, "import reckon\nreckon.chart([1, 2], kind='pie')")->status, ==,
                   RK_KERNEL_STATUS_ERROR);
  g_assert_null (find_chart (f));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/rk/chart/kernel/event", Fixture, NULL, fixture_setup, test_chart_event, fixture_teardown);
  g_test_add ("/rk/chart/kernel/sidecar", Fixture, NULL, fixture_setup, test_chart_sidecar, fixture_teardown);

  return g_test_run ();
}
