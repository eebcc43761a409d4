/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-chart-walk.c — keyboard moves between a chart's points: along a
 * series over its gaps, and between visible series. */
#include "config.h"

#include <string.h>

#include "rk-chart-walk.h"

#define W 640
#define H 400

/* "a" has a gap at 2, "b" is hidden in the test, "c" is shorter */
static const char json[] =
  "{\"version\":1,\"kind\":\"line\",\"x\":{\"type\":\"number\"},"
  "\"series\":[{\"name\":\"a\",\"x\":[0,1,2,3],\"y\":[1,2,null,4]},"
  "{\"name\":\"b\",\"x\":[0,1,2,3],\"y\":[4,3,2,1]},"
  "{\"name\":\"c\",\"x\":[0,1],\"y\":[2,2]}]}";

static RkChart *
make_chart (void)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static (json, strlen (json));
  g_autoptr(GError) error = NULL;
  RkChart *chart = rk_chart_new_from_bytes (bytes, NULL, &error);

  g_assert_no_error (error);
  rk_chart_set_series_visible (chart, 1, FALSE);
  return chart;
}

static void
assert_walk (RkChart *chart,
             guint    series,
             gint64   index,
             int      step,
             int      series_step,
             guint    want_series,
             gsize    want_index)
{
  RkChartHit hit = { 0 };

  g_assert_true (rk_chart_walk (chart, W, H, series, index, step, series_step, &hit));
  g_assert_cmpuint (hit.series, ==, want_series);
  g_assert_cmpuint (hit.index, ==, want_index);
}

static void
test_along (void)
{
  g_autoptr(RkChart) chart = make_chart ();
  RkChartHit hit = { 0 };

  assert_walk (chart, 0, -1, 1, 0, 0, 0);     /* Home */
  assert_walk (chart, 0, 1, 1, 0, 0, 3);      /* over the gap */
  assert_walk (chart, 0, 3, -1, 0, 0, 1);
  assert_walk (chart, 0, 4, -1, 0, 0, 3);     /* End */
  /* nowhere further: the hit is left as it was */
  hit.index = 99;
  g_assert_false (rk_chart_walk (chart, W, H, 0, 3, 1, 0, &hit));
  g_assert_false (rk_chart_walk (chart, W, H, 0, 0, -1, 0, &hit));
  g_assert_false (rk_chart_walk (chart, W, H, 1, -1, 1, 0, &hit));   /* a hidden series */
  g_assert_cmpuint (hit.index, ==, 99);
}

static void
test_across (void)
{
  g_autoptr(RkChart) chart = make_chart ();

  /* the hidden series is passed over; a shorter one gives its last point */
  assert_walk (chart, 0, 3, 0, 1, 2, 1);
  assert_walk (chart, 2, 1, 0, 1, 0, 1);      /* round to the first */
  assert_walk (chart, 0, 0, 0, -1, 2, 0);     /* and back the other way */
  /* from a gap's place, the nearest point before it */
  assert_walk (chart, 2, 2, 0, 1, 0, 1);
  /* no point yet: the first of the next series */
  assert_walk (chart, 0, -1, 0, 1, 2, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/chart-walk/along", test_along);
  g_test_add_func ("/rk/chart-walk/across", test_across);
  return g_test_run ();
}
