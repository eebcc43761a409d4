/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-notebook-readings.c — an end-to-end conversation (scripted model
 * server, real RkConversation, sandbox and kernel) over awkward real-world
 * files — a Latin-1 CSV with semicolons and decimal commas, an XLSX and an
 * ODS whose header is below a title — exported to a notebook that re-runs
 * with nbclient and ipykernel, outside Reckon, to the same outputs
 * (check-exports.py compares them cell by cell). */
#define G_LOG_DOMAIN "test-notebook-readings"
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "rk-conversation.h"
#include "rk-conversation-store.h"
#include "rk-mock-server.h"
#include "rk-session.h"
#include "rk-test-kernel.h"
#include "rk-transcript.h"
#include "rk-workspace.h"

/* Latin-1 bytes, ';' between fields, ',' as the decimal mark and '.' for
 * thousands, as a German spreadsheet saves "CSV". */
static const char umsatz_csv[] =
  "Filiale;Datum;Umsatz;Menge\n"
  "K\xf6ln;03.01.2023;1.234,50;3\n"
  "M\xfcnchen;15.02.2023;987,25;10\n"
  "D\xfcsseldorf;01.03.2023;12,00;1\n"
  "N\xfcrnberg;20.03.2023;2.000,75;7\n";

/* An XLSX and an ODS as reports are made: a title and a date (or a blank
 * row) above the table, so its header is not on row 1. */
static const char make_workbooks[] =
  "import datetime, sys\n"
  "from openpyxl import Workbook\n"
  "import pandas as pd\n"
  "wb = Workbook()\n"
  "ws = wb.active\n"
  "ws.title = 'Bericht'\n"
  "ws['A1'] = 'Umsatzbericht 2023'\n"
  "ws['A2'] = datetime.datetime(2024, 1, 15)\n"
  "ws.append([])\n"
  "ws.append(['Region', 'Monat', 'St\\u00fcck', 'Umsatz'])\n"
  "for i, r in enumerate(['Nord', 'S\\u00fcd', 'Ost', 'West', 'Nord']):\n"
  "    ws.append([r, datetime.datetime(2023, i + 1, 1), 10 * (i + 1), 27607.5 + i])\n"
  "wb.save(sys.argv[1] + '/bericht.xlsx')\n"
  "rows = [['Rapport annuel', None, None], [None, None, None], ['ville', 'habitants', 'part'],\n"
  "        ['Lyon', 522250, 0.5], ['Nice', 342669, 0.25], ['Lille', 236710, 0.25]]\n"
  "pd.DataFrame(rows).to_excel(sys.argv[1] + '/villes.ods', engine='odf', header=False, index=False)\n";

static const char code_csv[] =
  "u = reckon.load('umsatz.csv')\n"
  "print(u.to_string())\n"
  "print(u.dtypes.to_string())\n"
  "print('total', u['Umsatz'].sum())\n"
  "u";
static const char code_xlsx[] =
  "b = reckon.load('bericht.xlsx')\n"
  "print(b.to_string())\n"
  "print(b.dtypes.to_string())\n"
  "b.groupby('Region', as_index=False)['St\xc3\xbc" "ck'].sum()";
static const char code_ods[] =
  "v = reckon.load('villes.ods')\n"
  "print(v.to_string())\n"
  "print(v.dtypes.to_string())\n"
  "v";

typedef struct
{
  GAsyncResult *result;
} Waits;

static RkFileProfile *
profile_of (RkConversation *conv,
            const char     *name)
{
  RkConversationFile *file = rk_conversation_lookup_file (conv, name);

  g_assert_nonnull (file);
  g_assert_cmpint (rk_conversation_file_get_state (file), ==, RK_CONVERSATION_FILE_READY);
  return rk_conversation_file_get_profile (file);
}

static void
result_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Waits *w = user_data;

  w->result = g_object_ref (result);
}

static char *
ask (RkConversation *conv,
     Waits          *w,
     const char     *question)
{
  g_autoptr(GError) error = NULL;
  gint64 end = g_get_monotonic_time () + 300 * G_USEC_PER_SEC;
  char *answer;

  g_clear_object (&w->result);
  rk_conversation_ask_async (conv, question, NULL, result_cb, w);
  while (w->result == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, TRUE);
    }
  answer = rk_conversation_ask_finish (conv, w->result, &error);
  g_assert_no_error (error);
  g_clear_object (&w->result);
  return answer;
}

/* One TAP comment line per line of @text. */
static void
message_lines (const char *what,
               const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text ? text : "", "\n", -1);

  g_test_message ("%s:", what);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i])
      g_test_message ("  %s", lines[i]);
}

static char *
tool_call (const char *code)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *quoted = NULL;

  json_node_set_string (node, code);
  quoted = json_to_string (node, FALSE);
  return g_strdup_printf ("{\"tool_calls\":[{\"name\":\"python\",\"arguments\":{\"code\":%s}}]}", quoted);
}

/* The source of the notebook's first cell (the prelude). */
static char *
prelude_of (const char *notebook)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *cells;
  JsonObject *first;

  g_assert_true (json_parser_load_from_data (parser, notebook, -1, NULL));
  cells = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cells");
  first = json_array_get_object_element (cells, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "id"), ==, "rk-prelude");
  return g_strdup (json_object_get_string_member (first, "source"));
}

static void
test_awkward_files (void)
{
  const char *source_root = g_getenv ("RECKON_SOURCE_ROOT");
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *root = NULL;
  g_autofree char *files = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *sessions_dir = NULL;
  g_autofree char *c1 = NULL;
  g_autofree char *c2 = NULL;
  g_autofree char *c3 = NULL;
  g_autofree char *script = NULL;
  g_autofree char *a1 = NULL;
  g_autofree char *a2 = NULL;
  g_autofree char *notebook = NULL;
  g_autofree char *notebook_no_ws = NULL;
  g_autofree char *prelude = NULL;
  g_autofree char *prelude_no_ws = NULL;
  g_autofree char *nb_path = NULL;
  g_autofree char *checker = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(RkMockServer) server = NULL;
  g_autoptr(RkModelClient) client = NULL;
  g_autoptr(RkConversationStore) store = NULL;
  g_autoptr(RkConversation) conv = NULL;
  g_autoptr(GPtrArray) gfiles = g_ptr_array_new_with_free_func (g_object_unref);
  const char *names[] = { "umsatz.csv", "bericht.xlsx", "villes.ods" };
  char *paths[G_N_ELEMENTS (names)] = { NULL };
  Waits w = { 0 };
  RkTranscript *transcript;
  int status = -1;

  if (source_root == NULL || !rk_test_kernel_sandbox_usable (&reason))
    {
      g_test_skip (reason ? reason : "RECKON_SOURCE_ROOT is unset: run through meson test");
      return;
    }

  root = g_dir_make_tmp ("rk-nb-readings-XXXXXX", &error);
  g_assert_no_error (error);
  files = g_build_filename (root, "files", NULL);
  data_dir = g_build_filename (root, "data", NULL);
  sessions_dir = g_build_filename (root, "sessions", NULL);
  g_assert_cmpint (g_mkdir_with_parents (files, 0700), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    paths[i] = g_build_filename (files, names[i], NULL);
  g_assert_true (g_file_set_contents (paths[0], umsatz_csv, -1, NULL));
  {
    const char *argv[] = { "/usr/bin/python3", "-c", make_workbooks, files, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &out, &err, &status, &error));
    g_assert_no_error (error);
    if (!g_spawn_check_wait_status (status, NULL))
      {
        g_autofree char *why = g_strdup_printf ("openpyxl or odfpy is missing (python3-openpyxl, python3-odf): %s", err);
        g_test_skip (why);
        for (guint i = 0; i < G_N_ELEMENTS (names); i++)
          g_free (paths[i]);
        rk_workspace_delete_folder (root, NULL);
        return;
      }
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }

  /* Two questions: the CSV, then both workbooks. */
  c1 = tool_call (code_csv);
  c2 = tool_call (code_xlsx);
  c3 = tool_call (code_ods);
  script = g_strdup_printf ("{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
                            "%s,{\"text\":\"The branches sold 4,234.50 in all.\"},"
                            "%s,%s,{\"text\":\"Nord leads.\"}]}", c1, c2, c3);
  server = rk_mock_server_new (script, &error);
  g_assert_no_error (error);
  client = rk_model_client_new ();
  rk_model_client_set_endpoint (client, rk_mock_server_get_url (server));
  rk_model_client_set_model (client, "m");
  rk_model_client_set_api (client, RK_MODEL_API_OPENAI);
  rk_model_client_set_idle_timeout (client, 60);

  store = rk_conversation_store_new (data_dir, sessions_dir, &error);
  g_assert_no_error (error);
  conv = rk_conversation_store_create (store, client, &error);
  g_assert_no_error (error);
  rk_conversation_set_auto_approve (conv, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_ptr_array_add (gfiles, g_file_new_for_path (paths[i]));
  rk_conversation_add_files (conv, (GFile **) gfiles->pdata, gfiles->len);
  {
    gint64 end = g_get_monotonic_time () + 300 * G_USEC_PER_SEC;

    while (rk_conversation_is_profiling (conv))
      {
        g_assert_cmpint (g_get_monotonic_time (), <, end);
        g_main_context_iteration (NULL, TRUE);
      }
  }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      RkFileProfile *p = profile_of (conv, names[i]);

      g_assert_nonnull (p);
      g_assert_null (p->error);
      g_assert_nonnull (p->reading);
    }
  g_assert_cmpstr (profile_of (conv, "umsatz.csv")->reading->delimiter, ==, ";");
  g_assert_cmpstr (profile_of (conv, "umsatz.csv")->reading->decimal, ==, ",");

  a1 = ask (conv, &w, "Wie viel Umsatz haben die Filialen gemacht?");
  g_assert_nonnull (strstr (a1, "4,234.50"));
  a2 = ask (conv, &w, "Und in den Berichten?");
  transcript = rk_conversation_get_transcript (conv);

  /* Reckon itself read the XLSX below its title, with its dates as dates. */
  {
    gboolean xlsx_seen = FALSE;

    for (guint i = 0; i < rk_transcript_get_n_entries (transcript); i++)
      {
        RkTranscriptEntry *e = rk_transcript_get_entry (transcript, i);
        const char *text = rk_transcript_entry_get_text (e);

        if (rk_transcript_entry_get_kind (e) != RK_ENTRY_STREAM || text == NULL)
          continue;
        g_assert_null (strstr (text, "Umsatzbericht"));
        g_assert_null (strstr (text, "Rapport annuel"));
        if (strstr (text, "Monat     datetime64[ns]") != NULL)
          xlsx_seen = TRUE;
        /* and the CSV's day.month.year dates as dates, not as numbers
         * with '.' for thousands */
        if (strstr (text, "Filiale") != NULL)
          {
            g_assert_nonnull (strstr (text, "2023-01-03"));
            g_assert_null (strstr (text, "3012023"));
          }
      }
    g_assert_true (xlsx_seen);
  }

  notebook = rk_transcript_to_notebook (transcript, rk_session_get_workspace (rk_conversation_get_session (conv)), NULL, &error);
  g_assert_no_error (error);

  /* The prelude replays each file's reading: no guessing for these. */
  prelude = prelude_of (notebook);
  message_lines ("prelude", prelude);
  g_assert_true (g_str_has_prefix (prelude, "# "));
  g_assert_nonnull (strstr (prelude, "try:\n    import reckon\n"));
  g_assert_nonnull (strstr (prelude, "'umsatz.csv': {\n            'read_csv': dict(encoding="));
  g_assert_nonnull (strstr (prelude, "sep=';'"));
  g_assert_nonnull (strstr (prelude, "decimal=','"));
  g_assert_nonnull (strstr (prelude, "'Bericht': dict(header=3)"));
  g_assert_nonnull (strstr (prelude, "'villes.ods': {"));

  /* A conversation whose workspace is gone still has its readings, in its
   * attachment entries. */
  notebook_no_ws = rk_transcript_to_notebook (transcript, NULL, NULL, &error);
  g_assert_no_error (error);
  prelude_no_ws = prelude_of (notebook_no_ws);
  g_assert_cmpstr (prelude_no_ws, ==, prelude);

  nb_path = g_build_filename (root, "conversation.ipynb", NULL);
  g_assert_true (g_file_set_contents (nb_path, notebook, -1, NULL));
  checker = g_build_filename (source_root, "tests", "integration", "check-exports.py", NULL);
  {
    const char *argv[] = { "/usr/bin/python3", checker, nb_path, "-", paths[0], paths[1], paths[2], NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &out, &err, &status, &error));
    g_assert_no_error (error);
  }
  message_lines ("check-exports.py", out);
  if (!g_spawn_check_wait_status (status, NULL) && strstr (out, "SKIP") != NULL)
    g_test_skip (out);
  else if (!g_spawn_check_wait_status (status, NULL))
    {
      message_lines ("its errors", err);
      g_error ("check-exports.py failed");
    }

  g_signal_handlers_disconnect_by_data (conv, &w);
  rk_conversation_close (conv);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_free (paths[i]);
  if (g_getenv ("RECKON_KEEP_EXPORTS") == NULL)
    rk_workspace_delete_folder (root, NULL);
  else
    g_test_message ("files and notebook kept in %s", root);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/notebook-readings/awkward-files", test_awkward_files);

  return g_test_run ();
}
