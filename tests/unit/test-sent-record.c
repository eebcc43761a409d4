/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-sent-record.c — what was sent to the model for a question: the
 * record grows request by request, reads back exactly, stays within its
 * size, and hostile records fail cleanly; the sample-values choice changes
 * what the model is told about a file. */
#define G_LOG_DOMAIN "test-sent-record"
#include "config.h"

#include <string.h>

#include "rk-profile.h"
#include "rk-sent-record.h"

static JsonNode *
message (const char *role,
         const char *content)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "role", role);
  json_object_set_string_member (o, "content", content);
  json_node_take_object (node, o);
  return node;
}

static JsonNode *
tool_call_message (const char *code)
{
  g_autofree char *args = NULL;
  g_autoptr(JsonNode) code_node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *args_obj = json_object_new ();
  JsonNode *node = message ("assistant", "");
  JsonArray *calls = json_array_new ();
  JsonObject *call = json_object_new ();
  JsonObject *function = json_object_new ();

  json_object_set_string_member (args_obj, "code", code);
  json_node_take_object (code_node, args_obj);
  args = json_to_string (code_node, FALSE);
  json_object_set_string_member (function, "name", "python");
  json_object_set_string_member (function, "arguments", args);
  json_object_set_string_member (call, "id", "call_1");
  json_object_set_object_member (call, "function", function);
  json_array_add_object_element (calls, call);
  json_object_set_array_member (json_node_get_object (node), "tool_calls", calls);
  return node;
}

static RkSentMessage *
msg (RkSentRequest *r,
     guint          i)
{
  return g_ptr_array_index (r->messages, i);
}

static void
test_grows (void)
{
  g_autoptr(JsonArray) history = json_array_new ();
  g_autofree char *one = NULL, *two = NULL, *three = NULL, *text = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autoptr(GError) error = NULL;
  RkSentRequest *r;

  json_array_add_element (history, message ("user", "What is the total?"));
  one = rk_sent_record_add_request (NULL, "You are a data analyst.\nFile “s.csv”: city (Lyon, Nice)", history, TRUE, 1 << 20);
  json_array_add_element (history, tool_call_message ("print(df.total.sum())"));
  json_array_add_element (history, message ("tool", "42\n"));
  two = rk_sent_record_add_request (one, "You are a data analyst.\nFile “s.csv”: city (Lyon, Nice)", history, TRUE, 1 << 20);
  /* A file added in the middle of the turn changes the system prompt. */
  three = rk_sent_record_add_request (two, "You are a data analyst.\nFile “t.csv”", history, FALSE, 1 << 20);

  requests = rk_sent_record_parse (three, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (requests->len, ==, 3);

  r = g_ptr_array_index (requests, 0);
  g_assert_cmpuint (r->messages->len, ==, 2);
  g_assert_cmpstr (msg (r, 0)->role, ==, "system");
  g_assert_nonnull (strstr (msg (r, 0)->content, "city (Lyon, Nice)"));
  g_assert_cmpstr (msg (r, 1)->content, ==, "What is the total?");
  g_assert_true (r->tools);
  g_assert_cmpuint (r->chars, ==, g_utf8_strlen (msg (r, 0)->content, -1) + strlen ("What is the total?"));

  r = g_ptr_array_index (requests, 1);
  g_assert_cmpuint (r->messages->len, ==, 4);
  g_assert_cmpstr (msg (r, 2)->tool_code, ==, "print(df.total.sum())");
  g_assert_cmpstr (msg (r, 3)->role, ==, "tool");

  r = g_ptr_array_index (requests, 2);
  g_assert_cmpstr (msg (r, 0)->content, ==, "You are a data analyst.\nFile “t.csv”");
  g_assert_false (r->tools);

  text = rk_sent_record_to_text (requests);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "Request 1 of 3"));
  g_assert_nonnull (strstr (text, "the python tool offered"));
  g_assert_nonnull (strstr (text, "city (Lyon, Nice)"));
  g_assert_nonnull (strstr (text, "What is the total?"));
  g_assert_nonnull (strstr (text, "print(df.total.sum())"));
  /* The second request repeats the first: only what it added is shown. */
  g_assert_nonnull (strstr (text, "The same as the request before"));
  g_assert_true (strstr (text, "What is the total?") == g_strrstr (text, "What is the total?") ||
                 strstr (text, "File “t.csv”") != NULL);
  g_assert_nonnull (strstr (text, "File “t.csv”"));
}

static void
test_size_limit (void)
{
  g_autoptr(JsonArray) history = json_array_new ();
  g_autofree char *big = g_strnfill (3000, 'x');
  g_autofree char *record = NULL, *text = NULL;
  g_autoptr(GPtrArray) requests = NULL;
  g_autoptr(GError) error = NULL;
  RkSentRequest *r;

  for (guint i = 0; i < 40; i++)
    json_array_add_element (history, message (i % 2 ? "assistant" : "user", big));
  json_array_add_element (history, message ("user", "the last question"));
  record = rk_sent_record_add_request (NULL, "system prompt", history, TRUE, 20000);
  g_assert_cmpuint (strlen (record), <=, 20000);

  requests = rk_sent_record_parse (record, &error);
  g_assert_no_error (error);
  r = g_ptr_array_index (requests, 0);
  g_assert_cmpuint (r->omitted, >, 0);
  /* The newest messages are the ones kept. */
  g_assert_cmpstr (msg (r, r->messages->len - 1)->content, ==, "the last question");
  g_assert_cmpuint (r->omitted + r->messages->len - 1, ==, 41);
  text = rk_sent_record_to_text (requests);
  g_assert_nonnull (strstr (text, "not kept here"));
}

static void
test_hostile (void)
{
  static const char *bad[] = {
    "",
    "nonsense",
    "[]",
    "{}",
    "{\"version\": 2, \"system\": \"s\", \"messages\": [], \"requests\": []}",
    "{\"version\": 1, \"system\": 5, \"messages\": [], \"requests\": []}",
    "{\"version\": 1, \"system\": \"s\", \"messages\": [1], \"requests\": []}",
    "{\"version\": 1, \"system\": \"s\", \"messages\": [{\"role\": \"root\", \"content\": \"x\"}], \"requests\": []}",
    "{\"version\": 1, \"system\": \"s\", \"messages\": [], \"requests\": [{\"count\": 1}]}",
    "{\"version\": 1, \"system\": \"s\", \"messages\": [], \"requests\": [{\"count\": -1}]}",
    "{\"version\": 1, \"system\": \"s\", \"omitted\": 5, \"messages\": [], \"requests\": [{\"count\": 6}]}",
    ("{\"version\": 1, \"system\": \"s\", \"messages\": [{\"role\": \"user\", \"content\": \"a\"},"
     " {\"role\": \"user\", \"content\": \"b\"}], \"requests\": [{\"count\": 2}, {\"count\": 1}]}"),
    "{\"version\": 1, \"system\": \"s\\u0000t\", \"messages\": [], \"requests\": []}",
    "{\"version\": 1, \"system\": \"s\", \"messages\": [], \"requests\": [3]}",
  };
  g_autoptr(GString) deep = g_string_new ("{\"version\": 1, \"system\": \"s\", \"messages\": ");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) requests = rk_sent_record_parse (bad[i], &error);

      g_assert_null (requests);
      g_assert_nonnull (error);
    }

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  {
    g_autoptr(GError) error = NULL;
    g_assert_null (rk_sent_record_parse (deep->str, &error));
    g_assert_nonnull (error);
  }

  /* A tool call whose arguments are not JSON: shown as they came. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) requests = rk_sent_record_parse (
      "{\"version\": 1, \"system\": \"s\", \"messages\": [{\"role\": \"assistant\", \"content\": null,"
      " \"tool_calls\": [{\"function\": {\"name\": \"python\", \"arguments\": \"print(1\"}}]}],"
      " \"requests\": [{\"count\": 1}]}", &error);

    g_assert_no_error (error);
    g_assert_cmpstr (msg (g_ptr_array_index (requests, 0), 1)->tool_code, ==, "print(1");
  }

  /* A record that is not one starts afresh when added to. */
  {
    g_autoptr(JsonArray) history = json_array_new ();
    g_autofree char *record = NULL;
    g_autoptr(GPtrArray) requests = NULL;

    json_array_add_element (history, message ("user", "q"));
    record = rk_sent_record_add_request ("[[[[", "s", history, TRUE, 1 << 20);
    requests = rk_sent_record_parse (record, NULL);
    g_assert_cmpuint (requests->len, ==, 1);
  }
}

static const char profile_json[] =
  "{\"version\": 1, \"files\": [{\"name\": \"s.csv\", \"kind\": \"csv\", \"size\": 120, \"tables\": [{\"rows\": 9, \"columns\": 2,"
  " \"header\": true, \"column_info\": [{\"name\": \"city\", \"type\": \"text\", \"unique\": 8,"
  " \"values\": [\"Lyon\", \"Nice\", \"Paris\", \"Metz\", \"Caen\", \"Brest\", \"Arles\", \"Dijon\"]},"
  " {\"name\": \"pop\", \"type\": \"integer\", \"min\": 1, \"max\": 9, \"mean\": 4}],"
  " \"head\": [[\"Lyon\", \"1\"], [\"Nice\", \"2\"], [\"Paris\", \"3\"], [\"Metz\", \"4\"], [\"Caen\", \"5\"]]}]}]}";

static void
test_samples (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = rk_profile_parse (profile_json, strlen (profile_json), &error);
  g_autofree char *usual = NULL, *none = NULL, *two = NULL;

  g_assert_no_error (error);
  usual = rk_profiles_to_prompt (files, 8000, RK_PROMPT_SAMPLES_DEFAULT);
  none = rk_profiles_to_prompt (files, 8000, 0);
  two = rk_profiles_to_prompt (files, 8000, 2);
  g_test_message ("%s\n---\n%s\n---\n%s", usual, none, two);

  g_assert_nonnull (strstr (usual, "(Lyon, Nice, Paris, Metz, Caen, Brest, …)"));
  g_assert_nonnull (strstr (usual, "Caen | 5"));

  /* Statistics only: no value of a cell leaves. */
  g_assert_nonnull (strstr (none, "- pop: integer, min 1, max 9, mean 4"));
  g_assert_null (strstr (none, "Lyon"));
  g_assert_null (strstr (none, "First rows"));

  g_assert_nonnull (strstr (two, "(Lyon, Nice, …)"));
  g_assert_nonnull (strstr (two, "Nice | 2"));
  g_assert_null (strstr (two, "Paris"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/sent-record/grows", test_grows);
  g_test_add_func ("/rk/sent-record/size-limit", test_size_limit);
  g_test_add_func ("/rk/sent-record/hostile", test_hostile);
  g_test_add_func ("/rk/sent-record/samples", test_samples);
  return g_test_run ();
}
