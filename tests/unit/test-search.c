/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-search.c — the chat's search over a transcript (rk-search.c): case
 * folding, text, titles and names, the next and previous match around the
 * end, the count, and where the words stand in a text. */
#define G_LOG_DOMAIN "test-search"
#include "config.h"

#include "rk-search.h"
#include "rk-transcript.h"

static RkTranscript *
sample (void)
{
  RkTranscript *transcript = rk_transcript_new ();
  RkTranscriptArtifact table = { .kind = RK_ENTRY_TABLE, .path = "tables/t.rkt", .title = "Sales by REGION" };

  rk_transcript_add_user (transcript, "Which region sold more?", NULL);      /* 0 */
  rk_transcript_add_code (transcript, "c1", "df.groupby('month')", 0);       /* 1 */
  rk_transcript_add_artifact (transcript, "c1", &table);                     /* 2: by its title */
  rk_transcript_add_answer (transcript, "North, in every month.");           /* 3 */
  rk_transcript_add_user (transcript, "Und die Straße?", NULL);              /* 4 */
  return transcript;
}

static void
test_fold (void)
{
  g_autofree char *folded = rk_search_fold ("MoNTH");

  g_assert_cmpstr (folded, ==, "month");
  g_assert_null (rk_search_fold (""));
  g_assert_null (rk_search_fold (NULL));
}

static void
test_next (void)
{
  g_autoptr(RkTranscript) transcript = sample ();
  GListModel *entries = G_LIST_MODEL (transcript);
  g_autofree char *region = rk_search_fold ("Region");
  g_autofree char *month = rk_search_fold ("MONTH");
  g_autofree char *none = rk_search_fold ("quarter");
  guint index = 99;

  g_autoptr(RkTranscriptEntry) table = g_list_model_get_item (entries, 2);
  g_autoptr(RkTranscriptEntry) code = g_list_model_get_item (entries, 1);

  /* A result by its title; code by its text. */
  g_assert_true (rk_search_entry_matches (table, region));
  g_assert_false (rk_search_entry_matches (code, region));
  g_assert_true (rk_search_entry_matches (code, month));
  g_assert_false (rk_search_entry_matches (code, NULL));
  g_assert_cmpuint (rk_search_next (entries, region, 0, 1), ==, 0);
  g_assert_cmpuint (rk_search_next (entries, region, 1, 1), ==, 2);
  /* Around the end, both ways. */
  g_assert_cmpuint (rk_search_next (entries, region, 3, 1), ==, 0);
  g_assert_cmpuint (rk_search_next (entries, region, 1, -1), ==, 0);
  g_assert_cmpuint (rk_search_next (entries, region, 0, -1), ==, 0);
  g_assert_cmpuint (rk_search_next (entries, month, 4, -1), ==, 3);
  g_assert_cmpuint (rk_search_next (entries, month, 5, 1), ==, 1);
  /* Nothing, or nothing to look for. */
  g_assert_cmpuint (rk_search_next (entries, none, 0, 1), ==, G_MAXUINT);
  g_assert_cmpuint (rk_search_next (entries, NULL, 0, 1), ==, G_MAXUINT);
  g_assert_cmpuint (rk_search_next (NULL, month, 0, 1), ==, G_MAXUINT);

  g_assert_cmpuint (rk_search_count (entries, month, 3, &index), ==, 2);
  g_assert_cmpuint (index, ==, 2);
  g_assert_cmpuint (rk_search_count (entries, month, G_MAXUINT, &index), ==, 2);
  g_assert_cmpuint (index, ==, 0);
  g_assert_cmpuint (rk_search_count (entries, none, 0, &index), ==, 0);
  g_assert_cmpuint (rk_search_count (entries, NULL, 0, NULL), ==, 0);
}

static void
test_in_text (void)
{
  g_autofree char *month = rk_search_fold ("MONTH");
  g_autofree char *strasse = rk_search_fold ("strasse");
  int start = -2, end = -2;

  g_assert_true (rk_search_in_text ("Each Month, by région: month", month, &start, &end));
  g_assert_cmpint (start, ==, 5);
  g_assert_cmpint (end, ==, 10);
  /* After a two-byte letter, offsets are in characters. */
  g_assert_true (rk_search_in_text ("région month", month, &start, &end));
  g_assert_cmpint (start, ==, 7);
  g_assert_cmpint (end, ==, 12);
  /* "ß" folds to "ss": the lengths differ, so the whole text. */
  g_assert_true (rk_search_in_text ("Die Straße", strasse, &start, &end));
  g_assert_cmpint (start, ==, 0);
  g_assert_cmpint (end, ==, -1);
  g_assert_false (rk_search_in_text ("Die Strasse", month, &start, &end));
  g_assert_false (rk_search_in_text (NULL, month, &start, &end));
  g_assert_false (rk_search_in_text ("month", NULL, &start, &end));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/search/fold", test_fold);
  g_test_add_func ("/rk/search/next", test_next);
  g_test_add_func ("/rk/search/in-text", test_in_text);
  return g_test_run ();
}
