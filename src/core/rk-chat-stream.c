/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chat-stream.c — every field of a chunk is type-checked; tool-call
 * fragments are assembled per index; sizes are bounded (see the header). */
#define G_LOG_DOMAIN "rk-chat-stream"
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "rk-chat-stream.h"
#include "rk-line-splitter.h"
#include "rk-sse.h"
#include "rk-json.h"
#include "rk-util.h"

typedef struct
{
  char    *id;
  char    *name;
  GString *arguments;
  gboolean complete;
} PendingCall;

struct _RkChatStream
{
  RkChatWire        wire;
  RkChatDeltaFunc   func;
  gpointer          user_data;
  RkSseParser      *sse;
  RkLineSplitter   *ndjson;

  GString          *content;
  GString          *reasoning;
  GPtrArray        *calls;            /* of PendingCall */
  int               slots[RK_CHAT_MAX_TOOL_CALLS]; /* wire index -> position in calls */
  gsize             arguments_len;
  char             *finish_reason;
  gint64            prompt_tokens;
  gint64            completion_tokens;
  char             *server_error;
  gboolean          done;
  RkChatReply      *stolen;
};

void
rk_tool_call_free (RkToolCall *call)
{
  if (call == NULL)
    return;
  g_free (call->id);
  g_free (call->name);
  g_free (call->arguments);
  g_free (call);
}

RkToolCall *
rk_tool_call_copy (const RkToolCall *call)
{
  RkToolCall *copy = g_new0 (RkToolCall, 1);

  copy->id = g_strdup (call->id);
  copy->name = g_strdup (call->name);
  copy->arguments = g_strdup (call->arguments);
  return copy;
}

void
rk_chat_reply_free (RkChatReply *reply)
{
  if (reply == NULL)
    return;
  g_free (reply->content);
  g_free (reply->reasoning);
  g_clear_pointer (&reply->tool_calls, g_ptr_array_unref);
  g_free (reply->finish_reason);
  g_free (reply);
}

RkChatReply *
rk_chat_reply_copy (const RkChatReply *reply)
{
  RkChatReply *copy = g_new0 (RkChatReply, 1);

  copy->content = g_strdup (reply->content);
  copy->reasoning = g_strdup (reply->reasoning);
  copy->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_tool_call_free);
  for (guint i = 0; i < reply->tool_calls->len; i++)
    g_ptr_array_add (copy->tool_calls, rk_tool_call_copy (g_ptr_array_index (reply->tool_calls, i)));
  copy->finish_reason = g_strdup (reply->finish_reason);
  copy->prompt_tokens = reply->prompt_tokens;
  copy->completion_tokens = reply->completion_tokens;
  return copy;
}

JsonNode *
rk_chat_reply_to_message (const RkChatReply *reply)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  rk_json_add_string_member (b, "role", "assistant");
  rk_json_add_string_member (b, "content", reply->content);
  if (reply->tool_calls->len > 0)
    {
      json_builder_set_member_name (b, "tool_calls");
      json_builder_begin_array (b);
      for (guint i = 0; i < reply->tool_calls->len; i++)
        {
          RkToolCall *call = g_ptr_array_index (reply->tool_calls, i);

          json_builder_begin_object (b);
          rk_json_add_string_member (b, "id", call->id);
          rk_json_add_string_member (b, "type", "function");
          json_builder_set_member_name (b, "function");
          json_builder_begin_object (b);
          rk_json_add_string_member (b, "name", call->name);
          rk_json_add_string_member (b, "arguments", call->arguments);
          json_builder_end_object (b);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
pending_call_free (PendingCall *call)
{
  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

static gboolean sse_event_cb (const char *event, const char *data, gsize len,
                              gpointer user_data, GError **error);
static gboolean ndjson_line_cb (const char *line, gsize len,
                                gpointer user_data, GError **error);

RkChatStream *
rk_chat_stream_new (RkChatWire      wire,
                    RkChatDeltaFunc func,
                    gpointer        user_data)
{
  RkChatStream *self = g_new0 (RkChatStream, 1);

  self->wire = wire;
  self->func = func;
  self->user_data = user_data;
  if (wire == RK_CHAT_WIRE_OPENAI)
    self->sse = rk_sse_parser_new (RK_SSE_DEFAULT_MAX_LINE, RK_CHAT_MAX_CHUNK, sse_event_cb, self);
  else
    self->ndjson = rk_line_splitter_new (RK_CHAT_MAX_CHUNK, RK_LINE_SPLITTER_SKIP_BLANK,
                                         ndjson_line_cb, self);
  self->content = g_string_new (NULL);
  self->reasoning = g_string_new (NULL);
  self->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_call_free);
  for (guint i = 0; i < G_N_ELEMENTS (self->slots); i++)
    self->slots[i] = -1;
  self->prompt_tokens = -1;
  self->completion_tokens = -1;
  return self;
}

void
rk_chat_stream_free (RkChatStream *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->sse, rk_sse_parser_free);
  g_clear_pointer (&self->ndjson, rk_line_splitter_free);
  g_string_free (self->content, TRUE);
  g_string_free (self->reasoning, TRUE);
  g_ptr_array_unref (self->calls);
  g_free (self->finish_reason);
  g_free (self->server_error);
  g_clear_pointer (&self->stolen, rk_chat_reply_free);
  g_free (self);
}

static void
emit (RkChatStream      *self,
      const RkChatDelta *delta)
{
  if (self->func != NULL)
    self->func (delta, self->user_data);
}

static gboolean
malformed (GError    **error,
           const char *what)
{
  g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, what);
  return FALSE;
}

/* A count; absent or null give -1. */
static gboolean
get_count (JsonObject *obj,
           const char *name,
           gint64      max,
           gint64     *out,
           GError    **error)
{
  *out = -1;
  return rk_json_get_int (obj, name, 0, max, RK_JSON_OPTIONAL, out, error);
}

static gboolean
append_text (RkChatStream    *self,
             RkChatDeltaKind  kind,
             const char      *text,
             GError         **error)
{
  GString *buf = kind == RK_CHAT_DELTA_TEXT ? self->content : self->reasoning;
  gsize len = strlen (text);
  RkChatDelta delta = { .kind = kind, .text = text, .len = len };

  if (len == 0)
    return TRUE;
  if (buf->len + len > RK_CHAT_MAX_TEXT)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   "the reply is longer than %u bytes", RK_CHAT_MAX_TEXT);
      return FALSE;
    }
  g_string_append_len (buf, text, len);
  emit (self, &delta);
  return TRUE;
}

static gboolean
complete_call (RkChatStream *self,
               guint         position,
               GError      **error)
{
  PendingCall *call = g_ptr_array_index (self->calls, position);
  RkChatDelta delta = { .kind = RK_CHAT_DELTA_TOOL_CALL, .index = position };

  if (call->complete)
    return TRUE;
  if (call->name == NULL || call->name[0] == '\0')
    return malformed (error, "a tool call has no function name");
  if (call->id == NULL || call->id[0] == '\0')
    {
      g_free (call->id);
      call->id = g_strdup_printf ("call_%u", position);
    }
  if (call->arguments->len == 0)
    g_string_assign (call->arguments, "{}");
  call->complete = TRUE;
  delta.id = call->id;
  delta.name = call->name;
  delta.arguments = call->arguments->str;
  emit (self, &delta);
  return TRUE;
}

static gboolean
complete_all_calls (RkChatStream *self,
                    GError      **error)
{
  for (guint i = 0; i < self->calls->len; i++)
    if (!complete_call (self, i, error))
      return FALSE;
  return TRUE;
}

static PendingCall *
new_call (RkChatStream *self,
          GError      **error)
{
  PendingCall *call;

  if (self->calls->len >= RK_CHAT_MAX_TOOL_CALLS)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   "more than %d tool calls in one reply", RK_CHAT_MAX_TOOL_CALLS);
      return NULL;
    }
  call = g_new0 (PendingCall, 1);
  call->arguments = g_string_new (NULL);
  g_ptr_array_add (self->calls, call);
  return call;
}

static gboolean
append_arguments (RkChatStream *self,
                  PendingCall  *call,
                  const char   *fragment,
                  gsize         len,
                  GError      **error)
{
  if (self->arguments_len + len > RK_CHAT_MAX_TOOL_ARGUMENTS)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   "tool call arguments over %u bytes", RK_CHAT_MAX_TOOL_ARGUMENTS);
      return FALSE;
    }
  g_string_append_len (call->arguments, fragment, len);
  self->arguments_len += len;
  return TRUE;
}

/* Arguments are a string to concatenate; a few servers send an object. */
static gboolean
get_arguments (JsonObject  *function,
               char       **out,
               GError     **error)
{
  JsonNode *node = json_object_get_member (function, "arguments");

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      *out = json_to_string (node, FALSE);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      *out = g_strdup (json_node_get_string (node));
      return TRUE;
    }
  return malformed (error, "tool call “arguments” is neither a string nor an object");
}

static gboolean
openai_tool_call (RkChatStream *self,
                  JsonNode     *node,
                  GError      **error)
{
  JsonObject *obj, *function = NULL;
  const char *id = NULL, *name = NULL, *type = NULL;
  g_autofree char *fragment = NULL;
  gint64 index;
  PendingCall *call = NULL;
  guint position;
  RkChatDelta delta = { .kind = RK_CHAT_DELTA_TOOL_CALL_PART };

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return malformed (error, "a tool call is not an object");
  obj = json_node_get_object (node);
  if (!get_count (obj, "index", RK_CHAT_MAX_TOOL_CALLS - 1, &index, error) ||
      !rk_json_get_string (obj, "id", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &id, error) ||
      !rk_json_get_string (obj, "type", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &type, error) ||
      !rk_json_get_object (obj, "function", RK_JSON_OPTIONAL, &function, error))
    return FALSE;
  if (function != NULL &&
      (!rk_json_get_string (function, "name", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &name, error) ||
       !get_arguments (function, &fragment, error)))
    return FALSE;
  if (id != NULL && id[0] == '\0')
    id = NULL;

  if (index >= 0)
    {
      int slot = self->slots[index];

      if (slot >= 0)
        {
          PendingCall *old = g_ptr_array_index (self->calls, slot);

          /* A new id at a used index starts another call. */
          if (id != NULL && old->id != NULL && strcmp (id, old->id) != 0)
            {
              if (!complete_call (self, slot, error))
                return FALSE;
              slot = -1;
            }
          else
            call = old;
        }
      if (slot < 0)
        {
          if ((call = new_call (self, error)) == NULL)
            return FALSE;
          self->slots[index] = self->calls->len - 1;
        }
    }
  else
    {
      /* No index: an id differing from the last call's starts a new call,
       * anything else continues the last one. */
      PendingCall *last = self->calls->len ? g_ptr_array_index (self->calls, self->calls->len - 1) : NULL;

      if (last != NULL && !last->complete &&
          (id == NULL || last->id == NULL || strcmp (id, last->id) == 0))
        call = last;
      else if ((call = new_call (self, error)) == NULL)
        return FALSE;
    }

  if (call->complete)
    return malformed (error, "a fragment for a tool call that has ended");
  position = self->calls->len - 1;
  for (guint i = 0; i < self->calls->len; i++)
    if (g_ptr_array_index (self->calls, i) == call)
      position = i;

  if (id != NULL && call->id == NULL)
    call->id = g_strdup (id);
  if (name != NULL && name[0] != '\0' && call->name == NULL)
    call->name = g_strdup (name);
  if (fragment != NULL && !append_arguments (self, call, fragment, strlen (fragment), error))
    return FALSE;

  delta.index = position;
  delta.id = call->id;
  delta.name = call->name;
  delta.text = fragment ? fragment : "";
  delta.len = fragment ? strlen (fragment) : 0;
  emit (self, &delta);
  return TRUE;
}

static void
set_server_error (RkChatStream *self,
                  const char   *message)
{
  RkChatDelta delta = { .kind = RK_CHAT_DELTA_ERROR };

  if (self->server_error != NULL)
    return;
  /* Bound what can reach the user's eyes. */
  if (message == NULL || message[0] == '\0')
    message = "unknown error";
  self->server_error = g_utf8_make_valid (message, MIN (strlen (message), 2000));
  self->done = TRUE;
  delta.text = self->server_error;
  delta.len = strlen (self->server_error);
  emit (self, &delta);
}

/* {"error": "text"} or {"error": {"message": "text", ...}}. */
static gboolean
handle_error_member (RkChatStream *self,
                     JsonObject   *root,
                     GError      **error)
{
  JsonNode *node = json_object_get_member (root, "error");

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    set_server_error (self, json_node_get_string (node));
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      const char *message = NULL;

      if (!rk_json_get_string (json_node_get_object (node), "message", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &message, error))
        return FALSE;
      set_server_error (self, message);
    }
  else
    return malformed (error, "“error” is neither a string nor an object");
  return TRUE;
}

static void
emit_done (RkChatStream *self)
{
  RkChatDelta delta = { .kind = RK_CHAT_DELTA_DONE };

  self->done = TRUE;
  delta.finish_reason = self->finish_reason;
  delta.prompt_tokens = self->prompt_tokens;
  delta.completion_tokens = self->completion_tokens;
  emit (self, &delta);
}

static gboolean
openai_chunk (RkChatStream *self,
              JsonObject   *root,
              GError      **error)
{
  JsonArray *choices = NULL;
  JsonObject *usage = NULL;

  if (!handle_error_member (self, root, error))
    return FALSE;
  if (self->server_error != NULL)
    return TRUE;
  if (!rk_json_get_array (root, "choices", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &choices, error) ||
      !rk_json_get_object (root, "usage", RK_JSON_OPTIONAL, &usage, error))
    return FALSE;

  if (usage != NULL)
    {
      gint64 prompt, completion;

      if (!get_count (usage, "prompt_tokens", G_MAXINT64, &prompt, error) ||
          !get_count (usage, "completion_tokens", G_MAXINT64, &completion, error))
        return FALSE;
      self->prompt_tokens = prompt;
      self->completion_tokens = completion;
    }

  /* Reckon asks for one choice; any others are ignored. */
  if (choices != NULL && json_array_get_length (choices) > 0)
    {
      JsonNode *choice_node = json_array_get_element (choices, 0);
      JsonObject *choice, *delta = NULL;
      JsonArray *tool_calls = NULL;
      const char *content = NULL, *reasoning = NULL, *reasoning2 = NULL, *finish = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (choice_node))
        return malformed (error, "a choice is not an object");
      choice = json_node_get_object (choice_node);
      if (!rk_json_get_object (choice, "delta", RK_JSON_OPTIONAL, &delta, error) ||
          !rk_json_get_string (choice, "finish_reason", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &finish, error))
        return FALSE;
      if (delta != NULL)
        {
          if (!rk_json_get_string (delta, "content", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &content, error) ||
              !rk_json_get_string (delta, "reasoning_content", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &reasoning, error) ||
              !rk_json_get_string (delta, "reasoning", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &reasoning2, error) ||
              !rk_json_get_array (delta, "tool_calls", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &tool_calls, error))
            return FALSE;
          if (reasoning != NULL && !append_text (self, RK_CHAT_DELTA_REASONING, reasoning, error))
            return FALSE;
          if (reasoning == NULL && reasoning2 != NULL &&
              !append_text (self, RK_CHAT_DELTA_REASONING, reasoning2, error))
            return FALSE;
          if (content != NULL && !append_text (self, RK_CHAT_DELTA_TEXT, content, error))
            return FALSE;
          if (tool_calls != NULL)
            for (guint i = 0; i < json_array_get_length (tool_calls); i++)
              if (!openai_tool_call (self, json_array_get_element (tool_calls, i), error))
                return FALSE;
        }
      if (finish != NULL && finish[0] != '\0')
        {
          g_free (self->finish_reason);
          self->finish_reason = g_strndup (finish, 64);
          if (!complete_all_calls (self, error))
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
ollama_tool_call (RkChatStream *self,
                  JsonNode     *node,
                  GError      **error)
{
  JsonObject *obj, *function = NULL;
  const char *id = NULL, *name = NULL;
  g_autofree char *arguments = NULL;
  PendingCall *call;
  RkChatDelta delta = { .kind = RK_CHAT_DELTA_TOOL_CALL_PART };

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return malformed (error, "a tool call is not an object");
  obj = json_node_get_object (node);
  if (!rk_json_get_string (obj, "id", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &id, error) ||
      !rk_json_get_object (obj, "function", RK_JSON_OPTIONAL, &function, error))
    return FALSE;
  if (function == NULL)
    return malformed (error, "a tool call has no “function”");
  if (!rk_json_get_string (function, "name", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &name, error) ||
      !get_arguments (function, &arguments, error))
    return FALSE;
  if ((call = new_call (self, error)) == NULL)
    return FALSE;
  call->id = (id && id[0]) ? g_strdup (id) : NULL;
  call->name = (name && name[0]) ? g_strdup (name) : NULL;
  if (arguments != NULL && !append_arguments (self, call, arguments, strlen (arguments), error))
    return FALSE;

  delta.index = self->calls->len - 1;
  delta.id = call->id;
  delta.name = call->name;
  delta.text = call->arguments->str;
  delta.len = call->arguments->len;
  emit (self, &delta);
  /* Ollama sends each call whole. */
  return complete_call (self, self->calls->len - 1, error);
}

static gboolean
ollama_chunk (RkChatStream *self,
              JsonObject   *root,
              GError      **error)
{
  JsonObject *message = NULL;
  gboolean done = FALSE;

  if (!handle_error_member (self, root, error))
    return FALSE;
  if (self->server_error != NULL)
    return TRUE;
  if (!rk_json_get_object (root, "message", RK_JSON_OPTIONAL, &message, error) ||
      !rk_json_get_bool (root, "done", RK_JSON_OPTIONAL, &done, error))
    return FALSE;

  if (message != NULL)
    {
      const char *content = NULL, *thinking = NULL;
      JsonArray *tool_calls = NULL;

      if (!rk_json_get_string (message, "content", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &content, error) ||
          !rk_json_get_string (message, "thinking", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &thinking, error) ||
          !rk_json_get_array (message, "tool_calls", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &tool_calls, error))
        return FALSE;
      if (thinking != NULL && !append_text (self, RK_CHAT_DELTA_REASONING, thinking, error))
        return FALSE;
      if (content != NULL && !append_text (self, RK_CHAT_DELTA_TEXT, content, error))
        return FALSE;
      if (tool_calls != NULL)
        for (guint i = 0; i < json_array_get_length (tool_calls); i++)
          if (!ollama_tool_call (self, json_array_get_element (tool_calls, i), error))
            return FALSE;
    }

  if (done)
    {
      const char *reason = NULL;
      gint64 prompt, completion;

      if (!rk_json_get_string (root, "done_reason", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &reason, error) ||
          !get_count (root, "prompt_eval_count", G_MAXINT64, &prompt, error) ||
          !get_count (root, "eval_count", G_MAXINT64, &completion, error))
        return FALSE;
      g_free (self->finish_reason);
      /* Say "tool_calls" as OpenAI servers do, so callers need one test. */
      if (self->calls->len > 0 && (reason == NULL || g_strcmp0 (reason, "stop") == 0))
        self->finish_reason = g_strdup ("tool_calls");
      else
        self->finish_reason = g_strndup (reason ? reason : "stop", 64);
      self->prompt_tokens = prompt;
      self->completion_tokens = completion;
      if (!complete_all_calls (self, error))
        return FALSE;
      emit_done (self);
    }
  return TRUE;
}

static gboolean
parse_chunk (RkChatStream *self,
             const char   *json,
             gsize         len,
             GError      **error)
{
  g_autoptr(JsonObject) root = rk_json_parse_object (json, (gssize) len, RK_CHAT_MAX_CHUNK, RK_CHAT_MAX_JSON_DEPTH,
                                                     RK_JSON_SCAN_DEFAULT, error);

  if (root == NULL)
    return FALSE;
  if (self->wire == RK_CHAT_WIRE_OPENAI)
    return openai_chunk (self, root, error);
  else
    return ollama_chunk (self, root, error);
}

gboolean
rk_chat_stream_feed_chunk (RkChatStream *self,
                           const char   *json,
                           gsize         len,
                           GError      **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->done)
    return TRUE;  /* anything after the end is ignored */
  if (len > RK_CHAT_MAX_CHUNK)
    {
      g_set_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE,
                   "a chunk over %u bytes", RK_CHAT_MAX_CHUNK);
      return FALSE;
    }
  if (!parse_chunk (self, json, len, error))
    {
      g_prefix_error (error, "malformed chunk: ");
      return FALSE;
    }
  return TRUE;
}

static gboolean
is_done_marker (const char *data,
                gsize       len)
{
  while (len > 0 && g_ascii_isspace (*data))
    data++, len--;
  while (len > 0 && g_ascii_isspace (data[len - 1]))
    len--;
  return len == 6 && memcmp (data, "[DONE]", 6) == 0;
}

static gboolean
sse_event_cb (const char *event,
              const char *data,
              gsize       len,
              gpointer    user_data,
              GError    **error)
{
  RkChatStream *self = user_data;

  if (self->done)
    return TRUE;
  if (event != NULL && strcmp (event, "error") == 0)
    {
      /* The data is JSON with an error member, or plain text. */
      g_autoptr(JsonObject) root = rk_json_parse_object (data, (gssize) len, RK_CHAT_MAX_CHUNK, RK_CHAT_MAX_JSON_DEPTH,
                                                         RK_JSON_SCAN_DEFAULT, NULL);

      if (root != NULL)
        {
          const char *message = NULL;

          if (!handle_error_member (self, root, error))
            return FALSE;
          if (self->server_error == NULL)
            {
              if (!rk_json_get_string (root, "message", RK_JSON_UNLIMITED, RK_JSON_OPTIONAL, &message, error))
                return FALSE;
              set_server_error (self, message);
            }
        }
      else
        {
          g_autofree char *text = g_strndup (data, len);
          set_server_error (self, text);
        }
      return TRUE;
    }
  if (is_done_marker (data, len))
    {
      if (!complete_all_calls (self, error))
        return FALSE;
      emit_done (self);
      return TRUE;
    }
  if (len == 0)
    return TRUE;
  return rk_chat_stream_feed_chunk (self, data, len, error);
}

static gboolean
ndjson_line_cb (const char *line,
                gsize       len,
                gpointer    user_data,
                GError    **error)
{
  return rk_chat_stream_feed_chunk (user_data, line, len, error);
}

gboolean
rk_chat_stream_feed (RkChatStream *self,
                     const char   *buf,
                     gsize         len,
                     GError      **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->done)
    return TRUE;
  if (self->sse != NULL)
    return rk_sse_parser_feed (self->sse, buf, len, error);
  return rk_line_splitter_feed (self->ndjson, buf, len, error);
}

gboolean
rk_chat_stream_finish (RkChatStream *self,
                       GError      **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!self->done)
    {
      gboolean ok = self->sse != NULL ? rk_sse_parser_finish (self->sse, error)
                                      : rk_line_splitter_finish (self->ndjson, error);
      if (!ok)
        return FALSE;
    }
  if (self->done)
    return TRUE;
  /* Some OpenAI-compatible servers close after the finish_reason without [DONE]. */
  if (self->wire == RK_CHAT_WIRE_OPENAI && self->finish_reason != NULL)
    {
      if (!complete_all_calls (self, error))
        return FALSE;
      emit_done (self);
      return TRUE;
    }
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT,
                       "the reply ended before it was complete");
  return FALSE;
}

gboolean
rk_chat_stream_is_done (RkChatStream *self)
{
  return self->done;
}

const char *
rk_chat_stream_get_server_error (RkChatStream *self)
{
  return self->server_error;
}

static RkChatReply *
build_reply (RkChatStream *self)
{
  RkChatReply *reply = g_new0 (RkChatReply, 1);

  reply->content = g_strndup (self->content->str, self->content->len);
  reply->reasoning = g_strndup (self->reasoning->str, self->reasoning->len);
  reply->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_tool_call_free);
  for (guint i = 0; i < self->calls->len; i++)
    {
      PendingCall *pending = g_ptr_array_index (self->calls, i);
      RkToolCall *call;

      /* Only calls that were complete (named) make it into the message. */
      if (!pending->complete)
        continue;
      call = g_new0 (RkToolCall, 1);
      call->id = g_strdup (pending->id);
      call->name = g_strdup (pending->name);
      call->arguments = g_strdup (pending->arguments->str);
      g_ptr_array_add (reply->tool_calls, call);
    }
  reply->finish_reason = g_strdup (self->finish_reason);
  reply->prompt_tokens = self->prompt_tokens;
  reply->completion_tokens = self->completion_tokens;
  return reply;
}

const RkChatReply *
rk_chat_stream_get_reply (RkChatStream *self)
{
  g_clear_pointer (&self->stolen, rk_chat_reply_free);
  self->stolen = build_reply (self);
  return self->stolen;
}

RkChatReply *
rk_chat_stream_steal_reply (RkChatStream *self)
{
  return build_reply (self);
}
