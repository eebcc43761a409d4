/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-chat-stream.c — OpenAI and Ollama chunk parsing and tool-call assembly:
 * a whole response body, in arbitrary splits, then the assembled message. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rk-chat-stream.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
delta_cb (const RkChatDelta *delta,
          gpointer           user_data)
{
  gsize *total = user_data;

  if (delta->text != NULL)
    for (gsize i = 0; i < delta->len; i++)
      *total += (guchar) delta->text[i];
  if (delta->kind == RK_CHAT_DELTA_TOOL_CALL)
    {
      g_assert (delta->id != NULL && delta->name != NULL && delta->arguments != NULL);
      *total += strlen (delta->id) + strlen (delta->name) + strlen (delta->arguments);
    }
  if (delta->finish_reason != NULL)
    *total += strlen (delta->finish_reason);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  gsize total = 0;
  RkChatStream *stream;
  RkChatReply *reply;
  JsonNode *message;
  char *json;
  gboolean ok = TRUE;
  guint step;
  guint8 mode;

  if (size < 1)
    return 0;
  mode = data[0];
  step = 1 + (mode >> 2) % 31;
  data++, size--;
  stream = rk_chat_stream_new (mode & 1 ? RK_CHAT_WIRE_OLLAMA : RK_CHAT_WIRE_OPENAI, delta_cb, &total);
  if (mode & 2)
    {
      /* Raw chunks, one per line, bypassing the framing. */
      const char *p = (const char *) data, *end = p + size;
      while (p < end && ok)
        {
          const char *nl = memchr (p, '\n', end - p);
          const char *stop = nl ? nl : end;
          ok = rk_chat_stream_feed_chunk (stream, p, stop - p, NULL);
          p = stop + 1;
        }
    }
  else
    {
      for (size_t off = 0; off < size && ok; off += step)
        ok = rk_chat_stream_feed (stream, (const char *) data + off, MIN (step, size - off), NULL);
      if (ok)
        rk_chat_stream_finish (stream, NULL);
    }
  reply = rk_chat_stream_steal_reply (stream);
  message = rk_chat_reply_to_message (reply);
  json = json_to_string (message, FALSE);
  g_assert (json != NULL);
  g_free (json);
  json_node_unref (message);
  rk_chat_reply_free (reply);
  rk_chat_stream_free (stream);
  return 0;
}
