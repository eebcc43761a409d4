/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-kernel-protocol.c — the kernel event parser and the line splitter
 * over arbitrary bytes, fed in uneven chunks. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rk-kernel-protocol.h"
#include "rk-line-splitter.h"
#include "rk-util.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
line_cb (const char  *line,
         gsize        len,
         gpointer     user_data,
         GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(RkKernelEvent) ev = NULL;
  guint *count = user_data;

  if (line == NULL)   /* an over-long line, skipped */
    return TRUE;
  ev = rk_kernel_event_parse (line, len, &local_error);
  g_assert ((ev == NULL) != (local_error == NULL));
  if (ev == NULL)
    return TRUE;
  (*count)++;
  if (ev->path != NULL)
    g_assert (rk_path_is_beneath (ev->path));
  if (ev->text != NULL)
    g_assert (g_utf8_validate (ev->text, -1, NULL));
  if (ev->type != RK_KERNEL_EVENT_READY)
    g_assert (ev->id != NULL && ev->id[0] != '\0');
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* A small line limit so over-long lines are reached. */
  guint count = 0;
  g_autoptr(RkLineSplitter) splitter = rk_line_splitter_new (4096, RK_LINE_SPLITTER_SKIP_LONG, line_cb, &count);
  size_t pos = 0;
  size_t step = size > 0 ? 1 + data[0] % 97 : 1;

  while (pos < size)
    {
      size_t n = MIN (step, size - pos);
      g_assert_true (rk_line_splitter_feed (splitter, (const char *) data + pos, n, NULL));
      pos += n;
      step = step * 7 % 101 + 1;
    }
  /* The whole input as one line, too. */
  line_cb ((const char *) data, size, &count, NULL);
  return 0;
}
