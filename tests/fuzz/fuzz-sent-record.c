/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-sent-record.c — a question's record of what was sent to the model,
 * read back from a saved conversation: any bytes parse or fail cleanly, and
 * what parses renders; adding a request to any bytes gives a record that
 * parses. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk-sent-record.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr(GPtrArray) requests = rk_sent_record_parse (text, NULL);
  g_autoptr(JsonArray) history = json_array_new ();
  g_autofree char *added = NULL;
  g_autoptr(GPtrArray) again = NULL;

  if (requests != NULL)
    {
      g_autofree char *shown = rk_sent_record_to_text (requests);

      if (shown == NULL || !g_utf8_validate (shown, -1, NULL))
        abort ();
    }
  json_array_add_string_element (history, "not a message");
  added = rk_sent_record_add_request (text, "system", history, TRUE, 1 << 16);
  /* A string element is no message: the record must still be JSON. */
  if (added == NULL || strlen (added) > (1 << 17))
    abort ();
  again = rk_sent_record_parse (added, NULL);
  (void) again;
  return 0;
}
