/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-line-splitter.c — rk-line-splitter, the framing under the kernel
 * protocol (skip over-long lines), NDJSON (LF, fail on over-long) and SSE
 * (CR, LF or CRLF): splits, limits, hostile streams. */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "rk-line-splitter.h"
#include "rk-util.h"

typedef struct
{
  GPtrArray *lines;
  guint      skipped;
  guint      stop_at;   /* fail on this line (1-based), 0: never */
} Collected;

static gboolean
collect_cb (const char  *line,
            gsize        len,
            gpointer     user_data,
            GError     **error)
{
  Collected *c = user_data;

  if (line == NULL)
    {
      c->skipped++;
      return TRUE;
    }
  g_assert_cmpint (line[len], ==, '\0');
  g_ptr_array_add (c->lines, g_strndup (line, len));
  if (c->stop_at == c->lines->len)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "stop");
      return FALSE;
    }
  return TRUE;
}

static char *
joined (Collected *c)
{
  g_ptr_array_add (c->lines, NULL);
  {
    char *out = g_strjoinv ("|", (char **) c->lines->pdata);
    g_ptr_array_set_size (c->lines, c->lines->len - 1);
    return out;
  }
}

/* The lines of @input fed in steps of 1 to 7 bytes (and at once) are the
 * same, and as @expect says. */
static void
check_splits (RkLineSplitterFlags  flags,
              const char          *input,
              const char          *expect)
{
  for (gsize round = 1; round <= 8; round++)
    {
      Collected c = { g_ptr_array_new_with_free_func (g_free), 0, 0 };
      g_autoptr(RkLineSplitter) s = rk_line_splitter_new (64, flags, collect_cb, &c);
      gsize len = strlen (input);
      gsize step = round < 8 ? round : MAX (len, 1);
      g_autofree char *got = NULL;

      for (gsize off = 0; off < len; off += step)
        g_assert_true (rk_line_splitter_feed (s, input + off, MIN (step, len - off), NULL));
      g_assert_true (rk_line_splitter_finish (s, NULL));
      got = joined (&c);
      g_assert_cmpstr (got, ==, expect);
      g_ptr_array_unref (c.lines);
    }
}

static void
test_line_ends (void)
{
  /* LF; a CR before it dropped; a last line without its end delivered. */
  check_splits (RK_LINE_SPLITTER_DEFAULT, "ab\ncd\r\n\nlast", "ab|cd||last");
  check_splits (RK_LINE_SPLITTER_DEFAULT, "a\rb\n", "a\rb");
  /* CR, LF or CRLF: a CRLF split between two chunks is one line end. */
  check_splits (RK_LINE_SPLITTER_ANY_END, "a\rb\r\nc\nd\r\re", "a|b|c|d||e");
  check_splits (RK_LINE_SPLITTER_ANY_END, "\r\n\r\n", "|");
}

static void
test_skip_long (void)
{
  Collected c = { g_ptr_array_new_with_free_func (g_free), 0, 0 };
  g_autoptr(RkLineSplitter) s = rk_line_splitter_new (8, RK_LINE_SPLITTER_SKIP_LONG, collect_cb, &c);
  const char *input = "ab\ncd";

  /* Byte by byte. */
  for (const char *p = input; *p; p++)
    g_assert_true (rk_line_splitter_feed (s, p, 1, NULL));
  g_assert_cmpuint (c.lines->len, ==, 1);
  g_assert_cmpuint (rk_line_splitter_pending (s), ==, 2);
  g_assert_true (rk_line_splitter_feed (s, "e\n\n", 3, NULL));
  g_assert_cmpuint (c.lines->len, ==, 3);
  g_assert_cmpstr (c.lines->pdata[1], ==, "cde");
  g_assert_cmpstr (c.lines->pdata[2], ==, "");

  /* An over-long line is reported once and the stream resynchronises. */
  g_assert_true (rk_line_splitter_feed (s, "0123456789", 10, NULL));
  g_assert_true (rk_line_splitter_feed (s, "0123456789", 10, NULL));
  g_assert_true (rk_line_splitter_feed (s, "xyz\nok\n", 7, NULL));
  g_assert_cmpuint (c.skipped, ==, 1);
  g_assert_cmpuint (c.lines->len, ==, 4);
  g_assert_cmpstr (c.lines->pdata[3], ==, "ok");

  /* Exactly the limit is fine; one more is not. */
  g_assert_true (rk_line_splitter_feed (s, "12345678\n123456789\nend\n", 23, NULL));
  g_assert_cmpuint (c.skipped, ==, 2);
  g_assert_cmpstr (c.lines->pdata[4], ==, "12345678");
  g_assert_cmpstr (c.lines->pdata[5], ==, "end");

  /* Across chunks: a partial line that then grows too long. */
  g_assert_true (rk_line_splitter_feed (s, "12345", 5, NULL));
  g_assert_true (rk_line_splitter_feed (s, "6789\nz\n", 7, NULL));
  g_assert_cmpuint (c.skipped, ==, 3);
  g_assert_cmpstr (c.lines->pdata[c.lines->len - 1], ==, "z");
  g_ptr_array_unref (c.lines);
}

/* 10 MB without a line end, under a 1 MiB limit: held memory stays at the
 * limit, and the line after it comes through. */
static void
test_skip_long_10mb (void)
{
  Collected c = { g_ptr_array_new_with_free_func (g_free), 0, 0 };
  g_autoptr(RkLineSplitter) s = rk_line_splitter_new (1 << 20, RK_LINE_SPLITTER_SKIP_LONG, collect_cb, &c);
  gsize chunk = 65536;
  g_autofree char *junk = g_malloc (chunk);

  memset (junk, 'A', chunk);
  for (gsize sent = 0; sent < 10 * 1000 * 1000; sent += chunk)
    {
      g_assert_true (rk_line_splitter_feed (s, junk, chunk, NULL));
      g_assert_cmpuint (rk_line_splitter_pending (s), <=, 1 << 20);
    }
  g_assert_cmpuint (c.skipped, ==, 1);
  g_assert_cmpuint (rk_line_splitter_pending (s), ==, 0);
  g_assert_true (rk_line_splitter_feed (s, "\n{\"type\":\"started\"}\n", 21, NULL));
  g_assert_cmpuint (c.lines->len, ==, 1);
  g_assert_cmpstr (c.lines->pdata[0], ==, "{\"type\":\"started\"}");
  g_ptr_array_unref (c.lines);
}

/* Without SKIP_LONG an over-long line fails the stream for good; so does a
 * line function that fails. */
static void
test_fail (void)
{
  Collected c = { g_ptr_array_new_with_free_func (g_free), 0, 0 };
  g_autoptr(RkLineSplitter) s = rk_line_splitter_new (10, RK_LINE_SPLITTER_ANY_END, collect_cb, &c);
  g_autoptr(RkLineSplitter) t = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (rk_line_splitter_feed (s, "0123456789\r", 11, NULL));
  g_assert_true (rk_line_splitter_feed (s, "01234", 5, NULL));
  g_assert_false (rk_line_splitter_feed (s, "567890", 6, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_clear_error (&error);
  g_assert_false (rk_line_splitter_feed (s, "\n", 1, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_false (rk_line_splitter_finish (s, NULL));
  g_assert_cmpuint (c.lines->len, ==, 1);
  /* A new stream begins after a reset. */
  rk_line_splitter_reset (s);
  g_assert_true (rk_line_splitter_feed (s, "ok\n", 3, NULL));
  g_assert_cmpuint (c.lines->len, ==, 2);

  c.stop_at = 4;
  t = rk_line_splitter_new (10, RK_LINE_SPLITTER_SKIP_LONG, collect_cb, &c);
  g_assert_false (rk_line_splitter_feed (t, "a\nb\nc\n", 6, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_cmpuint (c.lines->len, ==, 4);
  g_assert_false (rk_line_splitter_feed (t, "d\n", 2, NULL));
  g_ptr_array_unref (c.lines);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/line-splitter/line-ends", test_line_ends);
  g_test_add_func ("/rk/line-splitter/skip-long", test_skip_long);
  g_test_add_func ("/rk/line-splitter/skip-long-10mb", test_skip_long_10mb);
  g_test_add_func ("/rk/line-splitter/fail", test_fail);

  return g_test_run ();
}
