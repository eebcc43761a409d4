/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-file-summary.c — the one-line summaries of a file's card and the
 * sidebar, from parsed profiles (C locale: no digit grouping). */
#include "config.h"

#include <locale.h>
#include <string.h>

#include "rk-file-summary.h"

static RkFileProfile *
parse (const char *file_json)
{
  g_autofree char *doc = g_strdup_printf ("{\"version\": 1, \"files\": [%s]}", file_json);
  g_autoptr(GPtrArray) files = rk_profile_parse (doc, strlen (doc), NULL);

  g_assert_nonnull (files);
  g_assert_cmpuint (files->len, ==, 1);
  return rk_file_profile_copy (files->pdata[0]);
}

static void
test_table (void)
{
  g_autoptr(RkFileProfile) p = parse ("{\"name\": \"s.csv\", \"size\": 120, \"kind\": \"csv\","
                                      " \"tables\": [{\"rows\": 1204, \"columns\": 2, \"header\": true}]}");
  g_autoptr(RkFileProfile) one = parse ("{\"name\": \"o.csv\", \"kind\": \"csv\","
                                        " \"tables\": [{\"rows\": 1, \"columns\": 1, \"header\": true}]}");
  g_autofree char *card = rk_file_summary (p, 0, FALSE);
  g_autofree char *sidebar = rk_file_summary_short (p);
  g_autofree char *estimate = rk_file_summary (p, 7, TRUE);
  g_autofree char *one_row = rk_file_summary_short (one);

  g_assert_cmpstr (card, ==, "CSV · 120 bytes · 1204 rows × 2 columns");
  g_assert_cmpstr (sidebar, ==, "1204 rows × 2 columns");
  g_assert_cmpstr (estimate, ==, "CSV · 120 bytes · about 1204 rows × 2 columns, counting…");
  g_assert_cmpstr (one_row, ==, "1 row × 1 column");
  g_assert_cmpstr (rk_file_icon_name (p), ==, "x-office-spreadsheet-symbolic");
}

/* A workbook's sheet names come from the file: made harmless. */
static void
test_sheets (void)
{
  g_autoptr(RkFileProfile) p = parse ("{\"name\": \"w.xlsx\", \"kind\": \"xlsx\", \"sheets\": 2,"
                                      " \"tables\": [{\"name\": \"Q1\", \"rows\": 4, \"columns\": 2},"
                                      "             {\"name\": \"Q\\u001b[31m2\", \"rows\": 5, \"columns\": 3}]}");
  g_autofree char *first = rk_file_summary (p, 0, FALSE);
  g_autofree char *second = rk_file_summary (p, 1, FALSE);
  g_autofree char *past = rk_file_summary (p, 9, FALSE);
  g_autofree char *sidebar = rk_file_summary_short (p);

  g_assert_cmpstr (first, ==, "Excel workbook · 2 sheets · 4 rows × 2 columns (first sheet “Q1”)");
  g_assert_true (g_str_has_prefix (second, "Excel workbook · 2 sheets · 5 rows × 3 columns (sheet “Q"));
  g_assert_null (strchr (second, '\033'));
  g_assert_cmpstr (past, ==, second);
  g_assert_cmpstr (sidebar, ==, "2 sheets");
}

static void
test_other_kinds (void)
{
  g_autoptr(RkFileProfile) pdf = parse ("{\"name\": \"r.pdf\", \"kind\": \"pdf\", \"pages\": 3,"
                                        " \"tables\": [{\"name\": \"page 2\", \"rows\": 4, \"columns\": 2},"
                                        "             {\"name\": \"page 3\", \"rows\": 5, \"columns\": 3}]}");
  g_autoptr(RkFileProfile) text = parse ("{\"name\": \"t.txt\", \"kind\": \"text\", \"lines\": 1}");
  g_autoptr(RkFileProfile) bad = parse ("{\"name\": \"b.bin\", \"error\": \"Not a\\nspreadsheet.\"}");
  g_autofree char *pdf_card = rk_file_summary (pdf, 0, FALSE);
  g_autofree char *pdf_sidebar = rk_file_summary_short (pdf);
  g_autofree char *text_card = rk_file_summary (text, 0, FALSE);
  g_autofree char *text_sidebar = rk_file_summary_short (text);
  g_autofree char *bad_sidebar = rk_file_summary_short (bad);

  g_assert_cmpstr (pdf_card, ==, "PDF · 3 pages · 2 tables · 4 rows × 2 columns (first table, “page 2”)");
  g_assert_cmpstr (pdf_sidebar, ==, "2 tables");
  g_assert_cmpstr (text_card, ==, "Text · 1 line");
  g_assert_cmpstr (text_sidebar, ==, "1 line");
  g_assert_null (strchr (bad_sidebar, '\n'));
  g_assert_cmpstr (rk_file_icon_name (pdf), ==, "x-office-document-symbolic");
  g_assert_cmpstr (rk_file_icon_name (text), ==, "text-x-generic-symbolic");
  g_assert_cmpstr (rk_file_icon_name (bad), ==, "dialog-warning-symbolic");
  g_assert_cmpstr (rk_file_icon_name (NULL), ==, "text-x-generic-symbolic");
}

static void
test_reading (void)
{
  struct { const char *estimate; guint64 size; double progress; gint64 seconds; const char *text; } cases[] = {
    { NULL, 0, -1, 0, "Reading the file…" },
    { NULL, 0, 0.456, 75, "Reading the file… 45 % 1:15" },
    { NULL, 200000000, 0.456, 75, "Reading the file (200.0\u00a0MB)… 45 % 1:15" },
    { NULL, 200000000, 7.0, 30, "Reading the file (200.0\u00a0MB)… 100 % 30 s" },
    { NULL, 200000000, -1, 1, "Reading the file (200.0\u00a0MB)…" },
    { "CSV · about 9 rows", 0, 0.5, 25 * 3600, "CSV · about 9 rows 50 %" },
    { "CSV · about 9 rows", 0, -1, 3, "CSV · about 9 rows 3 s" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = rk_file_reading_text (cases[i].estimate, cases[i].size, cases[i].progress,
                                                    cases[i].seconds);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

int
main (int argc, char *argv[])
{
  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/file-summary/table", test_table);
  g_test_add_func ("/rk/file-summary/sheets", test_sheets);
  g_test_add_func ("/rk/file-summary/other-kinds", test_other_kinds);
  g_test_add_func ("/rk/file-summary/reading", test_reading);
  return g_test_run ();
}
