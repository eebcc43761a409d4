/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-diff.c — rk_diff_unified against GNU `diff -u` on two 5,000-line
 * files: a realistic revision (~2% of lines edited) and a worst-ish case. */
#include "config.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk-diff.h"

#define LINES 5000
#define RUNS  11

static guint64 rng = 0x2545f4914f6cdd1dull;

static guint
rnd (guint n)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (guint) (rng % n);
}

static double
now (void)
{
  return (double) g_get_monotonic_time () / 1e3;
}

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

/* A line of plausible analysis code; blank lines and a few stock lines
 * repeat, as in real files. */
static char *
code_line (void)
{
  switch (rnd (10))
    {
    case 0:
      return g_strdup ("");
    case 1:
      return g_strdup ("    return result");
    case 2:
      return g_strdup_printf ("def step_%u(df):", rnd (100000));
    default:
      return g_strdup_printf ("    col_%u = df['%c%u'].%s() * %u + offset_%u",
                              rnd (100000), 'a' + rnd (26), rnd (1000),
                              (const char *[]) { "mean", "sum", "max", "std" }[rnd (4)], rnd (1000), rnd (100));
    }
}

static char *
join (GPtrArray *lines)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (s, "%s\n", (char *) lines->pdata[i]);
  return g_string_free (s, FALSE);
}

static void
make_realistic (char **a,
                char **b)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < LINES; i++)
    g_ptr_array_add (lines, code_line ());
  *a = join (lines);
  /* ~2% of lines: 100 edits of one line each, changes, insertions, deletions. */
  for (guint k = 0; k < LINES / 50; k++)
    {
      guint pos = rnd (lines->len);
      switch (rnd (3))
        {
        case 0:
          g_free (lines->pdata[pos]);
          lines->pdata[pos] = code_line ();
          break;
        case 1:
          g_ptr_array_insert (lines, pos, code_line ());
          break;
        default:
          g_ptr_array_remove_index (lines, pos);
          break;
        }
    }
  *b = join (lines);
}

/* Two unrelated files over the same 40 lines: every line matches hundreds
 * of others and the shortest edit script is thousands of lines long. */
static void
make_worst (char **a,
            char **b)
{
  g_autoptr(GPtrArray) la = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) lb = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < LINES; i++)
    {
      g_ptr_array_add (la, g_strdup_printf ("    x = row[%u]", rnd (40)));
      g_ptr_array_add (lb, g_strdup_printf ("    x = row[%u]", rnd (40)));
    }
  *a = join (la);
  *b = join (lb);
}

static gsize
count_changes (const char *u)
{
  gsize n = 0;
  const char *p = u;

  while (p && *p)
    {
      if ((*p == '-' && strncmp (p, "--- ", 4) != 0) || (*p == '+' && strncmp (p, "+++ ", 4) != 0))
        n++;
      p = strchr (p, '\n');
      if (p)
        p++;
    }
  return n;
}

static double
time_spawn (const char * const *argv,
            char              **out)
{
  g_autoptr(GError) error = NULL;
  int status;
  double t0 = now (), t;

  g_spawn_sync (NULL, (char **) argv, NULL,
                G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL | (out ? 0 : G_SPAWN_STDOUT_TO_DEV_NULL),
                NULL, NULL, out, NULL, &status, &error);
  t = now () - t0;
  g_assert_no_error (error);
  return t;
}

static gboolean
run_case (const char *name,
          const char *a,
          const char *b,
          const char *dir)
{
  g_autofree char *pa = g_build_filename (dir, "a.py", NULL);
  g_autofree char *pb = g_build_filename (dir, "b.py", NULL);
  const char *diff_argv[] = { "diff", "-u", "--label", "a", "--label", "b", pa, pb, NULL };
  const char *true_argv[] = { "true", NULL };
  double t_mem[RUNS], t_file[RUNS], t_gnu[RUNS], t_true[RUNS];
  g_autofree char *gnu_out = NULL;
  g_autofree char *ours = NULL;
  double mem, file, gnu, spawn, ratio_raw, ratio_fair;
  FILE *devnull = fopen ("/dev/null", "w");
  gboolean met;

  g_file_set_contents (pa, a, -1, NULL);
  g_file_set_contents (pb, b, -1, NULL);

  /* Warm up both, and compare their outputs once. */
  ours = rk_diff_unified (a, b, "a", "b", 3);
  time_spawn (diff_argv, &gnu_out);

  /* In blocks: a spawn between in-process runs would make them pay for the
   * parent's copy-on-write page faults, which is not the diff's cost. */
  for (int r = 0; r < RUNS; r++)
    {
      double t0 = now ();
      g_autofree char *u G_GNUC_UNUSED = rk_diff_unified (a, b, "a", "b", 3);
      t_mem[r] = now () - t0;
    }
  for (int r = 0; r < RUNS; r++)
    {
      double t0 = now ();
      g_autofree char *fa = NULL, *fb = NULL, *u = NULL;

      g_file_get_contents (pa, &fa, NULL, NULL);
      g_file_get_contents (pb, &fb, NULL, NULL);
      u = rk_diff_unified (fa, fb, "a", "b", 3);
      fputs (u, devnull);
      fflush (devnull);
      t_file[r] = now () - t0;
    }
  for (int r = 0; r < RUNS; r++)
    t_gnu[r] = time_spawn (diff_argv, NULL);
  for (int r = 0; r < RUNS; r++)
    t_true[r] = time_spawn (true_argv, NULL);
  fclose (devnull);

  mem = median (t_mem, RUNS);
  file = median (t_file, RUNS);
  gnu = median (t_gnu, RUNS);
  spawn = median (t_true, RUNS);
  ratio_raw = gnu / file;
  ratio_fair = MAX (gnu - spawn, 0.001) / file;
  met = ratio_fair > 1.0;

  printf ("%s (%d vs %d lines, medians of %d runs):\n", name, LINES, LINES, RUNS);
  printf ("  rk_diff_unified in memory          %8.2f ms\n", mem);
  printf ("  rk-diff incl. reading both files   %8.2f ms\n", file);
  printf ("  GNU diff -u (spawned)              %8.2f ms\n", gnu);
  printf ("  process spawn alone (true)         %8.2f ms\n", spawn);
  printf ("  changed lines: rk %zu, GNU %zu; output identical: %s\n",
          count_changes (ours), count_changes (gnu_out), g_strcmp0 (ours, gnu_out) == 0 ? "yes" : "no");
  printf ("  ratio GNU/rk (incl. reading): %.2fx raw, %.2fx with GNU's spawn cost removed\n", ratio_raw, ratio_fair);
  printf ("  target: rk-diff (incl. reading) faster than GNU diff -u without its spawn cost: %s\n\n",
          met ? "MET" : "NOT MET");

  g_unlink (pa);
  g_unlink (pb);
  return met;
}

int
main (int argc, char **argv)
{
  g_autofree char *dir = g_dir_make_tmp ("rk-bench-diff-XXXXXX", NULL);
  g_autofree char *diff_path = g_find_program_in_path ("diff");
  g_autofree char *a = NULL, *b = NULL, *wa = NULL, *wb = NULL;
  gboolean ok = TRUE;

  if (diff_path == NULL)
    {
      printf ("GNU diff not found: nothing to compare against\n");
      return 77;
    }
  make_realistic (&a, &b);
  make_worst (&wa, &wb);
  ok &= run_case ("realistic revision (~2% of lines edited)", a, b, dir);
  ok &= run_case ("worst-ish (unrelated files over 40 distinct lines)", wa, wb, dir);
  printf ("overall target (faster than GNU diff -u in both cases): %s\n", ok ? "MET" : "NOT MET");
  g_rmdir (dir);
  return 0;
}
