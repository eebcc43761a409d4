/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-ndjson.c — hostile input for NDJSON framing: the line splitter
 * with RK_LINE_SPLITTER_SKIP_BLANK, as the Ollama stream reads it. */
#define G_LOG_DOMAIN "test-ndjson"
#include "config.h"

#include <string.h>

#include "rk-line-splitter.h"
#include "rk-util.h"

#define BIG_LIMIT (16u * 1024 * 1024)

static gboolean
collect_cb (const char *line,
            gsize       len,
            gpointer    user_data,
            GError    **error)
{
  GString *log = user_data;

  g_assert_cmpuint (line[len], ==, '\0');
  g_string_append_len (log, line, len);
  g_string_append_c (log, '|');
  return TRUE;
}

static void
check_all_splits (const char *input,
                  const char *expected)
{
  gsize len = strlen (input);

  for (gsize cut = 0; cut <= len; cut++)
    for (gsize step = 1; step <= 3; step++)
      {
        GString *log = g_string_new (NULL);
        g_autoptr(RkLineSplitter) s = rk_line_splitter_new (BIG_LIMIT, RK_LINE_SPLITTER_SKIP_BLANK, collect_cb, log);

        g_assert_true (rk_line_splitter_feed (s, input, cut, NULL));
        for (gsize off = cut; off < len; off += step)
          g_assert_true (rk_line_splitter_feed (s, input + off, MIN (step, len - off), NULL));
        g_assert_true (rk_line_splitter_finish (s, NULL));
        g_assert_cmpstr (log->str, ==, expected);
        g_string_free (log, TRUE);
      }
}

static void
test_lines (void)
{
  check_all_splits ("{\"a\":1}\n{\"b\":2}\n", "{\"a\":1}|{\"b\":2}|");
  check_all_splits ("{\"a\":1}\r\n{\"b\":2}\r\n", "{\"a\":1}|{\"b\":2}|");
  /* Blank lines are skipped; a last line without newline is delivered. */
  check_all_splits ("\n\n  \r\n{}\n\t\n{\"x\":\"y\"}", "{}|{\"x\":\"y\"}|");
  check_all_splits ("", "");
}

static void
test_limit (void)
{
  GString *log = g_string_new (NULL);
  g_autoptr(RkLineSplitter) s = rk_line_splitter_new (10, RK_LINE_SPLITTER_SKIP_BLANK, collect_cb, log);
  g_autoptr(GError) error = NULL;

  g_assert_true (rk_line_splitter_feed (s, "0123456789\n", 11, NULL));
  g_assert_true (rk_line_splitter_feed (s, "01234", 5, NULL));
  g_assert_false (rk_line_splitter_feed (s, "567890", 6, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_clear_error (&error);
  g_assert_false (rk_line_splitter_feed (s, "\n", 1, &error));
  g_assert_false (rk_line_splitter_finish (s, NULL));
  g_assert_cmpstr (log->str, ==, "0123456789|");
  g_string_free (log, TRUE);
}

static void
test_huge_default (void)
{
  gsize size = BIG_LIMIT + 1;
  g_autofree char *big = g_malloc (size);
  GString *log = g_string_new (NULL);
  g_autoptr(RkLineSplitter) s = rk_line_splitter_new (BIG_LIMIT, RK_LINE_SPLITTER_SKIP_BLANK, collect_cb, log);
  g_autoptr(GError) error = NULL;

  memset (big, 'x', size);
  g_assert_false (rk_line_splitter_feed (s, big, size, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_string_free (log, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/ndjson/lines", test_lines);
  g_test_add_func ("/rk/ndjson/limit", test_limit);
  g_test_add_func ("/rk/ndjson/huge", test_huge_default);
  return g_test_run ();
}
