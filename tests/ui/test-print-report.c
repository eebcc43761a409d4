/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-print-report.c — "Print Report…" through a real GtkPrintOperation,
 * exported to PDF (GTK_PRINT_OPERATION_ACTION_EXPORT): the sample
 * conversation's question, answer, table values, chart and figure are on
 * the pages, as pdftotext reads them. */
#define G_LOG_DOMAIN "test-print-report"
#include "config.h"

#include <string.h>
#include <gtk/gtk.h>

#include "rk-report-print.h"
#include "rk-transcript.h"

static gboolean done;

static void
finished_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GError **error = user_data;

  rk_report_print_finish (result, error);
  done = TRUE;
}

static char *
run (const char *const *argv)
{
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  g_autofree char *err = NULL;
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", argv[0], err);
  return out;
}

static void
test_pdf (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rk-print-XXXXXX", NULL);
  g_autofree char *workspace = g_build_filename (dir, "ws", NULL);
  g_autoptr(RkWorkspace) handle = NULL;
  g_autofree char *pdf = g_build_filename (dir, "report.pdf", NULL);
  g_autofree char *script = g_build_filename (g_getenv ("RECKON_TEST_DATA"), "make-sample-workspace.py", NULL);
  g_autofree char *sample = g_build_filename (g_getenv ("RECKON_TEST_DATA"), "sample-transcript.json", NULL);
  g_autofree char *made = NULL, *text = NULL, *info = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTranscript) transcript = NULL;

  if (!g_find_program_in_path ("pdftotext"))
    {
      g_test_skip ("pdftotext is not installed (poppler-utils)");
      return;
    }
  made = run ((const char *[]) { "/usr/bin/python3", script, workspace, NULL });
  transcript = rk_transcript_load (sample, &error);
  g_assert_no_error (error);

  handle = rk_workspace_open (workspace, NULL);
  rk_report_print_async (NULL, transcript, handle, "Sales review", pdf, NULL, finished_cb, &error);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (error);
  g_assert_true (g_file_test (pdf, G_FILE_TEST_IS_REGULAR));

  text = run ((const char *[]) { "pdftotext", "-layout", pdf, "-", NULL });
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "Sales review"));
  g_assert_nonnull (strstr (text, "Which region sold more in the first half of the year"));
  /* The answer, its markdown rendered: no asterisks. */
  g_assert_nonnull (strstr (text, "North sold more in every month"));
  g_assert_null (strstr (text, "**North**"));
  /* The table: its caption, header and values. */
  g_assert_nonnull (strstr (text, "Sales by month and region"));
  g_assert_nonnull (strstr (text, "north"));
  g_assert_nonnull (strstr (text, "1720"));
  /* The chart, drawn: its title and axis labels are text in the PDF. */
  g_assert_nonnull (strstr (text, "Sales by month"));
  g_assert_nonnull (strstr (text, "Jun"));
  /* The figure's caption; the figure itself is an image on the page. */
  g_assert_nonnull (strstr (text, "Total sales"));
  info = run ((const char *[]) { "pdfimages", "-list", pdf, NULL });
  g_assert_nonnull (strstr (info, "image"));
  /* The code and the errors are not part of the report. */
  g_assert_null (strstr (text, "rm -rf"));
  g_free (run ((const char *[]) { "rm", "-rf", dir, NULL }));
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/report-print/pdf", test_pdf);
  return g_test_run ();
}
