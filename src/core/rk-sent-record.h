/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-sent-record.h — what the model was sent for one question, kept with the
 * question so the user can read it later: every request of the turn. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A record is JSON text kept in the question's transcript entry (its
 * detail; docs/transcript-format.md). Its size stays under @max_bytes:
 * the oldest messages of the conversation are left out first, and the
 * record says how many. */
#define RK_SENT_RECORD_MAX_REQUESTS 64
/* What the agent keeps for one question: the system prompt (at most some
 * 16 KiB) and the newest messages. Each question keeps the conversation
 * before it, so a long conversation would otherwise grow its file by the
 * square of its length. */
#define RK_SENT_RECORD_KEEP_BYTES   (128u << 10)

/* @record (NULL for the first request of the question) plus one more
 * request: @system, then @messages (a JSON array of chat messages), with
 * the python tool offered when @tools. A new record, at most @max_bytes
 * long (never NULL). */
char      *rk_sent_record_add_request (const char *record,
                                       const char *system,
                                       JsonArray  *messages,
                                       gboolean    tools,
                                       gsize       max_bytes);

typedef struct
{
  char *role;        /* "system", "user", "assistant" or "tool" */
  char *content;     /* never NULL */
  char *tool_code;   /* an assistant's python tool call: its code, or NULL */
} RkSentMessage;

typedef struct
{
  GPtrArray *messages;   /* RkSentMessage, the system prompt first */
  guint      omitted;    /* earlier messages not kept (size limit) */
  gboolean   tools;      /* the python tool was offered */
  gsize      chars;      /* characters of every message's text */
} RkSentRequest;

/* The requests of a record (RkSentRequest, owned), or NULL with
 * RK_PARSE_ERROR when @record is not one. @record comes from a file on
 * disk: it is read with limits. */
GPtrArray *rk_sent_record_parse       (const char *record,
                                       GError    **error);
void       rk_sent_request_free       (RkSentRequest *request);

/* The requests for people: each request's messages with their roles;
 * after the first, only what the request added. */
char      *rk_sent_record_to_text     (GPtrArray  *requests);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkSentRequest, rk_sent_request_free)

G_END_DECLS
