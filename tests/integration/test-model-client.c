/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-model-client.c — RkModelClient against the scripted model server over
 * real HTTP on loopback: both wire formats, model lists, probing, faults. */
#define G_LOG_DOMAIN "test-model-client"
#include "config.h"

#include <string.h>

#include "rk-mock-server.h"
#include "rk-model-client.h"

typedef struct
{
  GAsyncResult *result;
  GString      *text;
  GString      *reasoning;
  GString      *log;
  guint         n_parts;
  guint         n_calls;
  gboolean      done;
  GCancellable *cancel_on_text;
  gint64        cancelled_at;
} Run;

static void
run_init (Run *run)
{
  memset (run, 0, sizeof *run);
  run->text = g_string_new (NULL);
  run->reasoning = g_string_new (NULL);
  run->log = g_string_new (NULL);
}

static void
run_clear (Run *run)
{
  g_clear_object (&run->result);
  g_string_free (run->text, TRUE);
  g_string_free (run->reasoning, TRUE);
  g_string_free (run->log, TRUE);
}

static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  Run *run = data;
  run->result = g_object_ref (result);
}

static void
wait_for (Run *run)
{
  while (run->result == NULL)
    g_main_context_iteration (NULL, TRUE);
}

static void
delta_cb (const RkChatDelta *delta,
          gpointer           data)
{
  Run *run = data;

  switch (delta->kind)
    {
    case RK_CHAT_DELTA_TEXT:
      g_string_append_len (run->text, delta->text, delta->len);
      if (run->cancel_on_text != NULL && run->cancelled_at == 0)
        {
          run->cancelled_at = g_get_monotonic_time ();
          g_cancellable_cancel (run->cancel_on_text);
        }
      break;
    case RK_CHAT_DELTA_REASONING:
      g_string_append_len (run->reasoning, delta->text, delta->len);
      break;
    case RK_CHAT_DELTA_TOOL_CALL_PART:
      run->n_parts++;
      break;
    case RK_CHAT_DELTA_TOOL_CALL:
      run->n_calls++;
      g_string_append_printf (run->log, "call %s %s;", delta->name, delta->arguments);
      break;
    case RK_CHAT_DELTA_DONE:
      run->done = TRUE;
      break;
    case RK_CHAT_DELTA_ERROR:
      g_string_append_printf (run->log, "error %s;", delta->text);
      break;
    default:
      break;
    }
}

static JsonNode *
user_messages (const char *question)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "role");
  json_builder_add_string_value (b, "system");
  json_builder_set_member_name (b, "content");
  json_builder_add_string_value (b, "You are Reckon.");
  json_builder_end_object (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "role");
  json_builder_add_string_value (b, "user");
  json_builder_set_member_name (b, "content");
  json_builder_add_string_value (b, question);
  json_builder_end_object (b);
  json_builder_end_array (b);
  return json_builder_get_root (b);
}

static JsonNode *
python_tool (void)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser,
    "[{\"type\":\"function\",\"function\":{\"name\":\"python\",\"description\":\"Run Python\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\"}},\"required\":[\"code\"]}}}]",
    -1, NULL));
  return json_node_copy (json_parser_get_root (parser));
}

static RkModelClient *
client_for (RkMockServer *server,
            const char   *model)
{
  RkModelClient *client = rk_model_client_new ();

  rk_model_client_set_endpoint (client, rk_mock_server_get_url (server));
  rk_model_client_set_model (client, model);
  rk_model_client_set_idle_timeout (client, 5);
  return client;
}

static RkChatReply *
chat (RkModelClient *client,
      JsonNode      *messages,
      JsonNode      *tools,
      Run           *run,
      GCancellable  *cancellable,
      GError       **error)
{
  rk_model_client_chat_async (client, messages, tools, NULL, delta_cb, run, NULL,
                              cancellable, done_cb, run);
  wait_for (run);
  return rk_model_client_chat_finish (client, run->result, error);
}

static RkMockServer *
server_new (const char *script)
{
  g_autoptr(GError) error = NULL;
  RkMockServer *server = rk_mock_server_new (script, &error);

  g_assert_no_error (error);
  return server;
}

static void
test_openai_text (void)
{
  g_autoptr(RkMockServer) server = server_new (
    "{\"api\":\"openai\",\"models\":[\"qwen2.5-coder:7b\"],"
    "\"turns\":[{\"reasoning\":\"Sum the column.\",\"text\":\"The total is 42.\"}]}");
  g_autoptr(RkModelClient) client = client_for (server, "qwen2.5-coder:7b");
  g_autoptr(JsonNode) messages = user_messages ("What is the total?");
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) reply = NULL;
  g_autoptr(JsonNode) sent = NULL;
  JsonObject *body;
  Run run;

  run_init (&run);
  reply = chat (client, messages, NULL, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rk_model_client_get_resolved_api (client), ==, RK_MODEL_API_OPENAI);
  g_assert_cmpstr (reply->content, ==, "The total is 42.");
  g_assert_cmpstr (reply->reasoning, ==, "Sum the column.");
  g_assert_cmpstr (run.text->str, ==, "The total is 42.");
  g_assert_cmpstr (run.reasoning->str, ==, "Sum the column.");
  g_assert_cmpstr (reply->finish_reason, ==, "stop");
  g_assert_cmpint (reply->completion_tokens, ==, 7);
  g_assert_true (run.done);
  g_assert_cmpuint (reply->tool_calls->len, ==, 0);

  sent = rk_mock_server_get_chat_request (server, 0);
  g_assert_nonnull (sent);
  body = json_node_get_object (sent);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "qwen2.5-coder:7b");
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (body, "messages")), ==, 2);
  g_assert_false (json_object_has_member (body, "tools"));
  run_clear (&run);
}

static void
check_tool_turn (const char *api,
                 RkModelApi  expected_api)
{
  g_autofree char *script = g_strdup_printf (
    "{\"api\":\"%s\",\"models\":[\"m\"],\"turns\":["
    "{\"text\":\"Let me compute.\",\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"python\","
    " \"arguments\":[\"{\\\"code\\\": \\\"\", \"df = load()\\\\n\", \"print(df.sum())\\\"}\"]}]},"
    "{\"text\":\"The sum is 6.\"}]}", api);
  g_autoptr(RkMockServer) server = server_new (script);
  g_autoptr(RkModelClient) client = client_for (server, "m");
  g_autoptr(JsonNode) messages = user_messages ("Sum it");
  g_autoptr(JsonNode) tools = python_tool ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) reply = NULL;
  g_autoptr(RkChatReply) reply2 = NULL;
  g_autoptr(JsonNode) sent = NULL;
  g_autoptr(JsonNode) sent2 = NULL;
  RkToolCall *call;
  JsonArray *history;
  JsonObject *tool_message, *assistant, *function;
  Run run;

  run_init (&run);
  reply = chat (client, messages, tools, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rk_model_client_get_resolved_api (client), ==, expected_api);
  g_assert_cmpstr (reply->content, ==, "Let me compute.");
  g_assert_cmpuint (reply->tool_calls->len, ==, 1);
  call = g_ptr_array_index (reply->tool_calls, 0);
  g_assert_cmpstr (call->name, ==, "python");
  if (expected_api == RK_MODEL_API_OPENAI)
    {
      g_assert_cmpstr (call->id, ==, "call_1");
      g_assert_cmpstr (call->arguments, ==, "{\"code\": \"df = load()\\nprint(df.sum())\"}");
      g_assert_cmpuint (run.n_parts, ==, 3);
    }
  else
    g_assert_cmpstr (call->arguments, ==, "{\"code\":\"df = load()\\nprint(df.sum())\"}");
  g_assert_cmpstr (reply->finish_reason, ==, "tool_calls");
  g_assert_cmpuint (run.n_calls, ==, 1);
  sent = rk_mock_server_get_chat_request (server, 0);
  g_assert_true (json_object_has_member (json_node_get_object (sent), "tools"));
  run_clear (&run);

  /* Send the observation back, as the agent will. */
  history = json_node_get_array (messages);
  json_array_add_element (history, rk_chat_reply_to_message (reply));
  tool_message = json_object_new ();
  json_object_set_string_member (tool_message, "role", "tool");
  json_object_set_string_member (tool_message, "tool_call_id", call->id);
  json_object_set_string_member (tool_message, "content", "stdout: 6");
  json_array_add_object_element (history, tool_message);

  run_init (&run);
  reply2 = chat (client, messages, tools, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (reply2->content, ==, "The sum is 6.");
  sent2 = rk_mock_server_get_chat_request (server, 1);
  history = json_object_get_array_member (json_node_get_object (sent2), "messages");
  g_assert_cmpuint (json_array_get_length (history), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (history, 3), "content"), ==, "stdout: 6");
  assistant = json_array_get_object_element (history, 2);
  function = json_object_get_object_member (
    json_array_get_object_element (json_object_get_array_member (assistant, "tool_calls"), 0), "function");
  /* Ollama gets arguments as an object, OpenAI servers as JSON text. */
  if (expected_api == RK_MODEL_API_OLLAMA)
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (function, "arguments"), "code"),
                     ==, "df = load()\nprint(df.sum())");
  else
    g_assert_cmpstr (json_object_get_string_member (function, "arguments"), ==, call->arguments);
  run_clear (&run);
}

static void
test_openai_tool_call (void)
{
  check_tool_turn ("openai", RK_MODEL_API_OPENAI);
}

static void
test_ollama_tool_call (void)
{
  check_tool_turn ("ollama", RK_MODEL_API_OLLAMA);
}

static void
test_ollama_text_and_code (void)
{
  g_autoptr(RkMockServer) server = server_new (
    "{\"models\":[\"llama3.1:8b\"],\"turns\":[{\"reasoning\":[\"hm\"],\"text\":\"Here:\",\"code\":\"print(1)\\nprint(2)\"}]}");
  g_autoptr(RkModelClient) client = client_for (server, "llama3.1:8b");
  g_autoptr(JsonNode) messages = user_messages ("hi");
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) reply = NULL;
  Run run;

  run_init (&run);
  reply = chat (client, messages, NULL, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rk_model_client_get_resolved_api (client), ==, RK_MODEL_API_OLLAMA);
  g_assert_cmpstr (reply->content, ==, "Here:\n```python\nprint(1)\nprint(2)\n```\n");
  g_assert_cmpstr (reply->reasoning, ==, "hm");
  g_assert_cmpstr (reply->finish_reason, ==, "stop");
  g_assert_true (run.done);
  run_clear (&run);
}

static GPtrArray *
list_models (RkModelClient *client,
             gboolean       capabilities,
             GError       **error)
{
  Run run;
  GPtrArray *models;

  run_init (&run);
  rk_model_client_list_models_async (client, capabilities, NULL, done_cb, &run);
  wait_for (&run);
  models = rk_model_client_list_models_finish (client, run.result, error);
  run_clear (&run);
  return models;
}

static void
test_list_models (void)
{
  g_autoptr(RkMockServer) ollama = server_new (
    "{\"models\":[{\"name\":\"qwen2.5-coder:7b\",\"tools\":true},{\"name\":\"gemma:2b\",\"tools\":false}]}");
  g_autoptr(RkMockServer) openai = server_new ("{\"api\":\"openai\",\"models\":[\"a\",\"b\",\"c\"]}");
  g_autoptr(RkModelClient) c1 = client_for (ollama, NULL);
  g_autoptr(RkModelClient) c2 = client_for (openai, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) m1 = list_models (c1, TRUE, &error);
  g_autoptr(GPtrArray) m2 = NULL;
  RkModelInfo *info;

  g_assert_no_error (error);
  g_assert_cmpuint (m1->len, ==, 2);
  info = g_ptr_array_index (m1, 0);
  g_assert_cmpstr (info->name, ==, "qwen2.5-coder:7b");
  g_assert_true (info->tools_known && info->tools);
  info = g_ptr_array_index (m1, 1);
  g_assert_true (info->tools_known && !info->tools);

  m2 = list_models (c2, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (m2->len, ==, 3);
  info = g_ptr_array_index (m2, 2);
  g_assert_cmpstr (info->name, ==, "c");
  g_assert_false (info->tools_known);
}

static char *
server_version (RkModelClient *client,
                GError       **error)
{
  Run run;
  char *version;

  run_init (&run);
  rk_model_client_get_server_version_async (client, NULL, done_cb, &run);
  wait_for (&run);
  version = rk_model_client_get_server_version_finish (client, run.result, error);
  run_clear (&run);
  return version;
}

/* Ollama's /api/version, llama.cpp's /props (after vLLM's /version gave
 * 404), and a server that reports nothing (LM Studio). */
static void
test_server_version (void)
{
  g_autoptr(RkMockServer) ollama = server_new ("{\"api\":\"ollama\",\"version\":\"0.5.7\"}");
  g_autoptr(RkMockServer) llama = server_new ("{\"api\":\"openai\",\"version\":\"b4500-\u202edd\\u001b[2J\"}");
  g_autoptr(RkMockServer) silent = server_new ("{\"api\":\"openai\"}");
  g_autoptr(RkModelClient) c1 = client_for (ollama, NULL);
  g_autoptr(RkModelClient) c2 = client_for (llama, NULL);
  g_autoptr(RkModelClient) c3 = client_for (silent, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *v1 = server_version (c1, &error);
  g_autofree char *v2 = NULL;
  g_autofree char *v3 = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (v1, ==, "Ollama 0.5.7");
  v2 = server_version (c2, &error);
  g_assert_no_error (error);
  /* The bidi override and the escape sequence do not come through. */
  g_assert_cmpstr (v2, ==, "llama.cpp b4500-dd");
  v3 = server_version (c3, &error);
  g_assert_no_error (error);
  g_assert_null (v3);
}

static char *
closed_port_url (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  guint port;

  g_assert_true (g_socket_bind (socket, any, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, NULL);
  return g_strdup_printf ("http://127.0.0.1:%u", port);
}

static void
test_auto_probe_and_candidates (void)
{
  g_autoptr(RkMockServer) server = server_new ("{\"api\":\"openai\",\"models\":[\"m\"]}");
  g_autoptr(RkModelClient) client = rk_model_client_new ();
  g_autofree char *dead = closed_port_url ();
  g_autofree char *with_v1 = g_strconcat (rk_mock_server_get_url (server), "/v1/", NULL);
  const char *candidates[] = { dead, rk_mock_server_get_url (server), NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) models = NULL;
  g_autoptr(GPtrArray) requests = NULL;

  /* No endpoint: the first candidate that answers wins. */
  rk_model_client_set_candidates (client, candidates);
  models = list_models (client, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (rk_model_client_get_resolved_endpoint (client), ==, rk_mock_server_get_url (server));
  g_assert_cmpint (rk_model_client_get_resolved_api (client), ==, RK_MODEL_API_OPENAI);
  /* It asked Ollama's path first, then the OpenAI one. */
  requests = rk_mock_server_get_requests (server);
  g_assert_cmpstr (((RkMockRequest *) requests->pdata[0])->path, ==, "/api/tags");
  g_assert_cmpstr (((RkMockRequest *) requests->pdata[1])->path, ==, "/v1/models");
  g_clear_pointer (&models, g_ptr_array_unref);

  /* A pasted ".../v1/" address works too. */
  rk_model_client_set_endpoint (client, with_v1);
  models = list_models (client, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (rk_model_client_get_resolved_endpoint (client), ==, rk_mock_server_get_url (server));
  g_clear_pointer (&models, g_ptr_array_unref);

  /* Nothing answers anywhere. */
  {
    const char *none[] = { dead, dead, NULL };
    g_autoptr(RkModelClient) c2 = rk_model_client_new ();
    rk_model_client_set_candidates (c2, none);
    models = list_models (c2, FALSE, &error);
    g_assert_null (models);
    g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE);
    g_assert_nonnull (strstr (error->message, dead));
    g_test_message ("%s", error->message);
  }
}

static void
test_default_candidates (void)
{
  const char *expected[] = { "11434", "8080", "1234" };
  g_autoptr(RkModelClient) client = rk_model_client_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) models = NULL;
  const char *p;

  /* Only meaningful when no real server runs on those ports. */
  models = list_models (client, FALSE, &error);
  if (models != NULL)
    {
      g_test_skip ("a real model server answers on a default port");
      return;
    }
  if (!g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE))
    {
      g_test_skip ("something else listens on a default port");
      return;
    }
  p = error->message;
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      p = strstr (p, expected[i]);
      g_assert_nonnull (p);   /* tried, in this order */
    }
}

static GError *
chat_error (RkMockServer *server,
            const char   *model,
            guint         idle_timeout)
{
  g_autoptr(RkModelClient) client = client_for (server, model);
  g_autoptr(JsonNode) messages = user_messages ("hi");
  g_autoptr(RkChatReply) reply = NULL;
  GError *error = NULL;
  Run run;

  if (idle_timeout)
    rk_model_client_set_idle_timeout (client, idle_timeout);
  run_init (&run);
  reply = chat (client, messages, NULL, &run, NULL, &error);
  g_assert_null (reply);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  /* Every sentence names the endpoint. */
  g_assert_nonnull (strstr (error->message, rk_mock_server_get_url (server)));
  run_clear (&run);
  return error;
}

static void
test_fault_refused (void)
{
  g_autoptr(RkMockServer) server = server_new ("{\"turns\":[{\"fault\":\"refuse\"}]}");
  g_autoptr(GError) error = chat_error (server, "mock-model", 0);

  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE);
  g_assert_nonnull (strstr (error->message, "No model server answers"));
}

static void
test_fault_refused_mid_conversation (void)
{
  /* The server goes away after the first turn. */
  g_autoptr(RkMockServer) server = server_new ("{\"api\":\"ollama\",\"turns\":[{\"text\":\"one\"},{\"fault\":\"refuse\"}]}");
  g_autoptr(RkModelClient) client = client_for (server, "mock-model");
  g_autoptr(JsonNode) messages = user_messages ("hi");
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) r1 = NULL;
  g_autoptr(RkChatReply) r2 = NULL;
  Run run;

  run_init (&run);
  r1 = chat (client, messages, NULL, &run, NULL, &error);
  g_assert_no_error (error);
  run_clear (&run);
  run_init (&run);
  r2 = chat (client, messages, NULL, &run, NULL, &error);
  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_UNREACHABLE);
  g_assert_nonnull (strstr (error->message, "Is Ollama running?"));
  run_clear (&run);
}

static void
test_fault_model_missing (void)
{
  g_autoptr(RkMockServer) server = server_new ("{\"models\":[\"qwen2.5:7b\",\"llama3.2:3b\"],\"turns\":[{\"text\":\"x\"}]}");
  g_autoptr(GError) error = chat_error (server, "mistral", 0);

  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_MODEL_MISSING);
  g_assert_nonnull (strstr (error->message, "mistral"));
  g_assert_nonnull (strstr (error->message, "qwen2.5:7b, llama3.2:3b"));
  /* A model check does not use up a turn. */
  g_assert_cmpuint (rk_mock_server_get_turns_used (server), ==, 0);
}

static void
test_fault_model_missing_openai (void)
{
  g_autoptr(RkMockServer) server = server_new ("{\"api\":\"openai\",\"models\":[\"a\"],\"turns\":[{\"fault\":\"404\"}]}");
  g_autoptr(GError) error = chat_error (server, "b", 0);

  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_MODEL_MISSING);
  g_assert_nonnull (strstr (error->message, "models there are: a."));
}

static void
test_fault_404_for_present_model (void)
{
  /* A 404 for a model the server has is not "model missing". */
  g_autoptr(RkMockServer) server = server_new ("{\"models\":[\"a\"],\"turns\":[{\"fault\":\"404\"}]}");
  g_autoptr(GError) error = chat_error (server, "a", 0);

  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP);
  g_assert_nonnull (strstr (error->message, "404"));
}

static void
test_raw_hostile_framing (void)
{
  /* llama.cpp-style pings, CRLF, a chunk split across HTTP chunks, no [DONE]. */
  g_autoptr(RkMockServer) server = server_new (
    "{\"api\":\"openai\",\"turns\":[{\"raw\":["
    "\": ping\\r\\n\\r\\n\","
    "\"data: {\\\"choices\\\":[{\\\"delta\\\":{\\\"content\\\":\\\"Hel\","
    "\"lo\\\"}}]}\\r\\n\\r\\n\","
    "\"data:{\\\"choices\\\":[{\\\"delta\\\":{},\\\"finish_reason\\\":\\\"stop\\\"}]}\\r\\n\\r\\n\""
    "]}]}");
  g_autoptr(RkModelClient) client = client_for (server, "mock-model");
  g_autoptr(JsonNode) messages = user_messages ("hi");
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) reply = NULL;
  Run run;

  run_init (&run);
  reply = chat (client, messages, NULL, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (reply->content, ==, "Hello");
  g_assert_cmpstr (reply->finish_reason, ==, "stop");
  run_clear (&run);
}

static void
test_tools_unsupported (void)
{
  g_autoptr(RkMockServer) server = server_new (
    "{\"enforce_tools\":true,\"models\":[{\"name\":\"gemma:2b\",\"tools\":false}],\"turns\":[{\"text\":\"ok\"}]}");
  g_autoptr(RkModelClient) client = client_for (server, "gemma:2b");
  g_autoptr(JsonNode) messages = user_messages ("hi");
  g_autoptr(JsonNode) tools = python_tool ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) reply = NULL;
  g_autoptr(RkChatReply) retry = NULL;
  Run run;

  run_init (&run);
  reply = chat (client, messages, tools, &run, NULL, &error);
  g_assert_null (reply);
  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP);
  g_assert_nonnull (strstr (error->message, "does not support tools"));
  g_clear_error (&error);
  run_clear (&run);

  /* Without tools the same turn is still there. */
  run_init (&run);
  retry = chat (client, messages, NULL, &run, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (retry->content, ==, "ok");
  run_clear (&run);
}

/* Issue 17: json-glib 1.6 recurses once a nesting level without a cap, and
 * 10^6 '[' overflowed the stack (SIGSEGV) on every reply that skipped the
 * depth scan. Each path of a model server's reply gets one now; each gives
 * one sentence (or, for the best-effort probes, nothing) and no crash. */
#define DEEP 1000000

static char *
deep_text (void)
{
  return g_strnfill (DEEP, '[');
}

static void
assert_one_sentence (const GError *error,
                     RkMockServer *server)
{
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_null (strchr (error->message, '\n'));
  /* The server's own words are quoted, cut at 2,000 bytes (rk-chat-stream). */
  g_assert_cmpuint (strlen (error->message), <, 2200);
  g_assert_nonnull (strstr (error->message, rk_mock_server_get_url (server)));
}

static void
test_hostile_nesting_probes (void)
{
  g_autofree char *deep = deep_text ();
  const char *apis[] = { "ollama", "openai" };

  /* The model list, on both formats. */
  for (guint i = 0; i < G_N_ELEMENTS (apis); i++)
    {
      g_autofree char *script = g_strdup_printf ("{\"api\":\"%s\",\"bodies\":{\"%s\":\"%s\"}}", apis[i],
                                                 i == 0 ? "/api/tags" : "/v1/models", deep);
      g_autoptr(RkMockServer) server = server_new (script);
      g_autoptr(RkModelClient) client = client_for (server, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) models = list_models (client, TRUE, &error);

      g_assert_null (models);
      g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL);
      assert_one_sentence (error, server);
    }

  /* The capabilities of one model (Ollama's /api/show): unknown, not a crash. */
  {
    g_autofree char *script = g_strdup_printf ("{\"api\":\"ollama\",\"models\":[\"m\"],"
                                               "\"bodies\":{\"/api/show\":\"%s\"}}", deep);
    g_autoptr(RkMockServer) server = server_new (script);
    g_autoptr(RkModelClient) client = client_for (server, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) models = list_models (client, TRUE, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (models->len, ==, 1);
    g_assert_false (((RkModelInfo *) g_ptr_array_index (models, 0))->tools_known);
  }

  /* The server's version, on both formats: none. */
  for (guint i = 0; i < G_N_ELEMENTS (apis); i++)
    {
      g_autofree char *script = g_strdup_printf ("{\"api\":\"%s\",\"bodies\":{\"%s\":\"%s\"}}", apis[i],
                                                 i == 0 ? "/api/version" : "/props", deep);
      g_autoptr(RkMockServer) server = server_new (script);
      g_autoptr(RkModelClient) client = client_for (server, NULL);
      g_autoptr(GError) error = NULL;
      g_autofree char *version = server_version (client, &error);

      g_assert_no_error (error);
      g_assert_null (version);
    }
}

static void
test_hostile_nesting_chat (void)
{
  g_autofree char *deep = deep_text ();
  struct { const char *api; const char *before; const char *after; } cases[] = {
    /* An error body of a failed chat request. */
    { "ollama", "{\"fault\":\"500\",\"body\":\"", "\"}" },
    /* One SSE event's data (OpenAI), one NDJSON line (Ollama). */
    { "openai", "{\"raw\":[\"data: ", "\\n\\n\"]}" },
    { "ollama", "{\"raw\":[\"", "\\n\"]}" },
    /* An SSE error event. */
    { "openai", "{\"raw\":[\"event: error\\ndata: ", "\\n\\n\"]}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *turn = g_strconcat (cases[i].before, deep, cases[i].after, NULL);
      g_autofree char *script = g_strdup_printf ("{\"api\":\"%s\",\"turns\":[%s]}", cases[i].api, turn);
      g_autoptr(RkMockServer) server = server_new (script);
      g_autoptr(GError) error = chat_error (server, "mock-model", 0);

      assert_one_sentence (error, server);
    }

  /* An error body is read up to 64 KiB: nested as deep as fits in that. */
  {
    g_autofree char *shallower = g_strnfill (60000, '[');
    g_autofree char *script = g_strconcat ("{\"turns\":[{\"fault\":\"500\",\"body\":\"", shallower, "\"}]}", NULL);
    g_autoptr(RkMockServer) server = server_new (script);
    g_autoptr(GError) error = chat_error (server, "mock-model", 0);

    g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP);
    assert_one_sentence (error, server);
  }
}

/* Tool-call arguments nested 10^6 deep: the reply carries them as text; the
 * next request (which sends Ollama the arguments as an object) sends them
 * as text instead of parsing them. */
static void
test_hostile_nesting_tool_arguments (void)
{
  g_autofree char *deep = deep_text ();
  const char *apis[] = { "ollama", "openai" };

  for (guint i = 0; i < G_N_ELEMENTS (apis); i++)
    {
      g_autofree char *script = g_strdup_printf (
        "{\"api\":\"%s\",\"models\":[\"m\"],\"turns\":["
        "{\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"python\",\"arguments\":\"%s\"}]},"
        "{\"text\":\"ok\"}]}", apis[i], deep);
      g_autoptr(RkMockServer) server = server_new (script);
      g_autoptr(RkModelClient) client = client_for (server, "m");
      g_autoptr(JsonNode) messages = user_messages ("Sum it");
      g_autoptr(JsonNode) tools = python_tool ();
      g_autoptr(GError) error = NULL;
      g_autoptr(RkChatReply) reply = NULL;
      g_autoptr(RkChatReply) reply2 = NULL;
      RkToolCall *call;
      Run run;

      run_init (&run);
      reply = chat (client, messages, tools, &run, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (reply->tool_calls->len, ==, 1);
      call = g_ptr_array_index (reply->tool_calls, 0);
      g_assert_cmpuint (strlen (call->arguments), ==, DEEP);
      run_clear (&run);

      json_array_add_element (json_node_get_array (messages), rk_chat_reply_to_message (reply));
      run_init (&run);
      reply2 = chat (client, messages, tools, &run, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (reply2->content, ==, "ok");
      run_clear (&run);
    }
}

static void
test_fault_500 (void)
{
  g_autoptr(RkMockServer) server = server_new (
    "{\"turns\":[{\"fault\":\"500\",\"message\":\"CUDA out of memory\"}]}");
  g_autoptr(GError) error = chat_error (server, "mock-model", 0);

  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP);
  g_assert_nonnull (strstr (error->message, "500"));
  g_assert_nonnull (strstr (error->message, "CUDA out of memory"));
}

static void
test_fault_401 (void)
{
  g_autoptr(RkMockServer) server = server_new (
    "{\"api\":\"openai\",\"turns\":[{\"fault\":\"http\",\"status\":401,\"message\":\"bad key\"}]}");
  g_autoptr(GError) error = chat_error (server, "mock-model", 0);

  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP);
  g_assert_nonnull (strstr (error->message, "API key"));
}

static void
test_fault_loading (void)
{
  g_autoptr(RkMockServer) server = server_new ("{\"api\":\"openai\",\"health\":\"loading\"}");
  g_autoptr(GError) error = chat_error (server, "mock-model", 0);

  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_LOADING);
  g_assert_nonnull (strstr (error->message, "still loading"));
}

/* The same fault over both wire formats: the error code and a word of its message. */
static void
assert_fault_both (const char *openai_script,
                   const char *ollama_script,
                   int         code,
                   const char *needle)
{
  const char *scripts[] = { openai_script, ollama_script };

  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      g_autoptr(RkMockServer) server = server_new (scripts[i]);
      g_autoptr(GError) error = chat_error (server, "mock-model", 0);

      g_assert_error (error, RK_MODEL_ERROR, code);
      g_assert_nonnull (strstr (error->message, needle));
    }
}

static void
test_fault_cut (void)
{
  assert_fault_both ("{\"api\":\"openai\",\"turns\":[{\"text\":\"one two three four\",\"fault\":\"cut\",\"fault_after\":3}]}",
                     "{\"api\":\"ollama\",\"turns\":[{\"text\":\"one two three four\",\"fault\":\"cut\",\"fault_after\":2}]}",
                     RK_MODEL_ERROR_PROTOCOL, "cut");
}

static void
test_fault_malformed (void)
{
  assert_fault_both ("{\"api\":\"openai\",\"turns\":[{\"text\":\"one two\",\"fault\":\"malformed\",\"fault_after\":2}]}",
                     "{\"api\":\"ollama\",\"turns\":[{\"text\":\"one two\",\"fault\":\"malformed\",\"fault_after\":1}]}",
                     RK_MODEL_ERROR_PROTOCOL, "malformed");
}

static void
test_fault_stream_error (void)
{
  assert_fault_both ("{\"api\":\"openai\",\"turns\":[{\"text\":\"one two\",\"fault\":\"error\",\"message\":\"context window exceeded\"}]}",
                     "{\"api\":\"ollama\",\"turns\":[{\"text\":\"one two\",\"fault\":\"error\",\"message\":\"context window exceeded\"}]}",
                     RK_MODEL_ERROR_SERVER, "context window exceeded");
}

static void
test_fault_stall (void)
{
  g_autoptr(RkMockServer) server = server_new (
    "{\"turns\":[{\"text\":\"one two three\",\"fault\":\"stall\",\"fault_after\":1,\"stall_seconds\":30}]}");
  gint64 start = g_get_monotonic_time ();
  g_autoptr(GError) error = chat_error (server, "mock-model", 1);
  gint64 elapsed = g_get_monotonic_time () - start;

  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_STALLED);
  g_assert_nonnull (strstr (error->message, "for 1 second."));
  /* Well before the 30 s stall ends (not a timing assertion: 30 s is the alternative). */
  g_assert_cmpint (elapsed, <, 20 * G_USEC_PER_SEC);
}

static void
test_cancel (void)
{
  g_autoptr(RkMockServer) server = server_new (
    "{\"turns\":[{\"text\":\"a b c d e f g h i j k l m n o p q r s t u v w x y z\",\"drip_ms\":300}]}");
  g_autoptr(RkModelClient) client = client_for (server, "mock-model");
  g_autoptr(JsonNode) messages = user_messages ("hi");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) reply = NULL;
  gint64 stopped;
  Run run;

  run_init (&run);
  run.cancel_on_text = cancellable;
  reply = chat (client, messages, NULL, &run, cancellable, &error);
  stopped = g_get_monotonic_time ();
  g_assert_null (reply);
  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_CANCELLED);
  g_assert_cmpstr (run.text->str, ==, "a ");
  /* The stream would have taken 8 s more; the request stopped at once. */
  g_test_message ("cancel took %" G_GINT64_FORMAT " µs", stopped - run.cancelled_at);
  g_assert_cmpint (stopped - run.cancelled_at, <, G_USEC_PER_SEC);
  run_clear (&run);
}

static void
test_remote_refused (void)
{
  g_autoptr(RkModelClient) client = rk_model_client_new ();
  g_autoptr(JsonNode) messages = user_messages ("hi");
  g_autoptr(GError) error = NULL;
  g_autoptr(RkChatReply) reply = NULL;
  Run run;

  g_assert_true (rk_model_endpoint_is_local ("http://localhost:11434"));
  g_assert_true (rk_model_endpoint_is_local ("127.0.0.1:8080"));
  g_assert_true (rk_model_endpoint_is_local ("http://[::1]:1234/v1"));
  g_assert_true (rk_model_endpoint_is_local ("http://127.1.2.3"));
  g_assert_false (rk_model_endpoint_is_local ("http://192.168.1.10:11434"));
  g_assert_false (rk_model_endpoint_is_local ("https://api.example.com/v1"));
  g_assert_false (rk_model_endpoint_is_local ("http://localhost.example.com"));
  g_assert_false (rk_model_endpoint_is_local ("http://user@127.0.0.1"));

  /* 192.0.2.0/24 is reserved for documentation: nothing would answer anyway. */
  rk_model_client_set_endpoint (client, "http://192.0.2.1:11434");
  rk_model_client_set_model (client, "m");
  run_init (&run);
  reply = chat (client, messages, NULL, &run, NULL, &error);
  g_assert_null (reply);
  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_REMOTE_REFUSED);
  g_assert_nonnull (strstr (error->message, "http://192.0.2.1:11434"));
  g_assert_nonnull (strstr (error->message, "Preferences"));
  run_clear (&run);
}

static void
test_api_key_and_options (void)
{
  g_autoptr(RkMockServer) server = server_new ("{\"models\":[\"m\"],\"turns\":[{\"text\":\"ok\"},{\"text\":\"ok\"}]}");
  g_autoptr(RkModelClient) client = client_for (server, "m");
  g_autoptr(JsonNode) messages = user_messages ("hi");
  g_autoptr(JsonObject) options = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) sent = NULL;
  g_autoptr(JsonNode) sent2 = NULL;
  Run run;

  json_object_set_double_member (options, "temperature", 0.25);
  json_object_set_int_member (options, "max_tokens", 512);
  rk_model_client_set_api (client, RK_MODEL_API_OLLAMA);
  run_init (&run);
  rk_model_client_chat_async (client, messages, NULL, options, NULL, NULL, NULL, NULL, done_cb, &run);
  wait_for (&run);
  {
    g_autoptr(RkChatReply) reply = rk_model_client_chat_finish (client, run.result, &error);
    g_assert_nonnull (reply);
    g_assert_no_error (error);
  }
  run_clear (&run);
  sent = rk_mock_server_get_chat_request (server, 0);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_node_get_object (sent), "options"),
                                               "num_predict"), ==, 512);

  rk_model_client_set_api (client, RK_MODEL_API_OPENAI);
  run_init (&run);
  rk_model_client_chat_async (client, messages, NULL, options, NULL, NULL, NULL, NULL, done_cb, &run);
  wait_for (&run);
  rk_chat_reply_free (rk_model_client_chat_finish (client, run.result, &error));
  g_assert_no_error (error);
  run_clear (&run);
  sent2 = rk_mock_server_get_chat_request (server, 1);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (sent2), "max_tokens"), ==, 512);
  g_assert_true (json_object_has_member (json_node_get_object (sent2), "stream_options"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/model-client/openai/text", test_openai_text);
  g_test_add_func ("/rk/model-client/openai/tool-call", test_openai_tool_call);
  g_test_add_func ("/rk/model-client/ollama/tool-call", test_ollama_tool_call);
  g_test_add_func ("/rk/model-client/ollama/text-and-code", test_ollama_text_and_code);
  g_test_add_func ("/rk/model-client/list-models", test_list_models);
  g_test_add_func ("/rk/model-client/server-version", test_server_version);
  g_test_add_func ("/rk/model-client/auto-probe", test_auto_probe_and_candidates);
  g_test_add_func ("/rk/model-client/default-candidates", test_default_candidates);
  g_test_add_func ("/rk/model-client/options", test_api_key_and_options);
  g_test_add_func ("/rk/model-client/hostile-nesting/probes", test_hostile_nesting_probes);
  g_test_add_func ("/rk/model-client/hostile-nesting/chat", test_hostile_nesting_chat);
  g_test_add_func ("/rk/model-client/hostile-nesting/tool-arguments", test_hostile_nesting_tool_arguments);
  g_test_add_func ("/rk/model-client/fault/refused", test_fault_refused);
  g_test_add_func ("/rk/model-client/fault/refused-mid-conversation", test_fault_refused_mid_conversation);
  g_test_add_func ("/rk/model-client/fault/model-missing", test_fault_model_missing);
  g_test_add_func ("/rk/model-client/fault/model-missing-openai", test_fault_model_missing_openai);
  g_test_add_func ("/rk/model-client/fault/404-present-model", test_fault_404_for_present_model);
  g_test_add_func ("/rk/model-client/openai/raw-framing", test_raw_hostile_framing);
  g_test_add_func ("/rk/model-client/fault/500", test_fault_500);
  g_test_add_func ("/rk/model-client/fault/tools-unsupported", test_tools_unsupported);
  g_test_add_func ("/rk/model-client/fault/401", test_fault_401);
  g_test_add_func ("/rk/model-client/fault/loading", test_fault_loading);
  g_test_add_func ("/rk/model-client/fault/cut", test_fault_cut);
  g_test_add_func ("/rk/model-client/fault/malformed", test_fault_malformed);
  g_test_add_func ("/rk/model-client/fault/stream-error", test_fault_stream_error);
  g_test_add_func ("/rk/model-client/fault/stall", test_fault_stall);
  g_test_add_func ("/rk/model-client/cancel", test_cancel);
  g_test_add_func ("/rk/model-client/remote-refused", test_remote_refused);
  return g_test_run ();
}
