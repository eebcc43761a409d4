/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-chart.c — RkChart: specs written by the real Python helper, drawing
 * checked on pixels, ticks, decimation, hit testing, export, hostile specs. */
#define G_LOG_DOMAIN "test-chart"
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-glib/json-glib.h>

#include "rk-chart.h"
#include "rk-chart-private.h"
#include "rk-util.h"

#define W 800
#define H 600

/* ------------------------------------------------------------ helpers */

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("rk-chart-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
rm_rf (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d != NULL)
    {
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            rm_rf (child);
          else
            g_unlink (child);
        }
      g_dir_close (d);
    }
  g_rmdir (path);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  rm_rf (f->dir);
  g_free (f->dir);
}

/* Runs the real reckon.chart helper with /usr/bin/python3 (no kernel, so no
 * emit), one chart per expression in @codes, in one interpreter (pandas takes
 * a while to import); returns the paths of the specs it wrote. */
static GStrv
python_charts (Fixture *f, const char * const *codes, guint n)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GString) script = g_string_new ("import numpy as np, pandas as pd\n"
                                            "from reckon.chart import chart\n");
  GStrv paths;
  int status = 0;
  const char *argv[] = { rk_python_path (), "-B", "-c", NULL, NULL };

  for (guint i = 0; i < n; i++)
    g_string_append_printf (script, "print(%s.path)\n", codes[i]);
  argv[3] = script->str;
  env = g_environ_setenv (env, "PYTHONPATH", rk_kernel_dir (), TRUE);
  env = g_environ_setenv (env, "RECKON_WORKSPACE", f->dir, TRUE);
  env = g_environ_setenv (env, "MPLBACKEND", "Agg", TRUE);
  g_spawn_sync (f->dir, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("python failed: %s", err);
  g_strstrip (out);
  paths = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (paths), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (g_str_has_prefix (paths[i], f->dir));
      g_assert_true (g_file_test (paths[i], G_FILE_TEST_IS_REGULAR));
    }
  return paths;
}

static char *
python_chart (Fixture *f, const char *code)
{
  g_auto(GStrv) paths = python_charts (f, &code, 1);
  return g_strdup (paths[0]);
}

static RkChart *
chart_from_string (const char *json, const char *base_dir, GError **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (json, strlen (json));
  return rk_chart_new_from_bytes (bytes, base_dir, error);
}

static cairo_surface_t *
render (RkChart *chart, int w, int h, RkChartStyle style)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cairo_t *cr = cairo_create (surface);

  rk_chart_draw (chart, cr, w, h, style);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

static guint32
pixel (cairo_surface_t *s, int x, int y)
{
  unsigned char *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);

  return *(guint32 *) (data + y * stride + x * 4) & 0xffffff;
}

static gboolean
near_color (guint32 px, guint32 rgb, int tol)
{
  int dr = (int) ((px >> 16) & 0xff) - (int) ((rgb >> 16) & 0xff);
  int dg = (int) ((px >> 8) & 0xff) - (int) ((rgb >> 8) & 0xff);
  int db = (int) (px & 0xff) - (int) (rgb & 0xff);
  return ABS (dr) <= tol && ABS (dg) <= tol && ABS (db) <= tol;
}

/* Whether a pixel within @r of (x, y) has colour @rgb. */
static gboolean
color_near_tol (cairo_surface_t *s, double x, double y, int r, guint32 rgb, int tol)
{
  int w = cairo_image_surface_get_width (s), h = cairo_image_surface_get_height (s);

  for (int yy = (int) y - r; yy <= (int) y + r; yy++)
    for (int xx = (int) x - r; xx <= (int) x + r; xx++)
      if (xx >= 0 && yy >= 0 && xx < w && yy < h && near_color (pixel (s, xx, yy), rgb, tol))
        return TRUE;
  return FALSE;
}

static gboolean
color_near (cairo_surface_t *s, double x, double y, int r, guint32 rgb)
{
  return color_near_tol (s, x, y, r, rgb, 40);
}

#define LIGHT_BLUE 0x1c71d8   /* first colour of the light palette */
#define LIGHT_ORANGE 0xe66100
#define DARK_BG 0x242424

/* ------------------------------------------------------------ ticks */

static gboolean
is_125 (double step)
{
  double mag = pow (10, floor (log10 (step) + 1e-9));
  double f = step / mag;
  return fabs (f - 1) < 1e-6 || fabs (f - 2) < 1e-6 || fabs (f - 5) < 1e-6;
}

static void
test_nice_ticks (void)
{
  static const struct { double lo, hi; guint target; } cases[] = {
    { 0, 100, 5 }, { 0, 1, 10 }, { -3.7, 12.2, 6 }, { 0.001, 0.0095, 4 }, { 1e9, 3.3e9, 5 },
    { -1e-7, 1e-7, 5 }, { 17, 17, 5 }, { 0, 0, 5 }, { 1234.5, 1236.7, 8 }, { -50, -10, 4 },
  };
  double ticks[64], step;
  guint n;

  n = _rk_chart_nice_ticks (0, 100, 5, ticks, 64, &step);
  g_assert_cmpfloat (step, ==, 20);
  g_assert_cmpuint (n, ==, 6);
  g_assert_cmpfloat (ticks[0], ==, 0);
  g_assert_cmpfloat (ticks[5], ==, 100);

  n = _rk_chart_nice_ticks (0, 1, 10, ticks, 64, &step);
  g_assert_cmpfloat_with_epsilon (step, 0.1, 1e-12);
  g_assert_cmpuint (n, ==, 11);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      n = _rk_chart_nice_ticks (cases[c].lo, cases[c].hi, cases[c].target, ticks, 64, &step);
      g_assert_cmpuint (n, >=, 2);
      g_assert_cmpuint (n, <=, cases[c].target * 2 + 2);
      g_assert_true (is_125 (step));
      for (guint i = 0; i < n; i++)
        {
          /* every tick is a whole multiple of the step */
          double q = ticks[i] / step;
          g_assert_cmpfloat (fabs (q - round (q)), <, 1e-6);
          if (i > 0)
            g_assert_cmpfloat_with_epsilon (ticks[i] - ticks[i - 1], step, step * 1e-6);
        }
      if (cases[c].hi > cases[c].lo)
        {
          g_assert_cmpfloat (ticks[0], >=, cases[c].lo - step * 1e-6);
          g_assert_cmpfloat (ticks[n - 1], <=, cases[c].hi + step * 1e-6);
          g_assert_cmpfloat (ticks[0] - cases[c].lo, <, step);
        }
    }

  /* not finite: no ticks */
  g_assert_cmpuint (_rk_chart_nice_ticks (NAN, 1, 5, ticks, 64, &step), ==, 0);
  g_assert_cmpuint (_rk_chart_nice_ticks (0, INFINITY, 5, ticks, 64, &step), ==, 0);
}

static void
test_time_ticks (void)
{
  double ticks[64];
  RkTimeUnit unit;
  guint n;
  const double day = 86400e3;
  const double jan1_2020 = 1577836800e3;

  /* three years: year or month ticks on the first of a month at midnight */
  n = _rk_chart_time_ticks (jan1_2020 + 10 * day, jan1_2020 + 3 * 365 * day, 6, ticks, 64, &unit);
  g_assert_cmpuint (n, >=, 2);
  g_assert_true (unit == _RK_TIME_MONTH || unit == _RK_TIME_YEAR);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc ((gint64) (ticks[i] / 1e3));
      g_assert_cmpint (g_date_time_get_day_of_month (t), ==, 1);
      g_assert_cmpint (g_date_time_get_hour (t), ==, 0);
      if (unit == _RK_TIME_YEAR)
        g_assert_cmpint (g_date_time_get_month (t), ==, 1);
    }

  /* fifty years: whole years in 1-2-5 steps */
  n = _rk_chart_time_ticks (0, 50 * 365.25 * day, 6, ticks, 64, &unit);
  g_assert_cmpint (unit, ==, _RK_TIME_YEAR);
  g_assert_cmpuint (n, >=, 3);
  {
    g_autoptr(GDateTime) a = g_date_time_new_from_unix_utc ((gint64) (ticks[0] / 1e3));
    g_autoptr(GDateTime) b = g_date_time_new_from_unix_utc ((gint64) (ticks[1] / 1e3));
    int gap = g_date_time_get_year (b) - g_date_time_get_year (a);
    g_assert_true (gap == 5 || gap == 10 || gap == 20);
    g_assert_cmpint (g_date_time_get_year (a) % gap, ==, 0);
  }

  /* two weeks: day ticks at midnight */
  n = _rk_chart_time_ticks (jan1_2020 + 3600e3, jan1_2020 + 14 * day, 8, ticks, 64, &unit);
  g_assert_cmpint (unit, ==, _RK_TIME_DAY);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat (fmod (ticks[i], day), ==, 0);

  /* three months of days: weekly ticks fall on Mondays */
  n = _rk_chart_time_ticks (jan1_2020, jan1_2020 + 60 * day, 8, ticks, 64, &unit);
  g_assert_cmpint (unit, ==, _RK_TIME_DAY);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc ((gint64) (ticks[i] / 1e3));
      g_assert_cmpint (g_date_time_get_day_of_week (t), ==, 1);
    }

  /* a working day: hour ticks */
  n = _rk_chart_time_ticks (jan1_2020 + 8 * 3600e3, jan1_2020 + 18 * 3600e3, 6, ticks, 64, &unit);
  g_assert_cmpint (unit, ==, _RK_TIME_HOUR);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat (fmod (ticks[i], 3600e3), ==, 0);

  /* ten minutes: minute ticks */
  n = _rk_chart_time_ticks (jan1_2020, jan1_2020 + 600e3, 6, ticks, 64, &unit);
  g_assert_cmpint (unit, ==, _RK_TIME_MINUTE);

  /* labels */
  {
    g_autofree char *y = _rk_chart_format_time (jan1_2020, _RK_TIME_YEAR, FALSE);
    g_autofree char *h = _rk_chart_format_time (jan1_2020 + 13.5 * 3600e3, _RK_TIME_HOUR, FALSE);
    g_autofree char *s = _rk_chart_format_time (jan1_2020 + 61e3, _RK_TIME_SECOND, FALSE);
    g_assert_cmpstr (y, ==, "2020");
    g_assert_cmpstr (h, ==, "13:30");
    g_assert_cmpstr (s, ==, "00:01:01");
  }

  /* outside what a calendar can show */
  g_assert_cmpuint (_rk_chart_time_ticks (0, 1e18, 6, ticks, 64, &unit), ==, 0);
}

static void
test_format_number (void)
{
  static const struct { double v, step; const char *want; } cases[] = {
    { 0, 1, "0" }, { 1e-17, 0.1, "0" }, { 2.5, 0.5, "2.5" }, { 0.3, 0.1, "0.3" },
    { 1000, 500, "1,000" }, { 2500, 500, "2,500" }, { 1500000, 500000, "1.5M" },
    { 2e9, 1e9, "2B" }, { 40000, 10000, "40k" }, { -5, 5, "\u22125" }, { 0.0002, 0.0001, "0.0002" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *s = _rk_chart_format_number (cases[i].v, cases[i].step);
      g_assert_cmpstr (s, ==, cases[i].want);
    }
  /* One suffix for a whole axis: 5k beside 75k, not 5,000. */
  {
    g_autofree char *five = _rk_chart_format_tick (5000, 5000, 75000);
    g_autofree char *zero = _rk_chart_format_tick (0, 5000, 75000);
    g_autofree char *small = _rk_chart_format_tick (5000, 1000, 8000);
    g_assert_cmpstr (five, ==, "5k");
    g_assert_cmpstr (zero, ==, "0");
    g_assert_cmpstr (small, ==, "5,000");
  }
  {
    g_autofree char *a = _rk_chart_format_exact (0.1 + 0.2);
    g_autofree char *b = _rk_chart_format_exact (42);
    g_autofree char *c = _rk_chart_format_exact (-1.5e-300);
    g_assert_cmpstr (a, ==, "0.30000000000000004");
    g_assert_cmpstr (b, ==, "42");
    g_assert_cmpfloat (g_ascii_strtod (c, NULL), ==, -1.5e-300);
  }
}

/* ------------------------------------------------------------ every kind, via Python */

static void
test_python_kinds (Fixture *f, gconstpointer data)
{
  static const struct { const char *code; RkChartKind kind; guint n_series; gsize n_points; RkChartAxisType xt; } cases[] = {
    { "chart(pd.DataFrame({'d': pd.date_range('2024-01-01', periods=30, freq='D'), 'a': np.arange(30.0), 'b': np.arange(30.0) ** 0.5}), x='d', title='Daily')",
      RK_CHART_KIND_LINE, 2, 30, RK_CHART_AXIS_TIME },
    { "chart(pd.DataFrame({'t': np.arange(5.0), 'u': [1, 2, 3, 4, 5], 'v': [2, 2, 2, 2, 2]}), kind='area', x='t', stacked=True)",
      RK_CHART_KIND_AREA, 2, 5, RK_CHART_AXIS_NUMBER },
    { "chart(pd.DataFrame({'region': ['North', 'South', 'East'], 'sales': [10, 20, 15], 'costs': [5, 8, 9]}), kind='bar', x='region')",
      RK_CHART_KIND_BAR, 2, 3, RK_CHART_AXIS_CATEGORY },
    { "chart(np.arange(10.0), y=np.arange(10.0) ** 2, kind='scatter')",
      RK_CHART_KIND_SCATTER, 1, 10, RK_CHART_AXIS_NUMBER },
    { "chart(pd.Series(np.random.default_rng(1).normal(size=1000), name='x'), kind='histogram', bins=20)",
      RK_CHART_KIND_HISTOGRAM, 1, 20, RK_CHART_AXIS_NUMBER },
    { "chart(pd.DataFrame({'a': np.r_[np.arange(20.0), 100.0], 'b': np.arange(21.0) * 2}), kind='box')",
      RK_CHART_KIND_BOX, 2, 1, RK_CHART_AXIS_CATEGORY },
    { "chart(pd.Series([1.0, None, 3.0, float('nan'), 5.0], name='gappy'))",
      RK_CHART_KIND_LINE, 1, 5, RK_CHART_AXIS_NUMBER },
    { "chart(pd.Series([3, 1, 2], index=['x', 'y', 'z'], name='by name'))",
      RK_CHART_KIND_LINE, 1, 3, RK_CHART_AXIS_CATEGORY },
  };

  const char *codes[G_N_ELEMENTS (cases) + 1];
  g_auto(GStrv) paths = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    codes[i] = cases[i].code;
  codes[G_N_ELEMENTS (cases)] = "chart([1, 2], title='T')";
  paths = python_charts (f, codes, G_N_ELEMENTS (codes));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *path = paths[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(RkChart) chart = rk_chart_new_from_file (path, &error);
      cairo_surface_t *s;

      g_test_message ("%s", cases[i].code);
      g_assert_no_error (error);
      g_assert_nonnull (chart);
      g_assert_cmpint (rk_chart_get_kind (chart), ==, cases[i].kind);
      g_assert_cmpuint (rk_chart_get_n_series (chart), ==, cases[i].n_series);
      g_assert_cmpuint (rk_chart_get_n_points (chart, 0), ==, cases[i].n_points);
      g_assert_cmpint (rk_chart_get_x_type (chart), ==, cases[i].xt);
      /* every kind draws in both styles, at a normal and a tiny size */
      s = render (chart, W, H, RK_CHART_STYLE_LIGHT);
      /* the first series' colour (blended for scatter and area) */
      g_assert_true (color_near_tol (s, W / 2, H / 2, W / 2 - 1, LIGHT_BLUE, 70));
      cairo_surface_destroy (s);
      cairo_surface_destroy (render (chart, 60, 45, RK_CHART_STYLE_DARK));
    }

  {
    g_autoptr(RkChart) chart = rk_chart_new_from_file (paths[G_N_ELEMENTS (cases)], NULL);
    g_assert_cmpstr (rk_chart_get_title (chart), ==, "T");
  }
}

/* Inside the kernel, reckon._hooks carries the emit function: the chart
 * event names the spec relative to the workspace. */
static void
test_python_emit (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *script = NULL;
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(RkChart) chart = NULL;
  g_autofree char *spec = NULL;
  JsonObject *root, *event;
  JsonArray *events;
  int status = 0;
  const char *argv[] = { rk_python_path (), "-B", "-c", NULL, NULL };

  script = g_strdup_printf ("import json\n"
                            "from reckon import _hooks\n"
                            "events = []\n"
                            "_hooks._emit_impl = events.append\n"
                            "_hooks.current_id = 'c9'\n"
                            "_hooks.WORKSPACE = %s\n"
                            "import reckon\n"
                            "r = reckon.chart([1, 2, 3], title='Emitted ' * 20)\n"
                            "print(json.dumps({'events': events, 'repr': repr(r)}))\n",
                            "__import__('os').environ['WS']");
  argv[3] = script;
  env = g_environ_setenv (env, "PYTHONPATH", rk_kernel_dir (), TRUE);
  env = g_environ_setenv (env, "WS", f->dir, TRUE);
  g_spawn_sync (f->dir, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("python failed: %s", err);

  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  events = json_object_get_array_member (root, "events");
  g_assert_cmpuint (json_array_get_length (events), ==, 1);
  event = json_array_get_object_element (events, 0);
  g_assert_cmpstr (json_object_get_string_member (event, "type"), ==, "chart");
  g_assert_cmpstr (json_object_get_string_member (event, "id"), ==, "c9");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (event, "title"), "Emitted Emitted"));
  g_assert_true (g_str_has_prefix (json_object_get_string_member (event, "path"), ".reckon/charts/c"));
  g_assert_true (rk_path_is_beneath (json_object_get_string_member (event, "path")));
  /* the repr a cell shows stays short, even for a long title */
  g_assert_cmpuint (strlen (json_object_get_string_member (root, "repr")), <, 100);

  spec = g_build_filename (f->dir, json_object_get_string_member (event, "path"), NULL);
  chart = rk_chart_new_from_file (spec, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rk_chart_get_n_points (chart, 0), ==, 3);
}

/* ------------------------------------------------------------ pixels */

static void
test_draw_pixels (void)
{
  /* a horizontal line at y = 5 on a fixed 0..10 axis, and a second one at 8 */
  const char *json =
    "{\"version\":1,\"kind\":\"line\",\"title\":\"Pixels\",\"x\":{\"type\":\"number\",\"label\":\"x\"},"
    "\"y\":{\"label\":\"y\",\"min\":0,\"max\":10},"
    "\"series\":[{\"name\":\"five\",\"x\":[0,1,2,3,4,5,6,7,8,9,10],\"y\":[5,5,5,5,5,5,5,5,5,5,5]},"
    "{\"name\":\"eight\",\"x\":[0,10],\"y\":[8,8]}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChart) chart = chart_from_string (json, NULL, &error);
  RkChartHit hit5, hit8, hit0;
  cairo_surface_t *light, *dark;
  int axis_run = 0;

  g_assert_no_error (error);
  light = render (chart, W, H, RK_CHART_STYLE_LIGHT);

  /* where the data says: the anchors of both lines, and their order */
  g_assert_true (rk_chart_hit_test (chart, W, H, W / 2, 0.8 * H, &hit5));
  g_assert_cmpuint (hit5.series, ==, 0);
  g_assert_cmpfloat (hit5.x, ==, 5);
  g_assert_cmpfloat (hit5.y, ==, 5);
  g_assert_true (rk_chart_hit_test (chart, W, H, W / 2, 0.2 * H, &hit8));
  g_assert_cmpuint (hit8.series, ==, 1);
  g_assert_cmpfloat (hit8.py, <, hit5.py);
  {
    /* y = 0 is at the bottom of the plot: 5/3 of the gap between 8 and 5 below the 5 */
    double zero = hit5.py + (hit5.py - hit8.py) * 5.0 / 3.0;
    g_assert_true (color_near (light, W / 2, zero + 1, 2, 0x8c8c94));
  }
  g_assert_true (rk_chart_hit_test (chart, W, H, W - 20, hit5.py, &hit0));
  g_assert_cmpfloat (hit0.x, ==, 10);
  /* x is linear: x = 0 lies as far left of x = 5 as x = 10 lies right of it */
  g_assert_true (rk_chart_hit_test (chart, W, H, 2 * hit5.px - hit0.px + 1, hit5.py, &hit0));
  g_assert_cmpfloat (hit0.x, ==, 0);
  g_assert_true (color_near (light, hit5.px, hit5.py, 1, LIGHT_BLUE));
  g_assert_true (color_near (light, W / 2, hit8.py, 1, LIGHT_ORANGE));
  g_assert_false (color_near (light, W / 2, (hit5.py + hit8.py) / 2, 3, LIGHT_BLUE));
  /* the line spans the plot: blue at the left and the right end */
  g_assert_true (color_near (light, hit0.px + 3, hit5.py, 1, LIGHT_BLUE));
  /* background is white outside */
  g_assert_cmphex (pixel (light, 2, 2), ==, 0xffffff);
  /* an x axis: a long horizontal run of the axis grey in the bottom fifth */
  for (int y = H * 4 / 5; y < H; y++)
    {
      int run = 0, best = 0;
      for (int x = 0; x < W; x++)
        {
          guint32 p = pixel (light, x, y);
          gboolean grey = near_color (p, 0x8c8c94, 8);
          run = grey ? run + 1 : 0;
          best = MAX (best, run);
        }
      axis_run = MAX (axis_run, best);
    }
  g_assert_cmpint (axis_run, >, W / 2);
  /* text exists: the title row has dark pixels near the top centre */
  g_assert_true (color_near (light, W / 2, 22, 12, 0x242428));
  cairo_surface_destroy (light);

  dark = render (chart, W, H, RK_CHART_STYLE_DARK);
  g_assert_cmphex (pixel (dark, 2, 2), ==, DARK_BG);
  g_assert_cmphex (pixel (dark, W - 3, H - 3), ==, DARK_BG);
  g_assert_true (color_near (dark, hit5.px, hit5.py, 1, 0x62a0ea));
  cairo_surface_destroy (dark);
}

static void
test_draw_bars (void)
{
  const char *json =
    "{\"version\":1,\"kind\":\"bar\",\"categories\":[\"a\",\"b\",\"c\"],\"stacked\":false,"
    "\"series\":[{\"name\":\"s\",\"y\":[1,-2,3]}]}";
  g_autoptr(RkChart) chart = chart_from_string (json, NULL, NULL);
  RkChartHit hit;
  cairo_surface_t *s = render (chart, W, H, RK_CHART_STYLE_LIGHT);
  double px_a, px_c;

  /* the column of "c" (3) is three times as tall as that of "a" (1) */
  g_assert_true (rk_chart_hit_test (chart, W, H, W * 0.2, H / 2, &hit));
  g_assert_cmpuint (hit.index, ==, 0);
  g_assert_cmpfloat (hit.y, ==, 1);
  px_a = hit.py;
  g_assert_true (rk_chart_hit_test (chart, W, H, W * 0.85, H / 2, &hit));
  g_assert_cmpuint (hit.index, ==, 2);
  px_c = hit.py;
  g_assert_true (rk_chart_hit_test (chart, W, H, W * 0.55, H / 2, &hit));
  g_assert_cmpfloat (hit.y, ==, -2);
  {
    /* zero lies below "a"'s top; heights scale linearly */
    double zero = hit.py + (px_a - hit.py) * 2.0 / 3.0;
    g_assert_cmpfloat_with_epsilon ((zero - px_c) / (zero - px_a), 3.0, 0.05);
    g_assert_true (color_near (s, W * 0.85, (zero + px_c) / 2, 0, LIGHT_BLUE));
    g_assert_false (color_near (s, W * 0.85, px_c - 10, 2, LIGHT_BLUE));
  }
  cairo_surface_destroy (s);
}

/* ------------------------------------------------------------ decimation */

static void
test_decimation_spike (Fixture *f, gconstpointer data)
{
  g_autofree char *path = python_chart (f, "chart(np.where(np.arange(1000000) == 654321, 100.0, 0.0), y=None)");
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChart) chart = NULL;
  cairo_surface_t *s;
  RkChartHit hit;
  int columns = 0, first_col = -1;
  g_autofree char *bin = NULL;

  /* one million points go to a binary sidecar */
  bin = g_strdup (path);
  strcpy (bin + strlen (bin) - 4, "bin");
  g_assert_true (g_file_test (bin, G_FILE_TEST_IS_REGULAR));

  chart = rk_chart_new_from_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rk_chart_get_n_points (chart, 0), ==, 1000000);

  s = render (chart, W, H, RK_CHART_STYLE_LIGHT);
  /* the one spike reaches the top of the plot in one narrow column */
  for (int x = 0; x < W; x++)
    for (int y = 0; y < H / 3; y++)
      if (near_color (pixel (s, x, y), LIGHT_BLUE, 60))
        {
          columns++;
          if (first_col < 0)
            first_col = x;
          break;
        }
  g_assert_cmpint (columns, >=, 1);
  g_assert_cmpint (columns, <=, 3);
  /* at 65% of the way along the plot; hovering its top gives its exact value */
  g_assert_true (rk_chart_hit_test (chart, W, H, first_col, H / 6, &hit));
  g_assert_cmpfloat (fabs ((double) hit.index - 654321), <, 3000);
  {
    int top = -1;
    for (int y = 0; y < H && top < 0; y++)
      if (near_color (pixel (s, first_col, y), LIGHT_BLUE, 60))
        top = y;
    g_assert_true (rk_chart_hit_test (chart, W, H, first_col + 1, top + 1, &hit));
    g_assert_cmpuint (hit.index, ==, 654321);
    g_assert_cmpfloat (hit.y, ==, 100.0);
    /* and the flat line beside it gives a zero */
    g_assert_true (rk_chart_hit_test (chart, W, H, first_col - 100, hit.py + 200, &hit));
    g_assert_cmpfloat (hit.y, ==, 0.0);
  }
  cairo_surface_destroy (s);
}

/* ------------------------------------------------------------ hit test */

static void
test_hit_exact (void)
{
  const char *json =
    "{\"version\":1,\"kind\":\"scatter\",\"x\":{\"type\":\"number\",\"label\":\"width\"},\"y\":{\"label\":\"height\"},"
    "\"series\":[{\"name\":\"pts\",\"x\":[0.1,0.2,0.7],\"y\":[0.30000000000000004,1e-9,12345.678901234567]}]}";
  g_autoptr(RkChart) chart = chart_from_string (json, NULL, NULL);
  RkChartHit hit, again;
  g_autofree char *text = NULL;

  g_assert_nonnull (chart);
  g_assert_true (rk_chart_hit_test (chart, W, H, W - 40, 40, &hit));
  g_assert_cmpuint (hit.index, ==, 2);
  g_assert_cmpfloat (hit.y, ==, 12345.678901234567);
  g_assert_cmpfloat (hit.x, ==, 0.7);
  /* hovering at the anchor returns the same point */
  g_assert_true (rk_chart_hit_test (chart, W, H, hit.px + 2, hit.py - 1, &again));
  g_assert_cmpuint (again.index, ==, 2);
  text = rk_chart_describe_hit (chart, &hit);
  g_assert_nonnull (strstr (text, "12345.678901234567"));
  g_assert_nonnull (strstr (text, "width: 0.7"));

  /* far from every point: nothing */
  g_assert_false (rk_chart_hit_test (chart, W, H, W / 2, 40, &hit));
  /* outside the plot */
  g_assert_false (rk_chart_hit_test (chart, W, H, 1, 1, &hit));

  /* lines: the value at the nearest x, exactly as in the spec */
  {
    const char *line =
      "{\"version\":1,\"kind\":\"line\",\"x\":{\"type\":\"time\"},"
      "\"series\":[{\"name\":\"t\",\"x\":[1704067200000,1704153600000,1704240000000],\"y\":[0.1,null,0.30000000000000004]}]}";
    g_autoptr(RkChart) c = chart_from_string (line, NULL, NULL);
    g_autofree char *d = NULL;

    g_assert_true (rk_chart_hit_test (c, W, H, W - 20, H / 2, &hit));
    g_assert_cmpuint (hit.index, ==, 2);
    g_assert_cmpfloat (hit.y, ==, 0.30000000000000004);
    d = rk_chart_describe_hit (c, &hit);
    g_assert_nonnull (strstr (d, "2024-01-03"));
    g_assert_nonnull (strstr (d, "0.30000000000000004"));
    /* the middle point is a gap, its neighbours far away: nothing to show */
    g_assert_false (rk_chart_hit_test (c, W, H, W / 2, H / 2, &hit));
  }

  /* histogram and box */
  {
    const char *hist =
      "{\"version\":1,\"kind\":\"histogram\",\"series\":[{\"name\":\"h\",\"edges\":[0,1,2,3,4],\"counts\":[4,8,2,1]}]}";
    const char *box =
      "{\"version\":1,\"kind\":\"box\",\"series\":[{\"name\":\"b\",\"q1\":1,\"median\":2,\"q3\":3,\"low\":0,\"high\":4,\"outliers\":[9]}]}";
    g_autoptr(RkChart) h = chart_from_string (hist, NULL, NULL);
    g_autoptr(RkChart) b = chart_from_string (box, NULL, NULL);
    g_autofree char *d = NULL;

    g_assert_true (rk_chart_hit_test (h, W, H, W * 0.4, H - 80, &hit));
    g_assert_cmpuint (hit.index, ==, 1);
    g_assert_cmpfloat (hit.x, ==, 1);
    g_assert_cmpfloat (hit.x_end, ==, 2);
    g_assert_cmpfloat (hit.y, ==, 8);
    g_assert_true (rk_chart_hit_test (b, W, H, W / 2, H / 2, &hit));
    d = rk_chart_describe_hit (b, &hit);
    g_assert_nonnull (strstr (d, "median: 2"));
  }
}


/* The cached layout and scatter grid answer exactly as a fresh layout and a
 * scan of every point do, before and after a resize and a hidden series. */
static void
test_hit_cache (void)
{
  g_autoptr(GString) json = g_string_new ("{\"version\":1,\"kind\":\"scatter\",\"series\":[");
  g_autoptr(RkChart) chart = NULL;
  GRand *rand = g_rand_new_with_seed (7);
  guint agree = 0, found = 0;

  for (guint k = 0; k < 3; k++)
    {
      g_string_append_printf (json, "%s{\"name\":\"s%u\",\"x\":[", k ? "," : "", k);
      for (guint i = 0; i < 2000; i++)
        g_string_append_printf (json, "%s%d", i ? "," : "", g_rand_int_range (rand, 0, 1000));
      g_string_append (json, "],\"y\":[");
      for (guint i = 0; i < 2000; i++)
        g_string_append_printf (json, "%s%d", i ? "," : "", g_rand_int_range (rand, 0, 1000));
      g_string_append (json, "]}");
    }
  g_string_append (json, "]}");
  chart = chart_from_string (json->str, NULL, NULL);
  g_assert_nonnull (chart);

  for (guint round = 0; round < 3; round++)
    {
      int w = round == 1 ? 500 : W, h = round == 1 ? 300 : H;

      if (round == 2)
        rk_chart_set_series_visible (chart, 1, FALSE);
      for (guint i = 0; i < 400; i++)
        {
          RkChartHit a, b;
          double x = g_rand_double_range (rand, 0, w);
          double y = g_rand_double_range (rand, 0, h);
          gboolean fa = rk_chart_hit_test (chart, w, h, x, y, &a);
          gboolean fb = _rk_chart_hit_test_uncached (chart, w, h, x, y, &b);

          g_assert_cmpint (fa, ==, fb);
          if (fa)
            {
              g_assert_cmpuint (a.series, ==, b.series);
              g_assert_cmpuint (a.index, ==, b.index);
              g_assert_cmpfloat (a.px, ==, b.px);
              if (round == 2)
                g_assert_cmpuint (a.series, !=, 1);
              found++;
            }
          agree++;
        }
    }
  g_assert_cmpuint (agree, ==, 1200);

  /* locating a point (keyboard moves) gives where hovering finds it */
  for (gsize i = 0; i < 2000; i += 97)
    {
      RkChartHit at, back;

      g_assert_true (rk_chart_locate (chart, W, H, 0, i, &at));
      g_assert_cmpuint (at.index, ==, i);
      g_assert_true (rk_chart_hit_test (chart, W, H, at.px, at.py, &back));
      g_assert_cmpfloat (hypot (back.px - at.px, back.py - at.py), <, 0.5);
    }
  g_assert_false (rk_chart_locate (chart, W, H, 1, 0, &(RkChartHit) { 0 }));   /* hidden */
  g_assert_false (rk_chart_locate (chart, W, H, 0, 2000, &(RkChartHit) { 0 }));
  g_assert_cmpuint (found, >, 100);
  g_rand_free (rand);
}

static void
count_cb (RkChart *chart,
          guint   *count)
{
  (*count)++;
}

static void
test_kinds_and_visibility (void)
{
  const char *cat =
    "{\"version\":1,\"kind\":\"bar\",\"title\":\"Sales\",\"x\":{\"type\":\"category\",\"label\":\"region\"},"
    "\"y\":{\"label\":\"units\"},\"stacked\":true,\"categories\":[\"North\",\"South\"],"
    "\"series\":[{\"name\":\"2024\",\"y\":[3,4]},{\"name\":\"2025\",\"y\":[10,20]}]}";
  const char *num =
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"name\":\"a\",\"x\":[1,2],\"y\":[5,6]}]}";
  const char *hist =
    "{\"version\":1,\"kind\":\"histogram\",\"series\":[{\"name\":\"h\",\"edges\":[0,1],\"counts\":[4]}]}";
  g_autoptr(RkChart) c = chart_from_string (cat, NULL, NULL);
  g_autoptr(RkChart) n = chart_from_string (num, NULL, NULL);
  g_autoptr(RkChart) h = chart_from_string (hist, NULL, NULL);
  g_autofree char *d1 = NULL;
  g_autofree char *d2 = NULL;
  cairo_surface_t *surface;
  guint changed = 0;
  RkChartHit hit;
  int legend = -1;

  g_assert_nonnull (c);
  g_signal_connect (c, "changed", G_CALLBACK (count_cb), &changed);

  /* bars on categories can be lines, areas, scatter; numbers cannot be bars */
  g_assert_true (rk_chart_can_show_as (c, RK_CHART_KIND_LINE));
  g_assert_true (rk_chart_can_show_as (c, RK_CHART_KIND_AREA));
  g_assert_true (rk_chart_can_show_as (c, RK_CHART_KIND_SCATTER));
  g_assert_false (rk_chart_can_show_as (c, RK_CHART_KIND_HISTOGRAM));
  g_assert_false (rk_chart_can_show_as (n, RK_CHART_KIND_BAR));
  g_assert_true (rk_chart_can_show_as (n, RK_CHART_KIND_SCATTER));
  g_assert_false (rk_chart_can_show_as (h, RK_CHART_KIND_LINE));
  g_assert_false (rk_chart_set_kind (h, RK_CHART_KIND_LINE));
  g_assert_cmpint (rk_chart_get_kind (h), ==, RK_CHART_KIND_HISTOGRAM);

  /* the description names the kind, title, axes, ranges and series */
  d1 = rk_chart_describe (c);
  g_assert_nonnull (strstr (d1, "Bar chart"));
  g_assert_nonnull (strstr (d1, "Sales"));
  g_assert_nonnull (strstr (d1, "region"));
  g_assert_nonnull (strstr (d1, "North"));
  g_assert_nonnull (strstr (d1, "units"));
  g_assert_nonnull (strstr (d1, "from 0 to 24"));  /* stacked: 4 + 20 */
  g_assert_nonnull (strstr (d1, "2025, 2 points, from 10 to 20"));

  /* hiding 2025 refits the axis to 2024 alone and hides it from hover */
  rk_chart_set_series_visible (c, 1, FALSE);
  g_assert_false (rk_chart_get_series_visible (c, 1));
  g_assert_cmpuint (changed, ==, 1);
  d2 = rk_chart_describe (c);
  g_assert_nonnull (strstr (d2, "from 0 to 4"));
  g_assert_null (strstr (d2, "2025"));
  for (double x = 60; x < W; x += 20)
    if (rk_chart_hit_test (c, W, H, x, H - 70, &hit))
      g_assert_cmpuint (hit.series, ==, 0);

  /* as lines, the stacking (an area and bar matter) is off */
  g_assert_true (rk_chart_set_kind (c, RK_CHART_KIND_LINE));
  g_assert_cmpint (rk_chart_get_kind (c), ==, RK_CHART_KIND_LINE);
  g_assert_cmpuint (changed, ==, 2);
  rk_chart_set_series_visible (c, 1, TRUE);
  g_clear_pointer (&d2, g_free);
  d2 = rk_chart_describe (c);
  g_assert_nonnull (strstr (d2, "Line chart"));
  g_assert_nonnull (strstr (d2, "from 3 to 20"));

  /* the legend: after a drawing, its entries can be hit */
  surface = render (c, W, H, RK_CHART_STYLE_LIGHT);
  cairo_surface_destroy (surface);
  for (double y = 0; y < 80 && legend < 0; y += 2)
    for (double x = 0; x < W && legend < 0; x += 4)
      legend = rk_chart_legend_hit_test (c, W, H, x, y);
  g_assert_cmpint (legend, ==, 0);
  g_assert_cmpint (rk_chart_legend_hit_test (c, W + 1, H, W / 2, 40), ==, -1);
  g_assert_cmpint (rk_chart_legend_hit_test (c, W, H, W / 2, H / 2), ==, -1);
}

/* ------------------------------------------------------------ export */

static void
test_export (Fixture *f, gconstpointer data)
{
  g_autofree char *spec = python_chart (f, "chart(pd.DataFrame({'m': ['Jan', 'Feb', 'Mar'], 'v': [3, 1, 2]}), kind='bar', x='m', title='Export')");
  g_autoptr(RkChart) chart = rk_chart_new_from_file (spec, NULL);
  static const struct { const char *ext; const char *magic; gsize len; } formats[] = {
    { "png", "\x89PNG\r\n\x1a\n", 8 }, { "svg", "<?xml", 5 }, { "pdf", "%PDF-", 5 },
  };

  g_assert_nonnull (chart);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *name = g_strdup_printf ("out.%s", formats[i].ext);
      g_autofree char *out = g_build_filename (f->dir, name, NULL);
      g_autofree char *contents = NULL;
      g_autoptr(GError) error = NULL;
      gsize len = 0;

      g_assert_true (rk_chart_export (chart, out, -1, 640, 480, RK_CHART_STYLE_LIGHT, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (out, &contents, &len, NULL));
      g_assert_cmpuint (len, >, 200);
      g_assert_cmpmem (contents, formats[i].len, formats[i].magic, formats[i].len);
      if (i == 1)
        g_assert_nonnull (strstr (contents, "<svg"));
    }

  /* the PNG reads back at its size */
  {
    g_autofree char *out = g_build_filename (f->dir, "out.png", NULL);
    cairo_surface_t *png = cairo_image_surface_create_from_png (out);
    g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
    g_assert_cmpint (cairo_image_surface_get_width (png), ==, 640);
    g_assert_cmpint (cairo_image_surface_get_height (png), ==, 480);
    cairo_surface_destroy (png);
  }

  /* the PDF rasterises (pdftoppm, when present) into a picture with the bars in it */
  {
    g_autofree char *pdftoppm = g_find_program_in_path ("pdftoppm");
    g_autofree char *pdf = g_build_filename (f->dir, "out.pdf", NULL);
    g_autofree char *prefix = g_build_filename (f->dir, "pdfpage", NULL);
    g_autofree char *png_path = g_strconcat (prefix, ".png", NULL);

    if (pdftoppm == NULL)
      g_test_message ("pdftoppm not found: PDF checked by its header only");
    else
      {
        const char *argv[] = { pdftoppm, "-png", "-r", "72", "-singlefile", pdf, prefix, NULL };
        int status = 0;
        cairo_surface_t *png;
        gboolean blue = FALSE;

        g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                                     NULL, NULL, &status, NULL));
        g_assert_true (g_spawn_check_wait_status (status, NULL));
        png = cairo_image_surface_create_from_png (png_path);
        g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
        g_assert_cmpint (cairo_image_surface_get_width (png), ==, 640);
        for (int y = 0; y < 480 && !blue; y += 4)
          for (int x = 0; x < 640 && !blue; x += 4)
            blue = near_color (pixel (png, x, y), LIGHT_BLUE, 30);
        g_assert_true (blue);
        cairo_surface_destroy (png);
      }
  }

  /* refused: unknown format, silly sizes, an unwritable place */
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *bad = g_build_filename (f->dir, "out.gif", NULL);
    g_assert_false (rk_chart_export (chart, bad, -1, 640, 480, RK_CHART_STYLE_LIGHT, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
    g_assert_false (rk_chart_export (chart, bad, RK_CHART_FORMAT_PNG, 100000, 480, RK_CHART_STYLE_LIGHT, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
    g_assert_false (rk_chart_export (chart, "/nonexistent/dir/x.png", -1, 640, 480, RK_CHART_STYLE_LIGHT, &error));
    g_assert_nonnull (error);
  }
}

/* ------------------------------------------------------------ hostile specs */

static void
test_hostile (void)
{
  static const char *bad[] = {
    "",
    "null",
    "[]",
    "{}",
    "{\"version\":2,\"kind\":\"line\",\"series\":[]}",
    "{\"version\":\"1\",\"kind\":\"line\",\"series\":[]}",
    "{\"version\":1,\"kind\":\"pie\",\"series\":[]}",
    "{\"version\":1,\"kind\":7,\"series\":[]}",
    "{\"version\":1,\"kind\":\"line\"}",
    "{\"version\":1,\"kind\":\"line\",\"series\":{}}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[1]}",
    "{\"version\":1,\"kind\":\"line\",\"title\":5,\"series\":[]}",
    "{\"version\":1,\"kind\":\"line\",\"x\":{\"type\":\"log\"},\"series\":[]}",
    "{\"version\":1,\"kind\":\"line\",\"x\":[],\"series\":[]}",
    "{\"version\":1,\"kind\":\"line\",\"stacked\":\"yes\",\"series\":[]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"x\":[1,2],\"y\":[1]}]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"x\":[1,2],\"y\":[1,\"2\"]}]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"x\":[1,2],\"y\":[1,[2]]}]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"x\":[1,2],\"y\":[1,true]}]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"y\":[1,2]}]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"x\":[1,2],\"y\":[1,NaN]}]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"x\":[1,2],\"y\":[1,Infinity]}]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"x\":[1,2],\"y\":[1,2]}]",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"name\":\"\xff\xfe\",\"x\":[1],\"y\":[1]}]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"name\":\"\xc3\",\"x\":[1],\"y\":[1]}]}",
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"name\":\"a\\u0000b\",\"x\":[1],\"y\":[1]}]}",
    "{\"version\":1,\"kind\":\"bar\",\"series\":[{\"y\":[1,2]}]}",
    "{\"version\":1,\"kind\":\"bar\",\"categories\":[\"a\"],\"series\":[{\"y\":[1,2]}]}",
    "{\"version\":1,\"kind\":\"bar\",\"categories\":[1,2],\"series\":[{\"y\":[1,2]}]}",
    "{\"version\":1,\"kind\":\"bar\",\"stacked\":true,\"categories\":[\"a\",\"b\"],\"series\":[{\"y\":[1,2]},{\"y\":[1]}]}",
    "{\"version\":1,\"kind\":\"area\",\"stacked\":true,\"series\":[{\"x\":[1,2],\"y\":[1,2]},{\"x\":[1],\"y\":[1]}]}",
    "{\"version\":1,\"kind\":\"histogram\",\"series\":[{\"edges\":[0,1],\"counts\":[1,2]}]}",
    "{\"version\":1,\"kind\":\"histogram\",\"series\":[{\"edges\":[1,0],\"counts\":[1]}]}",
    "{\"version\":1,\"kind\":\"histogram\",\"series\":[{\"edges\":[0,1],\"counts\":[-1]}]}",
    "{\"version\":1,\"kind\":\"histogram\",\"series\":[{\"edges\":[0,null],\"counts\":[1]}]}",
    "{\"version\":1,\"kind\":\"histogram\",\"series\":[{\"edges\":[],\"counts\":[]}]}",
    "{\"version\":1,\"kind\":\"box\",\"series\":[{\"q1\":1,\"median\":2,\"q3\":3,\"low\":0}]}",
    "{\"version\":1,\"kind\":\"box\",\"series\":[{\"q1\":3,\"median\":2,\"q3\":1,\"low\":0,\"high\":4}]}",
    "{\"version\":1,\"kind\":\"box\",\"series\":[{\"q1\":1,\"median\":2,\"q3\":3,\"low\":0,\"high\":1e999}]}",
    "{\"version\":1,\"kind\":\"box\",\"series\":[{\"q1\":1,\"median\":\"2\",\"q3\":3,\"low\":0,\"high\":4}]}",
    "{\"version\":1,\"kind\":\"box\",\"series\":[{\"q1\":1,\"median\":2,\"q3\":3,\"low\":0,\"high\":1e301}]}",
    /* binary references without a data file, or with a bad one */
    "{\"version\":1,\"kind\":\"line\",\"series\":[{\"x\":{\"offset\":0,\"count\":2},\"y\":[1,2]}]}",
    "{\"version\":1,\"kind\":\"line\",\"data\":\"c1.bin\",\"series\":[{\"x\":{\"offset\":0,\"count\":2},\"y\":[1,2]}]}",
    "{\"version\":1,\"kind\":\"line\",\"data\":5,\"series\":[]}",
  };
  GString *deep = g_string_new ("{\"version\":1,\"kind\":\"line\",\"series\":[{\"x\":");
  GString *many = g_string_new ("{\"version\":1,\"kind\":\"line\",\"series\":[");
  GString *cats = g_string_new ("{\"version\":1,\"kind\":\"bar\",\"categories\":[");
  GString *longname = g_string_new ("{\"version\":1,\"kind\":\"line\",\"title\":\"");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RkChart) chart = chart_from_string (bad[i], NULL, &error);

      g_autofree char *shown = g_strescape (bad[i], NULL);

      g_test_message ("hostile %u: %s", i, shown);
      g_assert_null (chart);
      g_assert_error (error, RK_PARSE_ERROR, error->code);
      g_assert_nonnull (error->message);
    }

  /* deep nesting is refused before json-glib recurses into it */
  for (int i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  for (int i = 0; i < 100000; i++)
    g_string_append_c (deep, ']');
  g_string_append (deep, ",\"y\":[]}]}");
  /* more series, categories and longer text than the limits */
  for (int i = 0; i < RK_CHART_MAX_SERIES + 1; i++)
    g_string_append_printf (many, "%s{\"x\":[1],\"y\":[1]}", i ? "," : "");
  g_string_append (many, "]}");
  for (int i = 0; i < RK_CHART_MAX_CATEGORIES + 1; i++)
    g_string_append_printf (cats, "%s\"c\"", i ? "," : "");
  g_string_append (cats, "],\"series\":[]}");
  for (int i = 0; i < RK_CHART_MAX_STRING + 1; i++)
    g_string_append_c (longname, 'a');
  g_string_append (longname, "\",\"series\":[]}");
  {
    GString *all[] = { deep, many, cats, longname };
    for (guint i = 0; i < G_N_ELEMENTS (all); i++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(RkChart) chart = chart_from_string (all[i]->str, NULL, &error);
        g_assert_null (chart);
        g_assert_error (error, RK_PARSE_ERROR, error->code);
        g_string_free (all[i], TRUE);
      }
  }

  /* accepted: gaps as null, values that overflow to infinity as gaps, unknown keys */
  {
    const char *ok = "{\"version\":1,\"kind\":\"line\",\"future\":{\"a\":[1]},"
                     "\"series\":[{\"x\":[1,2,3,4,-1e308],\"y\":[1,null,1e999,4,5],\"style\":\"dashed\"},"
                     "{\"x\":[1e300,-1e300],\"y\":[-1e300,1e300]}]}";
    g_autoptr(GError) error = NULL;
    g_autoptr(RkChart) chart = chart_from_string (ok, NULL, &error);
    g_assert_no_error (error);
    cairo_surface_destroy (render (chart, W, H, RK_CHART_STYLE_LIGHT));
  }
  /* an empty chart draws "No data" */
  {
    g_autoptr(RkChart) chart = chart_from_string ("{\"version\":1,\"kind\":\"scatter\",\"series\":[]}", NULL, NULL);
    RkChartHit hit;
    g_assert_nonnull (chart);
    cairo_surface_destroy (render (chart, W, H, RK_CHART_STYLE_DARK));
    g_assert_false (rk_chart_hit_test (chart, W, H, W / 2, H / 2, &hit));
  }
}

static gboolean
write_file (const char *dir, const char *name, const void *data, gsize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  return g_file_set_contents (path, data, (gssize) len, NULL);
}

static void
test_sidecar (Fixture *f, gconstpointer data)
{
  static const struct { const char *data_name; const char *ref; } bad[] = {
    { "../secret.bin", "{\"offset\":0,\"count\":2}" },
    { "/etc/passwd", "{\"offset\":0,\"count\":2}" },
    { "sub/ok.bin", "{\"offset\":0,\"count\":2}" },
    { "./ok.bin", "{\"offset\":0,\"count\":2}" },
    { "", "{\"offset\":0,\"count\":2}" },
    { "link.bin", "{\"offset\":0,\"count\":2}" },     /* a symlink to a file outside */
    { "fifo.bin", "{\"offset\":0,\"count\":2}" },     /* not a regular file */
    { "missing.bin", "{\"offset\":0,\"count\":2}" },
    { "ok.bin", "{\"offset\":8,\"count\":2}" },       /* past the end */
    { "ok.bin", "{\"offset\":4,\"count\":1}" },       /* misaligned */
    { "ok.bin", "{\"offset\":0,\"count\":-1}" },
    { "ok.bin", "{\"offset\":0,\"count\":1e300}" },
    { "ok.bin", "{\"offset\":0.5,\"count\":1}" },
    { "ok.bin", "{\"offset\":0,\"count\":\"2\"}" },
    { "ok.bin", "{\"offset\":-8,\"count\":1}" },
    { "ok.bin", "{\"count\":2}" },
  };
  double values[2] = { 1.5, 2.5 };
  guint64 le[2];
  g_autofree char *outside = g_build_filename (f->dir, "outside", NULL);
  g_autofree char *spec_dir = g_build_filename (f->dir, "charts", NULL);
  g_autofree char *sub = g_build_filename (spec_dir, "sub", NULL);
  g_autofree char *link = g_build_filename (spec_dir, "link.bin", NULL);
  g_autofree char *fifo = g_build_filename (spec_dir, "fifo.bin", NULL);
  g_autofree char *target = NULL;

  for (int i = 0; i < 2; i++)
    {
      memcpy (&le[i], &values[i], 8);
      le[i] = GUINT64_TO_LE (le[i]);
    }
  g_assert_cmpint (g_mkdir_with_parents (outside, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
  g_assert_true (write_file (outside, "secret.bin", le, sizeof le));
  g_assert_true (write_file (f->dir, "secret.bin", le, sizeof le));
  g_assert_true (write_file (spec_dir, "ok.bin", le, sizeof le));
  g_assert_true (write_file (sub, "ok.bin", le, sizeof le));
  target = g_build_filename (outside, "secret.bin", NULL);
  g_assert_cmpint (symlink (target, link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  /* the good case: read from beside the spec, little-endian float64 */
  {
    const char *json = "{\"version\":1,\"kind\":\"line\",\"data\":\"ok.bin\","
                       "\"series\":[{\"x\":[0,1],\"y\":{\"offset\":0,\"count\":2}}]}";
    g_autofree char *path = g_build_filename (spec_dir, "good.json", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(RkChart) chart = NULL;
    RkChartHit hit;

    g_assert_true (write_file (spec_dir, "good.json", json, strlen (json)));
    chart = rk_chart_new_from_file (path, &error);
    g_assert_no_error (error);
    g_assert_true (rk_chart_hit_test (chart, W, H, W - 20, H / 2, &hit));
    g_assert_cmpfloat (hit.y, ==, 2.5);
    /* from bytes, without a folder, sidecars are refused */
    {
      g_autoptr(GError) e2 = NULL;
      g_autoptr(RkChart) c2 = chart_from_string (json, NULL, &e2);
      g_assert_null (c2);
      g_assert_error (e2, RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);
    }
  }

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"version\":1,\"kind\":\"line\",\"data\":\"%s\","
                                               "\"series\":[{\"x\":[0,1],\"y\":%s}]}",
                                               bad[i].data_name, bad[i].ref);
      g_autofree char *path = g_build_filename (spec_dir, "bad.json", NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(RkChart) chart = NULL;

      g_test_message ("sidecar %u: %s %s", i, bad[i].data_name, bad[i].ref);
      g_assert_true (write_file (spec_dir, "bad.json", json, strlen (json)));
      chart = rk_chart_new_from_file (path, &error);
      g_assert_null (chart);
      g_assert_error (error, RK_PARSE_ERROR, error->code);
    }

  /* the spec itself, when a symlink, is not followed either */
  {
    g_autofree char *spec_link = g_build_filename (spec_dir, "linked.json", NULL);
    g_autofree char *real = g_build_filename (spec_dir, "good.json", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(RkChart) chart = NULL;

    g_assert_cmpint (symlink (real, spec_link), ==, 0);
    chart = rk_chart_new_from_file (spec_link, &error);
    g_assert_null (chart);
    g_assert_nonnull (error);
  }
}

/* reckon-cli chart: the same code from a terminal, with exit statuses */
static void
test_cli (Fixture *f, gconstpointer data)
{
  const char *build = g_getenv ("RECKON_BUILD_ROOT");
  g_autofree char *cli = NULL;
  g_autofree char *spec = NULL;
  g_autofree char *bad = g_build_filename (f->dir, "bad.json", NULL);
  g_autofree char *png = g_build_filename (f->dir, "cli.png", NULL);
  g_autofree char *svg = g_build_filename (f->dir, "cli.svg", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  gsize len = 0;

  if (build == NULL)
    {
      g_test_skip ("RECKON_BUILD_ROOT is not set: run through meson test");
      return;
    }
  cli = g_build_filename (build, "src", "cli", "reckon-cli", NULL);
  if (!g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("reckon-cli is not built");
      return;
    }
  spec = python_chart (f, "chart(pd.DataFrame({'a': [1, 3, 2]}), kind='area', title='CLI')");

  {
    const char *argv[] = { cli, "chart", spec, "--out", png, "--width", "320", "--height", "200", "--dark", NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_true (g_file_get_contents (png, &contents, &len, NULL));
    g_assert_cmpmem (contents, 8, "\x89PNG\r\n\x1a\n", 8);
    {
      cairo_surface_t *s = cairo_image_surface_create_from_png (png);
      g_assert_cmpint (cairo_image_surface_get_width (s), ==, 320);
      g_assert_cmphex (pixel (s, 1, 1), ==, DARK_BG);
      cairo_surface_destroy (s);
    }
  }
  {
    const char *argv[] = { cli, "chart", spec, "--out", svg, NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_true (g_file_test (svg, G_FILE_TEST_IS_REGULAR));
  }
  /* a broken spec: status 1 and one line saying why */
  {
    const char *argv[] = { cli, "chart", bad, "--out", png, NULL };
    g_assert_true (g_file_set_contents (bad, "{\"version\":1,\"kind\":\"pie\",\"series\":[]}", -1, NULL));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL));
    g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 1);
    g_assert_nonnull (strstr (err, "unknown kind"));
  }
  /* no --out: usage, status 2 */
  {
    const char *argv[] = { cli, "chart", spec, NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, NULL));
    g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 2);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/chart/ticks/nice", test_nice_ticks);
  g_test_add_func ("/rk/chart/ticks/time", test_time_ticks);
  g_test_add_func ("/rk/chart/ticks/format", test_format_number);
  g_test_add ("/rk/chart/python/every-kind", Fixture, NULL, fixture_setup, test_python_kinds, fixture_teardown);
  g_test_add ("/rk/chart/python/emit", Fixture, NULL, fixture_setup, test_python_emit, fixture_teardown);
  g_test_add_func ("/rk/chart/draw/pixels", test_draw_pixels);
  g_test_add_func ("/rk/chart/draw/bars", test_draw_bars);
  g_test_add ("/rk/chart/draw/decimation-spike", Fixture, NULL, fixture_setup, test_decimation_spike, fixture_teardown);
  g_test_add_func ("/rk/chart/hit-test/exact", test_hit_exact);
  g_test_add_func ("/rk/chart/hit-test/cache", test_hit_cache);
  g_test_add_func ("/rk/chart/kinds-and-visibility", test_kinds_and_visibility);
  g_test_add ("/rk/chart/export", Fixture, NULL, fixture_setup, test_export, fixture_teardown);
  g_test_add ("/rk/chart/cli", Fixture, NULL, fixture_setup, test_cli, fixture_teardown);
  g_test_add_func ("/rk/chart/hostile/specs", test_hostile);
  g_test_add ("/rk/chart/hostile/sidecar", Fixture, NULL, fixture_setup, test_sidecar, fixture_teardown);

  return g_test_run ();
}
