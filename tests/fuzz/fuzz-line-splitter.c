/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-line-splitter.c — the one line splitter over arbitrary bytes: in
 * every mode, the lines of the input fed in uneven chunks are the lines of
 * the input fed at once, each within the limit and without a line end. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rk-line-splitter.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

typedef struct
{
  RkLineSplitterFlags flags;
  gsize               max;
  GString            *out;
} Seen;

static gboolean
line_cb (const char  *line,
         gsize        len,
         gpointer     user_data,
         GError     **error)
{
  Seen *seen = user_data;

  if (line == NULL)
    {
      g_assert_true (seen->flags & RK_LINE_SPLITTER_SKIP_LONG);
      g_string_append (seen->out, "<skipped>");
      return TRUE;
    }
  g_assert_cmpuint (len, <=, seen->max);
  g_assert_cmpint (line[len], ==, '\0');
  g_assert_null (memchr (line, '\n', len));
  if (seen->flags & RK_LINE_SPLITTER_ANY_END)
    g_assert_null (memchr (line, '\r', len));
  g_string_append_len (seen->out, line, len);
  g_string_append_c (seen->out, '\n');
  return TRUE;
}

/* Feeds @data in steps from @step; the lines seen, and whether it failed. */
static gboolean
split (RkLineSplitterFlags  flags,
       gsize                max,
       const char          *data,
       size_t               size,
       size_t               step,
       GString             *out)
{
  Seen seen = { flags, max, out };
  g_autoptr(RkLineSplitter) s = rk_line_splitter_new (max, flags, line_cb, &seen);
  size_t pos = 0;

  while (pos < size)
    {
      size_t n = MIN (step, size - pos);

      if (!rk_line_splitter_feed (s, data + pos, n, NULL))
        return FALSE;
      pos += n;
      step = step * 7 % 101 + 1;
    }
  return rk_line_splitter_finish (s, NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  RkLineSplitterFlags flags;
  gsize max;
  g_autoptr(GString) whole = g_string_new (NULL);
  g_autoptr(GString) pieces = g_string_new (NULL);
  gboolean ok_whole, ok_pieces;

  if (size < 1)
    return 0;
  flags = data[0] & (RK_LINE_SPLITTER_ANY_END | RK_LINE_SPLITTER_SKIP_LONG);
  max = 1 + (data[0] >> 2) % 48;
  ok_whole = split (flags, max, (const char *) data + 1, size - 1, size, whole);
  ok_pieces = split (flags, max, (const char *) data + 1, size - 1, 1 + data[0] % 13, pieces);
  /* A stream that fails, fails however it is cut, after the same lines. */
  g_assert_cmpint (ok_whole, ==, ok_pieces);
  g_assert_cmpstr (whole->str, ==, pieces->str);
  if (flags & RK_LINE_SPLITTER_SKIP_LONG)
    g_assert_true (ok_whole);
  return 0;
}
