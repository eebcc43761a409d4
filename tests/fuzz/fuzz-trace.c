/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-trace.c — the number finder of traceable numbers on any bytes (it
 * reads model text): spans lie inside the text, in order, with finite values;
 * the first half is indexed as output and the second matched against it. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk-trace.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check_spans (GArray     *spans,
             const char *text)
{
  gsize len = strlen (text), last = 0;

  for (guint i = 0; i < spans->len; i++)
    {
      RkTraceSpan *s = &g_array_index (spans, RkTraceSpan, i);

      if (s->start >= s->end || s->end > len || s->start < last ||
          !isfinite (s->value) || !(s->tolerance >= 0))
        abort ();
      last = s->end;
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autofree char *output = g_strndup (text, strlen (text) / 2);
  g_autoptr(GArray) all = rk_trace_find_all_numbers (text);
  g_autoptr(GArray) checked = rk_trace_find_numbers (text);
  g_autoptr(RkTraceIndex) index = rk_trace_index_new ();
  g_autoptr(GArray) matched = NULL;

  check_spans (all, text);
  check_spans (checked, text);
  rk_trace_index_add_text (index, 1, output, RK_TRACE_COMPUTED);
  rk_trace_index_add_text (index, 2, text + strlen (output), RK_TRACE_GIVEN);
  rk_trace_index_add_value (index, 3, size, 0, 0);
  matched = rk_trace_index_match (index, text);
  check_spans (matched, text);
  if (matched->len != checked->len)
    abort ();
  {
    g_autofree char *marked = rk_trace_mark_markup (index, text, NULL, NULL);
    if (marked == NULL || strlen (marked) < strlen (text))
      abort ();
  }
  return 0;
}
