/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-profile.c — profiling a 100 MB mixed-type CSV through reckon-sandbox
 * (rk_profile_files) against plain pandas.read_csv of the same file, in the
 * same run. Target: the profile under 3 s. Prints medians and the ratio. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "rk-profile.h"

#define RUNS 3
#define TARGET_S 3.0

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* CPU seconds used by finished children so far: robust against the load
 * of a shared machine, where wall time is not. */
static double
children_cpu (void)
{
  struct rusage ru;

  getrusage (RUSAGE_CHILDREN, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double
median (double *v,
        int     n)
{
  qsort (v, n, sizeof *v, compare_doubles);
  return v[n / 2];
}

int
main (int    argc,
      char **argv)
{
  const char *build = g_getenv ("RECKON_BUILD_ROOT");
  const char *source = g_getenv ("RECKON_SOURCE_ROOT");
  const char *sandbox = g_getenv ("RECKON_SANDBOX");
  g_autofree char *ws = g_build_filename (build ? build : ".", "bench-profile-ws", NULL);
  g_autofree char *csv = g_build_filename (ws, "bench.csv", NULL);
  g_autoptr(RkWorkspace) handle = NULL;
  g_autofree char *script = g_build_filename (source ? source : ".", "tests", "integration",
                                              "make-import-fixtures.py", NULL);
  g_autofree char *pandas_code = NULL;
  double profile_s[RUNS], pandas_s[RUNS], profile_cpu[RUNS], pandas_cpu[RUNS];
  const char *names[] = { "bench.csv", NULL };
  struct stat st;
  guint64 rows = 0;

  if (sandbox == NULL || !g_file_test (sandbox, G_FILE_TEST_IS_EXECUTABLE))
    {
      printf ("bench-profile: skipped, reckon-sandbox is not built (RECKON_SANDBOX)\n");
      return 77;
    }
  /* reckon-sandbox (as root) opens the workspace as an unprivileged user. */
  g_mkdir_with_parents (ws, 0755);
  chmod (ws, 0755);
  handle = rk_workspace_open (ws, NULL);
  if (stat (csv, &st) != 0 || st.st_size < 100 * 1000 * 1000)
    {
      const char *gen[] = { "/usr/bin/python3", script, csv, "bench-csv", "100", NULL };
      g_autoptr(GError) error = NULL;
      int status = 0;

      printf ("bench-profile: generating %s (once)\n", csv);
      if (!g_spawn_sync (NULL, (char **) gen, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error) ||
          !g_spawn_check_wait_status (status, &error) || stat (csv, &st) != 0)
        {
          fprintf (stderr, "bench-profile: cannot make the CSV: %s\n", error ? error->message : "?");
          return 1;
        }
    }

  {
    g_autofree char *quoted = g_strescape (csv, NULL);

    pandas_code = g_strdup_printf ("import pandas; pandas.read_csv(\"%s\")", quoted);
  }

  for (int i = 0; i < RUNS; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) profiles = NULL;
      const char *py[] = { "/usr/bin/python3", "-c", pandas_code, NULL };
      gint64 t0 = g_get_monotonic_time ();
      double c0 = children_cpu ();
      int status = 0;

      profiles = rk_profile_files (handle, names, NULL, NULL, &error);
      profile_s[i] = (g_get_monotonic_time () - t0) / 1e6;
      profile_cpu[i] = children_cpu () - c0;
      if (profiles == NULL || ((RkFileProfile *) g_ptr_array_index (profiles, 0))->error != NULL)
        {
          fprintf (stderr, "bench-profile: profile failed: %s\n",
                   profiles ? ((RkFileProfile *) g_ptr_array_index (profiles, 0))->error : error->message);
          return 1;
        }
      rows = ((RkTableProfile *) g_ptr_array_index (((RkFileProfile *) g_ptr_array_index (profiles, 0))->tables, 0))->rows;

      t0 = g_get_monotonic_time ();
      c0 = children_cpu ();
      if (!g_spawn_sync (NULL, (char **) py, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error) ||
          !g_spawn_check_wait_status (status, &error))
        {
          fprintf (stderr, "bench-profile: pandas failed: %s\n", error->message);
          return 1;
        }
      pandas_s[i] = (g_get_monotonic_time () - t0) / 1e6;
      pandas_cpu[i] = children_cpu () - c0;
    }

  {
    double p = median (profile_s, RUNS), q = median (pandas_s, RUNS);
    double pc = median (profile_cpu, RUNS), qc = median (pandas_cpu, RUNS);

    printf ("bench-profile: %.1f MB CSV, %" G_GUINT64_FORMAT " rows, medians of %d runs\n",
            st.st_size / 1e6, rows, RUNS);
    printf ("                               wall      CPU\n");
    printf ("  reckon profile in sandbox:   %6.2f s  %6.2f s\n", p, pc);
    printf ("  python3 pandas.read_csv:     %6.2f s  %6.2f s\n", q, qc);
    printf ("  ratio profile/pandas:        %6.2f    %6.2f\n", p / q, pc / qc);
    printf ("  target: profile < %.1f s wall: %s (CPU %s)\n", TARGET_S,
            p < TARGET_S ? "met" : "NOT met", pc < TARGET_S ? "under it" : "over it");
  }
  return 0;
}
