/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-chart-hover.c — hovering a 1,000,000-point chart: rk_chart_hit_test
 * with its cached layout (and scatter grid) against the uncached peer measured
 * in the same run (a fresh layout on a scratch surface and a scan per motion). */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk-chart.h"
#include "rk-chart-private.h"

#define N_POINTS  1000000
#define MOTIONS   200
#define W         900
#define H         600
#define TARGET_MS 2.0

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

static double
percentile (double *v,
            int     n,
            double  p)
{
  qsort (v, n, sizeof *v, compare_double);
  return v[MIN (n - 1, (int) floor (p * n))];
}

/* A spec with one series of N_POINTS in a sidecar beside it. */
static RkChart *
make_chart (const char *dir,
            const char *kind,
            gboolean    sorted_x)
{
  g_autofree double *data = g_new (double, 2 * (gsize) N_POINTS);
  g_autofree char *bin = g_build_filename (dir, "c.bin", NULL);
  g_autofree char *spec = g_build_filename (dir, "c.json", NULL);
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (42);
  RkChart *chart;

  for (gsize i = 0; i < N_POINTS; i++)
    {
      data[i] = sorted_x ? (double) i : g_rand_double_range (rand, 0, 1000);
      data[N_POINTS + i] = sorted_x ? sin (i / 5000.0) * 100 + g_rand_double_range (rand, -5, 5)
                                    : g_rand_double_range (rand, 0, 1000);
    }
  g_rand_free (rand);
  g_assert_true (g_file_set_contents (bin, (const char *) data, 2 * (gsize) N_POINTS * sizeof (double), NULL));
  json = g_strdup_printf ("{\"version\":1,\"kind\":\"%s\",\"title\":\"hover\",\"data\":\"c.bin\","
                          "\"series\":[{\"name\":\"s\",\"x\":{\"offset\":0,\"count\":%d},"
                          "\"y\":{\"offset\":%d,\"count\":%d}}]}",
                          kind, N_POINTS, N_POINTS * 8, N_POINTS);
  g_assert_true (g_file_set_contents (spec, json, -1, NULL));
  chart = rk_chart_new_from_file (spec, &error);
  g_assert_no_error (error);
  return chart;
}

typedef gboolean (*HitFunc) (RkChart *, double, double, double, double, RkChartHit *);

/* Milliseconds per motion along a sweep of the plot, into @out. */
static guint
sweep (RkChart *chart,
       HitFunc  hit_func,
       double  *out)
{
  guint hits = 0;

  for (int i = 0; i < MOTIONS; i++)
    {
      RkChartHit hit;
      double x = 80 + (W - 120) * (i + 0.5) / MOTIONS;
      double y = 60 + (H - 140) * (0.5 + 0.45 * sin (i * 0.37));
      gint64 t0 = g_get_monotonic_time ();

      if (hit_func (chart, W, H, x, y, &hit))
        hits++;
      out[i] = (g_get_monotonic_time () - t0) / 1e3;
    }
  return hits;
}

static gboolean
run (const char *dir,
     const char *kind,
     gboolean    sorted_x)
{
  g_autoptr(RkChart) chart = make_chart (dir, kind, sorted_x);
  double cached[MOTIONS], uncached[MOTIONS];
  double first, med_c, p95_c, med_u;
  guint hits_c, hits_u;
  gint64 t0;
  RkChartHit hit;

  /* the first motion after a resize builds the layout (and grid) */
  t0 = g_get_monotonic_time ();
  rk_chart_hit_test (chart, W, H, W / 2.0, H / 2.0, &hit);
  first = (g_get_monotonic_time () - t0) / 1e3;

  hits_c = sweep (chart, rk_chart_hit_test, cached);
  hits_u = sweep (chart, _rk_chart_hit_test_uncached, uncached);
  med_c = percentile (cached, MOTIONS, 0.5);
  p95_c = percentile (cached, MOTIONS, 0.95);
  med_u = percentile (uncached, MOTIONS, 0.5);

  printf ("%s, 1,000,000 points, %d motions over %dx%d:\n", kind, MOTIONS, W, H);
  printf ("  cached layout%s: median %.3f ms, p95 %.3f ms a motion (%u hits); first motion after a resize %.1f ms\n",
          sorted_x ? "" : " + grid", med_c, p95_c, hits_c, first);
  printf ("  peer, layout rebuilt on a scratch surface%s: median %.3f ms a motion (%u hits)\n",
          sorted_x ? "" : " + scan of every point", med_u, hits_u);
  printf ("  ratio: %.1fx faster; target: under %.1f ms a motion (p95) — %s\n",
          med_u / MAX (med_c, 1e-6), TARGET_MS, p95_c < TARGET_MS ? "MET" : "NOT MET");
  return hits_c == hits_u;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rk-bench-hover-XXXXXX", &error);
  gboolean same;

  g_assert_no_error (error);
  printf ("# chart hover: rk_chart_hit_test per pointer motion, medians of one run\n");
  same = run (dir, "line", TRUE);
  same = run (dir, "scatter", FALSE) && same;
  printf ("# cached and peer found the same number of points: %s\n", same ? "yes" : "NO");

  {
    g_autofree char *bin = g_build_filename (dir, "c.bin", NULL);
    g_autofree char *spec = g_build_filename (dir, "c.json", NULL);
    g_unlink (bin);
    g_unlink (spec);
    g_rmdir (dir);
  }
  return same ? 0 : 1;
}
