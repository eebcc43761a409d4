/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-table-text.c — table cells as people read, filter and paste them:
 * the locale's notation, nulls, and TSV with hostile values. */
#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>

#include "rk-table-text.h"
#include "rk-util.h"

static char *fixtures;        /* folder of .rkt files, NULL if Python failed */
static char *fixtures_error;

/* The fixtures test-table.c reads, from the real Python writer. */
static void
make_fixtures (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_build_filename (g_getenv ("RECKON_SOURCE_ROOT") ? g_getenv ("RECKON_SOURCE_ROOT") : ".",
                                              "tests", "unit", "table-fixtures.py", NULL);
  g_autofree char *dir = g_dir_make_tmp ("rk-table-text-XXXXXX", &error);
  const char *argv[] = { "/usr/bin/python3", script, dir, NULL };
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "PYTHONPATH", rk_kernel_dir (), TRUE);
  g_autofree char *err = NULL;
  int status = 0;

  g_assert_no_error (error);
  if (!g_file_test (argv[0], G_FILE_TEST_IS_EXECUTABLE))
    fixtures_error = g_strdup ("/usr/bin/python3 is missing");
  else if (!g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error) ||
           !g_spawn_check_wait_status (status, &error))
    fixtures_error = g_strdup_printf ("the Python writer failed: %s %s", error->message, err ? err : "");
  else
    fixtures = g_steal_pointer (&dir);
}

static RkTable *
open_dtypes (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (fixtures, "dtypes.rkt", NULL);
  RkTable *table = rk_table_open (path, &error);

  g_assert_no_error (error);
  return table;
}

static guint
column (RkTable    *table,
        const char *name)
{
  for (guint c = 0; c < rk_table_get_n_columns (table); c++)
    if (g_strcmp0 (rk_table_get_column_name (table, c), name) == 0)
      return c;
  g_error ("no column %s", name);
  return 0;
}

static void
check_localized (const char *c_text,
                 gboolean    group,
                 const char *want)
{
  g_autofree char *got = rk_table_text_localize_float (c_text, g_ascii_strtod (c_text, NULL), group);

  g_assert_cmpstr (got, ==, want);
}

static void
test_localize_float (void)
{
  setlocale (LC_ALL, "C");
  check_localized ("68.08906523809524", FALSE, "68.08906523809524");   /* precision kept */
  check_localized ("1234567.5", TRUE, "1234567.5");
  check_localized ("391.0", FALSE, "391.0");
  check_localized ("3", FALSE, "3");
  check_localized ("1e-07", FALSE, "1e-07");
  check_localized ("inf", FALSE, "inf");
  check_localized ("nan", TRUE, "nan");
  if (setlocale (LC_ALL, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("the de_DE.UTF-8 locale is not installed");
      return;
    }
  check_localized ("1234567.891234567", TRUE, "1.234.567,891234567");
  check_localized ("1234567.5", FALSE, "1234567,5");
  check_localized ("1.5e+20", TRUE, "1,5e+20");
  setlocale (LC_ALL, "C");
}

static void
test_format_cell (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autofree char *big = NULL;
  g_autofree char *rounded = NULL;
  g_autofree char *exact = NULL;
  g_autofree char *text = NULL;

  if (fixtures == NULL)
    {
      g_test_skip (fixtures_error);
      return;
    }
  setlocale (LC_ALL, "C");
  t = open_dtypes ();
  big = rk_table_text_format_cell (t, 2, column (t, "i"), RK_CELL_TEXT_GROUP);
  g_assert_cmpstr (big, ==, "9223372036854775807");
  g_assert_null (rk_table_text_format_cell (t, 1, column (t, "I"), 0));     /* a null */
  rounded = rk_table_text_format_cell (t, 2, column (t, "f"), 0);
  exact = rk_table_text_format_cell (t, 2, column (t, "f"), RK_CELL_TEXT_EXACT);
  g_assert_cmpstr (rounded, ==, "1e-07");
  g_assert_cmpstr (exact, ==, "1e-07");
  text = rk_table_text_format_cell (t, 1, column (t, "s"), 0);
  g_assert_cmpstr (text, ==, "héllo, \"world\"\n");

  g_assert_true (rk_table_text_row_matches (t, 1, "world"));
  g_assert_true (rk_table_text_row_matches (t, 2, "9223372036854775807"));
  g_assert_false (rk_table_text_row_matches (t, 0, "world"));
  g_assert_false (rk_table_text_row_matches (t, 0, "no such text"));
}

static void
test_tsv (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autofree char *one = NULL;
  g_autofree char *all = NULL;
  g_autofree char *none = NULL;
  g_auto(GStrv) lines = NULL;
  guint rows[] = { 2, 1 };
  int s;

  if (fixtures == NULL)
    {
      g_test_skip (fixtures_error);
      return;
    }
  setlocale (LC_ALL, "C");
  t = open_dtypes ();
  s = (int) column (t, "s");

  /* a value's own tab and line break would break the rows: spaces */
  one = rk_table_text_tsv (t, rows, G_N_ELEMENTS (rows), s);
  g_assert_cmpstr (one, ==, "s\n\nhéllo, \"world\" \n");

  all = rk_table_text_tsv (t, rows, G_N_ELEMENTS (rows), -1);
  lines = g_strsplit (all, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);                 /* header, 2 rows, "" */
  g_assert_true (g_str_has_prefix (lines[0], "i\tf\tb\ts\t"));
  g_assert_true (g_str_has_prefix (lines[1], "9223372036854775807\t1e-07\t"));
  g_assert_true (g_str_has_prefix (lines[2], "-2\tNaN\t"));
  for (guint i = 0; i < 3; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], "\t", -1);
      g_assert_cmpuint (g_strv_length (fields), ==, rk_table_get_n_columns (t));
    }

  none = rk_table_text_tsv (t, NULL, 0, s);
  g_assert_cmpstr (none, ==, "s\n");
}

static void
test_count_rows (void)
{
  struct { guint total, shown; RkRowsShown how; const char *want; } cases[] = {
    { 1234, 20, RK_ROWS_FIRST, "First 20 of 1234 rows" },
    { 20, 20, RK_ROWS_FIRST, "20 rows" },          /* all of them: no "First" */
    { 1, 1, RK_ROWS_ALL, "1 row" },
    { 0, 0, RK_ROWS_ALL, "0 rows" },
    { 1234, 12, RK_ROWS_FILTERED, "12 of 1234 rows" },
    { 5, 5, RK_ROWS_FILTERED, "5 of 5 rows" },     /* a filter that lets all through says so */
  };

  setlocale (LC_ALL, "C");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = rk_table_text_count_rows (cases[i].total, cases[i].shown, cases[i].how);
      g_assert_cmpstr (got, ==, cases[i].want);
    }
  if (setlocale (LC_ALL, "de_DE.UTF-8") != NULL)
    {
      g_autofree char *grouped = rk_table_text_count_rows (1000000, 0, RK_ROWS_ALL);
      g_assert_true (g_str_has_prefix (grouped, "1.000.000 "));
      setlocale (LC_ALL, "C");
    }
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  make_fixtures ();
  g_test_add_func ("/rk/table-text/localize-float", test_localize_float);
  g_test_add_func ("/rk/table-text/format-cell", test_format_cell);
  g_test_add_func ("/rk/table-text/tsv", test_tsv);
  g_test_add_func ("/rk/table-text/count-rows", test_count_rows);
  status = g_test_run ();
  if (fixtures != NULL)
    {
      g_autoptr(GDir) dir = g_dir_open (fixtures, 0, NULL);

      for (const char *name; dir != NULL && (name = g_dir_read_name (dir)) != NULL;)
        {
          g_autofree char *path = g_build_filename (fixtures, name, NULL);
          g_unlink (path);
        }
      g_rmdir (fixtures);
    }
  return status;
}
