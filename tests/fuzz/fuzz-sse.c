/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-sse.c — the SSE parser over arbitrary bytes in arbitrary splits. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rk-sse.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
event_cb (const char *event,
          const char *payload,
          gsize       len,
          gpointer    user_data,
          GError    **error)
{
  gsize *total = user_data;

  /* Touch every byte so the sanitizers see a bad length. */
  for (gsize i = 0; i < len; i++)
    *total += (guchar) payload[i];
  if (event != NULL)
    *total += strlen (event);
  g_assert (payload[len] == '\0');
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  gsize total = 0;
  guint step;
  RkSseParser *parser;
  gboolean ok = TRUE;

  if (size < 1)
    return 0;
  /* The first byte picks the piece size; small limits reach the error paths. */
  step = 1 + data[0] % 17;
  parser = rk_sse_parser_new (data[0] & 0x80 ? 64 : 0, data[0] & 0x40 ? 128 : 0, event_cb, &total);
  data++, size--;
  for (size_t off = 0; off < size && ok; off += step)
    ok = rk_sse_parser_feed (parser, (const char *) data + off, MIN (step, size - off), NULL);
  if (ok)
    rk_sse_parser_finish (parser, NULL);
  rk_sse_parser_free (parser);
  return 0;
}
