/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-mock-server.c — the scripted model server. It runs SoupServer in a
 * thread with its own main context; responses are streamed chunk by chunk. */
#define G_LOG_DOMAIN "rk-mock-server"
#include "config.h"

#include <libsoup/soup.h>
#include <stdio.h>
#include <string.h>

#include "rk-json.h"
#include "rk-mock-server.h"
#include "rk-util.h"

/* What the server reads (Reckon's requests, a test's script) goes through
 * the app's one JSON entry too, with caps no real request comes near. */
#define MOCK_MAX_JSON  ((gsize) 1 << 30)
#define MOCK_MAX_DEPTH 64

typedef enum
{
  FAULT_NONE,
  FAULT_REFUSE,
  FAULT_404,
  FAULT_500,
  FAULT_CUT,
  FAULT_MALFORMED,
  FAULT_STALL,
  FAULT_ERROR,
} Fault;

struct _RkMockServer
{
  GThread      *thread;
  GMainContext *context;
  GMainLoop    *loop;
  SoupServer   *server;
  GPtrArray    *listeners;     /* of GSocket */
  guint         port;
  char         *url;
  GError       *start_error;
  gboolean      started;

  JsonNode     *script;        /* the whole script */
  JsonArray    *turns;
  JsonArray    *models;        /* of objects {name, tools} */
  gboolean      allow_openai;
  gboolean      allow_ollama;
  gboolean      loading;
  gboolean      check_model;
  gboolean      repeat_last;   /* when the turns run out, replay the last one */
  gboolean      enforce_tools; /* a request with tools for a model without them gets Ollama's 400 */
  char         *version;       /* reported at /api/version (Ollama) and /props (llama.cpp) */
  JsonObject   *bodies;        /* path -> the verbatim body that path answers (hostile replies) */

  GMutex        mutex;         /* guards what follows and the start handshake */
  GCond         cond;
  GPtrArray    *requests;      /* of RkMockRequest */
  GPtrArray    *chat_bodies;   /* of char*, the chat requests' bodies */
  guint         next_turn;
  char         *record_path;
};

typedef struct
{
  RkMockServer      *server;
  SoupServerMessage *msg;       /* alive until "finished" */
  GPtrArray         *pieces;    /* of char*, each one wire unit */
  guint              next;
  guint              drip_ms;
  Fault              fault;
  guint              fault_after;
  guint              stall_ms;
  char              *fault_piece;
  gboolean           fault_done;
  gboolean           finished;
  gboolean           cut_pending;
  guint              appended;
  guint              written;
  GSource           *timer;
} Stream;

void
rk_mock_request_free (RkMockRequest *request)
{
  if (request == NULL)
    return;
  g_free (request->method);
  g_free (request->path);
  g_free (request->body);
  g_free (request);
}

/* ---------------------------------------------------------------- helpers */

static const char *
obj_string (JsonObject *obj,
            const char *name,
            const char *fallback)
{
  JsonNode *node = obj ? json_object_get_member (obj, name) : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return fallback;
}

static gint64
obj_int (JsonObject *obj,
         const char *name,
         gint64      fallback)
{
  JsonNode *node = obj ? json_object_get_member (obj, name) : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      (json_node_get_value_type (node) == G_TYPE_INT64 || json_node_get_value_type (node) == G_TYPE_DOUBLE))
    return json_node_get_int (node);
  return fallback;
}

static gboolean
obj_bool (JsonObject *obj,
          const char *name,
          gboolean    fallback)
{
  JsonNode *node = obj ? json_object_get_member (obj, name) : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    return json_node_get_boolean (node);
  return fallback;
}

static char *
node_to_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

static void
respond_json (SoupServerMessage *msg,
              guint              status,
              const char        *json)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, json, strlen (json));
}

/* Words with their trailing spaces: "a b" -> "a ", "b". */
static void
split_words (const char *text,
             GPtrArray  *out)
{
  const char *p = text;

  while (*p)
    {
      const char *q = p;
      while (*q && *q != ' ')
        q++;
      while (*q == ' ')
        q++;
      g_ptr_array_add (out, g_strndup (p, q - p));
      p = q;
    }
}

/* A turn member that is a string (split into words) or an array of strings. */
static void
pieces_of (JsonObject *turn,
           const char *name,
           GPtrArray  *out)
{
  JsonNode *node = json_object_get_member (turn, name);

  if (node == NULL)
    return;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    split_words (json_node_get_string (node), out);
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *e = json_array_get_element (a, i);
          if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING)
            g_ptr_array_add (out, g_strdup (json_node_get_string (e)));
        }
    }
}

/* Fragments of a tool call's arguments: a string (one fragment), an array of
 * strings (fragments), or an object (its JSON text, in one fragment). */
static GPtrArray *
argument_fragments (JsonObject *call)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  JsonNode *node = json_object_get_member (call, "arguments");

  if (node == NULL)
    g_ptr_array_add (out, g_strdup ("{}"));
  else if (JSON_NODE_HOLDS_OBJECT (node))
    g_ptr_array_add (out, node_to_string (node));
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    g_ptr_array_add (out, g_strdup (json_node_get_string (node)));
  else if (JSON_NODE_HOLDS_ARRAY (node))
    pieces_of (call, "arguments", out);
  return out;
}

/* ---------------------------------------------------------------- wire units */

static char *
openai_unit (JsonBuilder *b)
{
  g_autoptr(JsonNode) node = json_builder_get_root (b);
  g_autofree char *json = node_to_string (node);

  return g_strdup_printf ("data: %s\n\n", json);
}

static JsonBuilder *
openai_begin (const char *model)
{
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, "chatcmpl-mock");
  json_builder_set_member_name (b, "object");
  json_builder_add_string_value (b, "chat.completion.chunk");
  json_builder_set_member_name (b, "created");
  json_builder_add_int_value (b, 1700000000);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, model);
  json_builder_set_member_name (b, "choices");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "index");
  json_builder_add_int_value (b, 0);
  json_builder_set_member_name (b, "delta");
  json_builder_begin_object (b);
  return b;
}

static char *
openai_end (JsonBuilder *b,
            const char  *finish)
{
  json_builder_end_object (b);  /* delta */
  json_builder_set_member_name (b, "finish_reason");
  if (finish)
    json_builder_add_string_value (b, finish);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return openai_unit (b);
}

static char *
openai_delta (const char *model,
              const char *key,
              const char *value)
{
  g_autoptr(JsonBuilder) b = openai_begin (model);

  json_builder_set_member_name (b, key);
  json_builder_add_string_value (b, value);
  return openai_end (b, NULL);
}

static JsonBuilder *
ollama_begin (const char *model)
{
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, model);
  json_builder_set_member_name (b, "created_at");
  json_builder_add_string_value (b, "2024-01-01T00:00:00Z");
  json_builder_set_member_name (b, "message");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "role");
  json_builder_add_string_value (b, "assistant");
  return b;
}

static char *
ollama_unit (JsonBuilder *b)
{
  g_autoptr(JsonNode) node = json_builder_get_root (b);
  g_autofree char *json = node_to_string (node);

  return g_strdup_printf ("%s\n", json);
}

static char *
ollama_delta (const char *model,
              const char *key,
              const char *value)
{
  g_autoptr(JsonBuilder) b = ollama_begin (model);

  if (strcmp (key, "content") != 0)
    {
      json_builder_set_member_name (b, "content");
      json_builder_add_string_value (b, "");
    }
  json_builder_set_member_name (b, key);
  json_builder_add_string_value (b, value);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "done");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_end_object (b);
  return ollama_unit (b);
}

/* The body of a streamed reply, as wire units. */
static GPtrArray *
build_pieces (JsonObject *turn,
              gboolean    ollama,
              const char *model,
              guint       n_messages)
{
  GPtrArray *units = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) reasoning = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) text = g_ptr_array_new_with_free_func (g_free);
  JsonNode *calls_node = json_object_get_member (turn, "tool_calls");
  JsonArray *calls = calls_node && JSON_NODE_HOLDS_ARRAY (calls_node) ? json_node_get_array (calls_node) : NULL;
  const char *code = obj_string (turn, "code", NULL);
  const char *finish;
  JsonObject *usage = NULL;
  JsonNode *usage_node = json_object_get_member (turn, "usage");
  guint n_tokens = 0;

  if (usage_node && JSON_NODE_HOLDS_OBJECT (usage_node))
    usage = json_node_get_object (usage_node);
  pieces_of (turn, "reasoning", reasoning);
  pieces_of (turn, "text", text);
  if (code != NULL)
    {
      g_auto(GStrv) lines = g_strsplit (code, "\n", -1);
      g_ptr_array_add (text, g_strdup ("\n```python\n"));
      for (guint i = 0; lines[i]; i++)
        if (lines[i + 1] != NULL || lines[i][0] != '\0')
          g_ptr_array_add (text, g_strconcat (lines[i], "\n", NULL));
      g_ptr_array_add (text, g_strdup ("```\n"));
    }
  pieces_of (turn, "text_after", text);
  finish = obj_string (turn, "finish_reason", calls && json_array_get_length (calls) ? "tool_calls" : "stop");

  if (!ollama)
    {
      g_autoptr(JsonBuilder) first = openai_begin (model);
      json_builder_set_member_name (first, "role");
      json_builder_add_string_value (first, "assistant");
      json_builder_set_member_name (first, "content");
      json_builder_add_string_value (first, "");
      g_ptr_array_add (units, openai_end (first, NULL));
    }
  for (guint i = 0; i < reasoning->len; i++, n_tokens++)
    g_ptr_array_add (units, ollama ? ollama_delta (model, "thinking", reasoning->pdata[i])
                                   : openai_delta (model, "reasoning_content", reasoning->pdata[i]));
  for (guint i = 0; i < text->len; i++, n_tokens++)
    g_ptr_array_add (units, ollama ? ollama_delta (model, "content", text->pdata[i])
                                   : openai_delta (model, "content", text->pdata[i]));

  for (guint c = 0; calls && c < json_array_get_length (calls); c++)
    {
      JsonNode *call_node = json_array_get_element (calls, c);
      JsonObject *call;
      g_autoptr(GPtrArray) frags = NULL;
      g_autofree char *default_id = g_strdup_printf ("call_mock_%u", c);
      const char *id, *name;
      gint64 index;

      if (!JSON_NODE_HOLDS_OBJECT (call_node))
        continue;
      call = json_node_get_object (call_node);
      frags = argument_fragments (call);
      id = obj_string (call, "id", default_id);
      name = obj_string (call, "name", "python");
      index = obj_int (call, "index", c);
      n_tokens += frags->len;

      if (ollama)
        {
          g_autoptr(JsonBuilder) b = ollama_begin (model);
          g_autoptr(GString) joined = g_string_new (NULL);
          g_autoptr(JsonNode) args = NULL;

          for (guint f = 0; f < frags->len; f++)
            g_string_append (joined, frags->pdata[f]);
          json_builder_set_member_name (b, "content");
          json_builder_add_string_value (b, "");
          json_builder_set_member_name (b, "tool_calls");
          json_builder_begin_array (b);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "function");
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, name);
          json_builder_set_member_name (b, "arguments");
          /* Hostile arguments (nested 10^6 deep) go out as the string. */
          args = rk_json_parse (joined->str, (gssize) joined->len, MOCK_MAX_JSON, MOCK_MAX_DEPTH,
                                RK_JSON_SCAN_DEFAULT, NULL);
          if (args != NULL && JSON_NODE_HOLDS_OBJECT (args))
            json_builder_add_value (b, g_steal_pointer (&args));
          else
            json_builder_add_string_value (b, joined->str);
          json_builder_end_object (b);
          json_builder_end_object (b);
          json_builder_end_array (b);
          json_builder_end_object (b);  /* message */
          json_builder_set_member_name (b, "done");
          json_builder_add_boolean_value (b, FALSE);
          json_builder_end_object (b);
          g_ptr_array_add (units, ollama_unit (b));
          continue;
        }

      for (guint f = 0; f < frags->len; f++)
        {
          g_autoptr(JsonBuilder) b = openai_begin (model);

          json_builder_set_member_name (b, "tool_calls");
          json_builder_begin_array (b);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "index");
          json_builder_add_int_value (b, index);
          if (f == 0)
            {
              json_builder_set_member_name (b, "id");
              json_builder_add_string_value (b, id);
              json_builder_set_member_name (b, "type");
              json_builder_add_string_value (b, "function");
            }
          json_builder_set_member_name (b, "function");
          json_builder_begin_object (b);
          if (f == 0)
            {
              json_builder_set_member_name (b, "name");
              json_builder_add_string_value (b, name);
            }
          json_builder_set_member_name (b, "arguments");
          json_builder_add_string_value (b, frags->pdata[f]);
          json_builder_end_object (b);
          json_builder_end_object (b);
          json_builder_end_array (b);
          g_ptr_array_add (units, openai_end (b, NULL));
        }
    }

  if (ollama)
    {
      g_autoptr(JsonBuilder) b = ollama_begin (model);

      json_builder_set_member_name (b, "content");
      json_builder_add_string_value (b, "");
      json_builder_end_object (b);
      json_builder_set_member_name (b, "done");
      json_builder_add_boolean_value (b, TRUE);
      json_builder_set_member_name (b, "done_reason");
      json_builder_add_string_value (b, strcmp (finish, "tool_calls") == 0 ? "stop" : finish);
      json_builder_set_member_name (b, "prompt_eval_count");
      json_builder_add_int_value (b, obj_int (usage, "prompt_tokens", 10 * n_messages));
      json_builder_set_member_name (b, "eval_count");
      json_builder_add_int_value (b, obj_int (usage, "completion_tokens", n_tokens));
      json_builder_end_object (b);
      g_ptr_array_add (units, ollama_unit (b));
    }
  else
    {
      g_autoptr(JsonBuilder) last = openai_begin (model);
      g_autoptr(JsonBuilder) u = json_builder_new ();

      g_ptr_array_add (units, openai_end (last, finish));
      json_builder_begin_object (u);
      json_builder_set_member_name (u, "id");
      json_builder_add_string_value (u, "chatcmpl-mock");
      json_builder_set_member_name (u, "object");
      json_builder_add_string_value (u, "chat.completion.chunk");
      json_builder_set_member_name (u, "choices");
      json_builder_begin_array (u);
      json_builder_end_array (u);
      json_builder_set_member_name (u, "usage");
      json_builder_begin_object (u);
      json_builder_set_member_name (u, "prompt_tokens");
      json_builder_add_int_value (u, obj_int (usage, "prompt_tokens", 10 * n_messages));
      json_builder_set_member_name (u, "completion_tokens");
      json_builder_add_int_value (u, obj_int (usage, "completion_tokens", n_tokens));
      json_builder_end_object (u);
      json_builder_end_object (u);
      g_ptr_array_add (units, openai_unit (u));
      g_ptr_array_add (units, g_strdup ("data: [DONE]\n\n"));
    }
  return units;
}

/* ---------------------------------------------------------------- streaming */

static void send_next (Stream *stream);

static void
stream_free (Stream *stream)
{
  if (stream->timer != NULL)
    {
      g_source_destroy (stream->timer);
      g_source_unref (stream->timer);
    }
  g_ptr_array_unref (stream->pieces);
  g_free (stream->fault_piece);
  g_free (stream);
}

static void
stream_stop_timer (Stream *stream)
{
  if (stream->timer != NULL)
    {
      g_source_destroy (stream->timer);
      g_clear_pointer (&stream->timer, g_source_unref);
    }
}

static gboolean
stream_timer_cb (gpointer data)
{
  Stream *stream = data;

  g_clear_pointer (&stream->timer, g_source_unref);
  send_next (stream);
  return G_SOURCE_REMOVE;
}

static void
stream_schedule (Stream *stream,
                 guint   ms)
{
  stream_stop_timer (stream);
  stream->timer = g_timeout_source_new (ms);
  g_source_set_callback (stream->timer, stream_timer_cb, stream, NULL);
  g_source_attach (stream->timer, stream->server->context);
}

static void
try_cut (Stream *stream)
{
  GSocket *socket;

  if (!stream->cut_pending || stream->written < stream->appended || stream->finished)
    return;
  stream->cut_pending = FALSE;
  socket = soup_server_message_get_socket (stream->msg);
  if (socket != NULL)
    g_socket_shutdown (socket, TRUE, TRUE, NULL);
}

static void
wrote_chunk_cb (SoupServerMessage *msg,
                gpointer           data)
{
  Stream *stream = data;

  stream->written++;
  try_cut (stream);
}

static void
finished_cb (SoupServerMessage *msg,
             gpointer           data)
{
  Stream *stream = data;

  stream->finished = TRUE;
  stream_stop_timer (stream);
}

static void
append (Stream     *stream,
        const char *unit)
{
  SoupMessageBody *body = soup_server_message_get_response_body (stream->msg);

  soup_message_body_append (body, SOUP_MEMORY_COPY, unit, strlen (unit));
  stream->appended++;
}

static void
send_next (Stream *stream)
{
  SoupMessageBody *body;

  if (stream->finished)
    return;
  body = soup_server_message_get_response_body (stream->msg);

  for (;;)
    {
      if (stream->fault != FAULT_NONE && !stream->fault_done && stream->next >= stream->fault_after)
        {
          stream->fault_done = TRUE;
          switch (stream->fault)
            {
            case FAULT_CUT:
              stream->cut_pending = TRUE;
              soup_server_message_unpause (stream->msg);
              try_cut (stream);
              return;
            case FAULT_STALL:
              soup_server_message_unpause (stream->msg);
              stream_schedule (stream, stream->stall_ms);
              return;
            case FAULT_MALFORMED:
              append (stream, stream->fault_piece);
              break;
            case FAULT_ERROR:
              append (stream, stream->fault_piece);
              soup_message_body_complete (body);
              soup_server_message_unpause (stream->msg);
              return;
            default:
              break;
            }
        }
      if (stream->next >= stream->pieces->len)
        {
          soup_message_body_complete (body);
          soup_server_message_unpause (stream->msg);
          return;
        }
      append (stream, stream->pieces->pdata[stream->next++]);
      if (stream->drip_ms > 0)
        {
          soup_server_message_unpause (stream->msg);
          stream_schedule (stream, stream->drip_ms);
          return;
        }
    }
}

/* ---------------------------------------------------------------- handlers */

static Fault
parse_fault (const char *name)
{
  static const struct { const char *name; Fault fault; } faults[] = {
    { "refuse", FAULT_REFUSE }, { "404", FAULT_404 }, { "500", FAULT_500 },
    { "http", FAULT_500 }, { "cut", FAULT_CUT }, { "malformed", FAULT_MALFORMED },
    { "stall", FAULT_STALL }, { "error", FAULT_ERROR },
  };

  if (name == NULL)
    return FAULT_NONE;
  for (guint i = 0; i < G_N_ELEMENTS (faults); i++)
    if (strcmp (name, faults[i].name) == 0)
      return faults[i].fault;
  return FAULT_NONE;
}

static JsonObject *
turn_at (RkMockServer *self,
         guint         i)
{
  JsonNode *node;

  if (self->turns == NULL || i >= json_array_get_length (self->turns))
    return NULL;
  node = json_array_get_element (self->turns, i);
  return JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static JsonObject *
find_model (RkMockServer *self,
            const char   *name)
{
  for (guint i = 0; name && i < json_array_get_length (self->models); i++)
    {
      JsonObject *m = json_array_get_object_element (self->models, i);
      const char *mname = obj_string (m, "name", "");
      if (strcmp (mname, name) == 0 ||
          (strchr (name, ':') == NULL && g_str_has_prefix (mname, name) &&
           strcmp (mname + strlen (name), ":latest") == 0))
        return m;
    }
  return NULL;
}

static void
stop_listening_now (RkMockServer *self)
{
  for (guint i = 0; i < self->listeners->len; i++)
    g_socket_shutdown (g_ptr_array_index (self->listeners, i), TRUE, TRUE, NULL);
}

static void
model_not_found (SoupServerMessage *msg,
                 gboolean           ollama,
                 const char        *model)
{
  g_autofree char *json = NULL;
  g_autofree char *escaped = g_strescape (model ? model : "", NULL);

  if (ollama)
    json = g_strdup_printf ("{\"error\":\"model \\\"%s\\\" not found, try pulling it first\"}", escaped);
  else
    json = g_strdup_printf ("{\"error\":{\"message\":\"The model `%s` does not exist.\","
                            "\"type\":\"invalid_request_error\",\"code\":\"model_not_found\"}}", escaped);
  respond_json (msg, SOUP_STATUS_NOT_FOUND, json);
}

static void
handle_chat (RkMockServer      *self,
             SoupServerMessage *msg,
             gboolean           ollama,
             const char        *body)
{
  g_autoptr(JsonObject) request = rk_json_parse_object (body, -1, MOCK_MAX_JSON, MOCK_MAX_DEPTH,
                                                       RK_JSON_SCAN_DEFAULT, NULL);
  JsonObject *turn;
  const char *model = NULL;
  guint n_messages = 0;
  Fault fault;
  Stream *stream;
  SoupMessageHeaders *headers;

  if (request != NULL)
    {
      JsonNode *messages;
      model = obj_string (request, "model", NULL);
      messages = json_object_get_member (request, "messages");
      if (messages && JSON_NODE_HOLDS_ARRAY (messages))
        n_messages = json_array_get_length (json_node_get_array (messages));
    }
  if (request == NULL)
    {
      respond_json (msg, SOUP_STATUS_BAD_REQUEST, "{\"error\":\"mock: the request body is not a JSON object\"}");
      return;
    }
  if (self->check_model && find_model (self, model) == NULL)
    {
      model_not_found (msg, ollama, model);
      return;
    }
  if (self->enforce_tools && json_object_has_member (request, "tools") &&
      find_model (self, model) != NULL && !obj_bool (find_model (self, model), "tools", FALSE))
    {
      /* Ollama's words (llama.cpp would say the template lacks tool support). */
      g_autofree char *escaped = g_strescape (model, NULL);
      g_autofree char *json = g_strdup_printf ("{\"error\":\"registry.ollama.ai/library/%s does not support tools\"}", escaped);
      respond_json (msg, SOUP_STATUS_BAD_REQUEST, json);
      return;
    }

  g_mutex_lock (&self->mutex);
  turn = turn_at (self, self->next_turn);
  if (turn != NULL)
    self->next_turn++;
  else if (self->repeat_last && self->next_turn > 0)
    turn = turn_at (self, self->next_turn - 1);
  /* A refused connection cannot be answered: stop listening before the
   * reply to this turn, so the next request finds the port closed. */
  if (turn_at (self, self->next_turn) != NULL &&
      parse_fault (obj_string (turn_at (self, self->next_turn), "fault", NULL)) == FAULT_REFUSE)
    stop_listening_now (self);
  g_mutex_unlock (&self->mutex);

  if (turn == NULL)
    {
      respond_json (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "{\"error\":\"mock: the script has no turn left\"}");
      return;
    }

  fault = parse_fault (obj_string (turn, "fault", NULL));
  if (fault == FAULT_404)
    {
      model_not_found (msg, ollama, model);
      return;
    }
  if (fault == FAULT_500)
    {
      const char *message = obj_string (turn, "message", "mock: internal error");
      g_autofree char *escaped = g_strescape (message, NULL);
      g_autofree char *json = g_strdup_printf ("{\"error\":\"%s\"}", escaped);
      /* "body": the error body verbatim (hostile or broken JSON). */
      respond_json (msg, obj_int (turn, "status", 500), obj_string (turn, "body", json));
      return;
    }

  stream = g_new0 (Stream, 1);
  stream->server = self;
  stream->msg = msg;
  stream->fault = fault;
  stream->fault_after = obj_int (turn, "fault_after", 1);
  stream->stall_ms = obj_int (turn, "stall_seconds", 30) * 1000;
  stream->drip_ms = obj_int (turn, "drip_ms", 0);
  if (json_object_has_member (turn, "raw"))
    {
      stream->pieces = g_ptr_array_new_with_free_func (g_free);
      pieces_of (turn, "raw", stream->pieces);
    }
  else
    stream->pieces = build_pieces (turn, ollama, model ? model : "mock", n_messages);
  if (fault == FAULT_MALFORMED)
    stream->fault_piece = g_strdup (ollama ? "{\"message\":{\"content\":\"oops\"},\"done\":fal\n"
                                           : "data: {\"choices\":[{\"delta\":{\"content\":\"oops\"}\n\n");
  else if (fault == FAULT_ERROR)
    {
      g_autofree char *escaped = g_strescape (obj_string (turn, "message", "mock: error in the stream"), NULL);
      stream->fault_piece = ollama ? g_strdup_printf ("{\"error\":\"%s\"}\n", escaped)
                                   : g_strdup_printf ("data: {\"error\":{\"message\":\"%s\",\"type\":\"server_error\"}}\n\n", escaped);
    }

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  /* Drop chunks once written: finding the next chunk in a kept body is linear. */
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
  headers = soup_server_message_get_response_headers (msg);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_set_content_type (headers, ollama ? "application/x-ndjson" : "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  g_object_set_data_full (G_OBJECT (msg), "rk-mock-stream", stream, (GDestroyNotify) stream_free);
  g_signal_connect (msg, "wrote-chunk", G_CALLBACK (wrote_chunk_cb), stream);
  g_signal_connect (msg, "finished", G_CALLBACK (finished_cb), stream);
  g_signal_connect (msg, "disconnected", G_CALLBACK (finished_cb), stream);
  soup_server_message_pause (msg);
  send_next (stream);
}

static void
handle_models (RkMockServer      *self,
               SoupServerMessage *msg,
               gboolean           ollama)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;

  json_builder_begin_object (b);
  if (!ollama)
    {
      json_builder_set_member_name (b, "object");
      json_builder_add_string_value (b, "list");
    }
  json_builder_set_member_name (b, ollama ? "models" : "data");
  json_builder_begin_array (b);
  for (guint i = 0; i < json_array_get_length (self->models); i++)
    {
      const char *name = obj_string (json_array_get_object_element (self->models, i), "name", "");

      json_builder_begin_object (b);
      if (ollama)
        {
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, name);
          json_builder_set_member_name (b, "model");
          json_builder_add_string_value (b, name);
          json_builder_set_member_name (b, "size");
          json_builder_add_int_value (b, 4000000000);
          json_builder_set_member_name (b, "details");
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "format");
          json_builder_add_string_value (b, "gguf");
          json_builder_end_object (b);
        }
      else
        {
          json_builder_set_member_name (b, "id");
          json_builder_add_string_value (b, name);
          json_builder_set_member_name (b, "object");
          json_builder_add_string_value (b, "model");
          json_builder_set_member_name (b, "owned_by");
          json_builder_add_string_value (b, "mock");
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json = node_to_string (root);
  respond_json (msg, SOUP_STATUS_OK, json);
}

static void
handle_show (RkMockServer      *self,
             SoupServerMessage *msg,
             const char        *body)
{
  g_autoptr(JsonObject) request = rk_json_parse_object (body, -1, MOCK_MAX_JSON, MOCK_MAX_DEPTH,
                                                       RK_JSON_SCAN_DEFAULT, NULL);
  JsonObject *model = NULL;
  const char *name = NULL;

  if (request != NULL)
    {
      name = obj_string (request, "model", obj_string (request, "name", NULL));
      model = find_model (self, name);
    }
  if (model == NULL)
    {
      model_not_found (msg, TRUE, name);
      return;
    }
  if (json_object_has_member (model, "tools") && !obj_bool (model, "tools", FALSE) &&
      JSON_NODE_HOLDS_NULL (json_object_get_member (model, "tools")))
    respond_json (msg, SOUP_STATUS_OK, "{\"details\":{\"format\":\"gguf\"}}");
  else if (obj_bool (model, "tools", FALSE))
    respond_json (msg, SOUP_STATUS_OK, "{\"details\":{\"format\":\"gguf\"},\"capabilities\":[\"completion\",\"tools\"]}");
  else
    respond_json (msg, SOUP_STATUS_OK, "{\"details\":{\"format\":\"gguf\"},\"capabilities\":[\"completion\"]}");
}

static void
record (RkMockServer *self,
        const char   *method,
        const char   *path,
        const char   *body,
        gboolean      chat)
{
  RkMockRequest *request = g_new0 (RkMockRequest, 1);

  request->method = g_strdup (method);
  request->path = g_strdup (path);
  request->body = g_strdup (body);
  g_mutex_lock (&self->mutex);
  g_ptr_array_add (self->requests, request);
  if (chat)
    g_ptr_array_add (self->chat_bodies, g_strdup (body));
  if (self->record_path != NULL)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *line = NULL;
      FILE *f;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "method");
      json_builder_add_string_value (b, method);
      json_builder_set_member_name (b, "path");
      json_builder_add_string_value (b, path);
      json_builder_set_member_name (b, "body");
      json_builder_add_string_value (b, body);
      json_builder_end_object (b);
      node = json_builder_get_root (b);
      line = node_to_string (node);
      if ((f = fopen (self->record_path, "a")) != NULL)
        {
          fprintf (f, "%s\n", line);
          fclose (f);
        }
    }
  g_mutex_unlock (&self->mutex);
}

static void
handler_cb (SoupServer        *server,
            SoupServerMessage *msg,
            const char        *path,
            GHashTable        *query,
            gpointer           data)
{
  RkMockServer *self = data;
  const char *method = soup_server_message_get_method (msg);
  SoupMessageBody *request_body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (request_body);
  g_autofree char *body = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  gboolean is_chat = strcmp (path, "/v1/chat/completions") == 0 || strcmp (path, "/api/chat") == 0;

  record (self, method, path, body, is_chat);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");

  if (strcmp (path, "/health") == 0)
    {
      if (self->loading)
        respond_json (msg, SOUP_STATUS_SERVICE_UNAVAILABLE,
                      "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}");
      else
        respond_json (msg, SOUP_STATUS_OK, "{\"status\":\"ok\"}");
      return;
    }
  if (self->loading)
    {
      respond_json (msg, SOUP_STATUS_SERVICE_UNAVAILABLE,
                    "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}");
      return;
    }
  if (self->bodies != NULL && !is_chat && json_object_has_member (self->bodies, path))
    respond_json (msg, SOUP_STATUS_OK, obj_string (self->bodies, path, ""));
  else if (self->allow_openai && strcmp (path, "/v1/models") == 0 && strcmp (method, "GET") == 0)
    handle_models (self, msg, FALSE);
  else if (self->allow_ollama && strcmp (path, "/api/tags") == 0 && strcmp (method, "GET") == 0)
    handle_models (self, msg, TRUE);
  else if (self->allow_ollama && strcmp (path, "/api/show") == 0 && strcmp (method, "POST") == 0)
    handle_show (self, msg, body);
  else if (self->version != NULL && strcmp (method, "GET") == 0 &&
           ((self->allow_ollama && strcmp (path, "/api/version") == 0) ||
            (self->allow_openai && strcmp (path, "/props") == 0)))
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *text = NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, strcmp (path, "/props") == 0 ? "build_info" : "version");
      json_builder_add_string_value (b, self->version);
      json_builder_end_object (b);
      node = json_builder_get_root (b);
      text = json_to_string (node, FALSE);
      respond_json (msg, SOUP_STATUS_OK, text);
    }
  else if (self->allow_openai && strcmp (path, "/v1/chat/completions") == 0 && strcmp (method, "POST") == 0)
    handle_chat (self, msg, FALSE, body);
  else if (self->allow_ollama && strcmp (path, "/api/chat") == 0 && strcmp (method, "POST") == 0)
    handle_chat (self, msg, TRUE, body);
  else
    {
      soup_server_message_set_status (msg, SOUP_STATUS_NOT_FOUND, NULL);
      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "404 page not found", 18);
    }
}

/* ---------------------------------------------------------------- lifecycle */

static gboolean
load_script (RkMockServer *self,
             const char   *script,
             GError      **error)
{
  JsonObject *root;
  JsonNode *node;
  const char *api;

  self->script = rk_json_parse (script, -1, MOCK_MAX_JSON, MOCK_MAX_DEPTH, RK_JSON_SCAN_DEFAULT, error);
  if (self->script == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (self->script))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "mock script: not a JSON object");
      return FALSE;
    }
  root = json_node_get_object (self->script);

  node = json_object_get_member (root, "turns");
  if (node != NULL && !JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "mock script: “turns” is not an array");
      return FALSE;
    }
  self->turns = node ? json_node_get_array (node) : NULL;
  for (guint i = 0; self->turns && i < json_array_get_length (self->turns); i++)
    {
      JsonObject *turn = turn_at (self, i);
      const char *fault;

      if (turn == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "mock script: turn %u is not an object", i);
          return FALSE;
        }
      fault = obj_string (turn, "fault", NULL);
      if (fault != NULL && parse_fault (fault) == FAULT_NONE)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "mock script: turn %u has an unknown fault “%s”", i, fault);
          return FALSE;
        }
    }

  /* Models: names or {name, tools}. */
  self->models = json_array_new ();
  node = json_object_get_member (root, "models");
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *e = json_array_get_element (a, i);
          if (JSON_NODE_HOLDS_OBJECT (e))
            json_array_add_element (self->models, json_node_copy (e));
          else if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING)
            {
              JsonObject *m = json_object_new ();
              json_object_set_string_member (m, "name", json_node_get_string (e));
              json_object_set_boolean_member (m, "tools", TRUE);
              json_array_add_object_element (self->models, m);
            }
        }
    }
  else
    {
      JsonObject *m = json_object_new ();
      json_object_set_string_member (m, "name", "mock-model");
      json_object_set_boolean_member (m, "tools", TRUE);
      json_array_add_object_element (self->models, m);
    }

  api = obj_string (root, "api", "both");
  self->allow_openai = strcmp (api, "ollama") != 0;
  self->allow_ollama = strcmp (api, "openai") != 0;
  self->loading = g_strcmp0 (obj_string (root, "health", "ok"), "loading") == 0;
  self->check_model = obj_bool (root, "check_model", TRUE);
  self->repeat_last = obj_bool (root, "repeat_last", FALSE);
  self->enforce_tools = obj_bool (root, "enforce_tools", FALSE);
  self->version = g_strdup (obj_string (root, "version", NULL));
  if (json_object_has_member (root, "bodies") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "bodies")))
    self->bodies = json_object_get_object_member (root, "bodies");
  return TRUE;
}

static gpointer
server_thread (gpointer data)
{
  RkMockServer *self = data;
  g_autoptr(GError) error = NULL;
  GSList *uris;

  g_main_context_push_thread_default (self->context);
  self->server = soup_server_new ("server-header", "reckon-mock-server", NULL);
  soup_server_add_handler (self->server, NULL, handler_cb, self, NULL);
  if (soup_server_listen_local (self->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    {
      GSList *listeners = soup_server_get_listeners (self->server);

      uris = soup_server_get_uris (self->server);
      self->port = g_uri_get_port (uris->data);
      g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
      for (GSList *l = listeners; l; l = l->next)
        g_ptr_array_add (self->listeners, g_object_ref (l->data));
      g_slist_free (listeners);
      if (turn_at (self, 0) && parse_fault (obj_string (turn_at (self, 0), "fault", NULL)) == FAULT_REFUSE)
        stop_listening_now (self);
    }

  g_mutex_lock (&self->mutex);
  self->start_error = g_steal_pointer (&error);
  self->started = TRUE;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->mutex);

  if (self->start_error == NULL)
    g_main_loop_run (self->loop);

  soup_server_disconnect (self->server);
  g_clear_object (&self->server);
  /* Let closing connections finish their callbacks. */
  while (g_main_context_iteration (self->context, FALSE))
    ;
  g_main_context_pop_thread_default (self->context);
  return NULL;
}

RkMockServer *
rk_mock_server_new (const char *script,
                    GError    **error)
{
  RkMockServer *self = g_new0 (RkMockServer, 1);

  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_mock_request_free);
  self->chat_bodies = g_ptr_array_new_with_free_func (g_free);
  self->listeners = g_ptr_array_new_with_free_func (g_object_unref);
  if (!load_script (self, script, error))
    {
      rk_mock_server_free (self);
      return NULL;
    }
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  self->thread = g_thread_new ("rk-mock-server", server_thread, self);

  g_mutex_lock (&self->mutex);
  while (!self->started)
    g_cond_wait (&self->cond, &self->mutex);
  g_mutex_unlock (&self->mutex);
  if (self->start_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->start_error));
      rk_mock_server_free (self);
      return NULL;
    }
  self->url = g_strdup_printf ("http://127.0.0.1:%u", self->port);
  return self;
}

RkMockServer *
rk_mock_server_new_from_file (const char *path,
                              GError    **error)
{
  g_autofree char *script = NULL;

  if (!g_file_get_contents (path, &script, NULL, error))
    return NULL;
  return rk_mock_server_new (script, error);
}

static gboolean
quit_cb (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

void
rk_mock_server_free (RkMockServer *self)
{
  if (self == NULL)
    return;
  if (self->thread != NULL)
    {
      g_main_context_invoke (self->context, quit_cb, self->loop);
      g_thread_join (self->thread);
    }
  g_clear_pointer (&self->loop, g_main_loop_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->listeners, g_ptr_array_unref);
  g_clear_pointer (&self->requests, g_ptr_array_unref);
  g_clear_pointer (&self->chat_bodies, g_ptr_array_unref);
  g_clear_pointer (&self->script, json_node_unref);
  g_clear_pointer (&self->models, json_array_unref);
  g_clear_error (&self->start_error);
  g_free (self->url);
  g_free (self->record_path);
  g_free (self->version);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self);
}

guint
rk_mock_server_get_port (RkMockServer *self)
{
  return self->port;
}

const char *
rk_mock_server_get_url (RkMockServer *self)
{
  return self->url;
}

void
rk_mock_server_stop_listening (RkMockServer *self)
{
  g_mutex_lock (&self->mutex);
  stop_listening_now (self);
  g_mutex_unlock (&self->mutex);
}

void
rk_mock_server_set_record_file (RkMockServer *self,
                                const char   *path)
{
  g_mutex_lock (&self->mutex);
  g_free (self->record_path);
  self->record_path = g_strdup (path);
  g_mutex_unlock (&self->mutex);
}

GPtrArray *
rk_mock_server_get_requests (RkMockServer *self)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_mock_request_free);

  g_mutex_lock (&self->mutex);
  for (guint i = 0; i < self->requests->len; i++)
    {
      RkMockRequest *r = g_ptr_array_index (self->requests, i);
      RkMockRequest *c = g_new0 (RkMockRequest, 1);
      c->method = g_strdup (r->method);
      c->path = g_strdup (r->path);
      c->body = g_strdup (r->body);
      g_ptr_array_add (copy, c);
    }
  g_mutex_unlock (&self->mutex);
  return copy;
}

guint
rk_mock_server_get_n_chat_requests (RkMockServer *self)
{
  guint n;

  g_mutex_lock (&self->mutex);
  n = self->chat_bodies->len;
  g_mutex_unlock (&self->mutex);
  return n;
}

JsonNode *
rk_mock_server_get_chat_request (RkMockServer *self,
                                 guint         n)
{
  g_autofree char *body = NULL;

  g_mutex_lock (&self->mutex);
  if (n < self->chat_bodies->len)
    body = g_strdup (g_ptr_array_index (self->chat_bodies, n));
  g_mutex_unlock (&self->mutex);
  if (body == NULL)
    return NULL;
  return rk_json_parse (body, -1, MOCK_MAX_JSON, MOCK_MAX_DEPTH, RK_JSON_SCAN_DEFAULT, NULL);
}

guint
rk_mock_server_get_turns_used (RkMockServer *self)
{
  guint n;

  g_mutex_lock (&self->mutex);
  n = self->next_turn;
  g_mutex_unlock (&self->mutex);
  return n;
}
