/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chat-stream.h — turns the streamed reply of a model server (OpenAI
 * chat.completions chunks over SSE, or Ollama /api/chat objects over NDJSON)
 * into typed deltas, and assembles the whole assistant message. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Limits on what one reply may hold. */
#define RK_CHAT_MAX_TOOL_CALLS      64
#define RK_CHAT_MAX_TOOL_ARGUMENTS  (16u * 1024 * 1024)  /* all calls together */
#define RK_CHAT_MAX_TEXT            (32u * 1024 * 1024)  /* content, and reasoning */
#define RK_CHAT_MAX_CHUNK           (16u * 1024 * 1024)
#define RK_CHAT_MAX_JSON_DEPTH      64

typedef enum
{
  RK_CHAT_WIRE_OPENAI,   /* SSE, chat.completion.chunk objects, data: [DONE] */
  RK_CHAT_WIRE_OLLAMA,   /* NDJSON, /api/chat objects, done: true */
} RkChatWire;

typedef enum
{
  RK_CHAT_DELTA_TEXT,           /* text: a piece of the answer */
  RK_CHAT_DELTA_REASONING,      /* text: a piece of the model's thinking */
  RK_CHAT_DELTA_TOOL_CALL_PART, /* index, id, name (so far) and text: a fragment of its arguments */
  RK_CHAT_DELTA_TOOL_CALL,      /* index, id, name, arguments: one complete call */
  RK_CHAT_DELTA_DONE,           /* finish_reason, prompt_tokens, completion_tokens */
  RK_CHAT_DELTA_ERROR,          /* text: the message the server sent in the stream */
} RkChatDeltaKind;

/* Pointers in a delta are valid only during the callback. */
typedef struct
{
  RkChatDeltaKind  kind;
  const char      *text;
  gsize            len;
  guint            index;
  const char      *id;
  const char      *name;
  const char      *arguments;
  const char      *finish_reason;
  gint64           prompt_tokens;      /* -1 when unknown */
  gint64           completion_tokens;  /* -1 when unknown */
} RkChatDelta;

typedef void (*RkChatDeltaFunc) (const RkChatDelta *delta,
                                 gpointer           user_data);

typedef struct
{
  char *id;         /* never NULL: the server's id or a made-up "call_N" */
  char *name;       /* never NULL or empty */
  char *arguments;  /* a JSON text as the model wrote it ("{}" when none); not validated */
} RkToolCall;

/* The assembled assistant message. */
typedef struct
{
  char       *content;        /* never NULL */
  char       *reasoning;      /* never NULL */
  GPtrArray  *tool_calls;     /* of RkToolCall, in order */
  char       *finish_reason;  /* may be NULL */
  gint64      prompt_tokens;
  gint64      completion_tokens;
} RkChatReply;

void         rk_tool_call_free          (RkToolCall        *call);
RkToolCall  *rk_tool_call_copy          (const RkToolCall  *call);
void         rk_chat_reply_free         (RkChatReply       *reply);
RkChatReply *rk_chat_reply_copy         (const RkChatReply *reply);
/* An OpenAI-style assistant message ({role, content, tool_calls}) to send
 * back in the next request's messages. */
JsonNode    *rk_chat_reply_to_message   (const RkChatReply *reply);

typedef struct _RkChatStream RkChatStream;

RkChatStream *rk_chat_stream_new          (RkChatWire        wire,
                                           RkChatDeltaFunc   func,
                                           gpointer          user_data);
void          rk_chat_stream_free         (RkChatStream     *self);
/* Raw bytes of the response body, in any split. Errors: RK_PARSE_ERROR
 * (MALFORMED, TOO_LARGE). A server's own error message in the stream is not
 * an error here: it arrives as an ERROR delta and get_server_error() is set. */
gboolean      rk_chat_stream_feed         (RkChatStream     *self,
                                           const char       *buf,
                                           gsize             len,
                                           GError          **error);
/* One decoded chunk (the payload of one SSE data event or one NDJSON line). */
gboolean      rk_chat_stream_feed_chunk   (RkChatStream     *self,
                                           const char       *json,
                                           gsize             len,
                                           GError          **error);
/* End of the body. Fails with G_IO_ERROR_PARTIAL_INPUT when the reply was
 * cut before its end (no [DONE] nor finish_reason, no done: true). */
gboolean      rk_chat_stream_finish       (RkChatStream     *self,
                                           GError          **error);
gboolean      rk_chat_stream_is_done      (RkChatStream     *self);
const char   *rk_chat_stream_get_server_error (RkChatStream *self);
const RkChatReply *rk_chat_stream_get_reply (RkChatStream   *self);
RkChatReply  *rk_chat_stream_steal_reply  (RkChatStream     *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkChatStream, rk_chat_stream_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkChatReply, rk_chat_reply_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkToolCall, rk_tool_call_free)

G_END_DECLS
