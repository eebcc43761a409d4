/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-chat-stream.c — chunk to delta parsing and tool-call assembly, for
 * both wire formats, with hostile chunks. */
#define G_LOG_DOMAIN "test-chat-stream"
#include "config.h"

#include <string.h>

#include "rk-chat-stream.h"
#include "rk-util.h"

/* A compact log of deltas: T:text R:text P<i>:frag C<i>:id,name,args D:reason,p,c E:msg */
static void
log_cb (const RkChatDelta *d,
        gpointer           user_data)
{
  GString *log = user_data;

  switch (d->kind)
    {
    case RK_CHAT_DELTA_TEXT:
      g_string_append_printf (log, "T:%.*s;", (int) d->len, d->text);
      break;
    case RK_CHAT_DELTA_REASONING:
      g_string_append_printf (log, "R:%.*s;", (int) d->len, d->text);
      break;
    case RK_CHAT_DELTA_TOOL_CALL_PART:
      g_string_append_printf (log, "P%u:%.*s;", d->index, (int) d->len, d->text);
      break;
    case RK_CHAT_DELTA_TOOL_CALL:
      g_string_append_printf (log, "C%u:%s,%s,%s;", d->index, d->id, d->name, d->arguments);
      break;
    case RK_CHAT_DELTA_DONE:
      g_string_append_printf (log, "D:%s,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ";",
                              d->finish_reason ? d->finish_reason : "-",
                              d->prompt_tokens, d->completion_tokens);
      break;
    case RK_CHAT_DELTA_ERROR:
      g_string_append_printf (log, "E:%s;", d->text);
      break;
    default:
      g_assert_not_reached ();
    }
}

/* Feeds a whole body, split at every byte boundary, and checks the log is the same. */
static char *
run_body (RkChatWire  wire,
          const char *body,
          GError    **error)
{
  gsize len = strlen (body);
  char *first = NULL;

  for (gsize cut = 0; cut <= len; cut += (len > 400 ? 7 : 1))
    {
      GString *log = g_string_new (NULL);
      g_autoptr(RkChatStream) s = rk_chat_stream_new (wire, log_cb, log);
      GError *local = NULL;

      if (rk_chat_stream_feed (s, body, cut, &local) &&
          rk_chat_stream_feed (s, body + cut, len - cut, &local))
        rk_chat_stream_finish (s, &local);
      if (local != NULL)
        g_string_append_printf (log, "!%s", local->message);
      if (first == NULL)
        {
          first = g_string_free (log, FALSE);
          if (local != NULL)
            g_propagate_error (error, local);
        }
      else
        {
          g_assert_cmpstr (log->str, ==, first);
          g_string_free (log, TRUE);
          g_clear_error (&local);
        }
    }
  return first;
}

static void
test_openai_text (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = run_body (RK_CHAT_WIRE_OPENAI,
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n"
    ": ping\n\n"
    "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hmm\"}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\r\n\r\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"lo \\u00e9\"},\"finish_reason\":null}]}\n\n"
    "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}\n\n"
    "data: [DONE]\n\n", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (log, ==, "R:hmm;T:Hel;T:lo \xc3\xa9;D:stop,12,3;");
}

static void
test_openai_tool_fragments (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = run_body (RK_CHAT_WIRE_OPENAI,
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"python\",\"arguments\":\"\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"code\\\": \"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"print(1)\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"function\":{\"name\":\"python\",\"arguments\":\"{}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: [DONE]\n\n", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (log, ==,
                   "P0:;P0:{\"code\": ;P0:\"print(1)\"};P1:{};"
                   "C0:call_a,python,{\"code\": \"print(1)\"};C1:call_b,python,{};"
                   "D:tool_calls,-1,-1;");
}

static void
test_openai_reply (void)
{
  g_autoptr(RkChatStream) s = rk_chat_stream_new (RK_CHAT_WIRE_OPENAI, NULL, NULL);
  g_autoptr(RkChatReply) reply = NULL;
  g_autoptr(JsonNode) message = NULL;
  g_autofree char *json = NULL;
  const char *body =
    "data: {\"choices\":[{\"delta\":{\"content\":\"Let me compute.\"}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"python\",\"arguments\":\"{\\\"code\\\":\\\"1+1\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n";

  g_assert_true (rk_chat_stream_feed (s, body, strlen (body), NULL));
  /* No [DONE], but a finish_reason: some servers just close. */
  g_assert_true (rk_chat_stream_finish (s, NULL));
  g_assert_true (rk_chat_stream_is_done (s));
  reply = rk_chat_stream_steal_reply (s);
  g_assert_cmpstr (reply->content, ==, "Let me compute.");
  g_assert_cmpstr (reply->reasoning, ==, "");
  g_assert_cmpuint (reply->tool_calls->len, ==, 1);
  g_assert_cmpstr (((RkToolCall *) reply->tool_calls->pdata[0])->arguments, ==, "{\"code\":\"1+1\"}");
  message = rk_chat_reply_to_message (reply);
  json = json_to_string (message, FALSE);
  g_assert_cmpstr (json, ==,
                   "{\"role\":\"assistant\",\"content\":\"Let me compute.\",\"tool_calls\":"
                   "[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"python\","
                   "\"arguments\":\"{\\\"code\\\":\\\"1+1\\\"}\"}}]}");
}

static void
test_openai_new_id_same_index (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = run_body (RK_CHAT_WIRE_OPENAI,
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"x\",\"function\":{\"name\":\"a\",\"arguments\":\"{\\\"n\\\":\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"1}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"y\",\"function\":{\"name\":\"b\",\"arguments\":\"{\\\"n\\\":2}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"y\",\"function\":{\"arguments\":\" \"}}]}}]}\n\n"
    "data: [DONE]\n\n", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (log, ==, "P0:{\"n\":;P0:1};C0:x,a,{\"n\":1};P1:{\"n\":2};P1: ;C1:y,b,{\"n\":2} ;D:-,-1,-1;");
}

static void
test_openai_missing_index (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = run_body (RK_CHAT_WIRE_OPENAI,
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"x\",\"function\":{\"name\":\"a\",\"arguments\":\"{\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"y\",\"function\":{\"name\":\"b\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"c\"}}]}}]}\n\n"
    "data: [DONE]\n\n", &error);

  g_assert_no_error (error);
  /* No id and no arguments: made-up id, "{}" arguments; a later name does not rename. */
  g_assert_cmpstr (log, ==, "P0:{;P0:};P1:;P1:;C0:x,a,{};C1:y,b,{};D:-,-1,-1;");
}

static void
check_openai_error (const char *chunk,
                    int         code)
{
  g_autoptr(RkChatStream) s = rk_chat_stream_new (RK_CHAT_WIRE_OPENAI, NULL, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (rk_chat_stream_feed_chunk (s, chunk, strlen (chunk), &error));
  g_assert_error (error, RK_PARSE_ERROR, code);
}

static void
test_openai_wrong_types (void)
{
  check_openai_error ("{\"choices\":[{\"delta\":{\"content\":5}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"content\":[\"a\"]}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":{}}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[5]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":\"x\"}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"finish_reason\":1}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"tool_calls\":{}}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"tool_calls\":[1]}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":\"0\"}]}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1}]}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1.5}]}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":99999999999}]}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":7}}]}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":7}}]}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":\"f\"}]}}]}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"usage\":{\"prompt_tokens\":\"3\"}}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"error\":5}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("[1,2]", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("\"text\"", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"choices\":[", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("{\"a\":\"\xff\"}", RK_PARSE_ERROR_MALFORMED);
  check_openai_error ("", RK_PARSE_ERROR_MALFORMED);
}

static void
test_deep_nesting (void)
{
  GString *deep = g_string_new ("{\"a\":");
  for (int i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  check_openai_error (deep->str, RK_PARSE_ERROR_TOO_LARGE);
  g_string_free (deep, TRUE);
}

static void
test_tool_call_without_name (void)
{
  g_autoptr(RkChatStream) s = rk_chat_stream_new (RK_CHAT_WIRE_OPENAI, NULL, NULL);
  g_autoptr(GError) error = NULL;
  const char *body =
    "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n"
    "data: [DONE]\n\n";

  g_assert_false (rk_chat_stream_feed (s, body, strlen (body), &error));
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
}

static void
test_huge_arguments (void)
{
  g_autoptr(RkChatStream) s = rk_chat_stream_new (RK_CHAT_WIRE_OPENAI, NULL, NULL);
  g_autoptr(GError) error = NULL;
  gsize piece = 1024 * 1024;
  g_autofree char *filler = g_malloc (piece + 1);
  gboolean ok = TRUE;
  int i;

  memset (filler, 'a', piece);
  filler[piece] = '\0';
  for (i = 0; i < 20 && ok; i++)
    {
      g_autofree char *chunk = g_strdup_printf (
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":%d,\"id\":\"c%d\",\"function\":{\"name\":\"python\",\"arguments\":\"%s\"}}]}}]}",
        i % 3, i, filler);
      ok = rk_chat_stream_feed_chunk (s, chunk, strlen (chunk), &error);
    }
  g_assert_false (ok);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_assert_cmpint (i, ==, 17);
}

static void
test_too_many_calls (void)
{
  g_autoptr(RkChatStream) s = rk_chat_stream_new (RK_CHAT_WIRE_OPENAI, NULL, NULL);
  g_autoptr(GError) error = NULL;
  gboolean ok = TRUE;
  int i;

  for (i = 0; i < 1000 && ok; i++)
    {
      g_autofree char *chunk = g_strdup_printf (
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c%d\",\"function\":{\"name\":\"f\"}}]}}]}", i);
      ok = rk_chat_stream_feed_chunk (s, chunk, strlen (chunk), &error);
    }
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_TOO_LARGE);
  g_assert_cmpint (i, ==, RK_CHAT_MAX_TOOL_CALLS + 1);
}

static void
test_openai_error_object (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = run_body (RK_CHAT_WIRE_OPENAI,
    "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
    "data: {\"error\":{\"message\":\"context too long\",\"type\":\"invalid_request_error\"}}\n\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"ignored\"}}]}\n\n", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (log, ==, "T:a;E:context too long;");

  g_clear_pointer (&log, g_free);
  log = run_body (RK_CHAT_WIRE_OPENAI, "event: error\ndata: {\"message\":\"overloaded\"}\n\n", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (log, ==, "E:overloaded;");

  g_clear_pointer (&log, g_free);
  log = run_body (RK_CHAT_WIRE_OPENAI, "event: error\ndata: plain words\n\n", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (log, ==, "E:plain words;");
}

static void
test_openai_cut (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = run_body (RK_CHAT_WIRE_OPENAI,
    "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"con", &error);

  /* The half chunk at the end is delivered at finish and is not JSON. */
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_clear_pointer (&log, g_free);

  log = run_body (RK_CHAT_WIRE_OPENAI, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT);
  g_assert_cmpstr (log, ==, "T:a;!the reply ended before it was complete");
}

static void
test_done_variants (void)
{
  const char *bodies[] = {
    "data:[DONE]\n\n", "data: [DONE]", "data:  [DONE]  \r\n\r\n", "data: [DONE]\r\r",
    ": x\ndata: [DONE]\n\ndata: {broken\n\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bodies); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *log = run_body (RK_CHAT_WIRE_OPENAI, bodies[i], &error);
      g_assert_no_error (error);
      g_assert_cmpstr (log, ==, "D:-,-1,-1;");
    }
}

static void
test_ollama (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = run_body (RK_CHAT_WIRE_OLLAMA,
    "{\"model\":\"m\",\"created_at\":\"x\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"hm\"},\"done\":false}\n"
    "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\r\n"
    "\n"
    "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"python\",\"arguments\":{\"code\":\"print(1)\"}}}]},\"done\":false}\n"
    "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":20,\"eval_count\":7}\n",
    &error);

  g_assert_no_error (error);
  g_assert_cmpstr (log, ==,
                   "R:hm;T:Hi;P0:{\"code\":\"print(1)\"};C0:call_0,python,{\"code\":\"print(1)\"};"
                   "D:tool_calls,20,7;");
}

static void
test_ollama_error_and_cut (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *log = run_body (RK_CHAT_WIRE_OLLAMA, "{\"error\":\"model 'x' not found\"}\n", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (log, ==, "E:model 'x' not found;");
  g_clear_pointer (&log, g_free);

  log = run_body (RK_CHAT_WIRE_OLLAMA, "{\"message\":{\"content\":\"a\"},\"done\":false}\n", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT);
  g_clear_error (&error);
  g_clear_pointer (&log, g_free);

  log = run_body (RK_CHAT_WIRE_OLLAMA, "{\"message\":{\"content\":\"a\"},\"done\":\"yes\"}\n", &error);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_clear_pointer (&log, g_free);

  log = run_body (RK_CHAT_WIRE_OLLAMA, "{\"message\":{\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":[1]}}]}}\n", &error);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
  g_clear_error (&error);
  g_clear_pointer (&log, g_free);

  log = run_body (RK_CHAT_WIRE_OLLAMA, "{\"message\":{\"tool_calls\":[{\"function\":{\"arguments\":{}}}]}}\n", &error);
  g_assert_error (error, RK_PARSE_ERROR, RK_PARSE_ERROR_MALFORMED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/chat-stream/openai/text", test_openai_text);
  g_test_add_func ("/rk/chat-stream/openai/tool-fragments", test_openai_tool_fragments);
  g_test_add_func ("/rk/chat-stream/openai/reply", test_openai_reply);
  g_test_add_func ("/rk/chat-stream/openai/new-id-same-index", test_openai_new_id_same_index);
  g_test_add_func ("/rk/chat-stream/openai/missing-index", test_openai_missing_index);
  g_test_add_func ("/rk/chat-stream/openai/wrong-types", test_openai_wrong_types);
  g_test_add_func ("/rk/chat-stream/openai/error-object", test_openai_error_object);
  g_test_add_func ("/rk/chat-stream/openai/cut", test_openai_cut);
  g_test_add_func ("/rk/chat-stream/openai/done-variants", test_done_variants);
  g_test_add_func ("/rk/chat-stream/deep-nesting", test_deep_nesting);
  g_test_add_func ("/rk/chat-stream/tool-call-without-name", test_tool_call_without_name);
  g_test_add_func ("/rk/chat-stream/huge-arguments", test_huge_arguments);
  g_test_add_func ("/rk/chat-stream/too-many-calls", test_too_many_calls);
  g_test_add_func ("/rk/chat-stream/ollama/stream", test_ollama);
  g_test_add_func ("/rk/chat-stream/ollama/error-and-cut", test_ollama_error_and_cut);
  return g_test_run ();
}
