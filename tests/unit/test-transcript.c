/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-transcript.c — RkTranscript: entries, JSON round trip, damaged files,
 * autosave, and the notebook (checked by nbformat) and HTML exports. */
#include "config.h"

#include <string.h>
#include <unistd.h>
#include <cairo.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "rk-transcript.h"
#include "rk-util.h"

static char *tmpdir;

static void
count_changes_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  gpointer    user_data)
{
  guint *n = user_data;
  (*n)++;
}

static RkTranscript *
sample (void)
{
  RkTranscript *t = rk_transcript_new ();
  const char *files[] = { "sales.csv", "q3 report.xlsx", NULL };
  RkTranscriptArtifact fig = { RK_ENTRY_FIGURE, "figures/fig-1.png", "image/png", "Sales by month", 640, 480, 0, 0 };
  RkTranscriptArtifact tab = { RK_ENTRY_TABLE, "tables/t1.rktable", "application/x-rktable", "df", 0, 0, 1200, 7 };
  guint c1;

  rk_transcript_add_user (t, "What were sales by month? <b>bold</b>", files);
  rk_transcript_add_reasoning (t, "Load the CSV first.");
  rk_transcript_add_assistant (t, "Let me load the data.");
  c1 = rk_transcript_add_code (t, "c1", "import pandas as pd\ndf = pd.read_csv('sales.csv')\ndf.head()\n", 0);
  rk_transcript_add_approval (t, "c1", RK_DECISION_APPROVED, NULL);
  rk_transcript_add_stream (t, "c1", RK_STREAM_STDOUT, "loaded\n");
  rk_transcript_add_stream (t, "c1", RK_STREAM_STDOUT, "1200 rows\n");
  rk_transcript_add_stream (t, "c1", RK_STREAM_STDERR, "warning: dtype\n");
  rk_transcript_add_result (t, "c1", "   month  sales\n0  Jan    10");
  rk_transcript_add_artifact (t, "c1", &tab);
  rk_transcript_add_code (t, "c2", "df.plot()\nplt.savefig('x.png')\n<script>alert(1)</script>", c1);
  rk_transcript_add_approval (t, "c2", RK_DECISION_EDITED, "df.plot()\n");
  rk_transcript_add_artifact (t, "c2", &fig);
  rk_transcript_add_code (t, "c3", "1/0\n", 0);
  rk_transcript_add_approval (t, "c3", RK_DECISION_AUTO, NULL);
  rk_transcript_add_error (t, "c3", "ZeroDivisionError", "division by zero",
                           "Traceback (most recent call last):\n  File \"<cell>\", line 1\nZeroDivisionError: division by zero",
                           RK_SANDBOX_LIMIT_NONE, 0);
  rk_transcript_add_code (t, "c4", "import os\nos.remove('x')\n", 0);
  rk_transcript_add_approval (t, "c4", RK_DECISION_SKIPPED, NULL);
  rk_transcript_add_answer (t, "Sales peaked in **March**.");
  rk_transcript_add_note (t, "session-expired", "The session expired after 20 minutes idle.");
  return t;
}

static void
test_entries (void)
{
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  guint changes = 0, id, c1, c2;
  RkTranscriptEntry *e;
  RkTranscriptArtifact bad = { RK_ENTRY_FIGURE, "../outside.png", "image/png", NULL, 0, 0, 0, 0 };
  g_autoptr(GString) big = g_string_new (NULL);
  g_autoptr(RkTranscriptEntry) item = NULL;

  g_signal_connect (t, "items-changed", G_CALLBACK (count_changes_cb), &changes);
  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (t)) == RK_TYPE_TRANSCRIPT_ENTRY);

  id = rk_transcript_add_user (t, "hi", NULL);
  g_assert_cmpuint (id, ==, 1);
  c1 = rk_transcript_add_code (t, "c1", "x = 1\n", 0);
  c2 = rk_transcript_add_code (t, "c1", "x = 2\n", c1);
  e = rk_transcript_lookup (t, c2);
  g_assert_cmpuint (rk_transcript_entry_get_revises (e), ==, c1);
  g_assert_cmpstr (rk_transcript_entry_get_previous_code (e), ==, "x = 1\n");
  g_assert_cmpstr (rk_transcript_entry_get_cell_id (e), ==, "c1");
  g_assert_cmpint (rk_transcript_entry_get_timestamp (e), >, 0);

  /* Revising something that is not code records no revision. */
  e = rk_transcript_lookup (t, rk_transcript_add_code (t, "c2", "y\n", id));
  g_assert_cmpuint (rk_transcript_entry_get_revises (e), ==, 0);

  /* Consecutive output of one stream coalesces. */
  changes = 0;
  id = rk_transcript_add_stream (t, "c1", RK_STREAM_STDOUT, "a");
  g_assert_cmpuint (rk_transcript_add_stream (t, "c1", RK_STREAM_STDOUT, "b"), ==, id);
  g_assert_cmpuint (rk_transcript_add_stream (t, "c1", RK_STREAM_STDERR, "c"), !=, id);
  g_assert_cmpstr (rk_transcript_entry_get_text (rk_transcript_lookup (t, id)), ==, "ab");
  /* Two entries added; the growth of the first is a notify::text, not an items-changed. */
  g_assert_cmpuint (changes, ==, 2);

  /* Output is bounded. */
  for (guint i = 0; i < 300000; i++)
    g_string_append (big, "0123456\xc3\xa9");
  id = rk_transcript_add_stream (t, "c9", RK_STREAM_STDOUT, big->str);
  e = rk_transcript_lookup (t, id);
  g_assert_true (rk_transcript_entry_get_truncated (e));
  g_assert_cmpuint (strlen (rk_transcript_entry_get_text (e)), <=, RK_TRANSCRIPT_MAX_OUTPUT);
  g_assert_true (g_utf8_validate (rk_transcript_entry_get_text (e), -1, NULL));
  g_assert_cmpuint (rk_transcript_add_stream (t, "c9", RK_STREAM_STDOUT, "more"), ==, id);

  /* Invalid UTF-8 is repaired. */
  e = rk_transcript_lookup (t, rk_transcript_add_assistant (t, "bad \xff\xfe text"));
  g_assert_true (g_utf8_validate (rk_transcript_entry_get_text (e), -1, NULL));

  /* Streaming into an assistant entry. */
  id = rk_transcript_add_assistant (t, "Hel");
  g_assert_true (rk_transcript_append_text (t, id, "lo"));
  g_assert_cmpstr (rk_transcript_entry_get_text (rk_transcript_lookup (t, id)), ==, "Hello");
  g_assert_false (rk_transcript_append_text (t, c1, "x"));
  g_assert_false (rk_transcript_append_text (t, 99999, "x"));

  /* Artifacts must stay beneath the workspace. */
  g_assert_cmpuint (rk_transcript_add_artifact (t, "c1", &bad), ==, 0);
  bad.path = "/etc/passwd";
  g_assert_cmpuint (rk_transcript_add_artifact (t, "c1", &bad), ==, 0);
  bad.path = "a//b.png";
  g_assert_cmpuint (rk_transcript_add_artifact (t, "c1", &bad), ==, 0);
  bad.path = "ok.png";
  bad.kind = RK_ENTRY_USER;
  g_assert_cmpuint (rk_transcript_add_artifact (t, "c1", &bad), ==, 0);

  item = g_list_model_get_item (G_LIST_MODEL (t), 0);
  g_assert_cmpint (rk_transcript_entry_get_kind (item), ==, RK_ENTRY_USER);
  g_assert_null (g_list_model_get_item (G_LIST_MODEL (t), 10000));

  changes = 0;
  rk_transcript_clear (t);
  g_assert_cmpuint (changes, ==, 1);
  g_assert_cmpuint (rk_transcript_get_n_entries (t), ==, 0);
  /* Ids are never reused. */
  g_assert_cmpuint (rk_transcript_add_note (t, "x", "y"), >, c2);
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *n)
{
  (*n)++;
}

/* Streaming grows an entry in place: notify::text on the entry, no
 * items-changed, and the autosave sees it. */
static void
test_text_notify (void)
{
  RkTranscript *t = rk_transcript_new ();
  g_autofree char *dir = g_dir_make_tmp ("rk-transcript-notify-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "t.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) expect = g_string_new ("Hel");
  g_autoptr(GString) chunk = g_string_new (NULL);
  g_autoptr(RkTranscript) loaded = NULL;
  RkTranscriptEntry *e, *out;
  guint changes = 0, n_text = 0, n_out = 0, n_detail = 0;
  g_autofree char *value = NULL;
  guint id, sid;

  g_signal_connect (t, "items-changed", G_CALLBACK (count_changes_cb), &changes);
  rk_transcript_set_autosave_path (t, path);

  id = rk_transcript_add_assistant (t, "Hel");
  g_assert_cmpuint (changes, ==, 1);
  e = rk_transcript_lookup (t, id);
  g_object_add_weak_pointer (G_OBJECT (e), (gpointer *) &e);
  g_signal_connect (e, "notify::text", G_CALLBACK (count_notify_cb), &n_text);
  g_signal_connect (e, "notify::detail", G_CALLBACK (count_notify_cb), &n_detail);
  g_assert_true (rk_transcript_flush (t, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < 200; i++)
    {
      g_assert_true (rk_transcript_append_text (t, id, "lo \xc3\xa9"));
      g_string_append (expect, "lo \xc3\xa9");
    }
  g_assert_cmpuint (n_text, ==, 200);
  g_assert_cmpuint (changes, ==, 1);
  g_assert_cmpuint (n_detail, ==, 0);
  g_assert_cmpstr (rk_transcript_entry_get_text (e), ==, expect->str);
  g_object_get (e, "text", &value, NULL);
  g_assert_cmpstr (value, ==, expect->str);
  /* Empty deltas change nothing and notify nothing. */
  g_assert_true (rk_transcript_append_text (t, id, ""));
  g_assert_cmpuint (n_text, ==, 200);
  /* Invalid UTF-8 in a delta is repaired. */
  g_assert_true (rk_transcript_append_text (t, id, "\xff"));
  g_assert_true (g_utf8_validate (rk_transcript_entry_get_text (e), -1, NULL));
  g_assert_cmpuint (n_text, ==, 201);
  g_assert_true (rk_transcript_has_unsaved (t));

  /* Stream output: the second chunk grows the first entry. */
  sid = rk_transcript_add_stream (t, "c1", RK_STREAM_STDOUT, "a\n");
  g_assert_cmpuint (changes, ==, 2);
  out = rk_transcript_lookup (t, sid);
  g_signal_connect (out, "notify::text", G_CALLBACK (count_notify_cb), &n_out);
  for (guint i = 0; i < 50; i++)
    g_assert_cmpuint (rk_transcript_add_stream (t, "c1", RK_STREAM_STDOUT, "b\n"), ==, sid);
  g_assert_cmpuint (n_out, ==, 50);
  g_assert_cmpuint (changes, ==, 2);

  /* Growth stops at the output limit, on a character boundary. */
  for (guint i = 0; i < 1000; i++)
    g_string_append (chunk, "\xc3\xa9\xe2\x82\xac");
  while (!rk_transcript_entry_get_truncated (out))
    rk_transcript_add_stream (t, "c1", RK_STREAM_STDOUT, chunk->str);
  g_assert_cmpuint (strlen (rk_transcript_entry_get_text (out)), <=, RK_TRANSCRIPT_MAX_OUTPUT);
  g_assert_true (g_utf8_validate (rk_transcript_entry_get_text (out), -1, NULL));
  n_out = 0;
  rk_transcript_add_stream (t, "c1", RK_STREAM_STDOUT, "more");
  g_assert_cmpuint (n_out, ==, 0);
  g_assert_cmpuint (changes, ==, 2);

  /* The autosave has everything. */
  g_assert_true (rk_transcript_flush (t, &error));
  g_assert_no_error (error);
  loaded = rk_transcript_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (rk_transcript_entry_get_text (rk_transcript_lookup (loaded, id)), ==,
                   rk_transcript_entry_get_text (e));
  g_assert_cmpstr (rk_transcript_entry_get_text (rk_transcript_lookup (loaded, sid)), ==,
                   rk_transcript_entry_get_text (out));

  g_signal_handlers_disconnect_by_data (e, &n_text);
  g_signal_handlers_disconnect_by_data (e, &n_detail);
  g_signal_handlers_disconnect_by_data (out, &n_out);
  rk_transcript_set_autosave_path (t, NULL);
  g_assert_finalize_object (t);
  g_assert_null (e);
  g_unlink (path);
  g_rmdir (dir);
}

/* A file the user added: its entry, its profile set later, the format
 * version it needs, and a short line in the exports. */
static void
test_attachment (void)
{
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autoptr(RkTranscript) back = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *notebook = NULL;
  g_autofree char *html = NULL;
  g_autofree char *big = NULL;
  RkTranscriptEntry *e;
  guint changes = 0, n_detail = 0, id;

  /* Without attachments the file stays version 1, for older Reckons. */
  rk_transcript_add_user (t, "Hello", NULL);
  bytes = rk_transcript_to_bytes (t);
  g_assert_nonnull (g_strstr_len (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "\"version\":1"));
  g_clear_pointer (&bytes, g_bytes_unref);

  g_signal_connect (t, "items-changed", G_CALLBACK (count_changes_cb), &changes);
  g_assert_cmpuint (rk_transcript_add_attachment (t, "../etc/passwd", "passwd"), ==, 0);
  g_assert_cmpuint (rk_transcript_add_attachment (t, "/etc/passwd", "passwd"), ==, 0);
  id = rk_transcript_add_attachment (t, "sales-2.csv", "sales.csv");
  g_assert_cmpuint (id, >, 0);
  g_assert_cmpuint (changes, ==, 1);
  e = rk_transcript_lookup (t, id);
  g_assert_cmpint (rk_transcript_entry_get_kind (e), ==, RK_ENTRY_ATTACHMENT);
  g_assert_cmpstr (rk_transcript_entry_get_name (e), ==, "sales-2.csv");
  g_assert_cmpstr (rk_transcript_entry_get_title (e), ==, "sales.csv");
  g_assert_null (rk_transcript_entry_get_detail (e));

  g_signal_connect (e, "notify::detail", G_CALLBACK (count_notify_cb), &n_detail);
  g_assert_true (rk_transcript_set_attachment_profile (t, id, "{\"name\":\"sales-2.csv\",\"kind\":\"csv\"}"));
  g_assert_cmpuint (n_detail, ==, 1);
  g_assert_cmpuint (changes, ==, 1);
  g_assert_false (rk_transcript_set_attachment_profile (t, 1, "{}"));
  big = g_malloc (RK_TRANSCRIPT_MAX_OUTPUT + 2);
  memset (big, 'x', RK_TRANSCRIPT_MAX_OUTPUT + 1);
  big[RK_TRANSCRIPT_MAX_OUTPUT + 1] = '\0';
  g_assert_false (rk_transcript_set_attachment_profile (t, id, big));
  g_assert_cmpuint (n_detail, ==, 1);
  g_signal_handlers_disconnect_by_data (e, &n_detail);

  bytes = rk_transcript_to_bytes (t);
  g_assert_nonnull (g_strstr_len (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "\"version\":2"));
  back = rk_transcript_new_from_bytes (bytes, &error);
  g_assert_no_error (error);
  e = rk_transcript_lookup (back, id);
  g_assert_cmpint (rk_transcript_entry_get_kind (e), ==, RK_ENTRY_ATTACHMENT);
  g_assert_cmpstr (rk_transcript_entry_get_name (e), ==, "sales-2.csv");
  g_assert_cmpstr (rk_transcript_entry_get_title (e), ==, "sales.csv");
  g_assert_cmpstr (rk_transcript_entry_get_detail (e), ==, "{\"name\":\"sales-2.csv\",\"kind\":\"csv\"}");

  notebook = rk_transcript_to_notebook (t, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (notebook, "sales-2.csv"));
  html = rk_transcript_to_html (t, NULL, "T", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (html, "sales.csv"));
}

/* A file removed from the conversation: its attachment entry goes (one
 * items-changed at its place), and only an attachment can go this way;
 * lookups of the removed id find nothing, later ids keep their entries, and
 * the saved transcript holds neither its name nor its profile. */
static void
test_remove_attachment (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "removed.json", NULL);
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autoptr(RkTranscript) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved_text = NULL;
  guint changes = 0, user, gone, kept;

  user = rk_transcript_add_user (t, "Hello", NULL);
  gone = rk_transcript_add_attachment (t, "secret plan.csv", "secret plan.csv");
  kept = rk_transcript_add_attachment (t, "sales.csv", "sales.csv");
  g_assert_true (rk_transcript_set_attachment_profile (t, gone, "{\"name\":\"secret plan.csv\",\"kind\":\"csv\"}"));
  rk_transcript_set_autosave_path (t, path);
  g_signal_connect (t, "items-changed", G_CALLBACK (count_changes_cb), &changes);

  /* Not an attachment, an id never given, 0: refused, nothing changes. */
  g_assert_false (rk_transcript_remove_attachment (t, user));
  g_assert_false (rk_transcript_remove_attachment (t, 9999));
  g_assert_false (rk_transcript_remove_attachment (t, 0));
  g_assert_cmpuint (changes, ==, 0);
  g_assert_cmpuint (rk_transcript_get_n_entries (t), ==, 3);

  g_assert_true (rk_transcript_remove_attachment (t, gone));
  g_assert_cmpuint (changes, ==, 1);
  g_assert_cmpuint (rk_transcript_get_n_entries (t), ==, 2);
  g_assert_null (rk_transcript_lookup (t, gone));
  g_assert_cmpstr (rk_transcript_entry_get_name (rk_transcript_lookup (t, kept)), ==, "sales.csv");
  g_assert_cmpuint (rk_transcript_entry_get_id (rk_transcript_get_entry (t, 1)), ==, kept);
  /* Twice: the second finds nothing. */
  g_assert_false (rk_transcript_remove_attachment (t, gone));
  g_assert_cmpuint (changes, ==, 1);

  g_assert_true (rk_transcript_flush (t, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &saved_text, NULL, &error));
  g_assert_null (strstr (saved_text, "secret plan"));
  back = rk_transcript_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rk_transcript_get_n_entries (back), ==, 2);
  g_assert_null (rk_transcript_lookup (back, gone));
  /* A new entry does not reuse the removed id. */
  g_assert_cmpuint (rk_transcript_add_attachment (t, "secret plan.csv", "secret plan.csv"), >, kept);
  rk_transcript_set_autosave_path (t, NULL);
}

static void
test_run_code (void)
{
  g_autoptr(RkTranscript) t = sample ();
  g_autoptr(GPtrArray) code = rk_transcript_get_run_code (t);

  /* c1 approved, c2 edited, c3 automatic; c4 skipped. */
  g_assert_cmpuint (code->len, ==, 3);
  g_assert_true (g_str_has_prefix (code->pdata[0], "import pandas"));
  g_assert_cmpstr (code->pdata[1], ==, "df.plot()\n");
  g_assert_cmpstr (code->pdata[2], ==, "1/0\n");

  /* What a re-run replays before a cell leaves out the cell that failed
   * (c3, ZeroDivisionError), as Restart Session does. */
  {
    g_autofree char *c4 = NULL;
    g_autoptr(GPtrArray) before = rk_transcript_get_run_code_before (t, "c4", &c4);

    g_assert_cmpuint (before->len, ==, 2);
    g_assert_cmpstr (before->pdata[1], ==, "df.plot()\n");
    g_assert_null (c4);  /* skipped: it never ran */
  }
}

static void
assert_same (RkTranscript *a,
             RkTranscript *b)
{
  g_assert_cmpuint (rk_transcript_get_n_entries (a), ==, rk_transcript_get_n_entries (b));
  for (guint i = 0; i < rk_transcript_get_n_entries (a); i++)
    {
      RkTranscriptEntry *x = rk_transcript_get_entry (a, i);
      RkTranscriptEntry *y = rk_transcript_get_entry (b, i);

      g_assert_cmpuint (rk_transcript_entry_get_id (x), ==, rk_transcript_entry_get_id (y));
      g_assert_cmpint (rk_transcript_entry_get_kind (x), ==, rk_transcript_entry_get_kind (y));
      g_assert_cmpint (rk_transcript_entry_get_timestamp (x), ==, rk_transcript_entry_get_timestamp (y));
      g_assert_cmpstr (rk_transcript_entry_get_cell_id (x), ==, rk_transcript_entry_get_cell_id (y));
      g_assert_cmpstr (rk_transcript_entry_get_text (x), ==, rk_transcript_entry_get_text (y));
      g_assert_cmpstr (rk_transcript_entry_get_name (x), ==, rk_transcript_entry_get_name (y));
      g_assert_cmpstr (rk_transcript_entry_get_detail (x), ==, rk_transcript_entry_get_detail (y));
      g_assert_cmpstr (rk_transcript_entry_get_previous_code (x), ==, rk_transcript_entry_get_previous_code (y));
      g_assert_cmpstr (rk_transcript_entry_get_path (x), ==, rk_transcript_entry_get_path (y));
      g_assert_cmpstr (rk_transcript_entry_get_mime_type (x), ==, rk_transcript_entry_get_mime_type (y));
      g_assert_cmpstr (rk_transcript_entry_get_title (x), ==, rk_transcript_entry_get_title (y));
      g_assert_cmpuint (rk_transcript_entry_get_revises (x), ==, rk_transcript_entry_get_revises (y));
      g_assert_cmpint (rk_transcript_entry_get_decision (x), ==, rk_transcript_entry_get_decision (y));
      g_assert_cmpint (rk_transcript_entry_get_stream (x), ==, rk_transcript_entry_get_stream (y));
      g_assert_cmpint (rk_transcript_entry_get_truncated (x), ==, rk_transcript_entry_get_truncated (y));
      g_assert_cmpint (rk_transcript_entry_get_width (x), ==, rk_transcript_entry_get_width (y));
      g_assert_cmpint (rk_transcript_entry_get_height (x), ==, rk_transcript_entry_get_height (y));
      g_assert_cmpint (rk_transcript_entry_get_rows (x), ==, rk_transcript_entry_get_rows (y));
      g_assert_cmpint (rk_transcript_entry_get_columns (x), ==, rk_transcript_entry_get_columns (y));
      if (rk_transcript_entry_get_attachments (x) == NULL)
        g_assert_null (rk_transcript_entry_get_attachments (y));
      else
        g_assert_true (g_strv_equal ((const char * const *) rk_transcript_entry_get_attachments (x),
                                     (const char * const *) rk_transcript_entry_get_attachments (y)));
    }
}

static void
test_roundtrip (void)
{
  g_autoptr(RkTranscript) t = sample ();
  g_autoptr(GBytes) bytes = rk_transcript_to_bytes (t);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTranscript) back = rk_transcript_new_from_bytes (bytes, &error);
  guint last;

  g_assert_no_error (error);
  assert_same (t, back);
  /* New ids continue after the loaded ones. */
  last = rk_transcript_entry_get_id (rk_transcript_get_entry (back, rk_transcript_get_n_entries (back) - 1));
  g_assert_cmpuint (rk_transcript_add_note (back, "x", "y"), ==, last + 1);
}

static void
expect_error (const char *json,
              gssize      len,
              int         code)
{
  g_autoptr(GBytes) bytes = g_bytes_new (json, len < 0 ? strlen (json) : (gsize) len);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTranscript) t = rk_transcript_new_from_bytes (bytes, &error);

  g_assert_null (t);
  g_assert_error (error, RK_TRANSCRIPT_ERROR, code);
  g_assert_nonnull (error->message);
}

#define HEAD "{\"format\":\"reckon-transcript\",\"version\":1,\"entries\":"

static void
test_corrupt (void)
{
  g_autoptr(RkTranscript) t = sample ();
  g_autoptr(GBytes) good = rk_transcript_to_bytes (t);
  gsize len;
  const char *data = g_bytes_get_data (good, &len);
  g_autoptr(GString) huge = g_string_new (HEAD "[");
  g_autoptr(GString) deep = g_string_new (HEAD "[{\"id\":1,\"kind\":\"note\",\"text\":");

  /* Every truncation of a good file fails cleanly. */
  for (gsize cut = 0; cut < len; cut += 1 + cut / 50)
    expect_error (data, cut, RK_TRANSCRIPT_ERROR_CORRUPT);

  expect_error ("", 0, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error ("null", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error ("[]", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error ("{}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error ("{\"format\":\"other\",\"version\":1,\"entries\":[]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error ("{\"format\":\"reckon-transcript\",\"version\":\"1\",\"entries\":[]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error ("{\"format\":\"reckon-transcript\",\"version\":0,\"entries\":[]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error ("{\"format\":\"reckon-transcript\",\"version\":1.5,\"entries\":[]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error ("{\"format\":\"reckon-transcript\",\"version\":3,\"entries\":[]}", -1, RK_TRANSCRIPT_ERROR_VERSION);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"attachment\",\"name\":\"../x.csv\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"attachment\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error ("{\"format\":\"reckon-transcript\",\"version\":1,\"entries\":{}}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[1]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":\"1\",\"kind\":\"note\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"alien\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"note\",\"text\":5}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"note\",\"text\":{\"a\":1}}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":-1,\"kind\":\"note\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1e999,\"kind\":\"note\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":99999999999999999999999,\"kind\":\"note\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"note\"},{\"id\":1,\"kind\":\"note\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"figure\",\"path\":\"../../etc/passwd\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"figure\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"approval\",\"decision\":\"maybe\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"stream\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"user\",\"attachments\":[1]}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"user\",\"attachments\":\"a\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"note\",\"truncated\":\"yes\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":2,\"kind\":\"code\",\"revises\":5}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"note\",\"text\":\"a\0b\"}]}", sizeof (HEAD "[{\"id\":1,\"kind\":\"note\",\"text\":\"a\0b\"}]}") - 1,
                RK_TRANSCRIPT_ERROR_CORRUPT);
  expect_error (HEAD "[{\"id\":1,\"kind\":\"note\",\"text\":\"\xff\"}]}", -1, RK_TRANSCRIPT_ERROR_CORRUPT);

  /* Huge arrays and deep nesting. */
  for (guint i = 0; i <= RK_TRANSCRIPT_MAX_ENTRIES; i++)
    g_string_append (huge, i ? ",0" : "0");
  g_string_append (huge, "]}");
  expect_error (huge->str, huge->len, RK_TRANSCRIPT_ERROR_TOO_LARGE);
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (deep, '[');
  expect_error (deep->str, deep->len, RK_TRANSCRIPT_ERROR_CORRUPT);
  {
    gsize n = RK_TRANSCRIPT_MAX_FILE + 1;
    g_autofree char *blob = g_malloc0 (n);
    expect_error (blob, n, RK_TRANSCRIPT_ERROR_TOO_LARGE);
  }

  /* Unknown members are ignored; a missing next_id is derived. */
  {
    const char *ok = HEAD "[{\"id\":7,\"kind\":\"note\",\"text\":\"hi\",\"future\":[1,2]}],\"extra\":true}";
    g_autoptr(GBytes) b = g_bytes_new_static (ok, strlen (ok));
    g_autoptr(GError) error = NULL;
    g_autoptr(RkTranscript) tt = rk_transcript_new_from_bytes (b, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (rk_transcript_get_n_entries (tt), ==, 1);
    g_assert_cmpuint (rk_transcript_add_note (tt, "a", "b"), ==, 8);
  }
}

static void
saved_cb (RkTranscript *t,
          gpointer      user_data)
{
  guint *n = user_data;
  (*n)++;
}

static void
failed_cb (RkTranscript *t,
           GError       *error,
           gpointer      user_data)
{
  GError **out = user_data;
  g_assert_nonnull (error);
  g_clear_error (out);
  *out = g_error_copy (error);
}

static gboolean
timeout_cb (gpointer user_data)
{
  gboolean *fired = user_data;
  *fired = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main loop until *@counter reaches @target (or 10 s pass). */
static void
wait_for (guint *counter,
          guint  target)
{
  gboolean fired = FALSE;
  guint id = g_timeout_add_seconds (10, timeout_cb, &fired);

  while (*counter < target && !fired)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (fired);
  g_source_remove (id);
}

static void
test_autosave (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "autosave.json", NULL);
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autoptr(GError) error = NULL;
  guint saved = 0;

  g_signal_connect (t, "saved", G_CALLBACK (saved_cb), &saved);
  rk_transcript_set_autosave_path (t, path);
  g_assert_cmpstr (rk_transcript_get_autosave_path (t), ==, path);

  /* A burst of changes is written once, coalesced. */
  for (guint i = 0; i < 50; i++)
    rk_transcript_add_stream (t, "c1", i % 2 ? RK_STREAM_STDOUT : RK_STREAM_STDERR, "x\n");
  g_assert_true (rk_transcript_has_unsaved (t));
  wait_for (&saved, 1);
  g_assert_cmpuint (saved, ==, 1);
  g_assert_false (rk_transcript_has_unsaved (t));
  {
    g_autoptr(RkTranscript) back = rk_transcript_load (path, &error);
    g_assert_no_error (error);
    assert_same (t, back);
  }

  /* A change during a write is written after it. */
  rk_transcript_add_user (t, "one", NULL);
  wait_for (&saved, 2);
  rk_transcript_add_user (t, "two", NULL);
  wait_for (&saved, 3);
  {
    g_autoptr(RkTranscript) back = rk_transcript_load (path, &error);
    g_assert_no_error (error);
    assert_same (t, back);
  }

  /* Closing with a pending write writes it at once. */
  rk_transcript_add_answer (t, "last words");
  g_clear_object (&t);
  {
    g_autoptr(RkTranscript) back = rk_transcript_load (path, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (rk_transcript_entry_get_text (rk_transcript_get_entry (back, rk_transcript_get_n_entries (back) - 1)),
                     ==, "last words");
  }

  /* flush() writes synchronously. */
  {
    g_autoptr(RkTranscript) t2 = rk_transcript_new ();
    g_autoptr(RkTranscript) back = NULL;

    rk_transcript_set_autosave_path (t2, path);
    rk_transcript_add_note (t2, "n", "flushed");
    g_assert_true (rk_transcript_flush (t2, &error));
    g_assert_no_error (error);
    back = rk_transcript_load (path, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (rk_transcript_get_n_entries (back), ==, 1);
    rk_transcript_set_autosave_path (t2, NULL);
  }
}

static void
test_autosave_failure (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "no-such-dir", "t.json", NULL);
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autoptr(GError) failure = NULL;
  g_autoptr(GError) error = NULL;
  gboolean fired = FALSE;
  guint id;

  g_signal_connect (t, "autosave-failed", G_CALLBACK (failed_cb), &failure);
  rk_transcript_set_autosave_path (t, path);
  rk_transcript_add_user (t, "hello", NULL);
  id = g_timeout_add_seconds (10, timeout_cb, &fired);
  while (failure == NULL && !fired)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (id);
  g_assert_error (failure, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_IO);

  g_assert_false (rk_transcript_flush (t, &error));
  g_assert_error (error, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_IO);
  rk_transcript_set_autosave_path (t, NULL);
}

static void
load_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GError *error = NULL;
  RkTranscript **out = user_data;

  *out = rk_transcript_load_finish (result, &error);
  if (*out == NULL)
    {
      g_assert_error (error, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_IO);
      g_error_free (error);
      *out = (RkTranscript *) rk_transcript_new ();
      g_object_set_data (G_OBJECT (*out), "failed", GINT_TO_POINTER (1));
    }
}

static void
test_load (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "load.json", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.json", NULL);
  g_autoptr(RkTranscript) t = sample ();
  g_autoptr(GBytes) bytes = rk_transcript_to_bytes (t);
  g_autoptr(GError) error = NULL;
  RkTranscript *loaded = NULL;

  g_assert_null (rk_transcript_load (missing, &error));
  g_assert_error (error, RK_TRANSCRIPT_ERROR, RK_TRANSCRIPT_ERROR_IO);
  g_clear_error (&error);
  g_assert_null (rk_transcript_load (tmpdir, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error);
  g_assert_no_error (error);
  rk_transcript_load_async (path, NULL, load_cb, &loaded);
  while (loaded == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (g_object_get_data (G_OBJECT (loaded), "failed"));
  assert_same (t, loaded);
  g_clear_object (&loaded);

  rk_transcript_load_async (missing, NULL, load_cb, &loaded);
  while (loaded == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (g_object_get_data (G_OBJECT (loaded), "failed"));
  g_clear_object (&loaded);
}

static char *
make_workspace (void)
{
  char *ws = g_build_filename (tmpdir, "ws", NULL);
  g_autofree char *figs = g_build_filename (ws, "figures", NULL);
  g_autofree char *png = g_build_filename (figs, "fig-1.png", NULL);
  g_autofree char *secret = g_build_filename (tmpdir, "secret.png", NULL);
  g_autofree char *link = g_build_filename (figs, "link.png", NULL);
  cairo_surface_t *surface;
  cairo_t *cr;

  g_mkdir_with_parents (figs, 0700);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 16, 12);
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 0.2, 0.4, 0.8);
  cairo_paint (cr);
  cairo_destroy (cr);
  g_assert_cmpint (cairo_surface_write_to_png (surface, png), ==, CAIRO_STATUS_SUCCESS);
  /* Outside the workspace, reached only through a symlink: never embedded. */
  g_assert_cmpint (cairo_surface_write_to_png (surface, secret), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy (surface);
  g_unlink (link);
  g_assert_cmpint (symlink (secret, link), ==, 0);
  return ws;
}

static const char *
find_python_with_nbformat (void)
{
  static const char *found = NULL;
  static gboolean looked = FALSE;
  const char *candidates[] = { rk_python_path (), "/usr/bin/python3", "python3", NULL };

  if (looked)
    return found;
  looked = TRUE;
  for (guint i = 0; candidates[i]; i++)
    {
      const char *argv[] = { candidates[i], "-c", "import nbformat", NULL };
      int status = -1;

      if (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                        NULL, NULL, NULL, NULL, &status, NULL) && g_spawn_check_wait_status (status, NULL))
        return found = candidates[i];
    }
  return NULL;
}

static void
test_notebook (void)
{
  g_autoptr(RkTranscript) t = sample ();
  g_autofree char *ws = make_workspace ();
  g_autoptr(RkWorkspace) handle = rk_workspace_open (ws, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *nb = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  JsonArray *cells;
  RkTranscriptArtifact link = { RK_ENTRY_FIGURE, "figures/link.png", "image/png", "linked", 0, 0, 0, 0 };
  const char *python;
  guint n_code = 0, n_png = 0;

  rk_transcript_add_artifact (t, "c2", &link);
  nb = rk_transcript_to_notebook (t, handle, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (nb);

  g_assert_true (json_parser_load_from_data (parser, nb, -1, &error));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "nbformat"), ==, 4);
  cells = json_object_get_array_member (root, "cells");
  for (guint i = 0; i < json_array_get_length (cells); i++)
    {
      JsonObject *c = json_array_get_object_element (cells, i);
      if (g_str_equal (json_object_get_string_member (c, "cell_type"), "code"))
        {
          JsonArray *outs = json_object_get_array_member (c, "outputs");
          n_code++;
          g_assert_false (strstr (json_object_get_string_member (c, "source"), "os.remove") != NULL);
          for (guint k = 0; k < json_array_get_length (outs); k++)
            {
              JsonObject *o = json_array_get_object_element (outs, k);
              if (json_object_has_member (o, "data") &&
                  json_object_has_member (json_object_get_object_member (o, "data"), "image/png"))
                n_png++;
            }
        }
    }
  /* c1, c2 (as edited), c3; c4 was skipped and is shown as markdown. */
  g_assert_cmpuint (n_code, ==, 3);
  /* The real figure only, not the symlink out of the workspace. */
  g_assert_cmpuint (n_png, ==, 1);
  g_assert_nonnull (strstr (nb, "\"source\" : \"df.plot()\\n\""));

  /* No workspace: no figures, still valid. */
  {
    g_autofree char *nb2 = rk_transcript_to_notebook (t, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_null (strstr (nb2, "image/png\" : \"iVBOR"));
  }

  python = find_python_with_nbformat ();
  if (python == NULL)
    {
      g_test_skip ("python3-nbformat is not installed: notebook not validated against the schema");
      return;
    }
  {
    g_autofree char *path = g_build_filename (tmpdir, "out.ipynb", NULL);
    const char *argv[] = { python, "-c",
                           "import sys, nbformat\n"
                           "nb = nbformat.read(sys.argv[1], as_version=4)\n"
                           "nbformat.validate(nb)\n"
                           "assert len(nb.cells) > 5\n",
                           path, NULL };
    g_autofree char *err = NULL;
    int status = -1;

    g_file_set_contents (path, nb, -1, &error);
    g_assert_no_error (error);
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                                 NULL, NULL, NULL, &err, &status, &error));
    g_assert_no_error (error);
    if (!g_spawn_check_wait_status (status, NULL))
      g_error ("nbformat rejected the notebook: %s", err);
    g_unlink (path);
  }
}

static void
test_html (void)
{
  g_autoptr(RkTranscript) t = sample ();
  g_autofree char *ws = make_workspace ();
  g_autoptr(RkWorkspace) handle = rk_workspace_open (ws, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *html = NULL;
  RkTranscriptArtifact link = { RK_ENTRY_FIGURE, "figures/link.png", "image/png", "linked", 0, 0, 0, 0 };
  g_autoptr(GPtrArray) not_embedded = g_ptr_array_new_with_free_func (g_free);

  rk_transcript_add_artifact (t, "c2", &link);
  rk_transcript_add_assistant (t, "</pre><img src=x onerror=alert(1)> & \"quotes\"");
  html = rk_transcript_to_html (t, handle, "Sales <review>", not_embedded, &error);
  g_assert_no_error (error);
  /* Named as not embedded, once each: the table the workspace lacks and
   * the figure behind a symlink. */
  g_assert_cmpuint (not_embedded->len, ==, 2);
  g_assert_nonnull (strstr (not_embedded->pdata[0], "tables/t1.rktable"));
  g_assert_nonnull (strstr (not_embedded->pdata[1], "figures/link.png"));
  g_assert_true (g_str_has_prefix (html, "<!DOCTYPE html>"));
  g_assert_nonnull (strstr (html, "<title>Sales &lt;review&gt;</title>"));
  g_assert_null (strstr (html, "<script>"));
  g_assert_null (strstr (html, "<b>bold"));
  g_assert_null (strstr (html, "<img src=x"));
  /* prose is markdown: raw HTML in it is left out, the rest escaped */
  g_assert_nonnull (strstr (html, "&amp; &quot;quotes&quot;"));
  g_assert_null (strstr (html, "onerror"));
  g_assert_nonnull (strstr (html, "data:image/png;base64,iVBOR"));
  /* Exactly one embedded image: the symlink was refused. */
  g_assert_null (strstr (strstr (html, "data:image/png;base64,") + 1, "data:image/png;base64,"));
  /* The revision of c1 is shown as a diff. */
  g_assert_nonnull (strstr (html, "+df.plot()"));
  g_assert_nonnull (strstr (html, "ZeroDivisionError"));
}

/* Issue 19: an export shows the streamed final answer once, takes the whole
 * first question as its title, and follows each file with its profile. */
static void
test_export_answer_once (void)
{
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *html = NULL;
  g_autofree char *notebook = NULL;
  g_autofree char *title = NULL;
  g_autofree char *expected = NULL;
  const char *question = "Which of the cities has the largest population, counted over every year of the survey?";
  const char *profile = "{\"name\": \"s.csv\", \"size\": 120, \"kind\": \"csv\", \"tables\": [{\"rows\": 3,"
                        " \"columns\": 2, \"header\": true, \"column_info\": [{\"name\": \"city\", \"type\": \"text\","
                        " \"missing\": 0}, {\"name\": \"population\", \"type\": \"integer\", \"missing\": 0}]}]}";
  guint file, answer, other;

  g_assert_null (rk_transcript_dup_title (t));
  file = rk_transcript_add_attachment (t, "s.csv", "s.csv");
  g_assert_true (rk_transcript_set_attachment_profile (t, file, profile));
  rk_transcript_add_user (t, question, NULL);
  rk_transcript_add_assistant (t, "Lyon is the largest.\n");
  answer = rk_transcript_add_answer (t, "Lyon is the largest.");
  g_assert_true (rk_transcript_answer_repeats (t, rk_transcript_lookup (t, answer)));
  title = rk_transcript_dup_title (t);
  g_assert_cmpstr (title, ==, question);

  html = rk_transcript_to_html (t, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  expected = g_strdup_printf ("<h1>%s</h1>", question);
  g_assert_nonnull (strstr (html, expected));
  g_assert_nonnull (strstr (html, "Lyon is the largest."));
  g_assert_null (strstr (strstr (html, "Lyon is the largest.") + 1, "Lyon is the largest."));
  g_assert_nonnull (strstr (html, "population"));
  notebook = rk_transcript_to_notebook (t, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (strstr (strstr (notebook, "Lyon is the largest.") + 1, "Lyon is the largest."));
  g_assert_nonnull (strstr (notebook, "population"));

  /* A column name from a hostile file cannot end the profile's code block
   * and become markdown (a remote image) in the notebook. */
  {
    const char *hostile = "{\"name\": \"h.csv\", \"size\": 9, \"kind\": \"csv\", \"tables\": [{\"rows\": 1,"
                          " \"columns\": 1, \"header\": true, \"column_info\": [{\"name\":"
                          " \"a\\r![x](http://example.com/x.png)\\n![y](http://example.com/y.png)\", \"type\": \"text\"}]}]}";
    guint h = rk_transcript_add_attachment (t, "h.csv", "h.csv");
    g_autofree char *nb = NULL;
    g_autoptr(JsonNode) doc = NULL;
    JsonArray *cells;

    g_assert_true (rk_transcript_set_attachment_profile (t, h, hostile));
    nb = rk_transcript_to_notebook (t, NULL, NULL, &error);
    g_assert_no_error (error);
    doc = json_from_string (nb, &error);
    g_assert_no_error (error);
    g_assert_nonnull (strstr (nb, "example.com/x.png"));
    cells = json_object_get_array_member (json_node_get_object (doc), "cells");
    for (guint i = 0; i < json_array_get_length (cells); i++)
      {
        const char *source = json_object_get_string_member (json_array_get_object_element (cells, i), "source");

        /* No line of any cell begins with the image, after a LF or a CR. */
        g_assert_false (g_str_has_prefix (source, "!["));
        g_assert_null (strstr (source, "\n!["));
        g_assert_null (strstr (source, "\r!["));
      }
  }

  /* An answer that says something else is no repeat: both stay. */
  rk_transcript_add_assistant (t, "Checking again.");
  other = rk_transcript_add_answer (t, "Nice, after all.");
  g_assert_false (rk_transcript_answer_repeats (t, rk_transcript_lookup (t, other)));
  g_assert_false (rk_transcript_answer_repeats (t, rk_transcript_lookup (t, file)));
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("rk-test-transcript-XXXXXX", NULL);

  g_test_add_func ("/rk/transcript/entries", test_entries);
  g_test_add_func ("/rk/transcript/text-notify", test_text_notify);
  g_test_add_func ("/rk/transcript/attachment", test_attachment);
  g_test_add_func ("/rk/transcript/remove-attachment", test_remove_attachment);
  g_test_add_func ("/rk/transcript/roundtrip", test_roundtrip);
  g_test_add_func ("/rk/transcript/run-code", test_run_code);
  g_test_add_func ("/rk/transcript/corrupt", test_corrupt);
  g_test_add_func ("/rk/transcript/autosave", test_autosave);
  g_test_add_func ("/rk/transcript/autosave-failure", test_autosave_failure);
  g_test_add_func ("/rk/transcript/load", test_load);
  g_test_add_func ("/rk/transcript/notebook", test_notebook);
  g_test_add_func ("/rk/transcript/html", test_html);
  g_test_add_func ("/rk/transcript/export-answer-once", test_export_answer_once);
  ret = g_test_run ();

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (strstr (tmpdir, "rk-test-transcript-") != NULL)
      g_spawn_command_line_sync (cmd, NULL, NULL, NULL, NULL);
  }
  g_free (tmpdir);
  return ret;
}
