/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-conversation-meta.c — a saved conversation's conversation.json from
 * any bytes: it fails cleanly, or parses into metadata that saves and
 * parses again to the same text. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk-conversation-store-private.h"
#include "rk-conversation-store.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
check (gboolean ok)
{
  if (!ok)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkConversationMeta) meta = _rk_conversation_meta_parse ((const char *) data, size, &error);
  g_autoptr(RkConversationMeta) back = NULL;
  g_autofree char *json = NULL;
  g_autofree char *json2 = NULL;

  if (meta == NULL)
    {
      check (error != NULL && error->domain == RK_CONVERSATION_STORE_ERROR && error->message[0] != '\0');
      return 0;
    }
  check (error == NULL);
  check (meta->id != NULL && strchr (meta->id, '/') == NULL);
  for (guint i = 0; i < meta->files->len; i++)
    check (((RkSessionFile *) g_ptr_array_index (meta->files, i))->original_path != NULL);

  json = _rk_conversation_meta_to_json (meta);
  back = _rk_conversation_meta_parse (json, strlen (json), &error);
  check (back != NULL);
  json2 = _rk_conversation_meta_to_json (back);
  check (g_str_equal (json, json2));
  return 0;
}
