/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-table.c — RkTable over arbitrary bytes: open from memory, read every
 * cell through every accessor, sort every column, export a few rows. */
#include "config.h"

#include <stdint.h>

#include "rk-table.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(RkTable) table = rk_table_new_from_bytes (bytes, NULL);
  guint n_rows, n_cols;

  if (table == NULL)
    return 0;

  n_rows = rk_table_get_n_rows (table);
  n_cols = rk_table_get_n_columns (table);
  /* A zero-column table may claim many rows; walking them proves nothing. */
  if (n_cols == 0)
    n_rows = MIN (n_rows, 1024);

  for (guint c = 0; c < n_cols; c++)
    {
      g_autoptr(GError) error = NULL;

      g_assert (g_utf8_validate (rk_table_get_column_name (table, c), -1, NULL));
      rk_table_get_column_timezone (table, c);
      rk_table_check_column (table, c, &error);
      for (guint r = 0; r <= n_rows; r++)
        {
          g_autofree char *text = rk_table_get_cell_text (table, r, c);
          gint64 i;
          double d;
          gboolean b;
          gsize len;

          g_assert (g_utf8_validate (text, -1, NULL));
          rk_table_is_null (table, r, c);
          rk_table_get_int64 (table, r, c, &i);
          rk_table_get_double (table, r, c, &d);
          rk_table_get_boolean (table, r, c, &b);
          rk_table_get_datetime (table, r, c, &i);
          rk_table_peek_string (table, r, c, &len);
        }
      rk_table_sort (table, (int) c, (c % 2) == 0, NULL);
    }

  for (guint i = 0; i < MIN (n_rows, 64); i++)
    {
      g_autoptr(GObject) row = g_list_model_get_item (G_LIST_MODEL (table), i);
      g_assert (row != NULL);
    }

  /* The table's own row count: a zero-column table may have millions. */
  if ((guint64) rk_table_get_n_rows (table) * MAX (n_cols, 1) <= 4096)
    {
      g_autoptr(GOutputStream) csv = g_memory_output_stream_new_resizable ();
      g_autoptr(GOutputStream) xlsx = g_memory_output_stream_new_resizable ();

      rk_table_export (table, RK_TABLE_EXPORT_CSV, csv, NULL, NULL, NULL, NULL);
      rk_table_export (table, RK_TABLE_EXPORT_XLSX, xlsx, NULL, NULL, NULL, NULL);
    }
  return 0;
}
