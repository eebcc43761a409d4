/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-conversation.c — RkConversation and RkConversationStore end to end:
 * the real sandbox and kernel, the scripted model server over real HTTP.
 * Files and profiles, questions in both wire formats with approval, typed
 * code, stop, restore after the object is gone, expiry then restart. */
#define G_LOG_DOMAIN "test-conversation"
#include "config.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "rk-conversation-store.h"
#include "rk-mock-server.h"
#include "rk-test-kernel.h"
#include "rk-workspace.h"

typedef struct
{
  char                *root;         /* scratch: data/, sessions/, files/ */
  char                *data_dir;
  char                *sessions_dir;
  RkConversationStore *store;
  RkModelClient       *client;
  RkMockServer        *server;
  RkConversation      *conv;
  GAsyncResult        *result;
  guint                n_busy;       /* notify::busy */
  guint                n_pending;    /* notify::pending-approval to a cell id */
  guint                n_running;    /* notify::running-cell to a cell id */
  RkAgentDecision      decision;
  gboolean             stop_when_running;
  gboolean             skip;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *reason = NULL;
  g_autoptr(GError) error = NULL;

  memset (f, 0, sizeof *f);
  if (!rk_test_kernel_sandbox_usable (&reason))
    {
      g_test_skip (reason);
      f->skip = TRUE;
      return;
    }
  f->root = g_dir_make_tmp ("rk-conversation-XXXXXX", NULL);
  f->data_dir = g_build_filename (f->root, "data", NULL);
  f->sessions_dir = g_build_filename (f->root, "sessions", NULL);
  f->store = rk_conversation_store_new (f->data_dir, f->sessions_dir, &error);
  g_assert_no_error (error);
  f->client = rk_model_client_new ();
  rk_model_client_set_model (f->client, "m");
  rk_model_client_set_idle_timeout (f->client, 5);
  f->decision = RK_AGENT_DECISION_RUN;
}

static void
drop_conversation (Fixture *f)
{
  RkConversation *conv = g_steal_pointer (&f->conv);

  if (conv == NULL)
    return;
  /* A finished task keeps its source object alive. */
  g_clear_object (&f->result);
  g_signal_handlers_disconnect_by_data (conv, f);
  g_signal_handlers_disconnect_by_data (rk_conversation_get_agent (conv), f);
  rk_conversation_close (conv);
  g_object_add_weak_pointer (G_OBJECT (conv), (gpointer *) &conv);
  g_object_unref (conv);
  /* Background work ends with close; the object must then go. */
  for (int i = 0; i < 500 && conv != NULL; i++)
    g_main_context_iteration (NULL, i > 0);
  g_assert_null (conv);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->skip)
    return;
  drop_conversation (f);
  g_clear_pointer (&f->server, rk_mock_server_free);
  g_clear_object (&f->result);
  g_assert_finalize_object (g_steal_pointer (&f->store));
  g_clear_object (&f->client);
  rk_workspace_delete_folder (f->root, NULL);
  g_free (f->root);
  g_free (f->data_dir);
  g_free (f->sessions_dir);
}

static void
notify_cb (RkConversation *conv,
           GParamSpec     *pspec,
           Fixture        *f)
{
  const char *prop = g_param_spec_get_name (pspec);

  if (g_str_equal (prop, "busy"))
    f->n_busy++;
  else if (g_str_equal (prop, "pending-approval") && rk_conversation_get_pending_approval (conv) != NULL)
    {
      f->n_pending++;
      rk_conversation_approve (conv, f->decision, NULL);
    }
  else if (g_str_equal (prop, "running-cell") && rk_conversation_get_running_cell (conv) != NULL)
    {
      f->n_running++;
      g_assert_cmpint (rk_conversation_get_cell_started (conv), >, 0);
    }
}

static void
output_cb (RkAgent            *agent,
           const RkAgentEvent *event,
           Fixture            *f)
{
  if (event->type == RK_AGENT_EVENT_OUTPUT && f->stop_when_running && f->conv != NULL
      && event->text != NULL && strstr (event->text, "spinning") != NULL)
    rk_conversation_stop (f->conv);
}

static void
watch (Fixture        *f,
       RkConversation *conv)
{
  f->conv = conv;
  g_signal_connect (conv, "notify", G_CALLBACK (notify_cb), f);
  g_signal_connect (rk_conversation_get_agent (conv), "event", G_CALLBACK (output_cb), f);
}

static void
new_conversation (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  RkConversation *conv = rk_conversation_store_create (f->store, f->client, &error);

  g_assert_no_error (error);
  g_assert_nonnull (conv);
  watch (f, conv);
}

static void
result_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Fixture *f = user_data;
  f->result = g_object_ref (result);
}

static void
wait_result (Fixture *f)
{
  gint64 end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  while (f->result == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, TRUE);
    }
}

static void
opened_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* Reopens a saved conversation the way the app does, in the background. */
static RkConversation *
open_saved (RkConversationStore  *store,
            const char           *id,
            RkModelClient        *client,
            GError              **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  gint64 end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  rk_conversation_store_open_async (store, id, client, NULL, opened_cb, &result);
  while (result == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, TRUE);
    }
  return rk_conversation_store_open_finish (store, result, error);
}

static char *
run_code (Fixture     *f,
          const char  *code,
          GError     **error)
{
  g_clear_object (&f->result);
  rk_conversation_run_code_async (f->conv, code, RK_CODE_PROPOSED, NULL, result_cb, f);
  wait_result (f);
  return rk_conversation_run_code_finish (f->conv, f->result, error);
}

static char *
ask (Fixture     *f,
     const char  *question,
     GError     **error)
{
  g_clear_object (&f->result);
  rk_conversation_ask_async (f->conv, question, NULL, result_cb, f);
  wait_result (f);
  return rk_conversation_ask_finish (f->conv, f->result, error);
}

static char *
write_file (Fixture    *f,
            const char *name,
            const char *contents)
{
  g_autofree char *dir = g_build_filename (f->root, "files", NULL);
  char *path = g_build_filename (dir, name, NULL);

  g_mkdir_with_parents (dir, 0700);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

static void
add_paths (Fixture     *f,
           const char **paths,
           guint        n)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (files, g_file_new_for_path (paths[i]));
  rk_conversation_add_files (f->conv, (GFile **) files->pdata, n);
}

/* The file @name of the conversation (it must be there). */
static RkConversationFile *
file_of (Fixture    *f,
         const char *name)
{
  RkConversationFile *file = rk_conversation_lookup_file (f->conv, name);

  g_assert_nonnull (file);
  return file;
}

static gboolean
is_busy (Fixture    *f,
         const char *name)
{
  return rk_conversation_file_get_busy (file_of (f, name));
}

/* The profile of @name, or NULL (busy, or no such file). */
static RkFileProfile *
profile_of (Fixture    *f,
            const char *name)
{
  RkConversationFile *file = rk_conversation_lookup_file (f->conv, name);

  return file != NULL ? rk_conversation_file_get_profile (file) : NULL;
}

static void
wait_profiled (Fixture    *f,
               const char *name)
{
  gint64 end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

  while (is_busy (f, name))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, TRUE);
    }
  g_assert_nonnull (profile_of (f, name));
}

/* What a window bound to a file saw: each state it was notified of, in
 * turn, and how often the other properties were notified. */
typedef struct
{
  RkConversationFileState states[8];
  guint                   n_states;
  guint                   n_profile;
  guint                   n_progress;
  guint                   n_copied;
  guint                   n_name;
} FileWatch;

static void
file_notify_cb (RkConversationFile *file,
                GParamSpec         *pspec,
                FileWatch          *w)
{
  const char *prop = g_param_spec_get_name (pspec);

  if (g_str_equal (prop, "state"))
    {
      g_assert_cmpuint (w->n_states, <, G_N_ELEMENTS (w->states));
      w->states[w->n_states++] = rk_conversation_file_get_state (file);
    }
  else if (g_str_equal (prop, "profile"))
    w->n_profile++;
  else if (g_str_equal (prop, "progress"))
    w->n_progress++;
  else if (g_str_equal (prop, "copied"))
    w->n_copied++;
  else if (g_str_equal (prop, "name"))
    w->n_name++;
}

static RkTranscriptEntry *
find_entry (RkTranscript *t,
            RkEntryKind   kind,
            guint         nth)
{
  for (guint i = 0; i < rk_transcript_get_n_entries (t); i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (t, i);

      if (rk_transcript_entry_get_kind (e) == kind && nth-- == 0)
        return e;
    }
  return NULL;
}

/* -- tests -------------------------------------------------------------------- */

/* Files: an entry at once, then a profile; a broken one gets an error
 * sentence; the model is told about the good one. */
static void
test_files (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *csv = NULL;
  g_autofree char *missing = NULL;
  g_autofree char *prompt = NULL;
  const char *paths[2];
  RkTranscript *t;
  RkTranscriptEntry *e;
  RkFileProfile *p;
  GListModel *files;
  g_autoptr(RkConversationFile) good = NULL;
  g_autoptr(RkConversationFile) bad = NULL;
  FileWatch good_seen = { 0 }, bad_seen = { 0 };

  if (f->skip)
    return;
  new_conversation (f);
  t = rk_conversation_get_transcript (f->conv);
  files = rk_conversation_get_files (f->conv);
  csv = write_file (f, "sales data.csv", "month,total\n1,10\n2,30\n3,20\n");
  missing = g_build_filename (f->root, "no-such-file.csv", NULL);
  paths[0] = csv;
  paths[1] = missing;
  add_paths (f, paths, 2);

  /* The entries and the files exist at once, before any copy or profile. */
  g_assert_cmpuint (rk_transcript_get_n_entries (t), ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (files), ==, 2);
  e = find_entry (t, RK_ENTRY_ATTACHMENT, 0);
  g_assert_cmpstr (rk_transcript_entry_get_title (e), ==, "sales data.csv");
  good = g_list_model_get_item (files, 0);
  g_assert_true (good == file_of (f, rk_transcript_entry_get_name (e)));
  g_assert_cmpuint (rk_conversation_file_get_entry_id (good), ==, rk_transcript_entry_get_id (e));
  g_assert_cmpstr (rk_conversation_file_get_original (good), ==, csv);
  g_assert_cmpint (rk_conversation_file_get_state (good), ==, RK_CONVERSATION_FILE_COPYING);
  g_assert_true (rk_conversation_file_get_busy (good));
  g_assert_false (rk_conversation_file_get_copied (good));
  g_assert_null (rk_conversation_file_get_profile (good));
  g_assert_cmpfloat (rk_conversation_file_get_progress (good), ==, -1);
  g_assert_true (rk_conversation_is_profiling (f->conv));
  g_assert_cmpstr (rk_conversation_get_title (f->conv), ==, "sales data.csv");
  bad = g_list_model_get_item (files, 1);
  g_signal_connect (good, "notify", G_CALLBACK (file_notify_cb), &good_seen);
  g_signal_connect (bad, "notify", G_CALLBACK (file_notify_cb), &bad_seen);

  wait_profiled (f, rk_transcript_entry_get_name (e));
  p = rk_conversation_file_get_profile (good);
  g_assert_null (p->error);
  g_assert_cmpuint (p->tables->len, ==, 1);
  g_assert_cmpuint (((RkTableProfile *) g_ptr_array_index (p->tables, 0))->rows, ==, 3);
  g_assert_nonnull (rk_transcript_entry_get_detail (e));
  /* Copied, waited for the profiler, read: each state once, in turn; the
   * profile and the copy notified once; no name change. */
  g_assert_cmpuint (good_seen.n_states, ==, 3);
  g_assert_cmpint (good_seen.states[0], ==, RK_CONVERSATION_FILE_WAITING);
  g_assert_cmpint (good_seen.states[1], ==, RK_CONVERSATION_FILE_PROFILING);
  g_assert_cmpint (good_seen.states[2], ==, RK_CONVERSATION_FILE_READY);
  g_assert_cmpuint (good_seen.n_profile, ==, 1);
  g_assert_cmpuint (good_seen.n_copied, ==, 1);
  g_assert_cmpuint (good_seen.n_name, ==, 0);
  g_assert_true (rk_conversation_file_get_copied (good));
  g_assert_cmpfloat (rk_conversation_file_get_progress (good), ==, -1);
  g_assert_null (rk_conversation_file_get_estimate (good));

  e = find_entry (t, RK_ENTRY_ATTACHMENT, 1);
  wait_profiled (f, rk_transcript_entry_get_name (e));
  g_assert_false (rk_conversation_is_profiling (f->conv));
  p = rk_conversation_file_get_profile (bad);
  g_assert_nonnull (p->error);
  g_assert_null (strchr (p->error, '\n'));
  /* Never copied: straight to FAILED, nothing else. */
  g_assert_cmpuint (bad_seen.n_states, ==, 1);
  g_assert_cmpint (bad_seen.states[0], ==, RK_CONVERSATION_FILE_FAILED);
  g_assert_cmpuint (bad_seen.n_profile, ==, 1);
  g_assert_cmpuint (bad_seen.n_copied + bad_seen.n_progress + bad_seen.n_name, ==, 0);
  g_assert_false (rk_conversation_file_get_copied (bad));
  g_signal_handlers_disconnect_by_data (good, &good_seen);
  g_signal_handlers_disconnect_by_data (bad, &bad_seen);

  prompt = rk_agent_build_system_prompt (rk_conversation_get_agent (f->conv));
  g_assert_nonnull (strstr (prompt, rk_transcript_entry_get_name (find_entry (t, RK_ENTRY_ATTACHMENT, 0))));
  g_assert_nonnull (strstr (prompt, "total"));
}

/* Many files at once: each gets its profile (profiled a few at a time);
 * one cancelled while it waits gets its sentence at once. */
static void
test_many_files (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  RkTranscript *t;
  guint n = 10;

  if (f->skip)
    return;
  new_conversation (f);
  t = rk_conversation_get_transcript (f->conv);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("part-%u.csv", i);
      g_autofree char *csv = g_strdup_printf ("id,value\n%u,%u\n%u,%u\n", i, i * 3, i + 1, i * 5);

      g_ptr_array_add (paths, write_file (f, name, csv));
    }
  add_paths (f, (const char **) paths->pdata, n);
  g_assert_cmpuint (rk_transcript_get_n_entries (t), ==, n);

  /* The last one waits behind the others: cancel it. */
  rk_conversation_cancel_profile (f->conv, "part-9.csv");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("part-%u.csv", i);
      RkFileProfile *p;

      wait_profiled (f, name);
      p = profile_of (f, name);
      if (i == n - 1)
        {
          g_assert_nonnull (p->error);
          g_assert_cmpint (rk_conversation_file_get_state (file_of (f, name)), ==, RK_CONVERSATION_FILE_FAILED);
        }
      else
        {
          if (p->error != NULL)
            g_test_message ("%s: %s", name, p->error);
          g_assert_null (p->error);
          g_assert_cmpuint (((RkTableProfile *) g_ptr_array_index (p->tables, 0))->rows, ==, 2);
        }
      g_assert_nonnull (rk_transcript_entry_get_detail (find_entry (t, RK_ENTRY_ATTACHMENT, i)));
    }
}

static void
test_cancel_profile (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GString) big = g_string_new ("a,b\n");
  g_autofree char *path = NULL;
  const char *paths[1];
  RkTranscriptEntry *e;
  RkFileProfile *p;

  if (f->skip)
    return;
  new_conversation (f);
  for (guint i = 0; i < 200000; i++)
    g_string_append_printf (big, "%u,%u\n", i, i * 7);
  path = write_file (f, "big.csv", big->str);
  paths[0] = path;
  add_paths (f, paths, 1);
  e = find_entry (rk_conversation_get_transcript (f->conv), RK_ENTRY_ATTACHMENT, 0);
  g_assert_true (is_busy (f, "big.csv"));
  rk_conversation_cancel_profile (f->conv, "big.csv");
  wait_profiled (f, "big.csv");
  p = profile_of (f, "big.csv");
  g_assert_nonnull (p->error);
  g_assert_cmpint (rk_conversation_file_get_state (file_of (f, "big.csv")), ==, RK_CONVERSATION_FILE_FAILED);
  g_assert_nonnull (rk_transcript_entry_get_detail (e));
}

static guint
n_attachments (RkTranscript *t)
{
  guint n = 0;

  while (find_entry (t, RK_ENTRY_ATTACHMENT, n) != NULL)
    n++;
  return n;
}

/* Read again with other choices: the card's entry is read afresh, the new
 * profile replaces the old, and the kernel's reckon.load follows it. A
 * file being read, or one the conversation does not have, is refused. */
static void
test_reprofile (Fixture       *f,
                gconstpointer  data)
{
  RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *out = NULL;
  const char *paths[1];
  RkFileProfile *p;
  FileWatch seen = { 0 };

  if (f->skip)
    return;
  rk_model_client_set_endpoint (f->client, "http://127.0.0.1:9");
  new_conversation (f);
  csv = write_file (f, "sales.csv", "month,total\n1,10\n2,30\n3,20\n");
  paths[0] = csv;
  add_paths (f, paths, 1);
  options.header = RK_PROFILE_HEADER_NO;
  /* Still being read: refused. */
  g_assert_false (rk_conversation_reprofile (f->conv, "sales.csv", &options));
  wait_profiled (f, "sales.csv");
  p = profile_of (f, "sales.csv");
  g_assert_null (p->error);
  g_assert_cmpuint (((RkTableProfile *) g_ptr_array_index (p->tables, 0))->rows, ==, 3);

  g_assert_false (rk_conversation_reprofile (f->conv, "no such.csv", &options));
  g_assert_false (rk_conversation_reprofile (f->conv, "../files/sales.csv", &options));

  /* The first row as data: four rows now. */
  g_signal_connect (file_of (f, "sales.csv"), "notify", G_CALLBACK (file_notify_cb), &seen);
  g_assert_true (rk_conversation_reprofile (f->conv, "sales.csv", &options));
  g_assert_true (is_busy (f, "sales.csv"));
  g_assert_null (profile_of (f, "sales.csv"));
  /* The profile went (once); the file waited for the profiler, which
   * started at once (a slot was free). */
  g_assert_cmpuint (seen.n_profile, ==, 1);
  g_assert_cmpuint (seen.n_states, ==, 2);
  g_assert_cmpint (seen.states[0], ==, RK_CONVERSATION_FILE_WAITING);
  g_assert_cmpint (seen.states[1], ==, RK_CONVERSATION_FILE_PROFILING);
  g_assert_null (rk_transcript_entry_get_detail (find_entry (rk_conversation_get_transcript (f->conv),
                                                             RK_ENTRY_ATTACHMENT, 0)));
  g_assert_false (rk_conversation_reprofile (f->conv, "sales.csv", &options));
  wait_profiled (f, "sales.csv");
  p = profile_of (f, "sales.csv");
  g_assert_null (p->error);
  g_assert_cmpuint (((RkTableProfile *) g_ptr_array_index (p->tables, 0))->rows, ==, 4);
  g_assert_cmpuint (seen.n_profile, ==, 2);
  g_assert_cmpuint (seen.n_states, ==, 3);
  g_assert_cmpint (seen.states[2], ==, RK_CONVERSATION_FILE_READY);
  g_signal_handlers_disconnect_by_data (file_of (f, "sales.csv"), &seen);
  g_assert_nonnull (rk_transcript_entry_get_detail (find_entry (rk_conversation_get_transcript (f->conv),
                                                                RK_ENTRY_ATTACHMENT, 0)));
  out = run_code (f, "print('rows', len(reckon.load('sales.csv')))\n", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "rows 4"));
}

static gboolean
session_has (Fixture    *f,
             const char *name)
{
  GPtrArray *files = rk_session_get_files (rk_conversation_get_session (f->conv));

  for (guint i = 0; i < files->len; i++)
    if (g_strcmp0 (((RkSessionFile *) g_ptr_array_index (files, i))->name, name) == 0)
      return TRUE;
  return FALSE;
}

/* A file taken out of the conversation: its entry, its workspace copy and
 * what the model is told go; the original stays, and its path comes back
 * (to add it again). Hostile or unknown names remove nothing; a file still
 * being read is removed once its reading stops. */
static void
test_remove_file (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GString) big = g_string_new ("a,b\n");
  g_autofree char *secret = NULL;
  g_autofree char *sales = NULL;
  g_autofree char *large = NULL;
  g_autofree char *original = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *prompt = NULL;
  const char *paths[2];
  RkTranscript *t;
  RkConversationFile *removed;
  FileWatch seen = { 0 };
  gint64 end;

  if (f->skip)
    return;
  rk_model_client_set_endpoint (f->client, "http://127.0.0.1:9");
  new_conversation (f);
  t = rk_conversation_get_transcript (f->conv);
  secret = write_file (f, "secret.csv", "codeword,value\nzebra,1\n");
  sales = write_file (f, "sales.csv", "month,total\n1,10\n");
  paths[0] = secret;
  paths[1] = sales;
  add_paths (f, paths, 2);
  wait_profiled (f, "secret.csv");
  wait_profiled (f, "sales.csv");
  copy = g_build_filename (rk_workspace_get_path (rk_session_get_workspace (rk_conversation_get_session (f->conv))), "secret.csv", NULL);
  g_assert_true (g_file_test (copy, G_FILE_TEST_IS_REGULAR));

  g_assert_null (rk_conversation_remove_file (f->conv, "no such.csv"));
  g_assert_null (rk_conversation_remove_file (f->conv, "../files/secret.csv"));
  g_assert_null (rk_conversation_remove_file (f->conv, secret));
  g_assert_cmpuint (n_attachments (t), ==, 2);

  removed = g_object_ref (file_of (f, "secret.csv"));
  g_signal_connect (removed, "notify", G_CALLBACK (file_notify_cb), &seen);
  original = rk_conversation_remove_file (f->conv, "secret.csv");
  g_assert_cmpstr (original, ==, secret);
  g_assert_cmpuint (n_attachments (t), ==, 1);
  g_assert_cmpstr (rk_transcript_entry_get_name (find_entry (t, RK_ENTRY_ATTACHMENT, 0)), ==, "sales.csv");
  g_assert_null (rk_conversation_lookup_file (f->conv, "secret.csv"));
  g_assert_cmpuint (g_list_model_get_n_items (rk_conversation_get_files (f->conv)), ==, 1);
  g_assert_false (session_has (f, "secret.csv"));
  /* The object says so, once, and is no longer the copy's; nothing else
   * holds it. */
  g_assert_cmpuint (seen.n_states, ==, 1);
  g_assert_cmpint (seen.states[0], ==, RK_CONVERSATION_FILE_REMOVED);
  g_assert_cmpuint (seen.n_copied, ==, 1);
  g_assert_false (rk_conversation_file_get_copied (removed));
  g_assert_cmpuint (rk_conversation_file_get_entry_id (removed), ==, 0);
  g_signal_handlers_disconnect_by_data (removed, &seen);
  g_assert_finalize_object (g_steal_pointer (&removed));
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (secret, G_FILE_TEST_IS_REGULAR));
  prompt = rk_agent_build_system_prompt (rk_conversation_get_agent (f->conv));
  g_assert_null (strstr (prompt, "secret.csv"));
  g_assert_null (strstr (prompt, "codeword"));
  g_assert_nonnull (strstr (prompt, "sales.csv"));
  g_assert_null (rk_conversation_remove_file (f->conv, "secret.csv"));

  /* Added again (the toast's Undo): read as when first added. */
  paths[0] = original;
  add_paths (f, paths, 1);
  wait_profiled (f, "secret.csv");
  g_assert_true (g_file_test (copy, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (n_attachments (t), ==, 2);

  /* Removed while it is read: gone when the reading stops. */
  for (guint i = 0; i < 200000; i++)
    g_string_append_printf (big, "%u,%u\n", i, i * 7);
  large = write_file (f, "big.csv", big->str);
  paths[0] = large;
  add_paths (f, paths, 1);
  g_assert_true (is_busy (f, "big.csv"));
  removed = g_object_ref (file_of (f, "big.csv"));
  g_clear_pointer (&original, g_free);
  original = rk_conversation_remove_file (f->conv, "big.csv");
  g_assert_cmpstr (original, ==, large);
  g_assert_cmpuint (n_attachments (t), ==, 2);
  /* Out of the list at once; its copy goes when its work stops, and
   * then nothing of the conversation holds it. */
  g_assert_null (rk_conversation_lookup_file (f->conv, "big.csv"));
  g_assert_cmpint (rk_conversation_file_get_state (removed), ==, RK_CONVERSATION_FILE_REMOVED);
  g_assert_null (rk_conversation_file_get_profile (removed));
  g_object_add_weak_pointer (G_OBJECT (removed), (gpointer *) &removed);
  g_object_unref (removed);
  end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  while (removed != NULL || session_has (f, "big.csv"))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, TRUE);
    }
  g_clear_pointer (&copy, g_free);
  copy = g_build_filename (rk_workspace_get_path (rk_session_get_workspace (rk_conversation_get_session (f->conv))), "big.csv", NULL);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (large, G_FILE_TEST_IS_REGULAR));
}

static const char *COMPUTE =
  "import pandas as pd\n"
  "df = pd.read_csv('sales.csv')\n"
  "print('total', df['total'].sum())\n";

/* A question in each wire format, with approval: the properties a window
 * binds move as they should, the answer comes back. */
static void
test_ask (Fixture       *f,
          gconstpointer  data)
{
  gboolean ollama = g_str_equal (data, "ollama");
  g_autoptr(JsonNode) code_node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *code = NULL;
  g_autofree char *script = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) sent = NULL;
  g_autofree char *sent_text = NULL;
  g_autofree char *full_title = NULL;
  const char *paths[1];
  RkTranscript *t;

  if (f->skip)
    return;
  json_node_set_string (code_node, COMPUTE);
  code = json_to_string (code_node, FALSE);
  script = g_strdup_printf ("{\"api\":\"%s\",\"models\":[\"m\"],\"turns\":["
                            "{\"text\":\"Let me add it up.\",\"code\":%s},"
                            "{\"text\":\"The total is 60.\"}]}",
                            ollama ? "ollama" : "openai", code);
  f->server = rk_mock_server_new (script, &error);
  g_assert_no_error (error);
  rk_model_client_set_endpoint (f->client, rk_mock_server_get_url (f->server));
  rk_model_client_set_api (f->client, ollama ? RK_MODEL_API_OLLAMA : RK_MODEL_API_OPENAI);

  new_conversation (f);
  rk_agent_set_use_tools (rk_conversation_get_agent (f->conv), FALSE);
  csv = write_file (f, "sales.csv", "month,total\n1,10\n2,30\n3,20\n");
  paths[0] = csv;
  add_paths (f, paths, 1);
  wait_profiled (f, "sales.csv");

  answer = ask (f, "What is the total of the sales, counting every month there is in the file?\nPlease be exact.", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (answer, ==, "The total is 60.");
  /* Busy went on and off once; one approval; one run. */
  g_assert_cmpuint (f->n_busy, ==, 2);
  g_assert_false (rk_conversation_get_busy (f->conv));
  g_assert_cmpuint (f->n_pending, ==, 1);
  g_assert_cmpuint (f->n_running, ==, 1);
  g_assert_null (rk_conversation_get_pending_approval (f->conv));
  g_assert_null (rk_conversation_get_running_cell (f->conv));
  /* Cut for lists; an export has the whole line. */
  g_assert_cmpstr (rk_conversation_get_title (f->conv), ==, "What is the total of the sales, counting every month there…");
  full_title = rk_conversation_dup_full_title (f->conv);
  g_assert_cmpstr (full_title, ==, "What is the total of the sales, counting every month there is in the file?");
  g_assert_cmpstr (rk_conversation_get_last_question (f->conv), ==, "What is the total of the sales, counting every month there is in the file?\nPlease be exact.");

  t = rk_conversation_get_transcript (f->conv);
  g_assert_nonnull (find_entry (t, RK_ENTRY_CODE, 0));
  g_assert_cmpint (rk_transcript_entry_get_decision (find_entry (t, RK_ENTRY_APPROVAL, 0)), ==, RK_DECISION_APPROVED);
  g_assert_cmpstr (rk_transcript_entry_get_text (find_entry (t, RK_ENTRY_STREAM, 0)), ==, "total 60\n");
  g_assert_cmpstr (rk_transcript_entry_get_text (find_entry (t, RK_ENTRY_ANSWER, 0)), ==, "The total is 60.");
  g_assert_true (rk_transcript_answer_repeats (t, find_entry (t, RK_ENTRY_ANSWER, 0)));

  /* The model was told about the file. */
  sent = rk_mock_server_get_chat_request (f->server, 0);
  sent_text = json_to_string (sent, FALSE);
  g_assert_nonnull (strstr (sent_text, "sales.csv"));

  /* Auto-approve: no approval asked; the script has no turn left, so the
   * error comes back as one sentence and the question is kept for Retry. */
  rk_conversation_set_auto_approve (f->conv, TRUE);
  g_assert_cmpint (rk_agent_get_policy (rk_conversation_get_agent (f->conv)), ==, RK_APPROVAL_AUTO);
  g_free (ask (f, "Again?", &error));
  g_assert_nonnull (error);
  g_assert_null (strchr (error->message, '\n'));
  g_assert_cmpstr (rk_conversation_get_last_question (f->conv), ==, "Again?");
  g_assert_false (rk_conversation_get_busy (f->conv));
}

/* A failed question is kept; Retry asks it again. */
static void
test_retry (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *answer = NULL;
  RkTranscriptEntry *e;
  gint64 end;

  if (f->skip)
    return;
  f->server = rk_mock_server_new ("{\"api\":\"openai\",\"models\":[\"m\"],\"turns\":["
                                  "{\"fault\":\"500\"},{\"text\":\"Second time lucky.\"}]}", &error);
  g_assert_no_error (error);
  rk_model_client_set_endpoint (f->client, rk_mock_server_get_url (f->server));
  rk_model_client_set_api (f->client, RK_MODEL_API_OPENAI);
  new_conversation (f);

  rk_conversation_retry (f->conv);     /* nothing asked yet: nothing happens */
  g_assert_false (rk_conversation_get_busy (f->conv));
  answer = ask (f, "Will it work?", &error);
  g_assert_error (error, RK_MODEL_ERROR, RK_MODEL_ERROR_HTTP);
  g_assert_null (answer);
  g_assert_cmpstr (rk_conversation_get_last_question (f->conv), ==, "Will it work?");

  rk_conversation_retry (f->conv);
  g_assert_true (rk_conversation_get_busy (f->conv));
  end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (rk_conversation_get_busy (f->conv))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, TRUE);
    }
  e = find_entry (rk_conversation_get_transcript (f->conv), RK_ENTRY_ANSWER, 0);
  g_assert_nonnull (e);
  g_assert_cmpstr (rk_transcript_entry_get_text (e), ==, "Second time lucky.");
  /* Asked twice, shown once, and sent once in the second request. */
  g_assert_nonnull (find_entry (rk_conversation_get_transcript (f->conv), RK_ENTRY_USER, 0));
  g_assert_null (find_entry (rk_conversation_get_transcript (f->conv), RK_ENTRY_USER, 1));
  g_assert_cmpuint (rk_mock_server_get_n_chat_requests (f->server), ==, 2);
  {
    g_autoptr(JsonNode) body = rk_mock_server_get_chat_request (f->server, 1);
    g_autofree char *text = json_to_string (body, FALSE);
    const char *first = strstr (text, "Will it work?");

    g_assert_nonnull (first);
    g_assert_null (strstr (first + 1, "Will it work?"));
  }
}

/* Typed code runs with no model at all, through the same approval path. */
static void
test_run_code (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  RkTranscript *t;

  if (f->skip)
    return;
  /* No server: nothing listens on this endpoint. */
  rk_model_client_set_endpoint (f->client, "http://127.0.0.1:9");
  new_conversation (f);
  out = run_code (f, "print(6 * 7)\n", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "42"));
  g_assert_cmpuint (f->n_pending, ==, 1);
  g_assert_cmpuint (f->n_running, ==, 1);
  t = rk_conversation_get_transcript (f->conv);
  g_assert_cmpstr (rk_transcript_entry_get_text (find_entry (t, RK_ENTRY_CODE, 0)), ==, "print(6 * 7)\n");
  g_assert_cmpstr (rk_transcript_entry_get_text (find_entry (t, RK_ENTRY_STREAM, 0)), ==, "42\n");

  /* Skip: nothing runs. */
  f->decision = RK_AGENT_DECISION_SKIP;
  g_free (run_code (f, "print('never')\n", &error));
  g_assert_no_error (error);
  g_assert_null (find_entry (t, RK_ENTRY_STREAM, 1));

  /* A question without a model server fails with one sentence. */
  g_free (ask (f, "Anyone there?", &error));
  g_assert_nonnull (error);
  g_assert_null (strchr (error->message, '\n'));
}

/* Stop interrupts a running cell; the conversation stays usable. */
static void
test_stop (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;

  if (f->skip)
    return;
  new_conversation (f);
  rk_conversation_set_auto_approve (f->conv, TRUE);
  f->stop_when_running = TRUE;
  out = run_code (f, "kept = 7\nprint('spinning', flush=True)\nwhile True:\n    pass\n", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (out);
  g_clear_error (&error);
  g_assert_false (rk_conversation_get_busy (f->conv));
  g_assert_null (rk_conversation_get_running_cell (f->conv));

  f->stop_when_running = FALSE;
  out = run_code (f, "print('kept is', kept)\n", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "kept is 7"));
}

/* Closed and dropped, then reopened from the store: everything is there. */
static void
test_restore (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkConversationStore) store2 = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *out = NULL;
  g_autofree char *id = NULL;
  g_autofree char *workspace = NULL;
  g_autofree char *full_title = NULL;
  const char *paths[1];
  RkConversationInfo *info;
  RkTranscript *t;
  guint n_entries;

  if (f->skip)
    return;
  new_conversation (f);
  rk_conversation_set_auto_approve (f->conv, TRUE);
  csv = write_file (f, "sales.csv", "month,total\n1,10\n2,30\n");
  paths[0] = csv;
  add_paths (f, paths, 1);
  wait_profiled (f, "sales.csv");
  out = run_code (f, "x = 5\nprint('x is', x)\n", &error);
  g_assert_no_error (error);
  rk_conversation_set_title (f->conv, "Sales check");
  id = g_strdup (rk_conversation_get_id (f->conv));
  workspace = g_strdup (rk_workspace_get_path (rk_session_get_workspace (rk_conversation_get_session (f->conv))));
  n_entries = rk_transcript_get_n_entries (rk_conversation_get_transcript (f->conv));
  drop_conversation (f);

  /* A new store (a new start of Reckon) lists it. */
  store2 = rk_conversation_store_new (f->data_dir, f->sessions_dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store2)), ==, 1);
  info = rk_conversation_store_lookup (store2, id);
  g_assert_nonnull (info);
  g_assert_cmpstr (rk_conversation_info_get_title (info), ==, "Sales check");
  g_assert_false (rk_conversation_info_get_expired (info));

  watch (f, open_saved (store2, id, f->client, &error));
  g_assert_no_error (error);
  g_assert_false (rk_conversation_get_expired (f->conv));
  g_assert_cmpstr (rk_conversation_get_title (f->conv), ==, "Sales check");
  full_title = rk_conversation_dup_full_title (f->conv);
  g_assert_cmpstr (full_title, ==, "Sales check");
  t = rk_conversation_get_transcript (f->conv);
  /* Everything, plus a note that variables are gone. */
  g_assert_cmpuint (rk_transcript_get_n_entries (t), ==, n_entries + 1);
  g_assert_cmpstr (rk_transcript_entry_get_name (rk_transcript_get_entry (t, n_entries)), ==, "kernel-restarted");
  g_assert_nonnull (profile_of (f, "sales.csv"));
  g_assert_cmpuint (profile_of (f, "sales.csv")->tables->len, ==, 1);
  /* Reopened: where it came from, ready, its copy there. */
  g_assert_cmpstr (rk_conversation_file_get_original (file_of (f, "sales.csv")), ==, csv);
  g_assert_cmpint (rk_conversation_file_get_state (file_of (f, "sales.csv")), ==, RK_CONVERSATION_FILE_READY);
  g_assert_true (rk_conversation_file_get_copied (file_of (f, "sales.csv")));

  /* The files are still there; the session works. */
  g_clear_pointer (&out, g_free);
  rk_conversation_set_auto_approve (f->conv, TRUE);
  out = run_code (f, "print(open('sales.csv').read().count(chr(10)))\n", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "3"));
  drop_conversation (f);

  /* Its workspace gone (expired while Reckon was closed): marked expired.
   * Opened in the background this time. */
  g_assert_true (rk_workspace_delete_folder (workspace, NULL));
  g_clear_object (&f->result);
  rk_conversation_store_open_async (store2, id, f->client, NULL, result_cb, f);
  wait_result (f);
  watch (f, rk_conversation_store_open_finish (store2, f->result, &error));
  g_clear_object (&f->result);
  g_assert_no_error (error);
  g_assert_true (rk_conversation_get_expired (f->conv));
  g_assert_true (rk_conversation_info_get_expired (info));
  drop_conversation (f);

  /* Delete: gone from the list and from disk. */
  g_assert_true (rk_conversation_store_delete (store2, id, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store2)), ==, 0);
  g_assert_null (open_saved (store2, id, f->client, &error));
  g_assert_error (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_NOT_FOUND);
  g_assert_finalize_object (g_steal_pointer (&store2));
}

static void
restart_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Fixture *f = user_data;
  f->result = g_object_ref (result);
}

/* Idle expiry, then "Restart session": files back, code replayed. */
static void
test_expiry_restart (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *out = NULL;
  const char *paths[1];
  RkTranscript *t;
  gint64 end;

  if (f->skip)
    return;
  new_conversation (f);
  rk_conversation_set_auto_approve (f->conv, TRUE);
  csv = write_file (f, "sales.csv", "month,total\n1,10\n2,30\n");
  paths[0] = csv;
  add_paths (f, paths, 1);
  wait_profiled (f, "sales.csv");
  out = run_code (f, "y = 41\n", &error);
  g_assert_no_error (error);

  rk_conversation_set_idle_timeout (f->conv, 2);
  end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (!rk_conversation_get_expired (f->conv))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, TRUE);
    }
  t = rk_conversation_get_transcript (f->conv);
  g_assert_cmpstr (rk_transcript_entry_get_name (rk_transcript_get_entry (t, rk_transcript_get_n_entries (t) - 1)),
                   ==, "session-expired");
  g_assert_true (rk_conversation_info_get_expired (rk_conversation_store_lookup (f->store, rk_conversation_get_id (f->conv))));

  /* Code cannot run now, and says so. */
  g_clear_pointer (&out, g_free);
  out = run_code (f, "print(y)\n", &error);
  g_assert_error (error, RK_SESSION_ERROR, RK_SESSION_ERROR_EXPIRED);
  g_clear_error (&error);

  rk_conversation_set_idle_timeout (f->conv, 0);
  g_clear_object (&f->result);
  rk_conversation_restart_async (f->conv, TRUE, NULL, restart_cb, f);
  wait_result (f);
  g_assert_true (rk_conversation_restart_finish (f->conv, f->result, &error));
  g_assert_no_error (error);
  g_assert_false (rk_conversation_get_expired (f->conv));

  g_clear_pointer (&out, g_free);
  out = run_code (f, "print(y + 1, open('sales.csv').read().count(chr(10)))\n", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "42 3"));
}

/* Damaged saved conversations are skipped, not fatal. */
static void
test_store_damaged (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkConversationStore) store2 = NULL;
  g_autofree char *bad_dir = NULL;
  g_autofree char *bad = NULL;

  if (f->skip)
    return;
  new_conversation (f);
  bad_dir = g_build_filename (f->data_dir, "broken", NULL);
  g_mkdir_with_parents (bad_dir, 0700);
  bad = g_build_filename (bad_dir, "conversation.json", NULL);
  g_assert_true (g_file_set_contents (bad, "{\"format\":\"reckon-conversation\",\"version\":1,\"id\":\"../x\"}", -1, NULL));

  g_test_expect_message ("rk-conversation", G_LOG_LEVEL_MESSAGE, "*broken*");
  store2 = rk_conversation_store_new (f->data_dir, f->sessions_dir, &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (store2)), ==, 1);
  g_assert_null (open_saved (store2, "broken", f->client, &error));
  g_assert_error (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_CORRUPT);
  g_clear_error (&error);
  g_assert_null (open_saved (store2, "../etc", f->client, &error));
  g_assert_error (error, RK_CONVERSATION_STORE_ERROR, RK_CONVERSATION_STORE_ERROR_NOT_FOUND);
  g_assert_finalize_object (g_steal_pointer (&store2));
}

/* Settings from the real schema (compiled into the build tree) in memory:
 * read at once and followed. */
static void
test_settings (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *schema_dir = NULL;
  g_autoptr(GSettingsSchemaSource) source = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettingsBackend) backend = NULL;
  g_autoptr(GSettings) settings = NULL;
  RkSession *session;

  if (f->skip)
    return;
  schema_dir = g_build_filename (g_getenv ("RECKON_BUILD_ROOT"), "data", NULL);
  source = g_settings_schema_source_new_from_directory (schema_dir, NULL, FALSE, NULL);
  if (source == NULL || (schema = g_settings_schema_source_lookup (source, "io.github.reckon.Reckon", FALSE)) == NULL)
    {
      g_test_skip ("the GSettings schema is not compiled into the build tree");
      return;
    }
  backend = g_memory_settings_backend_new ();
  settings = g_settings_new_full (schema, backend, NULL);
  if (!g_settings_schema_has_key (schema, "idle-expiry-seconds"))
    {
      g_test_skip ("the schema has no idle-expiry-seconds key");
      return;
    }
  g_settings_set_uint (settings, "idle-expiry-seconds", 90);
  g_settings_set_enum (settings, "approval-policy", RK_APPROVAL_NEVER);

  new_conversation (f);
  session = rk_conversation_get_session (f->conv);
  rk_conversation_set_settings (f->conv, settings);
  g_assert_cmpuint (rk_session_get_idle_timeout (session), ==, 90);
  g_assert_cmpint (rk_agent_get_policy (rk_conversation_get_agent (f->conv)), ==, RK_APPROVAL_NEVER);

  /* Changes are followed; auto-approve wins over the policy while on. */
  g_settings_set_uint (settings, "idle-expiry-seconds", 0);
  g_assert_cmpuint (rk_session_get_idle_timeout (session), ==, 0);
  g_assert_cmpint (rk_session_get_expiry_time (session), ==, 0);
  g_settings_set_enum (settings, "approval-policy", RK_APPROVAL_ASK);
  rk_conversation_set_auto_approve (f->conv, TRUE);
  g_assert_cmpint (rk_agent_get_policy (rk_conversation_get_agent (f->conv)), ==, RK_APPROVAL_AUTO);
  rk_conversation_set_auto_approve (f->conv, FALSE);
  g_assert_cmpint (rk_agent_get_policy (rk_conversation_get_agent (f->conv)), ==, RK_APPROVAL_ASK);

  /* Not followed any more once unset. */
  rk_conversation_set_settings (f->conv, NULL);
  g_settings_set_uint (settings, "idle-expiry-seconds", 600);
  g_assert_cmpuint (rk_session_get_idle_timeout (session), ==, 0);
}

/* Whether any process still has @needle in its command line. */
static gboolean
process_with_arg (const char *needle)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize len = 0;

      if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (path, &cmdline, &len, NULL))
        continue;
      for (gsize i = 0; i + 1 < len; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      if (strstr (cmdline, needle) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* SIGKILL mid-conversation: on the next start everything saved before is
 * there, and no sandboxed process outlives the killed one. */
static void
test_sigkill (void)
{
  g_autofree char *reason = NULL;
  g_autofree char *root = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *sessions_dir = NULL;
  g_autofree char *id_path = NULL;
  g_autofree char *id = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkModelClient) client = NULL;
  g_autoptr(RkConversationStore) store = NULL;
  g_autoptr(RkConversation) conv = NULL;
  RkTranscript *t;
  gboolean found = FALSE;

  if (!rk_test_kernel_sandbox_usable (&reason))
    {
      g_test_skip (reason);
      return;
    }
  /* The child finds the parent's folders by the parent's pid. */
  root = g_strdup_printf ("%s/rk-conversation-kill-%d", g_get_tmp_dir (),
                          g_test_subprocess () ? (int) getppid () : (int) getpid ());
  data_dir = g_build_filename (root, "data", NULL);
  sessions_dir = g_build_filename (root, "sessions", NULL);
  id_path = g_build_filename (root, "id", NULL);
  client = rk_model_client_new ();
  rk_model_client_set_endpoint (client, "http://127.0.0.1:9");

  if (g_test_subprocess ())
    {
      Fixture f = { 0 };
      g_autofree char *out = NULL;
      gint64 end;

      f.store = rk_conversation_store_new (data_dir, sessions_dir, &error);
      g_assert_no_error (error);
      f.conv = rk_conversation_store_create (f.store, client, &error);
      g_assert_no_error (error);
      rk_conversation_set_auto_approve (f.conv, TRUE);
      out = run_code (&f, "print('before the kill')\n", &error);
      g_assert_no_error (error);
      g_assert_true (g_file_set_contents (id_path, rk_conversation_get_id (f.conv), -1, NULL));
      /* A cell is running and the autosave (300 ms) has had its turn. */
      rk_conversation_run_code_async (f.conv, "import time\nprint('sleeping', flush=True)\ntime.sleep(60)\n",
                                      RK_CODE_PROPOSED, NULL, NULL, NULL);
      end = g_get_monotonic_time () + G_USEC_PER_SEC;
      while (g_get_monotonic_time () < end)
        g_main_context_iteration (NULL, FALSE);
      /* The check after the kill is not vacuous: the sandbox runs now. */
      g_assert_true (process_with_arg (sessions_dir));
      kill (getpid (), SIGKILL);
      g_assert_not_reached ();
    }

  g_assert_cmpint (g_mkdir_with_parents (root, 0700), ==, 0);
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_failed ();

  /* No sandbox of the killed process is left (it dies with its parent). */
  for (int i = 0; i < 40 && process_with_arg (sessions_dir); i++)
    g_usleep (50000);
  g_assert_false (process_with_arg (sessions_dir));

  g_assert_true (g_file_get_contents (id_path, &id, NULL, NULL));
  store = rk_conversation_store_new (data_dir, sessions_dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (rk_conversation_store_lookup (store, id));
  conv = open_saved (store, id, client, &error);
  g_assert_no_error (error);
  t = rk_conversation_get_transcript (conv);
  for (guint i = 0; i < rk_transcript_get_n_entries (t); i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (t, i);

      if (rk_transcript_entry_get_kind (e) == RK_ENTRY_STREAM
          && g_strcmp0 (rk_transcript_entry_get_text (e), "before the kill\n") == 0)
        found = TRUE;
    }
  g_assert_true (found);
  g_assert_false (rk_conversation_get_expired (conv));
  rk_conversation_close (conv);
  g_clear_object (&conv);
  g_clear_object (&store);
  rk_workspace_delete_folder (root, NULL);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, data, func) \
  g_test_add (path, Fixture, data, fixture_setup, func, fixture_teardown)
  ADD ("/rk/conversation/files", NULL, test_files);
  ADD ("/rk/conversation/cancel-profile", NULL, test_cancel_profile);
  ADD ("/rk/conversation/many-files", NULL, test_many_files);
  ADD ("/rk/conversation/reprofile", NULL, test_reprofile);
  ADD ("/rk/conversation/remove-file", NULL, test_remove_file);
  ADD ("/rk/conversation/ask/openai", "openai", test_ask);
  ADD ("/rk/conversation/ask/ollama", "ollama", test_ask);
  ADD ("/rk/conversation/retry", NULL, test_retry);
  ADD ("/rk/conversation/run-code", NULL, test_run_code);
  ADD ("/rk/conversation/stop", NULL, test_stop);
  ADD ("/rk/conversation/restore", NULL, test_restore);
  ADD ("/rk/conversation/expiry-restart", NULL, test_expiry_restart);
  ADD ("/rk/conversation/store-damaged", NULL, test_store_damaged);
  ADD ("/rk/conversation/settings", NULL, test_settings);
#undef ADD
  g_test_add_func ("/rk/conversation/sigkill", test_sigkill);

  return g_test_run ();
}
