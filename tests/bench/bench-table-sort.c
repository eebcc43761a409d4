/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-table-sort.c — sorting a 1,000,000-row table as a header click does
 * (rk_table_sort: a stable permutation, nulls last) against pandas'
 * sort_values (kind="stable") on the same data, timed in the same run. */
#include "config.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk-table.h"

#define N_ROWS 1000000
#define RUNS   3

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

static double
median (double *v,
        int     n)
{
  qsort (v, n, sizeof *v, compare_double);
  return v[n / 2];
}

int
main (int argc, char **argv)
{
  const char *kernel_dir = g_getenv ("RECKON_KERNEL_DIR");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rk-bench-sort-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "t.rkt", NULL);
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;
  g_autoptr(RkTable) table = NULL;
  static const char *names[] = { "int", "float", "text" };
  double pandas_ms[3] = { 0 };
  int status = -1;
  gboolean all_met = TRUE;

  if (kernel_dir == NULL)
    {
      printf ("1..0 # SKIP RECKON_KERNEL_DIR is not set: run through meson test --benchmark\n");
      return 0;
    }
  /* the data, written by the kernel's own writer; pandas times its sorts here too */
  script = g_strdup_printf (
    "import sys, time\nsys.path.insert(0, sys.argv[1])\nimport numpy as np, pandas as pd\nfrom reckon import table\n"
    "rng = np.random.default_rng(11)\nn = %d\n"
    "f = rng.normal(0, 1e6, n); f[rng.random(n) < 0.01] = np.nan\n"
    "df = pd.DataFrame({'int': rng.integers(-10**9, 10**9, n), 'float': f,\n"
    "                   'text': pd.Series(rng.integers(0, 10**7, n)).map(lambda v: 'item-%%07d' %% v)})\n"
    "table.write(df, sys.argv[2])\n"
    "for c in ('int', 'float', 'text'):\n"
    "    times = []\n"
    "    for _ in range(%d):\n"
    "        t0 = time.perf_counter(); df.sort_values(c, kind='stable', na_position='last'); times.append(time.perf_counter() - t0)\n"
    "    print(sorted(times)[len(times) // 2] * 1e3)\n",
    N_ROWS, RUNS);
  {
    const char *argv_py[] = { "/usr/bin/python3", "-c", script, kernel_dir, path, NULL };

    if (!g_spawn_sync (NULL, (char **) argv_py, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, NULL) ||
        !g_spawn_check_wait_status (status, NULL))
      {
        printf ("1..0 # SKIP python3 with numpy and pandas is needed\n");
        return 0;
      }
  }
  {
    g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
    for (guint i = 0; i < 3 && lines[i] != NULL; i++)
      pandas_ms[i] = g_ascii_strtod (lines[i], NULL);
  }

  table = rk_table_open (path, &error);
  g_assert_no_error (error);
  printf ("# 1,000,000 rows, stable sort ascending, nulls last; medians of %d runs, same run\n", RUNS);
  for (guint c = 0; c < 3; c++)
    {
      double rk[RUNS], m;

      for (int r = 0; r < RUNS; r++)
        {
          gint64 t0;

          g_assert_true (rk_table_sort (table, -1, TRUE, NULL));
          t0 = g_get_monotonic_time ();
          g_assert_true (rk_table_sort (table, (int) c, TRUE, &error));
          rk[r] = (g_get_monotonic_time () - t0) / 1e3;
        }
      m = median (rk, RUNS);
      printf ("%-5s column: rk_table_sort %.0f ms, pandas sort_values %.0f ms; ratio %.2fx (%s)\n",
              names[c], m, pandas_ms[c], pandas_ms[c] / m, m <= pandas_ms[c] ? "faster" : "slower");
      all_met = all_met && m <= pandas_ms[c] * 1.5;
    }
  printf ("target: within 1.5x of pandas on every column type — %s\n", all_met ? "MET" : "NOT MET");

  g_unlink (path);
  g_rmdir (dir);
  return 0;
}
