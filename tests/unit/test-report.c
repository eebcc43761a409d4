/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-report.c — RkReport without GTK: a transcript laid out onto PDF
 * pages (text read back with pdftotext), flowing onto more pages when they
 * are smaller, and results that cannot be read leaving their caption only. */
#define G_LOG_DOMAIN "test-report"
#include "config.h"

#include <cairo-pdf.h>
#include <glib/gstdio.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "rk-report.h"

#define A4_WIDTH  595.0
#define A4_HEIGHT 842.0

static void
write_png (const char *path,
           int         width,
           int         height)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  cairo_t *cr = cairo_create (surface);

  cairo_set_source_rgb (cr, 0.2, 0.5, 0.9);
  cairo_paint (cr);
  cairo_destroy (cr);
  g_assert_cmpint (cairo_surface_write_to_png (surface, path), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy (surface);
}

static void
add_result (RkTranscript *transcript,
            RkEntryKind   kind,
            const char   *path,
            const char   *title)
{
  RkTranscriptArtifact artifact = { .kind = kind, .path = path, .title = title };

  rk_transcript_add_artifact (transcript, "cell-1", &artifact);
}

/* Lays @report out on pages of @width × @height in a PDF at @pdf; returns
 * the number of pages. */
static guint
render (RkReport   *report,
        const char *pdf,
        double      width,
        double      height)
{
  cairo_surface_t *surface = cairo_pdf_surface_create (pdf, width, height);
  cairo_t *cr = cairo_create (surface);
  PangoContext *context = pango_cairo_create_context (cr);
  guint n_pages = rk_report_paginate (report, context, width, height);

  for (guint i = 0; i < n_pages; i++)
    {
      rk_report_draw_page (report, cr, i);
      cairo_show_page (cr);
    }
  /* Out of range: nothing drawn, nothing wrong. */
  rk_report_draw_page (report, cr, n_pages);
  g_object_unref (context);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy (surface);
  return n_pages;
}

static char *
run (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

static void
test_pages (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rk-report-XXXXXX", NULL);
  g_autofree char *figures = g_build_filename (dir, "figures", NULL);
  g_autofree char *png = g_build_filename (figures, "fig-1.png", NULL);
  g_autofree char *bad_chart = g_build_filename (dir, "chart.json", NULL);
  g_autofree char *pdf = g_build_filename (dir, "report.pdf", NULL);
  g_autoptr(RkWorkspace) workspace = NULL;
  g_autoptr(RkTranscript) transcript = rk_transcript_new ();
  g_autoptr(RkReport) report = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *pdftotext = g_find_program_in_path ("pdftotext");
  g_autofree char *pdfimages = g_find_program_in_path ("pdfimages");
  guint a4, small;

  if (pdftotext == NULL || pdfimages == NULL)
    {
      g_test_skip ("pdftotext or pdfimages is not installed (poppler-utils)");
      return;
    }
  g_assert_cmpint (g_mkdir (figures, 0700), ==, 0);
  write_png (png, 640, 360);
  g_assert_true (g_file_set_contents (bad_chart, "{ not a chart", -1, NULL));
  workspace = rk_workspace_open (dir, &error);
  g_assert_no_error (error);

  rk_transcript_add_user (transcript, "Which region sold more?", NULL);
  rk_transcript_add_code (transcript, "cell-1", "import os; os.system('rm -rf /')", 0);
  add_result (transcript, RK_ENTRY_FIGURE, "figures/fig-1.png", "Total sales");
  add_result (transcript, RK_ENTRY_CHART, "chart.json", "A damaged chart");
  add_result (transcript, RK_ENTRY_TABLE, "tables/gone.rkt", "A table gone");
  rk_transcript_add_answer (transcript, "**North** sold more, in [every month](https://example.org).");
  for (guint i = 0; i < 30; i++)
    rk_transcript_add_user (transcript, "And in the next quarter, with the returns taken off and "
                                        "the prices of the year before?", NULL);

  report = rk_report_new (transcript, workspace, "Sales review");
  g_assert_cmpstr (rk_report_get_title (report), ==, "Sales review");
  rk_report_load (report, NULL);

  a4 = render (report, pdf, A4_WIDTH, A4_HEIGHT);
  g_assert_cmpuint (a4, >=, 1);
  text = run ((const char *[]) { "pdftotext", "-layout", pdf, "-", NULL });
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "Sales review"));
  g_assert_nonnull (strstr (text, "Which region sold more?"));
  /* The answer's markdown rendered, its link's text kept. */
  g_assert_nonnull (strstr (text, "North sold more, in every month."));
  g_assert_null (strstr (text, "**"));
  g_assert_null (strstr (text, "example.org"));
  /* Captions stay, whether or not what they name could be read. */
  g_assert_nonnull (strstr (text, "Total sales"));
  g_assert_nonnull (strstr (text, "A damaged chart"));
  g_assert_nonnull (strstr (text, "A table gone"));
  /* Code is not part of the report. */
  g_assert_null (strstr (text, "rm -rf"));
  /* The figure is an image on the page. */
  g_free (text);
  text = run ((const char *[]) { "pdfimages", "-list", pdf, NULL });
  g_assert_nonnull (strstr (text, "image"));

  /* The same report on a smaller page, laid out again: more pages. */
  small = render (report, pdf, A4_WIDTH / 2, A4_HEIGHT / 2);
  g_assert_cmpuint (small, >, a4);

  g_remove (pdf);
  g_remove (bad_chart);
  g_remove (png);
  g_rmdir (figures);
  g_rmdir (dir);
}

/* Without a workspace (an expired session): the text only, and a title of
 * its own when none is given. */
static void
test_text_only (void)
{
  g_autoptr(RkTranscript) transcript = rk_transcript_new ();
  g_autoptr(RkReport) report = NULL;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 200, 300);
  cairo_t *cr = cairo_create (surface);
  PangoContext *context = pango_cairo_create_context (cr);
  g_autoptr(GString) long_answer = g_string_new (NULL);

  for (guint i = 0; i < 200; i++)
    g_string_append (long_answer, "A line of the answer\n\n");
  rk_transcript_add_user (transcript, "Question\x1b[31m with an escape", NULL);
  add_result (transcript, RK_ENTRY_FIGURE, "figures/fig-1.png", "Total sales");
  rk_transcript_add_answer (transcript, long_answer->str);

  report = rk_report_new (transcript, NULL, "");
  g_assert_cmpstr (rk_report_get_title (report), ==, "Reckon Report");
  rk_report_load (report, NULL);
  /* One long answer runs over several pages, a line at a time. */
  g_assert_cmpuint (rk_report_paginate (report, context, 200, 300), >, 3);
  rk_report_draw_page (report, cr, 0);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);

  g_object_unref (context);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  g_assert_finalize_object (g_steal_pointer (&report));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/report/pages", test_pages);
  g_test_add_func ("/rk/report/text-only", test_text_only);
  return g_test_run ();
}
