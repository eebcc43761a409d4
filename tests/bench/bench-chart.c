/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-chart.c — a 1,000,000-point line chart drawn to an 800×600 PNG by
 * RkChart, against matplotlib drawing the same series in the same run. */
#define G_LOG_DOMAIN "bench-chart"
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rk-chart.h"
#include "rk-util.h"

#define RUNS 5
#define TARGET 10.0

/* Writes the series with the real reckon.chart helper, then times matplotlib
 * (Agg, default settings) on the same arrays: figure creation, plot and
 * savefig to PNG only — imports and data generation are outside the timing. */
static const char *python_script =
  "import sys, time, json, statistics\n"
  "import numpy as np\n"
  "import matplotlib\n"
  "matplotlib.use('Agg')\n"
  "import matplotlib.pyplot as plt\n"
  "from reckon.chart import chart\n"
  "rng = np.random.default_rng(7)\n"
  "n = 1_000_000\n"
  "x = np.arange(n, dtype=np.float64)\n"
  "y = np.cumsum(rng.normal(size=n))\n"
  "y[654321] += 500.0\n"
  "spec = chart(x, y=y, title='One million points').path\n"
  "runs = int(sys.argv[1]); out = sys.argv[2]\n"
  "times = []; cpu = []\n"
  "for i in range(runs):\n"
  "    t0 = time.perf_counter(); c0 = time.process_time()\n"
  "    fig, ax = plt.subplots(figsize=(8, 6), dpi=100)\n"
  "    ax.plot(x, y, linewidth=1)\n"
  "    ax.set_title('One million points')\n"
  "    fig.savefig(out, format='png')\n"
  "    plt.close(fig)\n"
  "    times.append(time.perf_counter() - t0); cpu.append(time.process_time() - c0)\n"
  "print(json.dumps({'spec': spec, 'times': times, 'cpu': cpu, 'mpl': matplotlib.__version__}))\n";

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rk-bench-chart-XXXXXX", &error);
  g_autofree char *mpl_png = NULL;
  g_autofree char *rk_png = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(RkChart) chart = NULL;
  g_autofree char *spec = NULL;
  g_autofree char *mpl_version = NULL;
  double mpl[RUNS], rk[RUNS], mpl_cpu[RUNS], rk_cpu[RUNS], parse_s, m_mpl, m_rk, ratio, c_mpl, c_rk, cratio;
  int status = 0;
  char runs_s[16];
  const char *pyargv[] = { rk_python_path (), "-B", "-c", python_script, runs_s, NULL, NULL };
  gint64 t0;

  g_assert_no_error (error);
  mpl_png = g_build_filename (dir, "matplotlib.png", NULL);
  rk_png = g_build_filename (dir, "rkchart.png", NULL);
  g_snprintf (runs_s, sizeof runs_s, "%d", RUNS);
  pyargv[5] = mpl_png;

  env = g_environ_setenv (env, "PYTHONPATH", rk_kernel_dir (), TRUE);
  env = g_environ_setenv (env, "RECKON_WORKSPACE", dir, TRUE);
  env = g_environ_setenv (env, "MPLBACKEND", "Agg", TRUE);
  env = g_environ_setenv (env, "MPLCONFIGDIR", dir, TRUE);
  if (!g_spawn_sync (dir, (char **) pyargv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      printf ("1..0 # SKIP python3 with numpy and matplotlib is needed: %s\n",
              error ? error->message : err);
      return 0;
    }

  {
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *o;
    JsonArray *times;

    if (!json_parser_load_from_data (parser, out, -1, &error))
      g_error ("unexpected output from python: %s", out);
    o = json_node_get_object (json_parser_get_root (parser));
    spec = g_strdup (json_object_get_string_member (o, "spec"));
    mpl_version = g_strdup (json_object_get_string_member (o, "mpl"));
    times = json_object_get_array_member (o, "times");
    for (int i = 0; i < RUNS; i++)
      {
        mpl[i] = json_array_get_double_element (times, i);
        mpl_cpu[i] = json_array_get_double_element (json_object_get_array_member (o, "cpu"), i);
      }
  }

  t0 = g_get_monotonic_time ();
  chart = rk_chart_new_from_file (spec, &error);
  parse_s = (g_get_monotonic_time () - t0) / 1e6;
  g_assert_no_error (error);

  for (int i = 0; i < RUNS; i++)
    {
      struct timespec c0, c1;

      clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &c0);
      t0 = g_get_monotonic_time ();
      if (!rk_chart_export (chart, rk_png, RK_CHART_FORMAT_PNG, 800, 600, RK_CHART_STYLE_LIGHT, &error))
        g_error ("%s", error->message);
      rk[i] = (g_get_monotonic_time () - t0) / 1e6;
      clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &c1);
      rk_cpu[i] = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9;
    }

  m_mpl = median (mpl, RUNS);
  m_rk = median (rk, RUNS);
  c_mpl = median (mpl_cpu, RUNS);
  c_rk = median (rk_cpu, RUNS);
  ratio = m_mpl / m_rk;
  cratio = c_mpl / c_rk;
  printf ("# 1,000,000-point line chart to an 800x600 PNG, median of %d runs each, same run;\n", RUNS);
  printf ("# timed: drawing + PNG encoding + writing only (no imports, no data generation, no spec parsing)\n");
  printf ("# the machine is shared: CPU time is the steadier figure, wall time is shown too\n");
  printf ("matplotlib %s (Agg, defaults): wall %.1f ms, cpu %.1f ms\n", mpl_version, m_mpl * 1e3, c_mpl * 1e3);
  printf ("RkChart (Cairo, min/max decimation): wall %.1f ms, cpu %.1f ms\n", m_rk * 1e3, c_rk * 1e3);
  printf ("RkChart spec + 16 MB sidecar parse (once, not in the ratio): wall %.1f ms\n", parse_s * 1e3);
  printf ("ratio (cpu): %.1fx faster, ratio (wall): %.1fx faster; target: at least %.0fx — %s\n",
          cratio, ratio, TARGET, cratio >= TARGET ? "met" : "NOT met");
  if (g_getenv ("RECKON_BENCH_KEEP") != NULL)
    printf ("outputs: %s %s\n", rk_png, mpl_png);
  else
    printf ("# set RECKON_BENCH_KEEP=1 to keep both pictures for a look\n");

  /* leave the two pictures for a look when asked, else clean up */
  if (g_getenv ("RECKON_BENCH_KEEP") == NULL)
    {
      g_autofree char *charts = g_build_filename (dir, ".reckon", "charts", NULL);
      g_autoptr(GDir) d = g_dir_open (charts, 0, NULL);
      const char *name;

      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *p = g_build_filename (charts, name, NULL);
          g_unlink (p);
        }
      g_rmdir (charts);
      {
        g_autofree char *reckon = g_build_filename (dir, ".reckon", NULL);
        g_rmdir (reckon);
      }
      g_unlink (rk_png);
      g_unlink (mpl_png);
      /* matplotlib may leave its cache here */
      {
        g_autoptr(GDir) d2 = g_dir_open (dir, 0, NULL);
        while (d2 != NULL && (name = g_dir_read_name (d2)) != NULL)
          {
            g_autofree char *p = g_build_filename (dir, name, NULL);
            g_unlink (p);
          }
      }
      g_rmdir (dir);
    }
  return 0;
}
