/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-json.c — rk_json_parse, the one entry for JSON from outside, over
 * arbitrary bytes; the first byte picks the depth and size caps. */
#include "config.h"

#include <stdint.h>

#include "rk-json.h"
#include "rk-util.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonObject) object = NULL;
  guint depth;
  gsize max_bytes;

  if (size < 1)
    return 0;
  depth = 1 + (data[0] & 0x3f);
  max_bytes = data[0] & 0x40 ? size / 2 : size;
  root = rk_json_parse ((const char *) data + 1, (gssize) size - 1, max_bytes, depth,
                        data[0] & 0x80 ? RK_JSON_SCAN_NO_ESCAPED_NUL : RK_JSON_SCAN_DEFAULT, &error);
  /* Exactly one of a root and an error. */
  g_assert ((root == NULL) != (error == NULL));
  if (error != NULL)
    g_assert (error->domain == RK_PARSE_ERROR && error->message[0] != '\0');
  g_clear_error (&error);
  object = rk_json_parse_object ((const char *) data + 1, (gssize) size - 1, max_bytes, depth,
                                 RK_JSON_SCAN_DEFAULT, &error);
  g_assert ((object == NULL) != (error == NULL));
  return 0;
}
