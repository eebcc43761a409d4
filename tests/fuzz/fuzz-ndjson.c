/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-ndjson.c — NDJSON framing (the line splitter dropping blank lines)
 * over arbitrary bytes in arbitrary splits. */
#include "config.h"

#include <stdint.h>

#include "rk-line-splitter.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
line_cb (const char *line,
         gsize       len,
         gpointer    user_data,
         GError    **error)
{
  gsize *total = user_data;

  for (gsize i = 0; i < len; i++)
    *total += (guchar) line[i];
  g_assert (line[len] == '\0');
  g_assert (len > 0);
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  gsize total = 0;
  guint step;
  RkLineSplitter *splitter;
  gboolean ok = TRUE;

  if (size < 1)
    return 0;
  step = 1 + data[0] % 13;
  splitter = rk_line_splitter_new (data[0] & 0x80 ? 32 : 16u * 1024 * 1024,
                                   RK_LINE_SPLITTER_SKIP_BLANK, line_cb, &total);
  data++, size--;
  for (size_t off = 0; off < size && ok; off += step)
    ok = rk_line_splitter_feed (splitter, (const char *) data + off, MIN (step, size - off), NULL);
  if (ok)
    rk_line_splitter_finish (splitter, NULL);
  rk_line_splitter_free (splitter);
  return 0;
}
