/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-agent.c — RkAgent end to end: the scripted model server over real
 * HTTP, the real sandbox and kernel. Both wire formats, tool calls and
 * fenced code, repairs with diffs, limits, faults, approval and cancel. */
#define G_LOG_DOMAIN "test-agent"
#include "config.h"

#include <math.h>
#include <string.h>

#include "rk-agent.h"
#include "rk-mock-server.h"
#include "rk-workspace.h"

typedef struct
{
  RkWorkspace   *workspace;
  RkKernel      *kernel;
  RkModelClient *client;
  RkAgent       *agent;
  RkMockServer  *server;
  GPtrArray     *events;        /* RkAgentEventType as pointers */
  GPtrArray     *diffs;         /* diffs of CODE_PROPOSED events (or "") */
  GPtrArray     *codes;
  GAsyncResult  *result;
  GCancellable  *cancel_on_run; /* cancelled when the cell prints "spinning" */
  GCancellable  *cancel_on_text;
  gint64         cancelled_at;
  RkAgentDecision decision;
  char          *edit;
  double         mean;
  char           mean_text[64];
  GPtrArray     *errors;        /* text of each ERROR event */
} Fixture;

static gboolean
sandbox_usable (void)
{
  const char *sandbox = g_getenv ("RECKON_SANDBOX");
  return sandbox != NULL && g_file_test (sandbox, G_FILE_TEST_IS_EXECUTABLE);
}

static void
event_cb (RkAgent            *agent,
          const RkAgentEvent *event,
          Fixture            *f)
{
  g_ptr_array_add (f->events, GUINT_TO_POINTER (event->type));
  switch (event->type)
    {
    case RK_AGENT_EVENT_CODE_PROPOSED:
      g_ptr_array_add (f->diffs, g_strdup (event->diff ? event->diff : ""));
      g_ptr_array_add (f->codes, g_strdup (event->code));
      break;
    case RK_AGENT_EVENT_APPROVAL_NEEDED:
      rk_agent_approve (agent, f->decision, f->edit);
      break;
    case RK_AGENT_EVENT_OUTPUT:
      /* The cell is running once it printed: cancel it then. */
      if (f->cancel_on_run != NULL && f->cancelled_at == 0 && strstr (event->text, "spinning"))
        {
          f->cancelled_at = g_get_monotonic_time ();
          g_cancellable_cancel (f->cancel_on_run);
        }
      break;
    case RK_AGENT_EVENT_ERROR:
      g_ptr_array_add (f->errors, g_strdup (event->text));
      break;
    case RK_AGENT_EVENT_TEXT_DELTA:
      if (f->cancel_on_text != NULL && f->cancelled_at == 0)
        {
          f->cancelled_at = g_get_monotonic_time ();
          g_cancellable_cancel (f->cancel_on_text);
        }
      break;
    default:
      break;
    }
}

static gboolean
has_event (Fixture          *f,
           RkAgentEventType  type)
{
  for (guint i = 0; i < f->events->len; i++)
    if (GPOINTER_TO_UINT (g_ptr_array_index (f->events, i)) == type)
      return TRUE;
  return FALSE;
}

/* A CSV of random values; its mean, computed here, is what the model's code
 * must find in the sandbox. */
static void
write_data (Fixture *f)
{
  g_autoptr(GString) csv = g_string_new ("id,value\n");
  g_autofree char *path = g_build_filename (rk_workspace_get_path (f->workspace), "data.csv", NULL);
  g_autoptr(GRand) rand = g_rand_new ();
  double sum = 0;
  const guint n = 500;

  for (guint i = 0; i < n; i++)
    {
      double v = floor (g_rand_double_range (rand, -1000, 1000) * 1000) / 1000;
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      sum += v;
      g_string_append_printf (csv, "%u,%s\n", i, g_ascii_formatd (buf, sizeof buf, "%.3f", v));
    }
  f->mean = sum / n;
  g_ascii_formatd (f->mean_text, sizeof f->mean_text, "%.6f", f->mean);
  g_assert_true (g_file_set_contents (path, csv->str, csv->len, NULL));
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  memset (f, 0, sizeof *f);
  f->workspace = rk_workspace_new_temporary (NULL, NULL);
  g_assert_nonnull (f->workspace);
  write_data (f);
  f->kernel = rk_kernel_new (f->workspace, NULL);
  f->events = g_ptr_array_new ();
  f->diffs = g_ptr_array_new_with_free_func (g_free);
  f->codes = g_ptr_array_new_with_free_func (g_free);
  f->errors = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->kernel != NULL)
    rk_kernel_shutdown (f->kernel);
  g_clear_object (&f->agent);
  g_clear_object (&f->client);
  g_clear_object (&f->kernel);
  g_clear_pointer (&f->server, rk_mock_server_free);
  g_clear_object (&f->result);
  g_clear_object (&f->cancel_on_run);
  g_clear_object (&f->cancel_on_text);
  g_ptr_array_unref (f->events);
  g_ptr_array_unref (f->diffs);
  g_ptr_array_unref (f->codes);
  g_ptr_array_unref (f->errors);
  rk_workspace_delete (f->workspace, NULL);
  g_clear_object (&f->workspace);
  g_free (f->edit);
}

static void
start (Fixture    *f,
       const char *script,
       RkModelApi  api)
{
  g_autoptr(GError) error = NULL;

  f->server = rk_mock_server_new (script, &error);
  g_assert_no_error (error);
  f->client = rk_model_client_new ();
  rk_model_client_set_endpoint (f->client, rk_mock_server_get_url (f->server));
  rk_model_client_set_model (f->client, "m");
  rk_model_client_set_api (f->client, api);
  rk_model_client_set_idle_timeout (f->client, 5);
  f->agent = rk_agent_new (f->client, f->kernel, NULL);
  rk_agent_set_policy (f->agent, RK_APPROVAL_AUTO);
  g_signal_connect (f->agent, "event", G_CALLBACK (event_cb), f);
}

static void
ask_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  Fixture *f = user_data;
  f->result = g_object_ref (result);
}

static char *
ask (Fixture       *f,
     const char    *question,
     GCancellable  *cancellable,
     GError       **error)
{
  g_clear_object (&f->result);
  rk_agent_ask_async (f->agent, question, cancellable, ask_cb, f);
  while (f->result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return rk_agent_ask_finish (f->agent, f->result, error);
}

/* The content of the last message of the @n-th chat request. */
static char *
last_message_sent (Fixture *f,
                   guint    n)
{
  g_autoptr(JsonNode) body = rk_mock_server_get_chat_request (f->server, n);
  JsonArray *messages;
  JsonObject *last;

  g_assert_nonnull (body);
  messages = json_object_get_array_member (json_node_get_object (body), "messages");
  last = json_array_get_object_element (messages, json_array_get_length (messages) - 1);
  return g_strdup (json_object_get_string_member (last, "content"));
}

/* A JSON string literal of @text, for scripts. */
static char *
json_string (const char *text)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (node, text);
  return json_to_string (node, FALSE);
}

static const char *COMPUTE_CODE =
  "import pandas as pd\n"
  "import matplotlib.pyplot as plt\n"
  "df = pd.read_csv('data.csv')\n"
  "print(f\"mean={df['value'].mean():.6f}\")\n"
  "plt.plot(df['id'], df['value'])\n"
  "df.describe()\n";

static void
test_compute (Fixture       *f,
              gconstpointer  data)
{
  const char *variant = data;
  gboolean ollama = g_str_has_prefix (variant, "ollama");
  gboolean fenced = g_str_has_suffix (variant, "fenced");
  g_autofree char *code = json_string (COMPUTE_CODE);
  g_autofree char *arguments = NULL;
  g_autofree char *arguments_json = NULL;
  g_autofree char *script = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *observation = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(GError) error = NULL;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }

  arguments = g_strdup_printf ("{\"code\": %s}", code);
  arguments_json = json_string (arguments);
  if (fenced)
    script = g_strdup_printf ("{\"api\":\"%s\",\"models\":[\"m\"],\"turns\":["
                              "{\"text\":\"I will read the file.\",\"code\":%s},"
                              "{\"text\":\"The mean value is as computed.\"}]}",
                              ollama ? "ollama" : "openai", code);
  else
    script = g_strdup_printf ("{\"api\":\"%s\",\"models\":[\"m\"],\"turns\":["
                              "{\"text\":\"I will read the file.\",\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"python\",\"arguments\":%s}]},"
                              "{\"text\":\"The mean value is as computed.\"}]}",
                              ollama ? "ollama" : "openai", arguments_json);
  start (f, script, ollama ? RK_MODEL_API_OLLAMA : RK_MODEL_API_OPENAI);
  rk_agent_set_use_tools (f->agent, !fenced);

  answer = ask (f, "What is the mean of value?", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (answer, ==, "The mean value is as computed.");

  /* The observation the server received holds the number computed from the file. */
  g_assert_cmpuint (rk_mock_server_get_n_chat_requests (f->server), ==, 2);
  observation = last_message_sent (f, 1);
  expected = g_strdup_printf ("mean=%s", f->mean_text);
  g_assert_nonnull (strstr (observation, expected));
  if (strstr (observation, "8 rows × ") == NULL)
    g_test_message ("observation: %s", observation);
  g_assert_nonnull (strstr (observation, "8 rows × "));
  g_assert_nonnull (strstr (observation, "Figure 1 created"));

  g_assert_true (has_event (f, RK_AGENT_EVENT_TABLE));
  g_assert_true (has_event (f, RK_AGENT_EVENT_FIGURE));
  g_assert_true (has_event (f, RK_AGENT_EVENT_FINAL_ANSWER));

  /* The system prompt tells the model where it is. */
  {
    g_autoptr(JsonNode) body = rk_mock_server_get_chat_request (f->server, 0);
    JsonArray *messages = json_object_get_array_member (json_node_get_object (body), "messages");
    const char *system = json_object_get_string_member (json_array_get_object_element (messages, 0), "content");

    g_assert_nonnull (strstr (system, "/workspace"));
    g_assert_nonnull (strstr (system, "no network"));
    if (fenced)
      g_assert_null (json_object_get_member (json_node_get_object (body), "tools"));
    else
      g_assert_nonnull (json_object_get_member (json_node_get_object (body), "tools"));
  }
}

static void
test_repair (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *bad = json_string ("x = 1\nprint(x / 0)\n");
  g_autofree char *good = json_string ("x = 1\nprint(x / 2)\n");
  g_autofree char *script = g_strdup_printf ("{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
                                             "{\"code\":%s},{\"text\":\"Fixing.\",\"code\":%s},"
                                             "{\"text\":\"Half of one is 0.5.\"}]}", bad, good);
  g_autofree char *answer = NULL;
  g_autofree char *observation = NULL;
  g_autoptr(GError) error = NULL;
  const char *diff;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  start (f, script, RK_MODEL_API_OPENAI);
  answer = ask (f, "Halve one.", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (answer, ==, "Half of one is 0.5.");

  observation = last_message_sent (f, 1);
  g_assert_nonnull (strstr (observation, "ZeroDivisionError"));

  /* The revision is shown as a diff against the code it replaces. */
  g_assert_cmpuint (f->diffs->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->diffs, 0), ==, "");
  diff = g_ptr_array_index (f->diffs, 1);
  g_assert_nonnull (strstr (diff, "-print(x / 0)\n"));
  g_assert_nonnull (strstr (diff, "+print(x / 2)\n"));
  g_assert_nonnull (strstr (diff, "@@ "));

  g_clear_pointer (&observation, g_free);
  observation = last_message_sent (f, 2);
  g_assert_nonnull (strstr (observation, "0.5"));
}

/* Issue 10, finding 8: under --approve auto a runaway cell is stopped at
 * the cell time limit, a memory hog is named as the memory limit, and the
 * conversation goes on: the model sees which limit and answers. */
static void
test_limits (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *spin = json_string ("while True:\n    pass\n");
  g_autofree char *hog = json_string ("x = bytearray(8 * 1024 ** 3)\n");
  g_autofree char *script = g_strdup_printf ("{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
                                             "{\"code\":%s},{\"code\":%s},"
                                             "{\"text\":\"Both were stopped by limits.\"}]}", spin, hog);
  g_autofree char *answer = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autoptr(GError) error = NULL;
  gboolean named_time = FALSE, named_memory = FALSE;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  rk_kernel_set_cell_time_limit (f->kernel, 2);
  start (f, script, RK_MODEL_API_OPENAI);
  answer = ask (f, "Spin, then use too much memory.", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (answer, ==, "Both were stopped by limits.");

  for (guint i = 0; i < f->errors->len; i++)
    {
      const char *text = g_ptr_array_index (f->errors, i);

      g_test_message ("agent error event: %s", text);
      named_time |= strstr (text, "“time” limit") != NULL;
      named_memory |= strstr (text, "“memory” limit") != NULL;
      g_assert_null (strstr (text, "MemoryError:"));
    }
  g_assert_true (named_time);
  g_assert_true (named_memory);

  first = last_message_sent (f, 1);
  g_assert_nonnull (strstr (first, "time limit of 2 seconds"));
  second = last_message_sent (f, 2);
  g_assert_nonnull (strstr (second, "memory limit"));
}

static void
test_repair_limit (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *bad = json_string ("raise ValueError('still broken')\n");
  g_autofree char *script = g_strdup_printf ("{\"api\":\"ollama\",\"models\":[\"m\"],\"turns\":["
                                             "{\"code\":%s},{\"code\":%s},{\"code\":%s},{\"code\":%s},"
                                             "{\"text\":\"never reached\"}]}", bad, bad, bad, bad);
  g_autofree char *answer = NULL;
  g_autoptr(GError) error = NULL;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  start (f, script, RK_MODEL_API_OLLAMA);
  rk_agent_set_max_repairs (f->agent, 2);
  answer = ask (f, "Do it.", NULL, &error);
  g_assert_error (error, RK_AGENT_ERROR, RK_AGENT_ERROR_REPAIR_LIMIT);
  g_assert_null (answer);
  g_assert_nonnull (strstr (error->message, "2 automatic repairs"));
  g_assert_nonnull (strstr (error->message, "still broken"));
  /* One first try and two repairs ran; the fourth code was never asked for. */
  g_assert_cmpuint (rk_mock_server_get_n_chat_requests (f->server), ==, 3);
}

static void
test_step_limit (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *code = json_string ("print('again')\n");
  g_autofree char *script = g_strdup_printf ("{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
                                             "{\"code\":%s},{\"code\":%s},{\"code\":%s}]}", code, code, code);
  g_autofree char *answer = NULL;
  g_autoptr(GError) error = NULL;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  start (f, script, RK_MODEL_API_OPENAI);
  rk_agent_set_max_steps (f->agent, 2);
  answer = ask (f, "Loop.", NULL, &error);
  g_assert_error (error, RK_AGENT_ERROR, RK_AGENT_ERROR_STEP_LIMIT);
  g_assert_cmpuint (rk_mock_server_get_n_chat_requests (f->server), ==, 2);
}

static void
test_text_tool_call (Fixture       *f,
                     gconstpointer  data)
{
  const char *script =
    "{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
    "{\"text\":\"{\\\"name\\\": \\\"python\\\", \\\"arguments\\\": {\\\"code\\\": \\\"print(6*7)\\\"}}\"},"
    "{\"text\":\"It is 42.\"}]}";
  g_autofree char *answer = NULL;
  g_autofree char *observation = NULL;
  g_autoptr(GError) error = NULL;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  start (f, script, RK_MODEL_API_OPENAI);
  answer = ask (f, "Six times seven?", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (answer, ==, "It is 42.");
  observation = last_message_sent (f, 1);
  g_assert_nonnull (strstr (observation, "42"));
}

static void
test_approval (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *code = json_string ("print('model code')\n");
  g_autofree char *script = g_strdup_printf ("{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
                                             "{\"code\":%s},{\"text\":\"Done.\"},{\"code\":%s}]}", code, code);
  g_autofree char *answer = NULL;
  g_autofree char *observation = NULL;
  g_autoptr(GError) error = NULL;
  RkTranscript *transcript;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  start (f, script, RK_MODEL_API_OPENAI);
  rk_agent_set_policy (f->agent, RK_APPROVAL_ASK);

  /* Edited code runs instead of the model's. */
  f->decision = RK_AGENT_DECISION_EDIT;
  f->edit = g_strdup ("print('edited by the user')\n");
  answer = ask (f, "Print something.", NULL, &error);
  g_assert_no_error (error);
  observation = last_message_sent (f, 1);
  g_assert_nonnull (strstr (observation, "edited by the user"));
  g_assert_null (strstr (observation, "model code"));
  g_assert_true (has_event (f, RK_AGENT_EVENT_APPROVAL_NEEDED));

  /* Skipped code does not run, and the turn ends. */
  g_clear_pointer (&answer, g_free);
  f->decision = RK_AGENT_DECISION_SKIP;
  answer = ask (f, "Again.", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (answer, "skipped"));
  transcript = rk_agent_get_transcript (f->agent);
  g_assert_cmpuint (rk_transcript_get_n_entries (transcript), >, 4);
}

static void
test_fault_keeps_conversation (Fixture       *f,
                               gconstpointer  data)
{
  const char *script =
    "{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
    "{\"text\":\"First answer.\"},{\"fault\":\"500\"},{\"fault\":\"cut\"},{\"text\":\"Third answer.\"}]}";
  g_autofree char *a1 = NULL;
  g_autofree char *a2 = NULL;
  g_autofree char *a3 = NULL;
  g_autofree char *a4 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) last = NULL;
  JsonArray *messages;
  RkTranscript *transcript;

  start (f, script, RK_MODEL_API_OPENAI);
  a1 = ask (f, "One?", NULL, &error);
  g_assert_no_error (error);

  a2 = ask (f, "Two?", NULL, &error);
  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP);
  g_assert_nonnull (strstr (error->message, rk_mock_server_get_url (f->server)));
  g_clear_error (&error);

  a3 = ask (f, "Three?", NULL, &error);
  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_PROTOCOL);
  g_clear_error (&error);

  a4 = ask (f, "Four?", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (a4, ==, "Third answer.");

  /* Nothing of the conversation was lost: the last request holds it all. */
  last = rk_mock_server_get_chat_request (f->server, rk_mock_server_get_n_chat_requests (f->server) - 1);
  messages = json_object_get_array_member (json_node_get_object (last), "messages");
  {
    GString *joined = g_string_new (NULL);

    for (guint i = 0; i < json_array_get_length (messages); i++)
      {
        JsonObject *m = json_array_get_object_element (messages, i);
        if (json_object_has_member (m, "content") && !json_object_get_null_member (m, "content"))
          g_string_append_printf (joined, "%s\n", json_object_get_string_member (m, "content"));
      }
    g_assert_nonnull (strstr (joined->str, "One?"));
    g_assert_nonnull (strstr (joined->str, "First answer."));
    g_assert_nonnull (strstr (joined->str, "Two?"));
    g_assert_nonnull (strstr (joined->str, "Three?"));
    g_string_free (joined, TRUE);
  }
  transcript = rk_agent_get_transcript (f->agent);
  g_assert_cmpuint (rk_transcript_get_n_entries (transcript), >=, 8);
}

static void
test_cancel_stream (Fixture       *f,
                    gconstpointer  data)
{
  const char *script =
    "{\"api\":\"ollama\",\"models\":[\"m\"],\"turns\":["
    "{\"text\":[\"a \",\"b \",\"c \",\"d \",\"e \",\"f \",\"g \",\"h \",\"i \",\"j \"],\"drip_ms\":1000},"
    "{\"text\":\"Next works.\"}]}";
  g_autofree char *answer = NULL;
  g_autoptr(GError) error = NULL;
  gint64 stopped;

  start (f, script, RK_MODEL_API_OLLAMA);
  f->cancel_on_text = g_cancellable_new ();
  answer = ask (f, "Slowly.", f->cancel_on_text, &error);
  stopped = g_get_monotonic_time ();
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (stopped - f->cancelled_at, <, G_USEC_PER_SEC);
  g_clear_error (&error);
  g_clear_object (&f->cancel_on_text);

  answer = ask (f, "Again.", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (answer, ==, "Next works.");
}

static void
test_cancel_cell (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *loop = json_string ("kept = 7\nprint('spinning', flush=True)\nwhile True:\n    pass\n");
  g_autofree char *check = json_string ("print('kept is', kept)\n");
  g_autofree char *script = g_strdup_printf ("{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
                                             "{\"code\":%s},{\"code\":%s},{\"text\":\"Fine.\"}]}", loop, check);
  g_autofree char *answer = NULL;
  g_autofree char *observation = NULL;
  g_autoptr(GError) error = NULL;
  gint64 stopped;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  start (f, script, RK_MODEL_API_OPENAI);
  f->cancel_on_run = g_cancellable_new ();
  answer = ask (f, "Spin.", f->cancel_on_run, &error);
  stopped = g_get_monotonic_time ();
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (stopped - f->cancelled_at, <, G_USEC_PER_SEC);
  g_clear_error (&error);
  g_clear_object (&f->cancel_on_run);

  /* The session is usable, and the state from before the loop is kept. */
  answer = ask (f, "Check.", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (answer, ==, "Fine.");
  observation = last_message_sent (f, 2);
  g_assert_nonnull (strstr (observation, "kept is 7"));
}

/* -- an agent that follows its session (rk_agent_new_for_session) -- */

static void
result_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GAsyncResult **out = user_data;
  *out = g_object_ref (result);
}

static char *
run_typed (RkAgent      *agent,
           const char   *code,
           RkCodeOrigin  origin,
           GError      **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  rk_agent_run_code_async (agent, code, origin, NULL, result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return rk_agent_run_code_finish (agent, result, error);
}

static void
restart_session (RkSession          *session,
                 const char * const *cells)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  rk_session_restart_async (session, cells, NULL, result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (rk_session_restart_finish (session, result, NULL, &error));
  g_assert_no_error (error);
}

/* Typed code: the same entries and events as model code, no model request;
 * the model hears of it with the next question. */
static void
test_typed_code (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(RkSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *observation = NULL;
  g_autofree char *answer = NULL;
  RkTranscript *transcript;
  const RkEntryKind expect[] = { RK_ENTRY_CODE, RK_ENTRY_APPROVAL, RK_ENTRY_STREAM };
  const RkAgentEventType expect_events[] = {
    RK_AGENT_EVENT_CODE_PROPOSED, RK_AGENT_EVENT_APPROVAL_NEEDED, RK_AGENT_EVENT_RUN_STARTED,
    RK_AGENT_EVENT_OUTPUT, RK_AGENT_EVENT_RUN_FINISHED,
  };

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  session = rk_session_new (NULL, NULL, &error);
  g_assert_no_error (error);
  start (f, "{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":[{\"text\":\"It printed 42.\"}]}",
         RK_MODEL_API_OPENAI);
  g_clear_object (&f->agent);
  f->agent = rk_agent_new_for_session (f->client, session, NULL);
  g_signal_connect (f->agent, "event", G_CALLBACK (event_cb), f);
  rk_agent_set_policy (f->agent, RK_APPROVAL_ASK);
  f->decision = RK_AGENT_DECISION_RUN;

  observation = run_typed (f->agent, "print(6 * 7)\n", RK_CODE_PROPOSED, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (observation, "42"));
  g_assert_cmpuint (rk_mock_server_get_n_chat_requests (f->server), ==, 0);

  g_assert_cmpuint (f->events->len, ==, G_N_ELEMENTS (expect_events));
  for (guint i = 0; i < G_N_ELEMENTS (expect_events); i++)
    g_assert_cmpuint (GPOINTER_TO_UINT (g_ptr_array_index (f->events, i)), ==, expect_events[i]);
  transcript = rk_agent_get_transcript (f->agent);
  g_assert_cmpuint (rk_transcript_get_n_entries (transcript), ==, G_N_ELEMENTS (expect));
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    g_assert_cmpint (rk_transcript_entry_get_kind (rk_transcript_get_entry (transcript, i)), ==, expect[i]);
  g_assert_cmpstr (rk_transcript_entry_get_text (rk_transcript_get_entry (transcript, 2)), ==, "42\n");
  g_assert_cmpint (rk_transcript_entry_get_decision (rk_transcript_get_entry (transcript, 1)), ==,
                   RK_DECISION_APPROVED);

  /* Skipped typed code runs nothing and ends the turn without an error. */
  f->decision = RK_AGENT_DECISION_SKIP;
  g_free (run_typed (f->agent, "print('never')\n", RK_CODE_PROPOSED, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (rk_transcript_get_n_entries (transcript), ==, 5);

  /* Code the user typed runs at once under the same policy: no question,
   * approved in the transcript (and a decision to skip is never asked for). */
  g_ptr_array_set_size (f->events, 0);
  g_free (observation);
  observation = run_typed (f->agent, "print('mine', 2 + 3)\n", RK_CODE_TYPED, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (observation, "mine 5"));
  for (guint i = 0; i < f->events->len; i++)
    g_assert_cmpuint (GPOINTER_TO_UINT (g_ptr_array_index (f->events, i)), !=, RK_AGENT_EVENT_APPROVAL_NEEDED);
  g_assert_cmpint (rk_transcript_entry_get_decision (rk_transcript_get_entry (transcript, 6)), ==,
                   RK_DECISION_APPROVED);

  answer = ask (f, "What did it print?", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (answer, ==, "It printed 42.");
  {
    g_autoptr(JsonNode) body = rk_mock_server_get_chat_request (f->server, 0);
    g_autofree char *all = json_to_string (body, FALSE);

    g_assert_nonnull (strstr (all, "I ran this code myself"));
    g_assert_nonnull (strstr (all, "print(6 * 7)"));
  }
  rk_session_expire (session);
}

/* The session replaces its kernel on expiry and restart; the agent runs on
 * the current one, and refuses while the session is expired. */
static void
test_follows_session (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(RkSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GPtrArray) cells = NULL;
  RkKernel *first;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  session = rk_session_new (NULL, NULL, &error);
  g_assert_no_error (error);
  start (f, "{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":[]}", RK_MODEL_API_OPENAI);
  g_clear_object (&f->agent);
  f->agent = rk_agent_new_for_session (f->client, session, NULL);
  rk_agent_set_policy (f->agent, RK_APPROVAL_AUTO);

  out = run_typed (f->agent, "x = 20\nprint('x set')\n", RK_CODE_PROPOSED, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "x set"));
  first = rk_session_get_kernel (session);
  g_object_add_weak_pointer (G_OBJECT (first), (gpointer *) &first);

  rk_session_expire (session);
  g_clear_pointer (&out, g_free);
  out = run_typed (f->agent, "print(x)\n", RK_CODE_PROPOSED, &error);
  g_assert_error (error, RK_SESSION_ERROR, RK_SESSION_ERROR_EXPIRED);
  g_assert_null (out);
  g_clear_error (&error);

  /* Restart with the cells that ran: x is back, on a new kernel. */
  cells = rk_transcript_get_run_code (rk_agent_get_transcript (f->agent));
  g_ptr_array_add (cells, NULL);
  restart_session (session, (const char * const *) cells->pdata);
  out = run_typed (f->agent, "print(x + 1)\n", RK_CODE_PROPOSED, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "21"));
  /* The agent let go of the old kernel once it moved to the new one. */
  g_assert_null (first);
  g_assert_true (rk_session_get_kernel (session) != NULL);

  rk_session_expire (session);
}

/* Issue 17: tool-call arguments nested 10^6 deep (json-glib 1.6 overflowed
 * its stack parsing them, SIGSEGV) are not code: the model is told so, and
 * its next turn is the answer. */
static void
test_hostile_arguments (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *deep = g_strnfill (1000000, '[');
  g_autofree char *script = g_strconcat (
    "{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
    "{\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"python\",\"arguments\":\"", deep, "\"}]},"
    "{\"text\":\"Sorry.\"}]}", NULL);
  g_autofree char *answer = NULL;
  g_autofree char *told = NULL;
  g_autoptr(GError) error = NULL;

  if (!sandbox_usable ())
    {
      g_test_skip ("reckon-sandbox is not built (RECKON_SANDBOX unset)");
      return;
    }
  start (f, script, RK_MODEL_API_OPENAI);
  answer = ask (f, "Anything?", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (answer, ==, "Sorry.");
  told = last_message_sent (f, 1);
  g_assert_nonnull (strstr (told, "must be a JSON object"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/rk/agent/compute/openai-tool", Fixture, "openai-tool", fixture_setup, test_compute, fixture_teardown);
  g_test_add ("/rk/agent/compute/openai-fenced", Fixture, "openai-fenced", fixture_setup, test_compute, fixture_teardown);
  g_test_add ("/rk/agent/compute/ollama-tool", Fixture, "ollama-tool", fixture_setup, test_compute, fixture_teardown);
  g_test_add ("/rk/agent/compute/ollama-fenced", Fixture, "ollama-fenced", fixture_setup, test_compute, fixture_teardown);
  g_test_add ("/rk/agent/repair", Fixture, NULL, fixture_setup, test_repair, fixture_teardown);
  g_test_add ("/rk/agent/limits", Fixture, NULL, fixture_setup, test_limits, fixture_teardown);
  g_test_add ("/rk/agent/repair-limit", Fixture, NULL, fixture_setup, test_repair_limit, fixture_teardown);
  g_test_add ("/rk/agent/step-limit", Fixture, NULL, fixture_setup, test_step_limit, fixture_teardown);
  g_test_add ("/rk/agent/text-tool-call", Fixture, NULL, fixture_setup, test_text_tool_call, fixture_teardown);
  g_test_add ("/rk/agent/hostile-arguments", Fixture, NULL, fixture_setup, test_hostile_arguments, fixture_teardown);
  g_test_add ("/rk/agent/approval", Fixture, NULL, fixture_setup, test_approval, fixture_teardown);
  g_test_add ("/rk/agent/fault-keeps-conversation", Fixture, NULL, fixture_setup, test_fault_keeps_conversation, fixture_teardown);
  g_test_add ("/rk/agent/cancel-stream", Fixture, NULL, fixture_setup, test_cancel_stream, fixture_teardown);
  g_test_add ("/rk/agent/cancel-cell", Fixture, NULL, fixture_setup, test_cancel_cell, fixture_teardown);
  g_test_add ("/rk/agent/typed-code", Fixture, NULL, fixture_setup, test_typed_code, fixture_teardown);
  g_test_add ("/rk/agent/follows-session", Fixture, NULL, fixture_setup, test_follows_session, fixture_teardown);

  return g_test_run ();
}
