/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli-table.c — `reckon-cli table FILE.rkt`: shows an RkTable's columns and
 * first rows, sorted if asked, or saves it as CSV or XLSX. */
#define G_LOG_DOMAIN "reckon-cli"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <string.h>

#include "rk-cli.h"
#include "rk-table.h"

static const char *
type_name (RkTableColumnType type)
{
  switch (type)
    {
    case RK_TABLE_COLUMN_INT64: return "int64";
    case RK_TABLE_COLUMN_FLOAT64: return "float64";
    case RK_TABLE_COLUMN_BOOL: return "bool";
    case RK_TABLE_COLUMN_DATETIME: return "datetime";
    case RK_TABLE_COLUMN_STRING: return "string";
    default: return "?";
    }
}

static int
find_column (RkTable    *table,
             const char *name)
{
  char *end = NULL;
  guint64 n;

  for (guint c = 0; c < rk_table_get_n_columns (table); c++)
    if (g_strcmp0 (rk_table_get_column_name (table, c), name) == 0)
      return (int) c;
  /* Numbers count from 1, as the listing shows them. */
  n = g_ascii_strtoull (name, &end, 10);
  if (end != name && *end == '\0' && n >= 1 && n <= rk_table_get_n_columns (table))
    return (int) (n - 1);
  return -1;
}

/* One cell (or column name) for a terminal line: no control characters,
 * tabs and newlines shown as spaces. */
static void
print_cell (const char *text)
{
  g_autofree char *clean = rk_cli_name (text);

  fputs (clean, stdout);
}

int
rk_cli_table (int    argc,
              char **argv)
{
  g_autofree char *out = NULL;
  g_autofree char *sort = NULL;
  g_auto(GStrv) files = NULL;
  int head = 10;
  gboolean describe_only = FALSE;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) table = NULL;
  const GOptionEntry entries[] = {
    { "head", 'n', 0, G_OPTION_ARG_INT, &head, N_("Print the first N rows (default 10)"), N_("N") },
    { "sort", 's', 0, G_OPTION_ARG_STRING, &sort, N_("Sort by a column (its name, or its number counting from 1), “:desc” for descending"), N_("COLUMN[:desc]") },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, N_("Save the table as FILE (.csv or .xlsx)"), N_("FILE") },
    { "columns", 0, 0, G_OPTION_ARG_NONE, &describe_only, N_("Print only the shape and the columns"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
    { NULL }
  };
  guint n_rows, n_cols;

  context = g_option_context_new (_("FILE.rkt — show or save a table the kernel wrote"));
  g_option_context_set_summary (context,
    _("FILE.rkt is a table as the kernel wrote it: “reckon-cli ask --out DIR” and "
      "“reckon-cli exec --out DIR” keep each table both as NAME.csv and as NAME.rkt."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  rk_cli_set_exit_help (context, _("the table could not be read, sorted or saved"), RK_CLI_EXIT_USAGE, -1);
  if (!rk_cli_parse_options (context, "table", &argc, &argv))
    return RK_CLI_EXIT_USAGE;
  if (files == NULL || files[0] == NULL || files[1] != NULL || head < 0)
    return rk_cli_fail (RK_CLI_EXIT_USAGE, "%s\n", _("Usage: reckon-cli table FILE.rkt [--head N] [--sort COLUMN[:desc]] [--out FILE.{csv,xlsx}]"));

  table = rk_table_open (files[0], &error);
  if (table == NULL)
    return rk_cli_fail (RK_CLI_EXIT_FAILURE, "reckon-cli table: %s: %s\n", files[0], error->message);
  n_rows = rk_table_get_n_rows (table);
  n_cols = rk_table_get_n_columns (table);

  if (sort != NULL)
    {
      gboolean ascending = TRUE;
      char *colon = strrchr (sort, ':');
      int column;

      if (colon != NULL && (strcmp (colon, ":desc") == 0 || strcmp (colon, ":asc") == 0))
        {
          ascending = strcmp (colon, ":asc") == 0;
          *colon = '\0';
        }
      column = find_column (table, sort);
      if (column < 0)
        return rk_cli_fail (RK_CLI_EXIT_USAGE, _("reckon-cli table: no column “%s”.\n"), sort);
      if (!rk_table_sort (table, column, ascending, &error))
        return rk_cli_fail (RK_CLI_EXIT_FAILURE, "reckon-cli table: %s\n", error->message);
    }

  if (out != NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (out);
      g_autoptr(GFileOutputStream) stream = NULL;
      RkTableExportFormat format = g_str_has_suffix (out, ".xlsx") ? RK_TABLE_EXPORT_XLSX : RK_TABLE_EXPORT_CSV;

      stream = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, NULL, &error);
      if (stream == NULL ||
          !rk_table_export (table, format, G_OUTPUT_STREAM (stream), NULL, NULL, NULL, &error) ||
          !g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error))
        return rk_cli_fail (RK_CLI_EXIT_FAILURE, "reckon-cli table: %s: %s\n", out, error->message);
      return RK_CLI_EXIT_OK;
    }

  rk_cli_print (stdout, _("%u rows × %u columns (%u index)\n"), n_rows, n_cols, rk_table_get_n_index_columns (table));
  for (guint c = 0; c < n_cols; c++)
    {
      const char *tz = rk_table_get_column_timezone (table, c);
      g_autoptr(GError) column_error = NULL;
      g_autofree char *name = rk_cli_name (rk_table_get_column_name (table, c));
      g_autofree char *zone = rk_cli_name (tz);

      rk_cli_print (stdout, "  %u\t%s\t%s%s%s%s%s\n", c + 1, name,
              type_name (rk_table_get_column_type (table, c)),
              tz ? " " : "", tz ? zone : "",
              rk_table_check_column (table, c, &column_error) ? "" : "\t",
              column_error ? column_error->message : "");
    }
  if (describe_only)
    return RK_CLI_EXIT_OK;

  for (guint c = 0; c < n_cols; c++)
    {
      if (c > 0)
        putchar ('\t');
      print_cell (rk_table_get_column_name (table, c));
    }
  if (n_cols > 0)
    putchar ('\n');
  for (guint i = 0; i < n_rows && i < (guint) head && n_cols > 0; i++)
    {
      guint row = rk_table_get_row_at (table, i);

      for (guint c = 0; c < n_cols; c++)
        {
          g_autofree char *text = rk_table_get_cell_text (table, row, c);

          if (c > 0)
            putchar ('\t');
          print_cell (text);
        }
      putchar ('\n');
    }
  return RK_CLI_EXIT_OK;
}
