/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table-text.c — a table's cells as text people read, filter and paste. */
#define G_LOG_DOMAIN "rk-table-text"
#include "config.h"

#include "rk-table-text.h"
#include "rk-number.h"

#include <glib/gi18n-lib.h>
#include <locale.h>
#include <math.h>
#include <string.h>

char *
rk_table_text_localize_float (const char *c_text,
                              double      value,
                              gboolean    group)
{
  const char *dot;
  int decimals = 0;

  g_return_val_if_fail (c_text != NULL, NULL);

  if (!isfinite (value) || strpbrk (c_text, "eE") != NULL)
    {
      const char *point = localeconv ()->decimal_point;
      g_autoptr(GString) s = g_string_new (c_text);

      if (point != NULL && strcmp (point, ".") != 0)
        g_string_replace (s, ".", point, 1);
      return g_string_free (g_steal_pointer (&s), FALSE);
    }

  dot = strchr (c_text, '.');
  if (dot != NULL)
    decimals = (int) strspn (dot + 1, "0123456789");
  return group ? g_strdup_printf ("%'.*f", decimals, value)
               : g_strdup_printf ("%.*f", decimals, value);
}

char *
rk_table_text_format_cell (RkTable         *table,
                           guint            row,
                           guint            column,
                           RkCellTextFlags  flags)
{
  gboolean group = (flags & RK_CELL_TEXT_GROUP) != 0;
  RkTableColumnType type;

  g_return_val_if_fail (RK_IS_TABLE (table), NULL);

  if (rk_table_is_null (table, row, column))
    return NULL;

  type = rk_table_get_column_type (table, column);
  if (type == RK_TABLE_COLUMN_INT64)
    {
      gint64 v = 0;

      rk_table_get_int64 (table, row, column, &v);
      return group ? g_strdup_printf ("%'" G_GINT64_FORMAT, v)
                   : g_strdup_printf ("%" G_GINT64_FORMAT, v);
    }
  if (type == RK_TABLE_COLUMN_FLOAT64)
    {
      g_autofree char *text = rk_table_get_cell_text (table, row, column);
      double v = NAN;

      rk_table_get_double (table, row, column, &v);
      return (flags & RK_CELL_TEXT_EXACT) != 0 ? rk_table_text_localize_float (text, v, group)
                                               : rk_number_format_float (text, v, group, NULL);
    }
  return rk_table_get_cell_text (table, row, column);
}

gboolean
rk_table_text_row_matches (RkTable    *table,
                           guint       row,
                           const char *folded)
{
  guint n_columns;

  g_return_val_if_fail (RK_IS_TABLE (table), FALSE);
  g_return_val_if_fail (folded != NULL, FALSE);

  n_columns = rk_table_get_n_columns (table);
  for (guint c = 0; c < n_columns; c++)
    {
      g_autofree char *text = rk_table_text_format_cell (table, row, c, 0);
      g_autofree char *cell = text != NULL ? g_utf8_casefold (text, -1) : NULL;

      if (cell != NULL && strstr (cell, folded) != NULL)
        return TRUE;
    }
  return FALSE;
}

char *
rk_table_text_count_rows (guint       total,
                          guint       shown,
                          RkRowsShown how)
{
  g_autofree char *total_text = g_strdup_printf ("%'u", total);
  g_autofree char *shown_text = g_strdup_printf ("%'u", shown);

  if (how == RK_ROWS_FILTERED)
    /* Translators: "12 of 1,000,000 rows" (the rest are filtered out) */
    return g_strdup_printf (_("%s of %s rows"), shown_text, total_text);
  if (how == RK_ROWS_FIRST && total > shown)
    /* Translators: "First 20 of 1,000,000 rows" */
    return g_strdup_printf (_("First %s of %s rows"), shown_text, total_text);
  return g_strdup_printf (ngettext ("%s row", "%s rows", total), total_text);
}

static void
append_field (GString    *out,
              const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    g_string_append_c (out, (*p == '\t' || *p == '\n' || *p == '\r') ? ' ' : *p);
}

/* One line: the header when @row is NULL, else the cells of *@row. */
static void
append_line (GString     *out,
             RkTable     *table,
             const guint *row,
             int          only_column)
{
  guint n_columns = rk_table_get_n_columns (table);

  for (guint c = 0; c < n_columns; c++)
    {
      g_autofree char *text = NULL;

      if (only_column >= 0 && c != (guint) only_column)
        continue;
      if (c > 0 && only_column < 0)
        g_string_append_c (out, '\t');
      if (row == NULL)
        append_field (out, rk_table_get_column_name (table, c) ? rk_table_get_column_name (table, c) : "");
      else if ((text = rk_table_text_format_cell (table, *row, c, RK_CELL_TEXT_EXACT)) != NULL)
        append_field (out, text);
    }
  g_string_append_c (out, '\n');
}

char *
rk_table_text_tsv (RkTable     *table,
                   const guint *rows,
                   guint        n_rows,
                   int          only_column)
{
  GString *out;

  g_return_val_if_fail (RK_IS_TABLE (table), NULL);
  g_return_val_if_fail (rows != NULL || n_rows == 0, NULL);

  out = g_string_new (NULL);
  /* the header row first, as Save writes it (issue 17: Copy left it out) */
  append_line (out, table, NULL, only_column);
  for (guint i = 0; i < n_rows; i++)
    append_line (out, table, &rows[i], only_column);
  return g_string_free (out, FALSE);
}
