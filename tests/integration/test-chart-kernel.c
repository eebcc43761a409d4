/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-chart-kernel.c — reckon.chart() in the real kernel inside the real
 * sandbox: the chart event, its spec (inline and with a sidecar) read back by
 * RkChart and drawn. */
#include "config.h"

#include "rk-chart.h"
#include "rk-kernel.h"
#include "rk-test-kernel.h"
#include "rk-util.h"

static RkChart *
load (RkTestKernel *f, RkKernelEvent *ev)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  RkChart *chart;

  g_assert_nonnull (ev);
  g_assert_true (rk_path_is_beneath (ev->path));
  g_assert_true (g_str_has_prefix (ev->path, ".reckon/charts/"));
  path = g_build_filename (rk_workspace_get_path (f->workspace), ev->path, NULL);
  chart = rk_chart_new_from_file (path, &error);
  g_assert_no_error (error);
  return chart;
}

static void
test_chart_event (RkTestKernel *f, gconstpointer data)
{
  g_autoptr(RkChart) chart = NULL;
  RkKernelEvent *ev;
  cairo_surface_t *surface;
  cairo_t *cr;

  if (f->kernel == NULL)
    return;

  g_assert_cmpint (rk_test_kernel_run (f,
    "import pandas as pd, reckon\n"
    "df = pd.DataFrame({'month': pd.date_range('2024-01-01', periods=12, freq='MS'),\n"
    "                   'sales': range(12), 'costs': [5] * 12})\n"
    "reckon.chart(df, x='month', title='Sales by month')")->status, ==, RK_KERNEL_STATUS_OK);
  ev = rk_test_kernel_find (f, RK_KERNEL_EVENT_CHART, NULL);
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
test_chart_sidecar (RkTestKernel *f, gconstpointer data)
{
  g_autoptr(RkChart) chart = NULL;
  RkChartHit hit;

  if (f->kernel == NULL)
    return;

  /* 200 000 points go through the float64 sidecar written in the sandbox */
  g_assert_cmpint (rk_test_kernel_run (f,
    "import numpy as np, reckon\n"
    "y = np.zeros(200000); y[123456] = 7.25\n"
    "reckon.chart(y, kind='line')")->status, ==, RK_KERNEL_STATUS_OK);
  chart = load (f, rk_test_kernel_find (f, RK_KERNEL_EVENT_CHART, NULL));
  g_assert_cmpuint (rk_chart_get_n_points (chart, 0), ==, 200000);
  g_assert_true (rk_chart_hit_test (chart, 800, 600, 400, 60, &hit));

  /* a failing chart call is an ordinary Python error, not a chart */
  g_assert_cmpint (rk_test_kernel_run (f, "import reckon\nreckon.chart([1, 2], kind='pie')")->status, ==,
                   RK_KERNEL_STATUS_ERROR);
  g_assert_null (rk_test_kernel_find (f, RK_KERNEL_EVENT_CHART, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/rk/chart/kernel/event", RkTestKernel, NULL, rk_test_kernel_setup, test_chart_event, rk_test_kernel_teardown);
  g_test_add ("/rk/chart/kernel/sidecar", RkTestKernel, NULL, rk_test_kernel_setup, test_chart_sidecar, rk_test_kernel_teardown);

  return g_test_run ();
}
