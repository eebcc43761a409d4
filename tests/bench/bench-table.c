/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-table.c — a 1,000,000 × 10 DataFrame through RkTable against the
 * obvious path (DataFrame.to_csv, then the CSV parsed fully in C on the host). */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk-table.h"
#include "rk-util.h"

#define RUNS_PY      3
#define RUNS_FIRST   7
#define RUNS_WHOLE   3
#define RUNS_CSV     3
#define FIRST_ROWS   50

static double
now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

static gsize
rss_bytes (void)
{
  g_autofree char *text = NULL;
  unsigned long size = 0, resident = 0;

  if (!g_file_get_contents ("/proc/self/statm", &text, NULL, NULL) ||
      sscanf (text, "%lu %lu", &size, &resident) != 2)
    return 0;
  return (gsize) resident * (gsize) sysconf (_SC_PAGESIZE);
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

static const char *
met (gboolean ok)
{
  return ok ? "MET" : "NOT MET";
}

/* ------------------------------------------------------------- RkTable */

static double
rktable_first_rows (const char *path)
{
  g_autoptr(GError) error = NULL;
  double t0 = now ();
  g_autoptr(RkTable) t = rk_table_open (path, &error);
  gsize total = 0;

  g_assert_no_error (error);
  for (guint r = 0; r < FIRST_ROWS; r++)
    for (guint c = 0; c < rk_table_get_n_columns (t); c++)
      {
        g_autofree char *text = rk_table_get_cell_text (t, rk_table_get_row_at (t, r), c);
        total += strlen (text);
      }
  g_assert_cmpuint (total, >, 0);
  return now () - t0;
}

/* Reads every cell's value; returns the time, the RSS growth, and the size of
 * the data itself (8 bytes a number or date, 1 a bool, the UTF-8 of strings). */
static double
rktable_whole (const char *path,
               gsize      *rss_delta,
               guint64    *data_bytes,
               RkTable   **keep)
{
  g_autoptr(GError) error = NULL;
  gsize rss0 = rss_bytes ();
  double t0 = now (), t1;
  RkTable *t = rk_table_open (path, &error);
  double sum = 0;
  guint64 bytes = 0;

  g_assert_no_error (error);
  for (guint c = 0; c < rk_table_get_n_columns (t); c++)
    {
      RkTableColumnType type = rk_table_get_column_type (t, c);
      guint n = rk_table_get_n_rows (t);

      for (guint r = 0; r < n; r++)
        {
          gint64 i;
          double d;
          gboolean b;
          gsize len;
          const char *s;

          switch (type)
            {
            case RK_TABLE_COLUMN_INT64:
              if (rk_table_get_int64 (t, r, c, &i))
                sum += (double) i;
              bytes += 8;
              break;
            case RK_TABLE_COLUMN_FLOAT64:
              if (rk_table_get_double (t, r, c, &d) && d == d)
                sum += d;
              bytes += 8;
              break;
            case RK_TABLE_COLUMN_BOOL:
              if (rk_table_get_boolean (t, r, c, &b))
                sum += b;
              bytes += 1;
              break;
            case RK_TABLE_COLUMN_DATETIME:
              if (rk_table_get_datetime (t, r, c, &i))
                sum += (double) (i / 1000000000);
              bytes += 8;
              break;
            case RK_TABLE_COLUMN_STRING:
            default:
              s = rk_table_peek_string (t, r, c, &len);
              if (s != NULL && len > 0)
                sum += (guchar) s[0];
              bytes += len;
              break;
            }
        }
    }
  t1 = now ();
  g_assert_true (sum != 0);
  *rss_delta = rss_bytes () - rss0;
  *data_bytes = bytes;
  *keep = t;
  return t1 - t0;
}

#define TEXT_ROWS 100000

/* Display text of the first TEXT_ROWS rows: what scrolling costs a cell. */
static double
rktable_all_text (const char *path)
{
  g_autoptr(RkTable) t = rk_table_open (path, NULL);
  double t0 = now ();
  gsize total = 0;

  for (guint c = 0; c < rk_table_get_n_columns (t); c++)
    for (guint r = 0; r < TEXT_ROWS; r++)
      {
        g_autofree char *text = rk_table_get_cell_text (t, r, c);
        total += strlen (text);
      }
  g_assert_cmpuint (total, >, 0);
  return now () - t0;
}

/* ------------------------------------------------------------ CSV peer */

/* A straightforward columnar CSV loader in C: RFC 4180 quotes, numbers
 * converted with strtoll/strtod, other fields (dates, booleans, text) kept as
 * strings — which flatters it: it does not parse the dates. */
typedef struct
{
  gboolean  numeric;
  GArray   *nums;     /* double */
  GString  *heap;
  GArray   *offs;     /* guint64 */
} CsvColumn;

static const char *
next_field (const char  *p,
            const char  *end,
            GString     *scratch,
            const char **field,
            gsize       *len,
            gboolean    *eol)
{
  if (p < end && *p == '"')
    {
      g_string_truncate (scratch, 0);
      p++;
      while (p < end)
        {
          if (*p == '"')
            {
              if (p + 1 < end && p[1] == '"')
                {
                  g_string_append_c (scratch, '"');
                  p += 2;
                  continue;
                }
              p++;
              break;
            }
          g_string_append_c (scratch, *p++);
        }
      *field = scratch->str;
      *len = scratch->len;
    }
  else
    {
      const char *start = p;

      while (p < end && *p != ',' && *p != '\n')
        p++;
      *field = start;
      *len = p - start;
      if (*len > 0 && start[*len - 1] == '\r')
        (*len)--;
    }
  if (p < end && *p == '\r')
    p++;
  *eol = (p >= end || *p == '\n');
  if (p < end)
    p++;
  return p;
}

static gboolean
looks_numeric (const char *field,
               gsize       len)
{
  char buf[64];
  char *e;

  if (len == 0)
    return TRUE;                /* empty: NaN */
  if (len >= sizeof buf)
    return FALSE;
  memcpy (buf, field, len);
  buf[len] = '\0';
  strtod (buf, &e);
  return *e == '\0';
}

static double
csv_load (const char *path,
          gsize      *rss_peak_delta,
          gsize      *rss_kept_delta)
{
  gsize rss0 = rss_bytes ();
  double t0 = now ();
  g_autofree char *data = NULL;
  gsize size;
  g_autoptr(GString) scratch = g_string_new (NULL);
  GPtrArray *cols = g_ptr_array_new ();
  const char *p, *end, *probe;
  const char *field;
  gsize len;
  gboolean eol = FALSE;
  guint64 n_rows = 0;
  double t1;

  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  p = data;
  end = data + size;

  /* Header. */
  while (!eol && p < end)
    {
      CsvColumn *c = g_new0 (CsvColumn, 1);
      p = next_field (p, end, scratch, &field, &len, &eol);
      c->numeric = TRUE;
      g_ptr_array_add (cols, c);
    }
  /* Column kinds from the first 1000 rows. */
  probe = p;
  for (int r = 0; r < 1000 && probe < end; r++)
    for (guint c = 0; c < cols->len; c++)
      {
        CsvColumn *col = cols->pdata[c];
        probe = next_field (probe, end, scratch, &field, &len, &eol);
        if (!looks_numeric (field, len))
          col->numeric = FALSE;
      }
  for (guint c = 0; c < cols->len; c++)
    {
      CsvColumn *col = cols->pdata[c];
      guint64 zero = 0;
      if (col->numeric)
        col->nums = g_array_sized_new (FALSE, FALSE, sizeof (double), 1 << 20);
      else
        {
          col->heap = g_string_sized_new (1 << 20);
          col->offs = g_array_sized_new (FALSE, FALSE, sizeof (guint64), 1 << 20);
          g_array_append_val (col->offs, zero);
        }
    }

  while (p < end)
    {
      for (guint c = 0; c < cols->len; c++)
        {
          CsvColumn *col = cols->pdata[c];

          p = next_field (p, end, scratch, &field, &len, &eol);
          if (col->numeric)
            {
              double v = NAN;
              char buf[64];

              if (len > 0 && len < sizeof buf)
                {
                  memcpy (buf, field, len);
                  buf[len] = '\0';
                  v = strtod (buf, NULL);
                }
              g_array_append_val (col->nums, v);
            }
          else
            {
              guint64 off;
              g_string_append_len (col->heap, field, len);
              off = col->heap->len;
              g_array_append_val (col->offs, off);
            }
        }
      n_rows++;
    }
  t1 = now ();
  g_assert_cmpuint (n_rows, ==, 1000000);
  *rss_peak_delta = rss_bytes () - rss0;
  g_clear_pointer (&data, g_free);
  *rss_kept_delta = rss_bytes () - rss0;

  for (guint c = 0; c < cols->len; c++)
    {
      CsvColumn *col = cols->pdata[c];
      if (col->nums)
        g_array_unref (col->nums);
      if (col->heap)
        g_string_free (col->heap, TRUE);
      if (col->offs)
        g_array_unref (col->offs);
      g_free (col);
    }
  g_ptr_array_unref (cols);
  return t1 - t0;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rk-bench-table-XXXXXX", &error);
  g_autofree char *script = g_build_filename (g_getenv ("RECKON_SOURCE_ROOT") ? g_getenv ("RECKON_SOURCE_ROOT") : ".",
                                              "tests", "bench", "bench-table.py", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *loadavg = NULL;
  g_autofree char *runs = g_strdup_printf ("%d", RUNS_PY);
  const char *py_argv[] = { "/usr/bin/python3", script, dir, runs, NULL };
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "PYTHONPATH", rk_kernel_dir (), TRUE);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o;
  const char *rkt, *csv;
  double write_s, to_csv_s;
  double first[RUNS_FIRST], whole[RUNS_WHOLE], csv_t[RUNS_CSV];
  double first_ms, whole_s, csv_s, text_s;
  gsize rss_delta = 0, csv_peak = 0, csv_kept = 0;
  guint64 data_bytes = 0, rkt_bytes, csv_bytes;
  GStatBuf st;
  int status;

  g_assert_no_error (error);
  if (!g_spawn_sync (NULL, (char **) py_argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    {
      g_print ("SKIP: the Python writer could not run: %s\n%s\n", error->message, err ? err : "");
      return 77;
    }
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  o = json_node_get_object (json_parser_get_root (parser));
  rkt = json_object_get_string_member (o, "rkt");
  csv = json_object_get_string_member (o, "csv");
  write_s = json_object_get_double_member (o, "write_s");
  to_csv_s = json_object_get_double_member (o, "to_csv_s");
  rkt_bytes = json_object_get_int_member (o, "rkt_bytes");
  csv_bytes = g_stat (csv, &st) == 0 ? (guint64) st.st_size : 0;

  /* Warm-up, so both files start from the page cache alike. */
  rktable_first_rows (rkt);

  for (int i = 0; i < RUNS_FIRST; i++)
    first[i] = rktable_first_rows (rkt);
  for (int i = 0; i < RUNS_WHOLE; i++)
    {
      RkTable *keep = NULL;
      gsize delta;

      whole[i] = rktable_whole (rkt, &delta, &data_bytes, &keep);
      g_object_unref (keep);
      if (i == 0 || delta > rss_delta)
        rss_delta = delta;
    }
  text_s = rktable_all_text (rkt);
  for (int i = 0; i < RUNS_CSV; i++)
    {
      gsize peak, kept;

      csv_t[i] = csv_load (csv, &peak, &kept);
      csv_peak = MAX (csv_peak, peak);
      csv_kept = MAX (csv_kept, kept);
    }

  g_file_get_contents ("/proc/loadavg", &loadavg, NULL, NULL);
  first_ms = median (first, RUNS_FIRST) * 1000;
  whole_s = median (whole, RUNS_WHOLE);
  csv_s = median (csv_t, RUNS_CSV);

  g_print ("RkTable benchmark: 1,000,000 rows x 10 columns (2 int, 3 float, 2 string, 2 datetime, 1 bool)\n");
  g_print ("  sizes: RkTable file %.1f MB, CSV file %.1f MB, data %.1f MB (8 B a number/date, 1 B a bool, UTF-8 of strings)\n",
           rkt_bytes / 1e6, csv_bytes / 1e6, data_bytes / 1e6);
  g_print ("  medians of %d (writer), %d (to_csv), %d/%d (RkTable first/whole), %d (CSV parse) runs;\n"
           "  the CSV peer is parsed in C (RFC 4180 quotes, strtod), dates and booleans kept as text\n",
           RUNS_PY, MAX (1, RUNS_PY - 1), RUNS_FIRST, RUNS_WHOLE, RUNS_CSV);
  g_print ("  machine load average at the end: %s", loadavg ? loadavg : "?\n");
  g_print ("  write:        reckon.table.write %.3f s   vs df.to_csv %.3f s   -> %.1fx faster\n",
           write_s, to_csv_s, to_csv_s / write_s);
  g_print ("  first %d rows on the host (open + text of 50x10 cells): %.1f ms   [target < 100 ms: %s]\n",
           FIRST_ROWS, first_ms, met (first_ms < 100));
  g_print ("  whole table on the host (every value read): RkTable %.3f s   vs CSV parse %.3f s   -> %.1fx\n",
           whole_s, csv_s, csv_s / whole_s);
  g_print ("  end to end (write + whole load): RkTable %.3f s   vs to_csv + parse %.3f s   -> %.1fx   [target >= 5x: %s]\n",
           write_s + whole_s, to_csv_s + csv_s, (to_csv_s + csv_s) / (write_s + whole_s),
           met ((to_csv_s + csv_s) / (write_s + whole_s) >= 5 && csv_s / whole_s >= 5));
  g_print ("  (display text through rk_table_get_cell_text: %.0f ns a cell, over %d cells)\n",
           text_s * 1e9 / (TEXT_ROWS * 10.0), TEXT_ROWS * 10);
  g_print ("  host memory: RkTable RSS delta %.1f MB = %.2fx data   [target <= 1.5x: %s];  CSV peer peak %.1f MB = %.2fx, kept %.1f MB = %.2fx\n",
           rss_delta / 1e6, (double) rss_delta / data_bytes, met ((double) rss_delta <= 1.5 * data_bytes),
           csv_peak / 1e6, (double) csv_peak / data_bytes, csv_kept / 1e6, (double) csv_kept / data_bytes);

  g_unlink (rkt);
  g_unlink (csv);
  g_rmdir (dir);
  return 0;
}
