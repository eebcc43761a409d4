/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-export.c — a 20-cell conversation (printed output, tables, figures,
 * native charts) exported to a notebook by rk_transcript_to_notebook, against
 * `jupyter nbconvert --to html` of that same notebook, in the same run. */
#include "config.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk-transcript.h"

#define CELLS    20
#define RUNS_RK  15
#define RUNS_NBC 3

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
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static gboolean
run (const char * const *argv,
     char              **out)
{
  int status = -1;

  return g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, NULL, &status, NULL) &&
         g_spawn_check_wait_status (status, NULL);
}

int
main (int argc, char **argv)
{
  const char *kernel_dir = g_getenv ("RECKON_KERNEL_DIR");
  g_autoptr(GError) error = NULL;
  g_autofree char *ws = g_dir_make_tmp ("rk-bench-export-XXXXXX", &error);
  g_autofree char *script = NULL;
  g_autofree char *nb_path = g_build_filename (ws, "bench.ipynb", NULL);
  g_autofree char *html_path = g_build_filename (ws, "bench.html", NULL);
  g_autoptr(RkWorkspace) handle = rk_workspace_open (ws, NULL);
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  double rk[RUNS_RK], nbc[RUNS_NBC], m_rk, m_nbc;
  g_autofree char *notebook = NULL;
  gsize nb_size = 0;

  if (kernel_dir == NULL)
    {
      printf ("1..0 # SKIP RECKON_KERNEL_DIR is not set: run through meson test --benchmark\n");
      return 0;
    }
  {
    const char *check[] = { "/usr/bin/python3", "-c", "import nbconvert, pandas, matplotlib", NULL };
    if (!run (check, NULL))
      {
        printf ("1..0 # SKIP python3-nbconvert (or pandas, matplotlib) is not installed\n");
        return 0;
      }
  }

  /* the outputs of a real analysis: tables by the kernel's writer, figures by matplotlib */
  script = g_strdup_printf (
    "import sys, os, json\nsys.path.insert(0, %s)\n"
    "import numpy as np, pandas as pd, matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
    "from reckon import table\nws = %s\nos.makedirs(ws + '/tables'); os.makedirs(ws + '/figures'); os.makedirs(ws + '/charts')\n"
    "rng = np.random.default_rng(1)\n"
    "for i in range(%d):\n"
    "    df = pd.DataFrame({'region': rng.choice(['North', 'South', 'East'], 500), 'units': rng.integers(0, 1000, 500),\n"
    "                       'price': rng.normal(10, 2, 500).round(2)})\n"
    "    table.write(df, ws + '/tables/t%%d.rkt' %% i)\n"
    "    fig, ax = plt.subplots(); ax.plot(df.units.cumsum()); fig.savefig(ws + '/figures/f%%d.png' %% i, dpi=100); plt.close(fig)\n"
    "    json.dump({'version': 1, 'kind': 'bar', 'title': 'Cell %%d' %% i, 'x': {'type': 'category'},\n"
    "               'categories': ['North', 'South', 'East'],\n"
    "               'series': [{'name': 'units', 'y': [float(v) for v in df.groupby('region').units.sum().reindex(['North', 'South', 'East'])]}]},\n"
    "              open(ws + '/charts/c%%d.json' %% i, 'w'))\n",
    "sys.argv[1]", "sys.argv[2]", CELLS);
  {
    const char *gen[] = { "/usr/bin/python3", "-c", script, kernel_dir, ws, NULL };
    g_assert_true (run (gen, NULL));
  }

  rk_transcript_add_user (t, "Summarise sales per region, cell by cell.", NULL);
  for (guint i = 0; i < CELLS; i++)
    {
      g_autofree char *cell = g_strdup_printf ("c%u", i);
      g_autofree char *code = g_strdup_printf ("df = reckon.load('sales-%u.csv')\nprint(df.describe())\ndf", i);
      g_autofree char *tpath = g_strdup_printf ("tables/t%u.rkt", i);
      g_autofree char *fpath = g_strdup_printf ("figures/f%u.png", i);
      g_autofree char *cpath = g_strdup_printf ("charts/c%u.json", i);
      RkTranscriptArtifact table = { RK_ENTRY_TABLE, tpath, NULL, "df", 0, 0, 500, 3 };
      RkTranscriptArtifact figure = { RK_ENTRY_FIGURE, fpath, "image/png", NULL, 640, 480, 0, 0 };
      RkTranscriptArtifact chart = { RK_ENTRY_CHART, cpath, NULL, "Units", 0, 0, 0, 0 };

      rk_transcript_add_code (t, cell, code, 0);
      rk_transcript_add_approval (t, cell, RK_DECISION_APPROVED, NULL);
      rk_transcript_add_stream (t, cell, RK_STREAM_STDOUT,
                                "            units       price\ncount  500.000000  500.000000\nmean   497.1  10.02\n");
      rk_transcript_add_artifact (t, cell, &table);
      rk_transcript_add_result (t, cell, "  region  units  price\n0  North    12   9.81\n...");
      rk_transcript_add_artifact (t, cell, &figure);
      rk_transcript_add_artifact (t, cell, &chart);
      rk_transcript_add_assistant (t, "The **North** leads this month.");
    }
  rk_transcript_add_answer (t, "North sold the most.");

  for (int r = 0; r < RUNS_RK; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autofree char *nb = rk_transcript_to_notebook (t, handle, NULL, NULL);

      rk[r] = (g_get_monotonic_time () - t0) / 1e6;
      if (r == 0)
        notebook = g_steal_pointer (&nb);
    }
  nb_size = strlen (notebook);
  g_assert_true (g_file_set_contents (nb_path, notebook, -1, NULL));

  for (int r = 0; r < RUNS_NBC; r++)
    {
      const char *conv[] = { "/usr/bin/python3", "-m", "nbconvert", "--to", "html", "--log-level", "ERROR",
                             "--output", html_path, nb_path, NULL };
      gint64 t0 = g_get_monotonic_time ();

      g_assert_true (run (conv, NULL));
      nbc[r] = (g_get_monotonic_time () - t0) / 1e6;
    }
  m_rk = median (rk, RUNS_RK);
  m_nbc = median (nbc, RUNS_NBC);

  printf ("# %d-cell conversation (stdout, a 500-row table, a figure and a native chart a cell), medians of one run\n", CELLS);
  printf ("rk_transcript_to_notebook: %.1f ms (%d runs), notebook %.1f MB\n", m_rk * 1e3, RUNS_RK, nb_size / 1e6);
  printf ("jupyter nbconvert --to html of that notebook: %.1f ms (%d runs, python start-up included)\n",
          m_nbc * 1e3, RUNS_NBC);
  printf ("ratio: %.1fx faster; target: faster than nbconvert — %s\n", m_nbc / m_rk, m_rk < m_nbc ? "MET" : "NOT MET");

  {
    const char *rm[] = { "rm", "-rf", ws, NULL };
    if (strstr (ws, "rk-bench-export-") != NULL)
      g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  return 0;
}
