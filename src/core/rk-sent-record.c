/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-sent-record.c — the requests of one question, as the agent built them,
 * kept with the question ("What was sent to the model"). */
#define G_LOG_DOMAIN "rk-sent-record"
#include "config.h"
#include "rk-sent-record.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "rk-json.h"
#include "rk-util.h"

/* Within a question the conversation only grows, so a record keeps the
 * messages of its last request once and, for each request, how many of
 * them it sent (and its system prompt when that changed):
 *   {"version": 1, "system": "...", "tools": true, "omitted": 0,
 *    "messages": [...], "requests": [{"count": 1}, {"count": 3}]} */

#define RECORD_MAX_BYTES  (1u << 20)
#define RECORD_MAX_DEPTH  16
#define MAX_MESSAGES      100000

static char *
node_to_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

char *
rk_sent_record_add_request (const char *record,
                            const char *system,
                            JsonArray  *messages,
                            gboolean    tools,
                            gsize       max_bytes)
{
  g_autoptr(JsonObject) old = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  const char *first_system = system;
  JsonArray *old_requests = NULL;
  guint n = json_array_get_length (messages);
  guint omitted = 0;
  gsize total = 0;

  g_return_val_if_fail (system != NULL, NULL);

  /* A record this function wrote; one that does not parse starts afresh. */
  if (record != NULL)
    old = rk_json_parse_object (record, -1, RECORD_MAX_BYTES, RECORD_MAX_DEPTH,
                                RK_JSON_SCAN_DEFAULT, NULL);
  if (old != NULL &&
      (!rk_json_get_string (old, "system", RK_JSON_UNLIMITED, RK_JSON_REQUIRED, &first_system, NULL) ||
       !rk_json_get_array (old, "requests", RK_SENT_RECORD_MAX_REQUESTS - 1, RK_JSON_REQUIRED, &old_requests, NULL)))
    {
      first_system = system;
      old_requests = NULL;
    }

  for (guint i = 0; i < n; i++)
    {
      char *text = node_to_string (json_array_get_element (messages, i));

      total += strlen (text) + 1;
      g_ptr_array_add (texts, text);
    }
  /* The system prompt, the counts and the keys: a few hundred bytes. */
  total += strlen (first_system) * 2 + 512 + (old_requests ? json_array_get_length (old_requests) * 64 : 0);
  if (g_strcmp0 (first_system, system) != 0)
    total += strlen (system) * 2;
  while (total > max_bytes && omitted < n)
    total -= strlen (g_ptr_array_index (texts, omitted++)) + 1;

  json_builder_begin_object (b);
  rk_json_add_int_member (b, "version", 1);
  json_builder_set_member_name (b, "system");
  /* Only a system prompt of megabytes gets here: keep its start. */
  if (total > max_bytes)
    {
      g_autofree char *cut = g_utf8_make_valid (first_system, MIN (strlen (first_system), max_bytes / 4));
      json_builder_add_string_value (b, cut);
    }
  else
    json_builder_add_string_value (b, first_system);
  rk_json_add_bool_member (b, "tools", tools);
  rk_json_add_int_member (b, "omitted", omitted);
  json_builder_set_member_name (b, "messages");
  json_builder_begin_array (b);
  for (guint i = omitted; i < n; i++)
    json_builder_add_value (b, json_node_copy (json_array_get_element (messages, i)));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "requests");
  json_builder_begin_array (b);
  for (guint i = 0; old_requests != NULL && i < json_array_get_length (old_requests); i++)
    json_builder_add_value (b, json_node_copy (json_array_get_element (old_requests, i)));
  json_builder_begin_object (b);
  rk_json_add_int_member (b, "count", n);
  rk_json_add_bool_member (b, "tools", tools);
  if (g_strcmp0 (first_system, system) != 0 && total <= max_bytes)
    {
      rk_json_add_string_member (b, "system", system);
    }
  json_builder_end_object (b);
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  return node_to_string (root);
}

/* -- reading ---------------------------------------------------------------- */

static void
sent_message_free (RkSentMessage *m)
{
  g_free (m->role);
  g_free (m->content);
  g_free (m->tool_code);
  g_free (m);
}

void
rk_sent_request_free (RkSentRequest *request)
{
  if (request == NULL)
    return;
  g_clear_pointer (&request->messages, g_ptr_array_unref);
  g_free (request);
}

/* The code of a python call's arguments ({"code": "..."}), or the
 * arguments as they were. */
static char *
call_code (JsonObject *call)
{
  JsonObject *function = NULL;
  const char *arguments = NULL;
  g_autoptr(JsonObject) args = NULL;
  const char *code = NULL;

  if (!rk_json_get_object (call, "function", RK_JSON_OPTIONAL, &function, NULL) || function == NULL ||
      !rk_json_get_string (function, "arguments", RECORD_MAX_BYTES, RK_JSON_OPTIONAL, &arguments, NULL) ||
      arguments == NULL)
    return NULL;
  args = rk_json_parse_object (arguments, -1, RECORD_MAX_BYTES, RECORD_MAX_DEPTH, RK_JSON_SCAN_DEFAULT, NULL);
  if (args != NULL && rk_json_get_string (args, "code", RECORD_MAX_BYTES, RK_JSON_REQUIRED, &code, NULL))
    return g_strdup (code);
  return g_strdup (arguments);
}

static RkSentMessage *
message_from_json (JsonNode  *node,
                   GError   **error)
{
  static const char * const roles[] = { "system", "user", "assistant", "tool", NULL };
  RkSentMessage *m;
  JsonObject *o;
  JsonArray *tool_calls = NULL;
  int role = -1;
  char *content = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "a message is not an object");
      return NULL;
    }
  o = json_node_get_object (node);
  if (!rk_json_get_enum (o, "role", roles, RK_JSON_REQUIRED, &role, error) ||
      !rk_json_dup_string (o, "content", RECORD_MAX_BYTES, RK_JSON_OPTIONAL, &content, error) ||
      !rk_json_get_array (o, "tool_calls", 64, RK_JSON_OPTIONAL, &tool_calls, error))
    return NULL;

  m = g_new0 (RkSentMessage, 1);
  m->role = g_strdup (roles[role]);
  m->content = content ? content : g_strdup ("");
  for (guint i = 0; tool_calls != NULL && i < json_array_get_length (tool_calls); i++)
    {
      JsonNode *call = json_array_get_element (tool_calls, i);
      g_autofree char *code = JSON_NODE_HOLDS_OBJECT (call) ? call_code (json_node_get_object (call)) : NULL;

      if (code != NULL && m->tool_code == NULL)
        m->tool_code = g_steal_pointer (&code);
    }
  return m;
}

static RkSentMessage *
system_message (const char *text)
{
  RkSentMessage *m = g_new0 (RkSentMessage, 1);

  m->role = g_strdup ("system");
  m->content = g_strdup (text);
  return m;
}

static gsize
message_chars (const RkSentMessage *m)
{
  return g_utf8_strlen (m->content, -1) + (m->tool_code ? g_utf8_strlen (m->tool_code, -1) : 0);
}

GPtrArray *
rk_sent_record_parse (const char  *record,
                      GError     **error)
{
  g_autoptr(JsonObject) o = NULL;
  g_autoptr(GPtrArray) kept = g_ptr_array_new_with_free_func ((GDestroyNotify) sent_message_free);
  g_autoptr(GPtrArray) requests = g_ptr_array_new_with_free_func ((GDestroyNotify) rk_sent_request_free);
  const char *system = NULL;
  JsonArray *messages = NULL, *counts = NULL;
  gint64 omitted = 0, version = 0, last = 0;
  gboolean tools = FALSE;

  g_return_val_if_fail (record != NULL, NULL);

  o = rk_json_parse_object (record, -1, RECORD_MAX_BYTES, RECORD_MAX_DEPTH, RK_JSON_SCAN_NO_ESCAPED_NUL, error);
  if (o == NULL)
    return NULL;
  if (!rk_json_get_int (o, "version", 1, 1, RK_JSON_REQUIRED, &version, error) ||
      !rk_json_get_string (o, "system", RECORD_MAX_BYTES, RK_JSON_REQUIRED, &system, error) ||
      !rk_json_get_bool (o, "tools", RK_JSON_OPTIONAL, &tools, error) ||
      !rk_json_get_int (o, "omitted", 0, MAX_MESSAGES, RK_JSON_OPTIONAL, &omitted, error) ||
      !rk_json_get_array (o, "messages", MAX_MESSAGES, RK_JSON_REQUIRED, &messages, error) ||
      !rk_json_get_array (o, "requests", RK_SENT_RECORD_MAX_REQUESTS, RK_JSON_REQUIRED, &counts, error))
    return NULL;

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      RkSentMessage *m = message_from_json (json_array_get_element (messages, i), error);

      if (m == NULL)
        return NULL;
      g_ptr_array_add (kept, m);
    }

  for (guint i = 0; i < json_array_get_length (counts); i++)
    {
      JsonNode *node = json_array_get_element (counts, i);
      g_autoptr(RkSentRequest) r = g_new0 (RkSentRequest, 1);
      const char *own_system = NULL;
      gint64 count = 0;
      JsonObject *c;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "a request is not an object");
          return NULL;
        }
      c = json_node_get_object (node);
      r->tools = tools;
      if (!rk_json_get_int (c, "count", 0, omitted + kept->len, RK_JSON_REQUIRED, &count, error) ||
          !rk_json_get_bool (c, "tools", RK_JSON_OPTIONAL, &r->tools, error) ||
          !rk_json_get_string (c, "system", RECORD_MAX_BYTES, RK_JSON_OPTIONAL, &own_system, error))
        return NULL;
      if (count < last)
        {
          g_set_error_literal (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED, "the requests do not grow");
          return NULL;
        }
      last = count;
      r->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) sent_message_free);
      g_ptr_array_add (r->messages, system_message (own_system ? own_system : system));
      /* Messages left out for size were sent by every request that counts them. */
      r->omitted = (guint) MIN (count, omitted);
      for (gint64 k = omitted; k < count; k++)
        {
          const RkSentMessage *m = g_ptr_array_index (kept, k - omitted);
          RkSentMessage *copy = g_new0 (RkSentMessage, 1);

          copy->role = g_strdup (m->role);
          copy->content = g_strdup (m->content);
          copy->tool_code = g_strdup (m->tool_code);
          g_ptr_array_add (r->messages, copy);
        }
      for (guint k = 0; k < r->messages->len; k++)
        r->chars += message_chars (g_ptr_array_index (r->messages, k));
      g_ptr_array_add (requests, g_steal_pointer (&r));
    }
  return g_steal_pointer (&requests);
}

/* -- for people --------------------------------------------------------------- */

static const char *
role_heading (const RkSentMessage *m)
{
  if (g_str_equal (m->role, "system"))
    return _("Instructions (system prompt)");
  if (g_str_equal (m->role, "user"))
    return _("Sent as the user");
  if (g_str_equal (m->role, "tool"))
    return _("Result of the code, sent back");
  return _("The model’s earlier reply");
}

static void
append_message (GString             *s,
                const RkSentMessage *m)
{
  g_string_append_printf (s, "── %s ──\n", role_heading (m));
  if (*m->content != '\0')
    {
      g_string_append (s, m->content);
      g_string_append_c (s, '\n');
    }
  if (m->tool_code != NULL)
    {
      g_string_append_printf (s, "%s\n", _("It called the python tool with:"));
      g_string_append (s, m->tool_code);
      g_string_append_c (s, '\n');
    }
  g_string_append_c (s, '\n');
}

char *
rk_sent_record_to_text (GPtrArray *requests)
{
  GString *s = g_string_new (NULL);
  const RkSentRequest *previous = NULL;

  g_return_val_if_fail (requests != NULL, NULL);

  for (guint i = 0; i < requests->len; i++)
    {
      const RkSentRequest *r = g_ptr_array_index (requests, i);
      const RkSentMessage *sys = g_ptr_array_index (r->messages, 0);
      const RkSentMessage *prev_sys = previous ? g_ptr_array_index (previous->messages, 0) : NULL;
      gboolean same_system = prev_sys != NULL && g_str_equal (prev_sys->content, sys->content);
      guint from = 0;

      /* TRANSLATORS: "Request 1 of 3 · 11634 characters" */
      g_string_append_printf (s, _("Request %u of %u · %u characters"),
                              i + 1, requests->len, (guint) MIN (r->chars, G_MAXUINT));
      if (r->tools)
        g_string_append_printf (s, " · %s", _("the python tool offered"));
      g_string_append (s, "\n\n");

      if (previous != NULL && same_system)
        {
          /* A later request repeats the earlier one: show what it added. */
          from = previous->messages->len;
          g_string_append_printf (s, "%s\n\n", _("The same as the request before, and then:"));
        }
      else
        {
          append_message (s, sys);
          from = 1;
          if (r->omitted > 0)
            g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE,
                                                    "(%u earlier message of the conversation, not kept here)\n\n",
                                                    "(%u earlier messages of the conversation, not kept here)\n\n",
                                                    r->omitted),
                                    r->omitted);
        }
      for (guint k = from; k < r->messages->len; k++)
        append_message (s, g_ptr_array_index (r->messages, k));
      previous = r;
    }
  return g_string_free (s, FALSE);
}
