/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-file-summary.c — a file's one-line summaries. Names inside a profile
 * come from the file: they are made harmless before they are shown. */
#define G_LOG_DOMAIN "rk-file-summary"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "rk-file-summary.h"
#include "rk-text.h"

const char *
rk_file_kind_label (RkFileKind kind)
{
  switch (kind)
    {
    case RK_FILE_KIND_CSV: return _("CSV");
    case RK_FILE_KIND_TSV: return _("TSV");
    case RK_FILE_KIND_XLSX: return _("Excel workbook");
    case RK_FILE_KIND_XLS: return _("Excel 97–2003 workbook");
    case RK_FILE_KIND_ODS: return _("OpenDocument spreadsheet");
    case RK_FILE_KIND_PDF: return _("PDF");
    case RK_FILE_KIND_TEXT: return _("Text");
    case RK_FILE_KIND_JSON: return _("JSON");
    case RK_FILE_KIND_UNKNOWN:
    default: return _("File");
    }
}

const char *
rk_column_type_label (RkColumnType type)
{
  switch (type)
    {
    case RK_COLUMN_EMPTY: return _("empty");
    case RK_COLUMN_INTEGER: return _("whole number");
    case RK_COLUMN_FLOAT: return _("number");
    case RK_COLUMN_BOOLEAN: return _("yes/no");
    case RK_COLUMN_DATE: return _("date");
    case RK_COLUMN_DATETIME: return _("date and time");
    case RK_COLUMN_MIXED: return _("mixed");
    case RK_COLUMN_TEXT:
    default: return _("text");
    }
}

const char *
rk_file_icon_name (const RkFileProfile *profile)
{
  if (profile == NULL)
    return "text-x-generic-symbolic";
  if (profile->error != NULL)
    return "dialog-warning-symbolic";
  switch (profile->kind)
    {
    case RK_FILE_KIND_CSV:
    case RK_FILE_KIND_TSV:
    case RK_FILE_KIND_XLSX:
    case RK_FILE_KIND_XLS:
    case RK_FILE_KIND_ODS:
      return "x-office-spreadsheet-symbolic";
    case RK_FILE_KIND_PDF:
      return "x-office-document-symbolic";
    default:
      return "text-x-generic-symbolic";
    }
}

/* "1,204 rows × 7 columns" (digits grouped as the locale does). */
static void
append_rows (GString              *s,
             const RkTableProfile *t,
             gboolean              estimate)
{
  g_autofree char *rows = g_strdup_printf ("%'" G_GUINT64_FORMAT, t->rows);

  if (estimate)
    /* TRANSLATORS: on a big file's card while its rows are counted: the
     * rows estimated from a sample, e.g. "about 260,000,000 rows × 6
     * columns, counting…"; %s is a number */
    g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "about %s rows × %u column, counting…",
                                            "about %s rows × %u columns, counting…", t->n_columns),
                            rows, t->n_columns);
  else if (t->rows == 1 && !t->rows_approximate)
    /* TRANSLATORS: a table of one row: "1 row × 7 columns" */
    g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "1 row × %u column", "1 row × %u columns",
                                            t->n_columns),
                            t->n_columns);
  else
    /* TRANSLATORS: e.g. "1,204 rows × 7 columns"; the first %s is a number */
    g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%s%s rows × %u column", "%s%s rows × %u columns",
                                            t->n_columns),
                            t->rows_approximate ? "~" : "", rows, t->n_columns);
}

typedef enum { COUNT_SHEETS, COUNT_TABLES, COUNT_PAGES, COUNT_LINES } Count;

/* How many sheets, tables, pages or lines: each plural said once. */
static void
append_count (GString    *s,
              const char *separator,
              Count       what,
              guint64     n)
{
  g_string_append (s, separator);
  switch (what)
    {
    case COUNT_SHEETS:
      g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%u sheet", "%u sheets", n), (guint) n);
      break;
    case COUNT_TABLES:
      /* Translators: a file with several sheets or tables. */
      g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%u table", "%u tables", n), (guint) n);
      break;
    case COUNT_PAGES:
      g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%u page", "%u pages", n), (guint) n);
      break;
    case COUNT_LINES:
    default:
      g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " line", "%" PRIu64 " lines", n),
                              (uint64_t) n);
      break;
    }
}

char *
rk_file_summary (const RkFileProfile *profile,
                 guint                table,
                 gboolean             estimate)
{
  GString *s = g_string_new (rk_file_kind_label (profile->kind));
  /* TRANSLATORS: on a file's card: the file is bigger than the sandbox's memory
   * allows, so Python reads it lazily, part by part (Dask) */
  const char *lazy = profile->engine == RK_ENGINE_DASK ? _("Large file: read in parts") : NULL;

  if (profile->size > 0)
    {
      g_autofree char *size = g_format_size (profile->size);
      g_string_append_printf (s, " · %s", size);
    }
  if (profile->sheets > 1)
    append_count (s, " · ", COUNT_SHEETS, profile->sheets);
  if (profile->pages > 0)
    append_count (s, " · ", COUNT_PAGES, profile->pages);
  if (profile->tables != NULL && profile->tables->len > 0)
    {
      guint index = estimate ? 0 : MIN (table, profile->tables->len - 1);
      const RkTableProfile *t = profile->tables->pdata[index];
      gboolean pdf_tables = profile->sheets <= 1 && profile->tables->len > 1;
      g_autofree char *name = t->name ? rk_text_sanitize_for_terminal (t->name, RK_TEXT_SANITIZE_SINGLE_LINE) : NULL;

      /* A PDF's tables: how many, then the first (the one analyses use). */
      if (pdf_tables)
        append_count (s, " · ", COUNT_TABLES, profile->tables->len);
      /* While the rows are counted, the count ends the line: the card
       * appends how far it got. */
      if (estimate && lazy != NULL)
        g_string_append_printf (s, " · %s", lazy);
      g_string_append (s, " · ");
      append_rows (s, t, estimate);
      if (name != NULL && profile->sheets > 1 && index > 0)
        /* TRANSLATORS: after "4 rows × 2 columns": the sheet picked on the card */
        g_string_append_printf (s, _(" (sheet “%s”)"), name);
      else if (name != NULL && profile->sheets > 1)
        g_string_append_printf (s, _(" (first sheet “%s”)"), name);
      else if (name != NULL && pdf_tables)
        /* TRANSLATORS: after "4 rows × 2 columns"; %s is where the table is, e.g. "page 2" */
        g_string_append_printf (s, _(" (first table, “%s”)"), name);
      if (!estimate && lazy != NULL)
        g_string_append_printf (s, " · %s", lazy);
    }
  else if (profile->lines > 0)
    append_count (s, " · ", COUNT_LINES, profile->lines);
  return g_string_free (s, FALSE);
}

char *
rk_file_summary_short (const RkFileProfile *profile)
{
  g_autoptr(GString) s = g_string_new (NULL);

  if (profile->error != NULL)
    return rk_text_sanitize_for_terminal (profile->error, RK_TEXT_SANITIZE_SINGLE_LINE);
  if (profile->sheets > 1)
    append_count (s, "", COUNT_SHEETS, profile->sheets);
  else if (profile->tables != NULL && profile->tables->len > 1)
    append_count (s, "", COUNT_TABLES, profile->tables->len);
  else if (profile->tables != NULL && profile->tables->len > 0)
    append_rows (s, profile->tables->pdata[0], FALSE);
  else if (profile->pages > 0)
    append_count (s, "", COUNT_PAGES, profile->pages);
  else if (profile->lines > 0)
    append_count (s, "", COUNT_LINES, profile->lines);
  else
    return g_format_size (profile->size);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
rk_file_reading_text (const char *estimate,
                      guint64     size,
                      double      progress,
                      gint64      seconds)
{
  g_autofree char *what = NULL;
  g_autofree char *size_text = size > 0 ? g_format_size (size) : NULL;
  int percent = progress >= 0 ? (int) (MIN (progress, 1.0) * 100.0) : -1;

  if (estimate != NULL && percent >= 0)
    /* TRANSLATORS: a file's summary from a sample, e.g. "CSV · 10.0 GB · about
     * 260,000,000 rows × 6 columns, counting…", and how much of the file was
     * counted so far, e.g. "45 %" */
    what = g_strdup_printf (_("%s %d %%"), estimate, percent);
  else if (estimate != NULL)
    what = g_strdup (estimate);
  else if (size_text != NULL && percent >= 0)
    /* TRANSLATORS: %s is the size of the file being read, e.g. "182.3 MB";
     * %d %% how much of it was read so far, e.g. "45 %" */
    what = g_strdup_printf (_("Reading the file (%s)… %d %%"), size_text, percent);
  else if (size_text != NULL)
    /* TRANSLATORS: %s is the size of the file being read, e.g. "182.3 MB" */
    what = g_strdup_printf (_("Reading the file (%s)…"), size_text);
  else if (percent >= 0)
    /* TRANSLATORS: how much of the file was read so far, e.g. "45 %" */
    what = g_strdup_printf (_("Reading the file… %d %%"), percent);
  else
    what = g_strdup (_("Reading the file…"));
  /* Not at all, or a day on (a clock that jumped): no count. */
  if (seconds < 2 || seconds > 24 * 3600)
    return g_steal_pointer (&what);
  if (seconds < 60)
    /* TRANSLATORS: a file being read, and for how long */
    return g_strdup_printf (_("%s %d s"), what, (int) seconds);
  return g_strdup_printf (_("%s %d:%02d"), what, (int) (seconds / 60), (int) (seconds % 60));
}
