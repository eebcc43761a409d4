/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-transcript-export.c — an end-to-end conversation (the scripted model
 * server, the real agent, sandbox and kernel) exported to a notebook and an
 * HTML report: the notebook validates with nbformat and re-runs with nbclient
 * and ipykernel to the same outputs; the report renders offline in headless
 * Chromium with its table and chart (check-exports.py does the Python side). */
#define G_LOG_DOMAIN "test-transcript-export"
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "rk-agent.h"
#include "rk-mock-server.h"
#include "rk-session.h"
#include "rk-transcript.h"

static const char sales_csv[] =
  "region,month,units\n"
  "North,2024-01,21000\nNorth,2024-02,27213\n"
  "South,2024-01,40387\nSouth,2024-02,41000\n"
  "East,2024-01,9000\nEast,2024-02,12500\n";

/* Two questions: totals (printed, and shown as a table), then a native chart
 * and a matplotlib figure. */
static const char script[] =
  "{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
  "{\"text\":\"Let me add up the units.\",\"tool_calls\":[{\"name\":\"python\",\"arguments\":{\"code\":"
  "\"df = reckon.load('sales.csv')\\ntotals = df.groupby('region', as_index=False)['units'].sum()\\n"
  "print(totals.to_string(index=False))\\ntotals\"}}]},"
  "{\"text\":\"North sold **48,213** units; South sold 81,387.\"},"
  "{\"tool_calls\":[{\"name\":\"python\",\"arguments\":{\"code\":"
  "\"import matplotlib.pyplot as plt\\nreckon.chart(totals, kind='bar', x='region', y='units', title='Units by region')\\n"
  "fig, ax = plt.subplots()\\nax.plot(df['units'].cumsum().tolist())\\nax.set_title('Cumulative units')\\n"
  "print('rows:', len(df))\"}}]},"
  "{\"text\":\"The chart shows South ahead.\"}"
  "]}";

static void
added_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  char **name = user_data;
  g_autoptr(GError) error = NULL;

  *name = rk_session_add_file_finish (RK_SESSION (source), result, &error);
  g_assert_no_error (error);
}

static void
asked_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  char **answer = user_data;
  g_autoptr(GError) error = NULL;

  *answer = rk_agent_ask_finish (RK_AGENT (source), result, &error);
  g_assert_no_error (error);
}

static char *
ask (RkAgent    *agent,
     const char *question)
{
  char *answer = NULL;

  rk_agent_ask_async (agent, question, NULL, asked_cb, &answer);
  while (answer == NULL)
    g_main_context_iteration (NULL, TRUE);
  return answer;
}

static void
test_end_to_end (void)
{
  const char *source_root = g_getenv ("RECKON_SOURCE_ROOT");
  g_autoptr(GError) error = NULL;
  g_autoptr(RkMockServer) server = NULL;
  g_autoptr(RkModelClient) client = NULL;
  g_autoptr(RkSession) session = NULL;
  g_autoptr(RkAgent) agent = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *name = NULL;
  g_autofree char *a1 = NULL;
  g_autofree char *a2 = NULL;
  g_autofree char *notebook = NULL;
  g_autofree char *html = NULL;
  g_autofree char *nb_path = NULL;
  g_autofree char *html_path = NULL;
  g_autofree char *checker = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  RkTranscript *transcript;
  int status = -1;

  if (g_getenv ("RECKON_SANDBOX") == NULL || source_root == NULL)
    {
      g_test_skip ("reckon-sandbox is not built or RECKON_SOURCE_ROOT is unset: run through meson test");
      return;
    }

  dir = g_dir_make_tmp ("rk-export-e2e-XXXXXX", &error);
  g_assert_no_error (error);
  csv = g_build_filename (dir, "sales.csv", NULL);
  g_assert_true (g_file_set_contents (csv, sales_csv, -1, NULL));

  server = rk_mock_server_new (script, &error);
  g_assert_no_error (error);
  client = rk_model_client_new ();
  rk_model_client_set_endpoint (client, rk_mock_server_get_url (server));
  rk_model_client_set_model (client, "m");
  rk_model_client_set_api (client, RK_MODEL_API_OPENAI);
  rk_model_client_set_idle_timeout (client, 30);

  session = rk_session_new (NULL, NULL, &error);
  g_assert_no_error (error);
  rk_session_add_file_async (session, csv, NULL, added_cb, &name);
  while (name == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (name, ==, "sales.csv");

  agent = rk_agent_new_for_session (client, session, NULL);
  rk_agent_set_policy (agent, RK_APPROVAL_AUTO);
  a1 = ask (agent, "How many units did each region sell?");
  g_assert_nonnull (strstr (a1, "48,213"));
  a2 = ask (agent, "Chart it.");
  transcript = rk_agent_get_transcript (agent);

  notebook = rk_transcript_to_notebook (transcript, rk_session_get_workspace (session), NULL, &error);
  g_assert_no_error (error);
  html = rk_transcript_to_html (transcript, rk_session_get_workspace (session), "Units by region", NULL, &error);
  g_assert_no_error (error);
  /* the table and chart are embedded, not placeholders */
  g_assert_nonnull (strstr (notebook, "text/html"));
  g_assert_nonnull (strstr (notebook, "class=\\\"dataframe\\\""));
  g_assert_null (strstr (notebook, "Chart Units by region: "));
  g_assert_nonnull (strstr (html, "<svg class=\"chart\""));
  g_assert_nonnull (strstr (html, "<table class=\"dataframe\">"));
  g_assert_nonnull (strstr (html, "<strong>48,213</strong>"));

  nb_path = g_build_filename (dir, "conversation.ipynb", NULL);
  html_path = g_build_filename (dir, "report.html", NULL);
  g_assert_true (g_file_set_contents (nb_path, notebook, -1, NULL));
  g_assert_true (g_file_set_contents (html_path, html, -1, NULL));

  checker = g_build_filename (source_root, "tests", "integration", "check-exports.py", NULL);
  {
    const char *argv[] = { "/usr/bin/python3", checker, nb_path, html_path, csv, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &out, &err, &status, &error));
    g_assert_no_error (error);
  }
  g_test_message ("check-exports.py: %s%s", out, err);
  if (g_spawn_check_wait_status (status, NULL) == FALSE && strstr (out, "SKIP") != NULL)
    {
      g_test_skip (out);
      return;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("check-exports.py failed:\n%s\n%s", out, err);

  if (g_getenv ("RECKON_KEEP_EXPORTS") == NULL)
    {
      g_autofree char *shot = g_build_filename (dir, "report.png", NULL);
      g_unlink (shot);
      g_unlink (nb_path);
      g_unlink (html_path);
      g_unlink (csv);
      g_rmdir (dir);
    }
  else
    g_test_message ("exports kept in %s", dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/transcript-export/end-to-end", test_end_to_end);

  return g_test_run ();
}
