/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-sse.c — hostile input for the SSE parser: every split, every line end. */
#define G_LOG_DOMAIN "test-sse"
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "rk-sse.h"
#include "rk-util.h"

typedef struct
{
  GString *log;   /* "event|data\n" per event */
  int      stop_after;
} Collect;

static gboolean
collect_cb (const char *event,
            const char *data,
            gsize       len,
            gpointer    user_data,
            GError    **error)
{
  Collect *c = user_data;

  g_string_append_printf (c->log, "%s|", event ? event : "-");
  g_string_append_len (c->log, data, len);
  g_string_append_c (c->log, '\n');
  if (c->stop_after > 0 && --c->stop_after == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "stop");
      return FALSE;
    }
  return TRUE;
}

/* Parses @input fed in pieces of @step bytes (0: all at once). */
static char *
parse (const char *input,
       gsize       len,
       gsize       step,
       GError    **error)
{
  Collect c = { g_string_new (NULL), 0 };
  g_autoptr(RkSseParser) p = rk_sse_parser_new (0, 0, collect_cb, &c);
  gsize off = 0;

  if (step == 0)
    step = len ? len : 1;
  while (off < len)
    {
      gsize n = MIN (step, len - off);
      if (!rk_sse_parser_feed (p, input + off, n, error))
        {
          g_string_free (c.log, TRUE);
          return NULL;
        }
      off += n;
    }
  if (!rk_sse_parser_finish (p, error))
    {
      g_string_free (c.log, TRUE);
      return NULL;
    }
  return g_string_free (c.log, FALSE);
}

static void
check_all_splits (const char *input,
                  const char *expected)
{
  gsize len = strlen (input);

  for (gsize step = 0; step <= len; step++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *got = parse (input, len, step, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (got, ==, expected);
    }
  /* Split in two at every byte boundary. */
  for (gsize cut = 0; cut <= len; cut++)
    {
      Collect c = { g_string_new (NULL), 0 };
      g_autoptr(RkSseParser) p = rk_sse_parser_new (0, 0, collect_cb, &c);
      g_autofree char *got = NULL;

      g_assert_true (rk_sse_parser_feed (p, input, cut, NULL));
      g_assert_true (rk_sse_parser_feed (p, input + cut, len - cut, NULL));
      g_assert_true (rk_sse_parser_finish (p, NULL));
      got = g_string_free (c.log, FALSE);
      g_assert_cmpstr (got, ==, expected);
    }
}

static void
test_basic (void)
{
  check_all_splits ("data: {\"a\":1}\n\ndata: [DONE]\n\n", "-|{\"a\":1}\n-|[DONE]\n");
}

static void
test_line_ends (void)
{
  const char *expected = "-|one\n-|two\n-|three\n";

  check_all_splits ("data: one\n\ndata: two\n\ndata: three\n\n", expected);
  check_all_splits ("data: one\r\n\r\ndata: two\r\n\r\ndata: three\r\n\r\n", expected);
  check_all_splits ("data: one\r\rdata: two\r\rdata: three\r\r", expected);
  check_all_splits ("data: one\r\n\ndata: two\n\r\ndata: three\r\r\n", expected);
}

static void
test_multiline_and_fields (void)
{
  check_all_splits ("event: message\ndata: a\ndata:b\ndata:  c\nid: 7\nretry: 10\n\n",
                    "message|a\nb\n c\n");
  /* A field without a colon, an empty data line, unknown fields. */
  check_all_splits ("data\ndata\n\nfoo: bar\ndata: x\n\n", "-|\n\n-|x\n");
  /* The event type does not leak into the next event. */
  check_all_splits ("event: error\ndata: 1\n\ndata: 2\n\n", "error|1\n-|2\n");
  /* Blank lines alone, and an event with no data, dispatch nothing. */
  check_all_splits ("\n\n\nevent: x\n\n\n", "");
}

static void
test_comments (void)
{
  Collect c = { g_string_new (NULL), 0 };
  g_autoptr(RkSseParser) p = rk_sse_parser_new (0, 0, collect_cb, &c);
  g_autofree char *got = NULL;
  const char *in = ": ping - 2024-01-01\n\n:\ndata: a\n: in the middle\ndata: b\n\n";

  check_all_splits (in, "-|a\nb\n");
  g_assert_true (rk_sse_parser_feed (p, in, strlen (in), NULL));
  g_assert_cmpuint (rk_sse_parser_get_n_comments (p), ==, 3);
  got = g_string_free (c.log, FALSE);
}

static void
test_done_variants (void)
{
  check_all_splits ("data:[DONE]\n\n", "-|[DONE]\n");
  check_all_splits ("data: [DONE] \r\n\r\n", "-|[DONE] \n");
  /* No final blank line, no final newline: still delivered at the end. */
  check_all_splits ("data: [DONE]", "-|[DONE]\n");
  check_all_splits ("data: [DONE]\n", "-|[DONE]\n");
}

static void
test_bom (void)
{
  check_all_splits ("\xef\xbb\xbf" "data: x\n\n", "-|x\n");
  /* A broken BOM stays part of the line, making an unknown field. */
  check_all_splits ("\xef\xbb" "data: x\n\ndata: y\n\n", "-|y\n");
}

static void
test_binary (void)
{
  static const char in[] = "data: a\0b\n\n";
  g_autoptr(GError) error = NULL;
  g_autofree char *got = parse (in, sizeof in - 1, 1, &error);

  g_assert_no_error (error);
  g_assert_cmpmem (got, 7, "-|a\0b\n", 7);
}

static void
test_huge_line (void)
{
  gsize size = RK_SSE_DEFAULT_MAX_LINE + 16;
  g_autofree char *big = g_malloc (size);
  g_autoptr(GError) error = NULL;
  Collect c = { g_string_new (NULL), 0 };
  g_autoptr(RkSseParser) p = rk_sse_parser_new (0, 0, collect_cb, &c);

  memcpy (big, "data: ", 6);
  memset (big + 6, 'x', size - 6);
  /* In pieces, so the limit is applied across feeds. */
  for (gsize off = 0; off < size && error == NULL; off += 65536)
    rk_sse_parser_feed (p, big + off, MIN (65536, size - off), &error);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_assert_cmpuint (c.log->len, ==, 0);
  g_clear_error (&error);
  /* A failed parser refuses more input. */
  g_assert_false (rk_sse_parser_feed (p, "\n\n", 2, &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_string_free (c.log, TRUE);
}

static void
test_event_limit (void)
{
  /* Many short data lines must not exceed the event limit either. */
  Collect c = { g_string_new (NULL), 0 };
  g_autoptr(RkSseParser) p = rk_sse_parser_new (64, 100, collect_cb, &c);
  g_autoptr(GError) error = NULL;

  for (int i = 0; i < 20 && error == NULL; i++)
    rk_sse_parser_feed (p, "data: 0123456789\n", 17, &error);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_clear_error (&error);

  {
    g_autoptr(RkSseParser) q = rk_sse_parser_new (8, 0, collect_cb, &c);
    g_assert_true (rk_sse_parser_feed (q, "data: 12\n", 9, NULL));
    g_assert_false (rk_sse_parser_feed (q, "data: 123\n", 10, &error));
    g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  }
  g_string_free (c.log, TRUE);
}

static void
test_callback_error (void)
{
  Collect c = { g_string_new (NULL), 1 };
  g_autoptr(RkSseParser) p = rk_sse_parser_new (0, 0, collect_cb, &c);
  g_autoptr(GError) error = NULL;

  g_assert_false (rk_sse_parser_feed (p, "data: 1\n\ndata: 2\n\n", 18, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpstr (c.log->str, ==, "-|1\n");
  g_string_free (c.log, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/sse/basic", test_basic);
  g_test_add_func ("/rk/sse/line-ends", test_line_ends);
  g_test_add_func ("/rk/sse/multiline-and-fields", test_multiline_and_fields);
  g_test_add_func ("/rk/sse/comments", test_comments);
  g_test_add_func ("/rk/sse/done-variants", test_done_variants);
  g_test_add_func ("/rk/sse/bom", test_bom);
  g_test_add_func ("/rk/sse/binary", test_binary);
  g_test_add_func ("/rk/sse/huge-line", test_huge_line);
  g_test_add_func ("/rk/sse/event-limit", test_event_limit);
  g_test_add_func ("/rk/sse/callback-error", test_callback_error);
  return g_test_run ();
}
