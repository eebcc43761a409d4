/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-table.c — RkTable against files written by the real Python writer
 * (sandbox/kernel/reckon/table.py), hostile files, sort and export. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rk-table.h"
#include "rk-table-private.h"
#include "rk-util.h"

static char *fixtures;        /* folder of .rkt files, NULL if Python failed */
static char *fixtures_error;

static gboolean
run_python (const char  *script,
            const char  *arg,
            char       **out,
            GError     **error)
{
  g_autofree char *err = NULL;
  const char *argv[] = { "/usr/bin/python3", script, arg, NULL };
  g_auto(GStrv) envp = g_get_environ ();
  int status;

  envp = g_environ_setenv (envp, "PYTHONPATH", rk_kernel_dir (), TRUE);
  if (!g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, out, &err, &status, error))
    return FALSE;
  if (!g_spawn_check_wait_status (status, error))
    {
      g_prefix_error (error, "%s: %s", script, err);
      return FALSE;
    }
  return TRUE;
}

static void
make_fixtures (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_build_filename (g_getenv ("RECKON_SOURCE_ROOT") ? g_getenv ("RECKON_SOURCE_ROOT") : ".",
                                              "tests", "unit", "table-fixtures.py", NULL);
  g_autofree char *dir = g_dir_make_tmp ("rk-table-XXXXXX", &error);
  g_autofree char *out = NULL;

  g_assert_no_error (error);
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      fixtures_error = g_strdup ("/usr/bin/python3 is missing");
      return;
    }
  if (!run_python (script, dir, &out, &error))
    {
      fixtures_error = g_strdup_printf ("the Python writer failed: %s", error->message);
      return;
    }
  fixtures = g_steal_pointer (&dir);
}

static char *
fixture (const char *name)
{
  return g_strdup_printf ("%s/%s.rkt", fixtures, name);
}

#define NEED_FIXTURES() G_STMT_START {                   \
    if (fixtures == NULL) { g_test_skip (fixtures_error); return; } \
  } G_STMT_END

static RkTable *
open_fixture (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = fixture (name);
  RkTable *table = rk_table_open (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (table);
  return table;
}

static GBytes *
fixture_bytes (const char *name)
{
  g_autofree char *path = fixture (name);
  g_autofree char *data = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  return g_bytes_new_take (g_steal_pointer (&data), len);
}

static int
column_by_name (RkTable    *table,
                const char *name)
{
  for (guint c = 0; c < rk_table_get_n_columns (table); c++)
    if (g_strcmp0 (rk_table_get_column_name (table, c), name) == 0)
      return (int) c;
  g_error ("no column %s", name);
  return -1;
}

static void
assert_column_text (RkTable     *table,
                    const char  *name,
                    const char **expected)
{
  int c = column_by_name (table, name);

  for (guint r = 0; expected[r] != NULL; r++)
    {
      g_autofree char *text = rk_table_get_cell_text (table, r, c);
      g_assert_cmpstr (text, ==, expected[r]);
    }
}

/* ------------------------------------------------------- round trips */

static void
test_dtypes (void)
{
  g_autoptr(RkTable) t = NULL;
  gint64 i;
  double d;
  gboolean b;
  int c;

  NEED_FIXTURES ();
  t = open_fixture ("dtypes");
  g_assert_cmpuint (rk_table_get_n_rows (t), ==, 3);
  g_assert_cmpuint (rk_table_get_n_columns (t), ==, 14);
  g_assert_cmpuint (rk_table_get_n_index_columns (t), ==, 0);

  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "i")), ==, RK_TABLE_COLUMN_INT64);
  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "f")), ==, RK_TABLE_COLUMN_FLOAT64);
  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "b")), ==, RK_TABLE_COLUMN_BOOL);
  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "s")), ==, RK_TABLE_COLUMN_STRING);
  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "d")), ==, RK_TABLE_COLUMN_DATETIME);
  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "c")), ==, RK_TABLE_COLUMN_STRING);
  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "I")), ==, RK_TABLE_COLUMN_INT64);
  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "B")), ==, RK_TABLE_COLUMN_BOOL);
  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "F")), ==, RK_TABLE_COLUMN_FLOAT64);
  g_assert_cmpint (rk_table_get_column_type (t, column_by_name (t, "u")), ==, RK_TABLE_COLUMN_STRING);
  g_assert_null (rk_table_get_column_timezone (t, column_by_name (t, "d")));
  g_assert_cmpstr (rk_table_get_column_timezone (t, column_by_name (t, "dz")), ==, "Europe/Paris");

  assert_column_text (t, "i", (const char *[]) { "1", "-2", "9223372036854775807", NULL });
  assert_column_text (t, "f", (const char *[]) { "1.5", "NaN", "1e-07", NULL });
  assert_column_text (t, "b", (const char *[]) { "True", "False", "True", NULL });
  assert_column_text (t, "s", (const char *[]) { "a", "héllo, \"world\"\n", "", NULL });
  assert_column_text (t, "d", (const char *[]) { "2024-01-02 03:04:05.123", "", "1999-12-31 00:00:00", NULL });
  assert_column_text (t, "dd", (const char *[]) { "2024-01-01", "2024-01-02", "", NULL });
  assert_column_text (t, "dz", (const char *[]) { "2024-01-01 12:00:00+01:00", "2024-07-01 12:00:00+02:00", "", NULL });
  assert_column_text (t, "c", (const char *[]) { "x", "", "y", NULL });
  assert_column_text (t, "I", (const char *[]) { "1", "", "3", NULL });
  assert_column_text (t, "B", (const char *[]) { "True", "", "False", NULL });
  assert_column_text (t, "F", (const char *[]) { "1.25", "", "0.5", NULL });
  assert_column_text (t, "m", (const char *[]) { "1", "a", "2.5", NULL });
  assert_column_text (t, "u", (const char *[]) { "1", "2", "18446744073709551615", NULL });
  assert_column_text (t, "td", (const char *[]) { "0 days 01:00:00", "0 days 02:00:00", "0 days 03:00:00", NULL });

  /* Typed accessors. */
  c = column_by_name (t, "i");
  g_assert_true (rk_table_get_int64 (t, 2, c, &i));
  g_assert_cmpint (i, ==, G_MAXINT64);
  g_assert_true (rk_table_get_double (t, 1, c, &d));
  g_assert_cmpfloat (d, ==, -2.0);
  g_assert_false (rk_table_get_boolean (t, 0, c, &b));
  g_assert_false (rk_table_get_int64 (t, 3, c, &i));        /* row out of range */
  g_assert_false (rk_table_get_int64 (t, 0, 99, &i));       /* column out of range */

  c = column_by_name (t, "f");
  g_assert_true (rk_table_get_double (t, 1, c, &d));        /* NaN is a value */
  g_assert_true (isnan (d));
  g_assert_false (rk_table_is_null (t, 1, c));
  g_assert_false (rk_table_get_int64 (t, 0, c, &i));

  c = column_by_name (t, "I");
  g_assert_true (rk_table_is_null (t, 1, c));
  g_assert_false (rk_table_get_int64 (t, 1, c, &i));
  g_assert_true (rk_table_get_int64 (t, 2, c, &i));
  g_assert_cmpint (i, ==, 3);

  c = column_by_name (t, "B");
  g_assert_true (rk_table_get_boolean (t, 2, c, &b));
  g_assert_false (b);
  g_assert_false (rk_table_get_boolean (t, 1, c, &b));

  c = column_by_name (t, "d");
  g_assert_true (rk_table_get_datetime (t, 0, c, &i));
  g_assert_cmpint (i, ==, G_GINT64_CONSTANT (1704164645123000000));
  g_assert_false (rk_table_get_datetime (t, 1, c, &i));

  c = column_by_name (t, "s");
  {
    gsize len;
    const char *p = rk_table_peek_string (t, 0, c, &len);
    g_assert_nonnull (p);
    g_assert_cmpmem (p, len, "a", 1);
    g_assert_null (rk_table_peek_string (t, 2, c, &len));
  }
  g_assert_true (rk_table_check_column (t, c, NULL));
}

static void
test_unicode (void)
{
  g_autoptr(RkTable) t = NULL;

  NEED_FIXTURES ();
  t = open_fixture ("unicode");
  g_assert_cmpstr (rk_table_get_column_name (t, 0), ==, "名前 ✓");
  /* A lone surrogate (written as CESU bytes) and a NUL show as U+FFFD. */
  assert_column_text (t, "名前 ✓", (const char *[]) {
    "😀 emoji", "中文", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDx", "a\xEF\xBF\xBD" "b", "", NULL });
  for (guint r = 0; r < rk_table_get_n_rows (t); r++)
    {
      g_autofree char *text = rk_table_get_cell_text (t, r, 0);
      g_assert_true (g_utf8_validate (text, -1, NULL));
    }
}

static void
test_empty (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autoptr(RkTable) t2 = NULL;
  g_autofree char *text = NULL;

  NEED_FIXTURES ();
  t = open_fixture ("empty");
  g_assert_cmpuint (rk_table_get_n_rows (t), ==, 0);
  g_assert_cmpuint (rk_table_get_n_columns (t), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (t)), ==, 0);
  g_assert_null (g_list_model_get_item (G_LIST_MODEL (t), 0));

  t2 = open_fixture ("empty_cols");
  g_assert_cmpuint (rk_table_get_n_rows (t2), ==, 0);
  g_assert_cmpuint (rk_table_get_n_columns (t2), ==, 2);
  g_assert_cmpstr (rk_table_get_column_name (t2, 1), ==, "s");
  g_assert_true (rk_table_check_column (t2, 1, NULL));
  g_assert_true (rk_table_sort (t2, 1, TRUE, NULL));
  text = rk_table_get_cell_text (t2, 0, 0);
  g_assert_cmpstr (text, ==, "");
}

static void
test_zero_columns (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autoptr(RkTableRow) row = NULL;

  NEED_FIXTURES ();
  t = open_fixture ("zero_cols");
  g_assert_cmpuint (rk_table_get_n_rows (t), ==, 5);
  g_assert_cmpuint (rk_table_get_n_columns (t), ==, 0);
  row = g_list_model_get_item (G_LIST_MODEL (t), 4);
  g_assert_cmpuint (rk_table_row_get_index (row), ==, 4);
}

static void
test_one_row (void)
{
  g_autoptr(RkTable) t = NULL;

  NEED_FIXTURES ();
  t = open_fixture ("one_row");
  g_assert_cmpuint (rk_table_get_n_rows (t), ==, 1);
  assert_column_text (t, "x", (const char *[]) { "42", NULL });
  g_assert_true (rk_table_sort (t, 0, FALSE, NULL));
  g_assert_cmpuint (rk_table_get_row_at (t, 0), ==, 0);
}

static void
test_index (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autoptr(RkTable) s = NULL;

  NEED_FIXTURES ();
  t = open_fixture ("index");
  g_assert_cmpuint (rk_table_get_n_columns (t), ==, 3);
  g_assert_cmpuint (rk_table_get_n_index_columns (t), ==, 2);
  g_assert_cmpstr (rk_table_get_column_name (t, 0), ==, "k1");
  g_assert_cmpstr (rk_table_get_column_name (t, 1), ==, "k2");
  g_assert_cmpstr (rk_table_get_column_name (t, 2), ==, "v");
  assert_column_text (t, "k1", (const char *[]) { "a", "a", "b", NULL });
  assert_column_text (t, "k2", (const char *[]) { "1", "2", "1", NULL });

  s = open_fixture ("series");
  g_assert_cmpuint (rk_table_get_n_index_columns (s), ==, 1);
  g_assert_cmpstr (rk_table_get_column_name (s, 0), ==, "key");
  g_assert_cmpstr (rk_table_get_column_name (s, 1), ==, "total");
  assert_column_text (s, "total", (const char *[]) { "10", "20", NULL });
}

/* Odd DataFrames (see table-fixtures.py): each opens and reads. */
static void exercise (GBytes *bytes);

static void
test_odd_frames (void)
{
  struct { const char *file; guint col; guint row; const char *name; const char *text; } checks[] = {
    { "odd_00", 1, 1, "dup", "4" },
    { "odd_01", 0, 0, "a / x", "1" },
    { "odd_01", 2, 0, "b", "s" },
    { "odd_02", 0, 1, "r", "6" },
    { "odd_03", 0, 1, "index", "2024-01-02 00:00:00+00:00" },
    { "odd_04", 0, 1, "index", "q" },
    { "odd_05", 0, 1, "index", "NaN" },
    { "odd_06", 0, 1, "s", "" },
    { "odd_07", 0, 0, "p", "2024-01" },
    { "odd_08", 0, 1, "iv", "(1, 2]" },
    { "odd_09", 0, 0, "c", "(1+2j)" },
    { "odd_10", 0, 0, "o", "1.10" },
    { "odd_10", 0, 1, "o", "2024-01-02" },
    { "odd_12", 0, 0, "b", "True" },
    { "odd_12", 0, 1, "b", "" },
    { "odd_13", 0, 0, "by", "\xEF\xBF\xBD\xEF\xBF\xBD" "bytes" },
    { "odd_14", 0, 1, "f16", "-2.0" },
    { "odd_14", 1, 1, "u8", "255" },
    { "odd_14", 2, 1, "be", "2" },
    { "odd_15", 0, 1, "cat", "" },
    { "odd_16", 0, 1, "sp", "1" },
    { "odd_17", 0, 0, "dt", "2024-01-01 00:00:00-03:30" },
    { "odd_19", 0, 0, "t", "1677-09-22" },
    { "odd_19", 0, 1, "t", "2262-04-11" },
    { "odd_20", 2, 1, "2", "5" },
    { "odd_22", 0, 1, "0", "2" },
    { "odd_23", 0, 2, "oi", "3" },
    { "odd_23", 0, 1, "oi", "" },
    { "odd_23", 1, 1, "of", "2.5" },
    { "odd_23", 2, 0, "od", "2024-01-02 03:00:00" },
    { "odd_23", 3, 1, "os", "1" },
  };

  NEED_FIXTURES ();
  for (guint i = 0; i < G_N_ELEMENTS (checks); i++)
    {
      g_autoptr(RkTable) t = open_fixture (checks[i].file);
      g_autofree char *text = rk_table_get_cell_text (t, checks[i].row, checks[i].col);

      g_assert_cmpstr (rk_table_get_column_name (t, checks[i].col), ==, checks[i].name);
      g_assert_cmpstr (text, ==, checks[i].text);
    }
  {
    g_autoptr(RkTable) t = open_fixture ("odd_18");
    g_assert_cmpuint (strlen (rk_table_get_column_name (t, 0)), ==, RK_TABLE_MAX_NAME);
  }
  {
    g_autoptr(RkTable) t = open_fixture ("odd_21");
    g_assert_cmpuint (rk_table_get_n_rows (t), ==, 0);
  }
  {
    /* Object columns of numbers or dates keep their type. */
    g_autoptr(RkTable) t = open_fixture ("odd_23");
    g_assert_cmpint (rk_table_get_column_type (t, 0), ==, RK_TABLE_COLUMN_INT64);
    g_assert_cmpint (rk_table_get_column_type (t, 1), ==, RK_TABLE_COLUMN_FLOAT64);
    g_assert_cmpint (rk_table_get_column_type (t, 2), ==, RK_TABLE_COLUMN_DATETIME);
    g_assert_cmpint (rk_table_get_column_type (t, 3), ==, RK_TABLE_COLUMN_STRING);
  }
  for (guint i = 0; i <= 23; i++)
    {
      g_autofree char *name = g_strdup_printf ("odd_%02u", i);
      g_autoptr(GBytes) bytes = fixture_bytes (name);
      exercise (bytes);
    }
}

/* ----------------------------------------------------------------- sort */

static void
items_changed_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  gpointer    user_data)
{
  (*(guint *) user_data)++;
  g_assert_cmpuint (position, ==, 0);
  g_assert_cmpuint (removed, ==, added);
}

static void
assert_order (RkTable     *t,
              const guint *expected)
{
  GListModel *model = G_LIST_MODEL (t);

  for (guint i = 0; i < rk_table_get_n_rows (t); i++)
    {
      g_autoptr(RkTableRow) row = g_list_model_get_item (model, i);
      g_autofree char *tag = rk_table_row_get_cell_text (row, 3);
      g_autofree char *want = g_strdup_printf ("%u", expected[i]);

      g_assert_cmpuint (rk_table_get_row_at (t, i), ==, expected[i]);
      g_assert_cmpuint (rk_table_row_get_index (row), ==, expected[i]);
      g_assert_true (rk_table_row_get_table (row) == t);
      g_assert_cmpstr (tag, ==, want);
    }
}

static void
test_sort (void)
{
  g_autoptr(RkTable) t = NULL;
  guint changes = 0;

  NEED_FIXTURES ();
  t = open_fixture ("sort");
  g_signal_connect (t, "items-changed", G_CALLBACK (items_changed_cb), &changes);

  /* n: [3, NA, 1, 3, 2, NA] — stable, nulls last either way. */
  g_assert_true (rk_table_sort (t, 0, TRUE, NULL));
  assert_order (t, (guint[]) { 2, 4, 0, 3, 1, 5 });
  g_assert_true (rk_table_sort (t, 0, FALSE, NULL));
  assert_order (t, (guint[]) { 0, 3, 4, 2, 1, 5 });
  g_assert_cmpint (rk_table_get_sort_column (t), ==, 0);
  g_assert_false (rk_table_get_sort_ascending (t));

  /* f: [2, NaN, 1, 2, NaN, -1] — NaN with the nulls. */
  g_assert_true (rk_table_sort (t, 1, TRUE, NULL));
  assert_order (t, (guint[]) { 5, 2, 0, 3, 1, 4 });
  g_assert_true (rk_table_sort (t, 1, FALSE, NULL));
  assert_order (t, (guint[]) { 0, 3, 2, 5, 1, 4 });

  /* s: ["b", None, "a", "b", "", "c"] */
  g_assert_true (rk_table_sort (t, 2, TRUE, NULL));
  assert_order (t, (guint[]) { 4, 2, 0, 3, 5, 1 });
  g_assert_true (rk_table_sort (t, 2, FALSE, NULL));
  assert_order (t, (guint[]) { 5, 0, 3, 2, 4, 1 });

  g_assert_true (rk_table_sort (t, -1, TRUE, NULL));
  assert_order (t, (guint[]) { 0, 1, 2, 3, 4, 5 });
  g_assert_cmpuint (changes, ==, 7);
}

typedef struct
{
  gboolean done;
  GError  *error;
} SortState;

static void
sort_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  SortState *st = user_data;

  rk_table_sort_finish (RK_TABLE (source), result, &st->error);
  st->done = TRUE;
}

static void
test_sort_async (void)
{
  g_autoptr(RkTable) t = NULL;
  SortState st = { FALSE, NULL };

  NEED_FIXTURES ();
  t = open_fixture ("sort");
  rk_table_sort_async (t, 2, TRUE, NULL, sort_done_cb, &st);
  while (!st.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (st.error);
  assert_order (t, (guint[]) { 4, 2, 0, 3, 5, 1 });
}

/* --------------------------------------------------------------- export */

static char *
export_to_string (RkTable             *t,
                  RkTableExportFormat  format,
                  gsize               *len,
                  GError             **error)
{
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

  if (!rk_table_export (t, format, out, NULL, NULL, NULL, error))
    return NULL;
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  *len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
}

static const char expected_csv[] =
  "i,f,b,s,d,dd,dz,c,I,B,F,m,u,td\r\n"
  "1,1.5,True,a,2024-01-02 03:04:05.123,2024-01-01,2024-01-01 12:00:00+01:00,x,1,True,1.25,1,1,0 days 01:00:00\r\n"
  "-2,,False,\"héllo, \"\"world\"\"\n\",,2024-01-02,2024-07-01 12:00:00+02:00,,,,,a,2,0 days 02:00:00\r\n"
  "9223372036854775807,1e-07,True,,1999-12-31 00:00:00,,,y,3,False,0.5,2.5,18446744073709551615,0 days 03:00:00\r\n";

static void
test_export_csv (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *sorted = NULL;
  gsize len;

  NEED_FIXTURES ();
  t = open_fixture ("dtypes");
  csv = export_to_string (t, RK_TABLE_EXPORT_CSV, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (csv, len, expected_csv, strlen (expected_csv));

  /* Rows go out in the sorted order. */
  g_assert_true (rk_table_sort (t, 0, TRUE, NULL));
  sorted = export_to_string (t, RK_TABLE_EXPORT_CSV, &len, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (sorted, "i,f,b,s,d,dd,dz,c,I,B,F,m,u,td\r\n-2,,False,"));
}

static void
test_export_cancel (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

  NEED_FIXTURES ();
  t = open_fixture ("dtypes");
  g_cancellable_cancel (cancellable);
  g_assert_false (rk_table_export (t, RK_TABLE_EXPORT_CSV, out, cancellable, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

typedef struct
{
  guint    progress_calls;
  guint64  last_done;
  gboolean finished;
  GError  *error;
} AsyncState;

static void
progress_cb (guint64  done,
             guint64  total,
             gpointer user_data)
{
  AsyncState *st = user_data;

  st->progress_calls++;
  g_assert_cmpuint (done, <=, total);
  st->last_done = done;
}

static void
export_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  AsyncState *st = user_data;

  rk_table_export_finish (RK_TABLE (source), result, &st->error);
  st->finished = TRUE;
}

static void
test_export_async (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  AsyncState st = { 0, };

  NEED_FIXTURES ();
  t = open_fixture ("dtypes");
  rk_table_export_rows_async (t, RK_TABLE_EXPORT_CSV, NULL, out, NULL, progress_cb, &st, NULL, export_done_cb, &st);
  while (!st.finished)
    g_main_context_iteration (NULL, TRUE);
  /* Let any queued progress report run. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_no_error (st.error);
  g_assert_cmpuint (st.progress_calls, >=, 1);
  g_assert_cmpuint (st.last_done, ==, 3);
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  g_assert_cmpmem (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                   g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)),
                   expected_csv, strlen (expected_csv));
}

static const char read_xlsx_py[] =
  "import json, sys, datetime, calendar\n"
  "import openpyxl\n"
  "wb = openpyxl.load_workbook(sys.argv[1])\n"
  "ws = wb.active\n"
  "def conv(v):\n"
  "    if isinstance(v, datetime.datetime):\n"
  "        return 'ms:%d' % (calendar.timegm(v.timetuple()) * 1000 + round(v.microsecond / 1000))\n"
  "    return v\n"
  "rows = [[conv(c.value) for c in row] for row in ws.iter_rows()]\n"
  "print(json.dumps(rows, ensure_ascii=False))\n";

static const char expected_xlsx[] =
  "[[\"i\", \"f\", \"b\", \"s\", \"d\", \"dd\", \"dz\", \"c\", \"I\", \"B\", \"F\", \"m\", \"u\", \"td\"], "
  /* Aware dates go to Excel as wall time in their zone (Excel has no zones). */
  "[1, 1.5, true, \"a\", \"ms:1704164645123\", \"ms:1704067200000\", \"ms:1704110400000\", \"x\", 1, true, 1.25, \"1\", \"1\", \"0 days 01:00:00\"], "
  "[-2, null, false, \"héllo, \\\"world\\\"\\n\", null, \"ms:1704153600000\", \"ms:1719835200000\", null, null, null, null, \"a\", \"2\", \"0 days 02:00:00\"], "
  "[9223372036854775807, 1e-07, true, null, \"ms:946598400000\", null, null, \"y\", 3, false, 0.5, \"2.5\", \"18446744073709551615\", \"0 days 03:00:00\"]]\n";

static void
test_export_xlsx (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_autofree char *path = NULL;
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;
  gsize len;

  NEED_FIXTURES ();
  {
    const char *argv[] = { "/usr/bin/python3", "-c", "import openpyxl", NULL };
    int status;
    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL) ||
        !g_spawn_check_wait_status (status, NULL))
      {
        g_test_skip ("python3-openpyxl is not installed");
        return;
      }
  }

  t = open_fixture ("dtypes");
  data = export_to_string (t, RK_TABLE_EXPORT_XLSX, &len, &error);
  g_assert_no_error (error);
  path = g_build_filename (fixtures, "dtypes.xlsx", NULL);
  script = g_build_filename (fixtures, "read_xlsx.py", NULL);
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  g_assert_true (g_file_set_contents (script, read_xlsx_py, -1, NULL));
  g_assert_true (run_python (script, path, &out, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (out, ==, expected_xlsx);
}

/* Issue 10, finding 8: text that a spreadsheet app would run as a formula
 * is neutralised in CSV (a leading apostrophe) and XLSX (quotePrefix, the
 * text itself kept), numbers are not touched, and the .rkt keeps the raw
 * values. */
static const char expected_formulas_csv[] =
  "'=cmd,n\r\n"
  "'=1+1,-1\r\n"
  "'+SUM(A1),2\r\n"
  "'-2+3,-3\r\n"
  "'@A1,4\r\n"
  "'\tx,5\r\n"
  "\"'\r=1\",6\r\n"
  "plain,7\r\n"
  "'-,8\r\n"
  ",9\r\n";

static const char read_formulas_py[] =
  "import sys, openpyxl\n"
  "ws = openpyxl.load_workbook(sys.argv[1]).active\n"
  "for row in ws.iter_rows():\n"
  "    for c in row:\n"
  "        if c.value is not None:\n"
  "            print('%s %r %s %d' % (c.coordinate, c.value, c.data_type, int(bool(c.quotePrefix))))\n";

static const char expected_formulas_xlsx[] =
  "A1 '=cmd' s 1\n"
  "B1 'n' s 0\n"
  "A2 '=1+1' s 1\n"
  "B2 -1 n 0\n"
  "A3 '+SUM(A1)' s 1\n"
  "B3 2 n 0\n"
  "A4 '-2+3' s 1\n"
  "B4 -3 n 0\n"
  "A5 '@A1' s 1\n"
  "B5 4 n 0\n"
  "A6 '\\tx' s 1\n"
  "B6 5 n 0\n"
  "A7 '\\r=1' s 1\n"
  "B7 6 n 0\n"
  "A8 'plain' s 0\n"
  "B8 7 n 0\n"
  "A9 '-' s 1\n"
  "B9 8 n 0\n"
  "B10 9 n 0\n";

static void
test_export_formulas (void)
{
  g_autoptr(RkTable) t = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *xlsx = NULL;
  g_autofree char *raw = NULL;
  g_autofree char *path = NULL;
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;
  gsize len;

  NEED_FIXTURES ();
  t = open_fixture ("formulas");
  raw = rk_table_get_cell_text (t, 0, 0);
  g_assert_cmpstr (raw, ==, "=1+1");
  csv = export_to_string (t, RK_TABLE_EXPORT_CSV, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (csv, len, expected_formulas_csv, strlen (expected_formulas_csv));

  xlsx = export_to_string (t, RK_TABLE_EXPORT_XLSX, &len, &error);
  g_assert_no_error (error);
  g_assert_null (g_strstr_len (xlsx, (gssize) len, "<f>"));
  {
    const char *argv[] = { "/usr/bin/python3", "-c", "import openpyxl", NULL };
    int status;
    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL) ||
        !g_spawn_check_wait_status (status, NULL))
      {
        g_test_skip ("python3-openpyxl is not installed: the XLSX half is not checked");
        return;
      }
  }
  path = g_build_filename (fixtures, "formulas.xlsx", NULL);
  script = g_build_filename (fixtures, "read_formulas.py", NULL);
  g_assert_true (g_file_set_contents (path, xlsx, len, NULL));
  g_assert_true (g_file_set_contents (script, read_formulas_py, -1, NULL));
  g_assert_true (run_python (script, path, &out, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (out, ==, expected_formulas_xlsx);
}

/* A file with one bool column of @n_rows rows, built by hand. */
static GBytes *
build_bool_table (guint n_rows)
{
  gsize data_off = 64 + 64 + 8;
  gsize data_len = n_rows;
  gsize size = data_off + ((data_len + 7) & ~(gsize) 7);
  guint8 *d = g_malloc0 (size);
  guint64 v;

  memcpy (d, "RKTABLE\0", 8);
  d[8] = 1;
  v = GUINT64_TO_LE (n_rows); memcpy (d + 16, &v, 8);
  d[24] = 1;
  v = GUINT64_TO_LE (64); memcpy (d + 32, &v, 8);
  v = GUINT64_TO_LE (64); memcpy (d + 40, &v, 8);
  v = GUINT64_TO_LE (size); memcpy (d + 48, &v, 8);
  /* entry: name at 128, 1 byte "b" */
  v = GUINT64_TO_LE (128); memcpy (d + 64, &v, 8);
  d[72] = 1;
  d[76] = RK_TABLE_COLUMN_BOOL;
  v = GUINT64_TO_LE (data_off); memcpy (d + 64 + 32, &v, 8);
  v = GUINT64_TO_LE (data_len); memcpy (d + 64 + 40, &v, 8);
  d[128] = 'b';
  for (gsize i = 0; i < data_len; i++)
    d[data_off + i] = i & 1;
  return g_bytes_new_take (d, size);
}

static void
cancel_on_progress_cb (guint64  done,
                       guint64  total,
                       gpointer user_data)
{
  g_assert_cmpuint (done, <, total);
  g_cancellable_cancel (user_data);
}

static void
test_export_xlsx_limit (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GBytes) ok_bytes = build_bool_table (RK_TABLE_XLSX_MAX_ROWS - 1);
  g_autoptr(GBytes) big_bytes = build_bool_table (RK_TABLE_XLSX_MAX_ROWS);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) big = rk_table_new_from_bytes (big_bytes, &error);
  g_autoptr(RkTable) ok = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  gboolean value;

  g_assert_no_error (error);
  g_assert_cmpuint (rk_table_get_n_rows (big), ==, RK_TABLE_XLSX_MAX_ROWS);
  g_assert_true (rk_table_get_boolean (big, 1, 0, &value));
  g_assert_true (value);
  g_assert_false (rk_table_export (big, RK_TABLE_EXPORT_XLSX, out, NULL, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);

  /* One row fewer fits (header + 1,048,575 rows). Cancelled at the first
   * progress report, which also shows a cancel mid-way stops the export. */
  ok = rk_table_new_from_bytes (ok_bytes, &error);
  g_assert_no_error (error);
  g_assert_false (rk_table_export (ok, RK_TABLE_EXPORT_XLSX, out, cancellable,
                                   cancel_on_progress_cb, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)), >, 1000);
}

/* -------------------------------------------------------------- hostile */

/* Opening must fail, or succeed and survive reading every cell, every
 * accessor and a sort of every column. */
static void
exercise (GBytes *bytes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) t = rk_table_new_from_bytes (bytes, &error);

  if (t == NULL)
    {
      g_assert_nonnull (error);
      return;
    }
  for (guint c = 0; c < rk_table_get_n_columns (t); c++)
    {
      g_autoptr(GError) sort_error = NULL;

      g_assert_true (g_utf8_validate (rk_table_get_column_name (t, c), -1, NULL));
      for (guint r = 0; r < rk_table_get_n_rows (t) + 1; r++)
        {
          g_autofree char *text = rk_table_get_cell_text (t, r, c);
          gint64 i;
          double d;
          gboolean b;
          gsize len;

          g_assert_true (g_utf8_validate (text, -1, NULL));
          rk_table_get_int64 (t, r, c, &i);
          rk_table_get_double (t, r, c, &d);
          rk_table_get_boolean (t, r, c, &b);
          rk_table_get_datetime (t, r, c, &i);
          rk_table_peek_string (t, r, c, &len);
        }
      if (!rk_table_sort (t, c, FALSE, &sort_error))
        g_assert_nonnull (sort_error);
    }
}

static GBytes *
patched (GBytes *orig,
         gsize   offset,
         gsize   width,
         guint64 value)
{
  gsize len;
  const guint8 *src = g_bytes_get_data (orig, &len);
  guint8 *d = g_memdup2 (src, len);

  g_assert_cmpuint (offset + width, <=, len);
  for (gsize i = 0; i < width; i++)
    d[offset + i] = (guint8) (value >> (8 * i));
  return g_bytes_new_take (d, len);
}

static void
expect_error (GBytes     *bytes,
              GQuark      domain,
              int         code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) t = rk_table_new_from_bytes (bytes, &error);

  g_assert_null (t);
  g_assert_error (error, domain, code);
  g_bytes_unref (bytes);
}

static void
test_hostile_truncated (void)
{
  g_autoptr(GBytes) orig = NULL;
  gsize len;

  NEED_FIXTURES ();
  orig = fixture_bytes ("small");
  len = g_bytes_get_size (orig);
  for (gsize cut = 0; cut < len; cut++)
    {
      g_autoptr(GBytes) part = g_bytes_new_from_bytes (orig, 0, cut);
      g_autoptr(GBytes) relabelled = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(RkTable) t = rk_table_new_from_bytes (part, &error);

      g_assert_null (t);
      g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);

      /* Even when the header is patched to claim the cut size. */
      if (cut >= 64)
        {
          g_autoptr(GBytes) copy = g_bytes_new (g_bytes_get_data (part, NULL), cut);
          relabelled = patched (copy, 48, 8, cut);
          exercise (relabelled);
        }
    }
}

static void
test_hostile_header (void)
{
  g_autoptr(GBytes) orig = NULL;

  NEED_FIXTURES ();
  orig = fixture_bytes ("small");
  expect_error (patched (orig, 0, 1, 'X'), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);           /* magic */
  expect_error (patched (orig, 8, 4, 2), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);           /* version */
  expect_error (patched (orig, 8, 4, 0), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);
  expect_error (patched (orig, 12, 4, 1), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);          /* flags */
  expect_error (patched (orig, 16, 8, G_GUINT64_CONSTANT (1) << 32), RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  expect_error (patched (orig, 16, 8, G_MAXUINT64), RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  expect_error (patched (orig, 16, 8, 3), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);            /* rows vs data */
  expect_error (patched (orig, 24, 4, RK_TABLE_MAX_COLUMNS + 1), RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  expect_error (patched (orig, 24, 4, G_MAXUINT32), RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  expect_error (patched (orig, 24, 4, 3), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);            /* cols vs directory */
  expect_error (patched (orig, 28, 4, 3), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);            /* index > cols */
  expect_error (patched (orig, 32, 8, 0), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, 40, 8, G_MAXUINT64 - 63), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, 48, 8, G_MAXUINT64), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, 56, 8, 1), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);

  /* A zero-column table may not claim billions of rows. */
  {
    g_autoptr(GBytes) empty = fixture_bytes ("empty");
    expect_error (patched (empty, 16, 8, G_MAXUINT32), RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  }
}

/* Entry 0 of small.rkt is int64 "a", entry 1 string "s". */
#define E0 64
#define E1 128

static void
test_hostile_directory (void)
{
  g_autoptr(GBytes) orig = NULL;
  gsize size;

  NEED_FIXTURES ();
  orig = fixture_bytes ("small");
  size = g_bytes_get_size (orig);

  /* Names. */
  expect_error (patched (orig, E0 + 8, 4, RK_TABLE_MAX_NAME + 1), RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  expect_error (patched (orig, E0 + 8, 4, G_MAXUINT32), RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  expect_error (patched (orig, E0 + 0, 8, size), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, E0 + 0, 8, G_MAXUINT64), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, E0 + 0, 8, 0), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);     /* inside the header */

  /* Types and flags. */
  expect_error (patched (orig, E0 + 12, 1, 0), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);
  expect_error (patched (orig, E0 + 12, 1, 6), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);
  expect_error (patched (orig, E0 + 13, 1, 1), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);   /* offsets32 on int */
  expect_error (patched (orig, E0 + 14, 2, 1), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);
  expect_error (patched (orig, E1 + 13, 1, 3), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);   /* date-only on text */
  expect_error (patched (orig, E0 + 13, 1, 2), RK_PARSE_ERROR, RK_PARSE_ERROR_UNSUPPORTED);   /* date-only on int */
  expect_error (patched (orig, E1 + 13, 1, 0), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);     /* u64 offsets: wrong length */

  /* Offsets outside, misaligned, wrapping. */
  expect_error (patched (orig, E0 + 32, 8, size), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, E0 + 32, 8, size - 8), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, E0 + 32, 8, G_MAXUINT64 - 7), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, E0 + 32, 8, 0), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, E0 + 40, 8, G_MAXUINT64), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, E1 + 48, 8, size), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, E1 + 56, 8, G_MAXUINT64), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, E0 + 48, 8, 200), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);   /* aux on int */
  {
    /* data_offset off by 4 (misaligned) */
    const guint8 *d = g_bytes_get_data (orig, NULL);
    guint64 off;
    memcpy (&off, d + E0 + 32, 8);
    expect_error (patched (orig, E0 + 32, 8, GUINT64_FROM_LE (off) + 4), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  }
  /* A null bitmap of the wrong size or outside. */
  expect_error (patched (patched (orig, E0 + 16, 8, 192), E0 + 24, 8, 2), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (patched (orig, E0 + 16, 8, G_MAXUINT64 - 7), E0 + 24, 8, 1), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
}

static void
test_hostile_overlap (void)
{
  g_autoptr(GBytes) orig = NULL;
  const guint8 *d;
  guint64 off0;

  NEED_FIXTURES ();
  orig = fixture_bytes ("small");
  d = g_bytes_get_data (orig, NULL);
  memcpy (&off0, d + E0 + 32, 8);
  off0 = GUINT64_FROM_LE (off0);
  /* The string column's offsets at the int column's data (same length, 2×8 vs 3×4 — use its heap instead). */
  expect_error (patched (orig, E1 + 48, 8, off0), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  /* A null bitmap on top of the data. */
  expect_error (patched (patched (orig, E0 + 16, 8, off0), E0 + 24, 8, 1), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
}

static void
test_hostile_string_offsets (void)
{
  g_autoptr(GBytes) orig = NULL;
  const guint8 *d;
  guint64 off;
  struct { guint index; guint32 value; } cases[] = {
    { 0, 1 },            /* does not start at 0 */
    { 1, 4 },            /* beyond the heap (3 bytes) */
    { 1, G_MAXUINT32 },
    { 2, 2 },            /* does not end at the heap's end */
    { 2, 1 },            /* decreasing */
  };

  NEED_FIXTURES ();
  orig = fixture_bytes ("small");
  d = g_bytes_get_data (orig, NULL);
  memcpy (&off, d + E1 + 32, 8);
  off = GUINT64_FROM_LE (off);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) bad = patched (orig, off + 4 * cases[i].index, 4, cases[i].value);
      g_autoptr(GError) error = NULL;
      g_autoptr(RkTable) t = rk_table_new_from_bytes (bad, &error);
      g_autofree char *text = NULL;
      g_autofree char *good = NULL;

      /* The directory is fine, so it opens; the column fails its check. */
      g_assert_no_error (error);
      g_assert_false (rk_table_check_column (t, 1, &error));
      g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
      g_clear_error (&error);
      text = rk_table_get_cell_text (t, 0, 1);
      g_assert_cmpstr (text, ==, "");
      g_assert_true (rk_table_is_null (t, 1, 1));
      g_assert_false (rk_table_sort (t, 1, TRUE, &error));
      g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
      /* Other columns still read. */
      good = rk_table_get_cell_text (t, 1, 0);
      g_assert_cmpstr (good, ==, "2");
      exercise (bad);
    }
}

/* One bad offset in the middle: only its two cells read as null, without a
 * full check; the full check (and sorting) then refuse the column. */
static void
test_hostile_middle_offset (void)
{
  g_autoptr(GBytes) orig = NULL;
  g_autoptr(GBytes) bad = NULL;
  g_autoptr(RkTable) t = NULL;
  g_autoptr(GError) error = NULL;
  const guint8 *d;
  guint64 off;
  const char *expected[] = { "😀 emoji", NULL, NULL, "a\xEF\xBF\xBD" "b", "" };

  NEED_FIXTURES ();
  orig = fixture_bytes ("unicode");
  d = g_bytes_get_data (orig, NULL);
  g_assert_cmpint (d[64 + 13], ==, 1);          /* u32 offsets */
  memcpy (&off, d + 64 + 32, 8);
  off = GUINT64_FROM_LE (off);
  bad = patched (orig, off + 4 * 2, 4, 0x7fffffff);
  t = rk_table_new_from_bytes (bad, &error);
  g_assert_no_error (error);
  for (guint r = 0; r < 5; r++)
    {
      g_autofree char *text = rk_table_get_cell_text (t, r, 0);

      g_assert_cmpstr (text, ==, expected[r] ? expected[r] : "");
      g_assert_true (rk_table_is_null (t, r, 0) == (expected[r] == NULL));
    }
  g_assert_false (rk_table_check_column (t, 0, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_false (rk_table_sort (t, 0, TRUE, &error));
}

/* Every cell of @t as text, one line a row. */
static char *
all_text (RkTable *t)
{
  GString *out = g_string_new (NULL);

  for (guint r = 0; r < rk_table_get_n_rows (t); r++)
    {
      for (guint c = 0; c < rk_table_get_n_columns (t); c++)
        {
          g_autofree char *text = rk_table_get_cell_text (t, r, c);

          g_string_append_printf (out, "%s%s", c ? "\t" : "", text);
        }
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/* rk_table_prefetch_rows reads only rows that exist, hostile cells included
 * (the buffers are exact-size: ASan sees a read past them), and changes
 * nothing; a sort, which reads its first rows ahead too, still sorts. */
static void
test_prefetch (void)
{
  const char *names[] = { "dtypes", "unicode", "sort" };
  g_autoptr(GBytes) orig = NULL;
  g_autoptr(GBytes) bad = NULL;
  g_autoptr(RkTable) hostile = NULL;
  g_autoptr(GError) error = NULL;
  const guint8 *d;
  guint64 off;

  NEED_FIXTURES ();
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GBytes) bytes = fixture_bytes (names[i]);
      g_autoptr(RkTable) t = rk_table_new_from_bytes (bytes, &error);
      g_autofree char *before = NULL;
      g_autofree char *after = NULL;
      guint n;

      g_assert_no_error (error);
      n = rk_table_get_n_rows (t);
      before = all_text (t);
      rk_table_prefetch_rows (t, 0, G_MAXUINT);
      rk_table_prefetch_rows (t, n > 0 ? n - 1 : 0, G_MAXUINT);
      rk_table_prefetch_rows (t, n, 5);
      rk_table_prefetch_rows (t, G_MAXUINT, G_MAXUINT);
      after = all_text (t);
      g_assert_cmpstr (before, ==, after);
    }

  /* a string offset out of order in the middle of the column */
  orig = fixture_bytes ("unicode");
  d = g_bytes_get_data (orig, NULL);
  memcpy (&off, d + 64 + 32, 8);
  off = GUINT64_FROM_LE (off);
  bad = patched (orig, off + 4 * 2, 4, 0x7fffffff);
  hostile = rk_table_new_from_bytes (bad, &error);
  g_assert_no_error (error);
  rk_table_prefetch_rows (hostile, 0, G_MAXUINT);
  g_assert_true (rk_table_is_null (hostile, 1, 0));

  {
    g_autoptr(RkTable) t = open_fixture ("sort");
    SortState st = { FALSE, NULL };

    rk_table_sort_async (t, 2, FALSE, NULL, sort_done_cb, &st);
    while (!st.done)
      g_main_context_iteration (NULL, TRUE);
    g_assert_no_error (st.error);
    st.done = FALSE;
    rk_table_sort_async (t, -1, TRUE, NULL, sort_done_cb, &st);
    while (!st.done)
      g_main_context_iteration (NULL, TRUE);
    g_assert_no_error (st.error);
    assert_order (t, (guint[]) { 0, 1, 2, 3, 4, 5 });
  }
}

static void
test_hostile_utf8 (void)
{
  g_autoptr(GBytes) orig = NULL;
  g_autoptr(GBytes) bad = NULL;
  g_autoptr(RkTable) t = NULL;
  g_autofree char *text = NULL;
  const guint8 *d;
  guint64 heap, name;

  NEED_FIXTURES ();
  orig = fixture_bytes ("small");
  d = g_bytes_get_data (orig, NULL);
  memcpy (&heap, d + E1 + 48, 8);
  heap = GUINT64_FROM_LE (heap);
  memcpy (&name, d + E0, 8);
  name = GUINT64_FROM_LE (name);
  /* "xy" -> "\xff\xc3", name "a" -> "\x80" */
  {
    g_autoptr(GBytes) tmp = patched (orig, heap, 2, 0xc3ff);
    bad = patched (tmp, name, 1, 0x80);
  }
  t = rk_table_new_from_bytes (bad, NULL);
  g_assert_nonnull (t);
  g_assert_cmpstr (rk_table_get_column_name (t, 0), ==, "\xEF\xBF\xBD");
  text = rk_table_get_cell_text (t, 0, 1);
  g_assert_cmpstr (text, ==, "\xEF\xBF\xBD\xEF\xBF\xBD");
}

static void
test_hostile_timezone (void)
{
  g_autoptr(GBytes) orig = NULL;
  const guint8 *d;
  guint64 tz_off, tz_len = 0;
  guint dz_entry = 64 + 64 * 6;   /* column "dz" of dtypes.rkt */

  NEED_FIXTURES ();
  orig = fixture_bytes ("dtypes");
  d = g_bytes_get_data (orig, NULL);
  memcpy (&tz_off, d + dz_entry + 48, 8);
  memcpy (&tz_len, d + dz_entry + 56, 8);
  tz_off = GUINT64_FROM_LE (tz_off);
  g_assert_cmpuint (GUINT64_FROM_LE (tz_len), ==, strlen ("Europe/Paris"));
  /* "Europe/Paris" -> "../../Paris" */
  expect_error (patched (orig, tz_off, 6, 0x2f2e2e2f2e2e), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, tz_off, 1, '/'), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  expect_error (patched (orig, dz_entry + 56, 8, 65), RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  {
    /* An unknown but well-formed zone reads as UTC. */
    g_autoptr(GBytes) odd = patched (orig, tz_off, 5, 0x5858585858);   /* "XXXXXe/Paris" */
    g_autoptr(RkTable) t = rk_table_new_from_bytes (odd, NULL);
    g_autofree char *text = NULL;

    g_assert_nonnull (t);
    text = rk_table_get_cell_text (t, 0, 6);
    g_assert_cmpstr (text, ==, "2024-01-01 11:00:00+00:00");
  }
}

/* Zero rows, one string column whose single offset ends the file exactly:
 * nothing may read past it (an exact-size buffer, so ASan would see it). */
static void
test_hostile_empty_string_column (void)
{
  guint8 d[140] = { 0 };
  guint64 v;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(RkTable) t = NULL;
  g_autoptr(GError) error = NULL;

  memcpy (d, "RKTABLE\0", 8);
  d[8] = 1;
  d[24] = 1;
  v = GUINT64_TO_LE (64); memcpy (d + 32, &v, 8);
  v = GUINT64_TO_LE (64); memcpy (d + 40, &v, 8);
  v = GUINT64_TO_LE (sizeof d); memcpy (d + 48, &v, 8);
  v = GUINT64_TO_LE (128); memcpy (d + 64, &v, 8);
  d[72] = 1;
  d[76] = RK_TABLE_COLUMN_STRING;
  d[77] = 1;                                  /* u32 offsets */
  v = GUINT64_TO_LE (136); memcpy (d + 96, &v, 8);
  v = GUINT64_TO_LE (4); memcpy (d + 104, &v, 8);
  d[128] = 's';
  bytes = g_bytes_new (d, sizeof d);
  t = rk_table_new_from_bytes (bytes, &error);
  g_assert_no_error (error);
  g_assert_true (rk_table_check_column (t, 0, &error));
  g_assert_true (rk_table_sort (t, 0, TRUE, &error));
  exercise (bytes);
}

/* The widest table the format allows: 16,384 aware datetime columns. */
static void
test_max_columns (void)
{
  const guint n = RK_TABLE_MAX_COLUMNS;
  gsize dir_end = 64 + (gsize) n * 64;
  gsize size = dir_end + (gsize) n * 16;
  g_autofree guint8 *d = g_malloc0 (size);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(RkTable) t = NULL;
  g_autoptr(GError) error = NULL;
  guint64 v;

  memcpy (d, "RKTABLE\0", 8);
  d[8] = 1;
  v = GUINT64_TO_LE (n); memcpy (d + 24, &v, 4);
  v = GUINT64_TO_LE (64); memcpy (d + 32, &v, 8);
  v = GUINT64_TO_LE ((guint64) n * 64); memcpy (d + 40, &v, 8);
  v = GUINT64_TO_LE (size); memcpy (d + 48, &v, 8);
  for (guint i = 0; i < n; i++)
    {
      guint8 *e = d + 64 + (gsize) i * 64;
      gsize aux = dir_end + (gsize) i * 16;

      e[12] = RK_TABLE_COLUMN_DATETIME;
      v = GUINT64_TO_LE (dir_end); memcpy (e + 32, &v, 8);   /* 0 rows: empty data */
      v = GUINT64_TO_LE (aux); memcpy (e + 48, &v, 8);
      v = GUINT64_TO_LE (12); memcpy (e + 56, &v, 8);
      memcpy (d + aux, "Europe/Paris", 12);
    }
  bytes = g_bytes_new_take (g_steal_pointer (&d), size);
  t = rk_table_new_from_bytes (bytes, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rk_table_get_n_columns (t), ==, n);
  g_assert_cmpstr (rk_table_get_column_timezone (t, n - 1), ==, "Europe/Paris");
  g_assert_cmpstr (rk_table_get_column_name (t, n - 1), ==, "");
}

/* Every single-bit flip of a small real file: open fails cleanly or reads safely. */
static void
test_hostile_bitflips (void)
{
  g_autoptr(GBytes) orig = NULL;
  gsize len;

  NEED_FIXTURES ();
  orig = fixture_bytes ("sort");
  len = g_bytes_get_size (orig);
  for (gsize i = 0; i < len; i++)
    for (guint bit = 0; bit < 8; bit++)
      {
        const guint8 *src = g_bytes_get_data (orig, NULL);
        guint8 *d = g_memdup2 (src, len);
        g_autoptr(GBytes) bytes = NULL;

        d[i] ^= (guint8) (1u << bit);
        bytes = g_bytes_new_take (d, len);
        exercise (bytes);
      }
}

static void
test_hostile_symlink (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) t = NULL;
  g_autofree char *target = NULL;
  g_autofree char *link_path = NULL;
  g_autofree char *subdir = NULL;
  g_autofree char *linkdir = NULL;
  g_autofree char *inner = NULL;
  g_autoptr(RkWorkspace) ws = NULL;
  int dirfd;

  NEED_FIXTURES ();
  target = fixture ("small");
  link_path = g_build_filename (fixtures, "link.rkt", NULL);
  g_assert_cmpint (symlink (target, link_path), ==, 0);
  t = rk_table_open (link_path, &error);
  g_assert_null (t);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS);
  g_clear_error (&error);

  /* rk_table_open_at refuses a symlink in any component, and '..'. */
  subdir = g_build_filename (fixtures, "sub", NULL);
  g_assert_cmpint (g_mkdir (subdir, 0700), ==, 0);
  inner = g_build_filename (subdir, "t.rkt", NULL);
  g_assert_cmpint (link (target, inner), ==, 0);
  linkdir = g_build_filename (fixtures, "subl", NULL);
  g_assert_cmpint (symlink (subdir, linkdir), ==, 0);
  dirfd = open (fixtures, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (dirfd, >=, 0);

  t = rk_table_open_at (dirfd, "sub/t.rkt", &error);
  g_assert_no_error (error);
  g_assert_nonnull (t);
  g_clear_object (&t);
  t = rk_table_open_at (dirfd, "subl/t.rkt", &error);
  g_assert_null (t);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS);
  g_clear_error (&error);
  t = rk_table_open_at (dirfd, "link.rkt", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS);
  g_clear_error (&error);
  t = rk_table_open_at (dirfd, "sub/../small.rkt", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME);
  g_clear_error (&error);
  t = rk_table_open_at (dirfd, "/etc/passwd", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME);
  g_clear_error (&error);
  close (dirfd);

  ws = rk_workspace_open (fixtures, NULL);
  t = rk_table_open_beneath (ws, "sub/t.rkt", &error);
  g_assert_no_error (error);
  g_assert_nonnull (t);
  g_clear_object (&t);
  t = rk_table_open_beneath (ws, "subl/t.rkt", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS);
  g_clear_error (&error);

  /* A directory is not a table either. */
  t = rk_table_open (subdir, &error);
  g_assert_null (t);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
}

static void
test_hostile_fifo (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) t = NULL;
  g_autofree char *path = NULL;

  NEED_FIXTURES ();
  path = g_build_filename (fixtures, "fifo.rkt", NULL);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  /* Must not block waiting for a writer. */
  t = rk_table_open (path, &error);
  g_assert_null (t);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
}

static void
test_snapshot (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) t = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GBytes) orig = NULL;
  guint hits;

  NEED_FIXTURES ();
  /* Truncating the file after open (as the sandbox could) does not crash the
   * host with SIGBUS: the lost pages read as zeros, the string column then
   * fails its check, and every cell still reads safely. */
  orig = fixture_bytes ("small");
  copy = g_build_filename (fixtures, "trunc.rkt", NULL);
  g_assert_true (g_file_set_contents (copy, g_bytes_get_data (orig, NULL), g_bytes_get_size (orig), NULL));
  t = rk_table_open (copy, &error);
  g_assert_no_error (error);
  hits = _rk_table_sigbus_count ();
  g_assert_cmpint (truncate (copy, 0), ==, 0);
  text = rk_table_get_cell_text (t, 1, 1);
  g_assert_cmpstr (text, ==, "");
  g_assert_cmpuint (_rk_table_sigbus_count (), >, hits);
  for (guint r = 0; r < 2; r++)
    for (guint c = 0; c < 2; c++)
      g_free (rk_table_get_cell_text (t, r, c));
  g_assert_true (rk_table_sort (t, 0, TRUE, NULL));
  g_clear_object (&t);

  /* An empty file is refused. */
  t = rk_table_open (copy, &error);
  g_assert_null (t);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
}

/* Beyond 1024 mapped tables, further ones are read into a sealed memfd copy. */
static void
test_many_open (void)
{
  g_autoptr(GPtrArray) tables = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *path = NULL;
  g_autofree char *copy = NULL;
  g_autoptr(GBytes) orig = NULL;
  g_autoptr(GError) error = NULL;
  RkTable *last;
  g_autofree char *text = NULL;

  NEED_FIXTURES ();
  path = fixture ("small");
  for (guint i = 0; i < 1100; i++)
    {
      RkTable *t = rk_table_open (path, &error);
      g_assert_no_error (error);
      g_ptr_array_add (tables, t);
    }
  /* The last one is a copy: truncating its file changes nothing. */
  orig = fixture_bytes ("small");
  copy = g_build_filename (fixtures, "many.rkt", NULL);
  g_assert_true (g_file_set_contents (copy, g_bytes_get_data (orig, NULL), g_bytes_get_size (orig), NULL));
  last = rk_table_open (copy, &error);
  g_assert_no_error (error);
  g_assert_cmpint (truncate (copy, 0), ==, 0);
  text = rk_table_get_cell_text (last, 1, 1);
  g_assert_cmpstr (text, ==, "z");
  g_object_unref (last);
  for (guint i = 0; i < tables->len; i++)
    {
      g_autofree char *cell = rk_table_get_cell_text (tables->pdata[i], 0, 1);
      g_assert_cmpstr (cell, ==, "xy");
    }
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  make_fixtures ();

  g_test_add_func ("/rk/table/dtypes", test_dtypes);
  g_test_add_func ("/rk/table/unicode", test_unicode);
  g_test_add_func ("/rk/table/empty", test_empty);
  g_test_add_func ("/rk/table/zero-columns", test_zero_columns);
  g_test_add_func ("/rk/table/one-row", test_one_row);
  g_test_add_func ("/rk/table/index", test_index);
  g_test_add_func ("/rk/table/odd-frames", test_odd_frames);
  g_test_add_func ("/rk/table/sort", test_sort);
  g_test_add_func ("/rk/table/sort-async", test_sort_async);
  g_test_add_func ("/rk/table/export/csv", test_export_csv);
  g_test_add_func ("/rk/table/export/cancel", test_export_cancel);
  g_test_add_func ("/rk/table/export/async", test_export_async);
  g_test_add_func ("/rk/table/export/xlsx", test_export_xlsx);
  g_test_add_func ("/rk/table/export/xlsx-row-limit", test_export_xlsx_limit);
  g_test_add_func ("/rk/table/export/formulas", test_export_formulas);
  g_test_add_func ("/rk/table/hostile/truncated", test_hostile_truncated);
  g_test_add_func ("/rk/table/hostile/header", test_hostile_header);
  g_test_add_func ("/rk/table/hostile/directory", test_hostile_directory);
  g_test_add_func ("/rk/table/hostile/overlap", test_hostile_overlap);
  g_test_add_func ("/rk/table/hostile/string-offsets", test_hostile_string_offsets);
  g_test_add_func ("/rk/table/hostile/utf8", test_hostile_utf8);
  g_test_add_func ("/rk/table/prefetch", test_prefetch);
  g_test_add_func ("/rk/table/hostile/middle-offset", test_hostile_middle_offset);
  g_test_add_func ("/rk/table/hostile/timezone", test_hostile_timezone);
  g_test_add_func ("/rk/table/hostile/empty-string-column", test_hostile_empty_string_column);
  g_test_add_func ("/rk/table/hostile/bitflips", test_hostile_bitflips);
  g_test_add_func ("/rk/table/max-columns", test_max_columns);
  g_test_add_func ("/rk/table/hostile/symlink", test_hostile_symlink);
  g_test_add_func ("/rk/table/hostile/fifo", test_hostile_fifo);
  g_test_add_func ("/rk/table/snapshot", test_snapshot);
  g_test_add_func ("/rk/table/many-open", test_many_open);

  ret = g_test_run ();

  if (fixtures != NULL)
    {
      g_autoptr(GFile) dir = g_file_new_for_path (fixtures);
      g_autoptr(GFileEnumerator) e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                                G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
      GFileInfo *info;

      while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
        {
          g_autofree char *p = g_build_filename (fixtures, g_file_info_get_name (info), NULL);
          if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
            {
              g_autofree char *inner = g_build_filename (p, "t.rkt", NULL);
              g_unlink (inner);
              g_rmdir (p);
            }
          else
            g_unlink (p);
          g_object_unref (info);
        }
      g_rmdir (fixtures);
    }
  return ret;
}
