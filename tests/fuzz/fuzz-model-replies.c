/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-model-replies.c — model lists, capabilities and version reports of
 * model servers over arbitrary bytes; the first byte picks the reply. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rk-model-replies.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GPtrArray) models = NULL;
  g_autofree char *version = NULL;
  gboolean tools;

  if (size < 1)
    return 0;
  body = g_bytes_new (data + 1, size - 1);
  switch (data[0] % 4)
    {
    case 0:
    case 1:
      models = rk_model_replies_parse_list (data[0] % 4 ? RK_MODEL_API_OPENAI : RK_MODEL_API_OLLAMA,
                                            body, NULL);
      if (models != NULL)
        {
          g_assert (models->len <= 10000);
          for (guint i = 0; i < models->len; i++)
            {
              const char *name = ((RkModelInfo *) models->pdata[i])->name;

              g_assert (name[0] != '\0' && strlen (name) <= 1024 && g_utf8_validate (name, -1, NULL));
            }
        }
      break;
    case 2:
      if (!rk_model_replies_parse_capabilities (body, &tools))
        g_assert (!tools);
      break;
    default:
      version = rk_model_replies_parse_version (body, data[0] & 0x80 ? "build_info" : "version");
      if (version != NULL)
        {
          g_assert (g_utf8_validate (version, -1, NULL));
          g_assert (g_utf8_strlen (version, -1) <= 80);
          for (const char *p = version; *p; p++)
            g_assert ((guchar) *p >= 0x20 && *p != 0x7f);
        }
      break;
    }
  return 0;
}
