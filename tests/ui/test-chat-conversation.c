/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-chat-conversation.c — RkChatView on a real RkConversation (real
 * sandbox and kernel, no model): typed code waits for approval, the code
 * row's Run button runs it, the output appears as rows; Skip skips; Edit
 * runs the edited code; Stop interrupts a cell that never ends. */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>
#include <adwaita.h>

#include "rk-agent.h"
#include "rk-conversation.h"
#include "rk-model-client.h"
#include "rk-util.h"
#include "rk-approval-bar.h"
#include "rk-chat-view.h"
#include "rk-code-block.h"
#include "rk-entry-row.h"
#include "rk-output-view.h"
#include "rk-ui-test-util.h"

typedef struct
{
  GtkWidget      *window;
  GtkWidget      *view;
  RkConversation *conversation;
  char           *home;
} Fixture;

static void
spin_until (gboolean (*cond) (gpointer),
            gpointer   data,
            guint      seconds,
            const char *what)
{
  gint64 end = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;

  while (!cond (data) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE), g_usleep (2000);
  if (!cond (data))
    g_error ("waited %u s for %s", seconds, what);
}

static gboolean
is_pending (gpointer data)
{
  return rk_conversation_get_pending_approval (((Fixture *) data)->conversation) != NULL;
}

static gboolean
is_idle (gpointer data)
{
  return !rk_conversation_get_busy (((Fixture *) data)->conversation);
}

static gboolean
is_running (gpointer data)
{
  return rk_conversation_get_running_cell (((Fixture *) data)->conversation) != NULL;
}

/* The bound row of the code entry of @cell. */
static RkEntryRow *
code_row (Fixture    *f,
          const char *cell)
{
  GtkWidget *list = GTK_WIDGET (rk_chat_view_get_list_view (RK_CHAT_VIEW (f->view)));

  for (GtkWidget *c = gtk_widget_get_first_child (list); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *row = gtk_widget_get_first_child (c);
      RkTranscriptEntry *e;

      if (row == NULL || !RK_IS_ENTRY_ROW (row) || (e = rk_entry_row_get_entry (RK_ENTRY_ROW (row))) == NULL)
        continue;
      if (rk_transcript_entry_get_kind (e) == RK_ENTRY_CODE && g_strcmp0 (rk_transcript_entry_get_cell_id (e), cell) == 0)
        return RK_ENTRY_ROW (row);
    }
  return NULL;
}

/* All stdout the transcript holds. */
static char *
stdout_text (Fixture *f)
{
  RkTranscript *t = rk_conversation_get_transcript (f->conversation);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < rk_transcript_get_n_entries (t); i++)
    {
      RkTranscriptEntry *e = rk_transcript_get_entry (t, i);
      if (rk_transcript_entry_get_kind (e) == RK_ENTRY_STREAM)
        g_string_append (s, rk_transcript_entry_get_text (e));
    }
  return g_string_free (s, FALSE);
}

static void
run_done_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_free (rk_conversation_run_code_finish (RK_CONVERSATION (source), result, NULL));
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkModelClient) client = rk_model_client_new ();

  rk_model_client_set_endpoint (client, "http://127.0.0.1:9");
  f->conversation = rk_conversation_new (client, &error);
  g_assert_no_error (error);
  f->window = gtk_window_new ();
  f->view = rk_chat_view_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 900, 2000);
  gtk_window_set_child (GTK_WINDOW (f->window), f->view);
  rk_chat_view_set_conversation (RK_CHAT_VIEW (f->view), f->conversation);
  gtk_window_present (GTK_WINDOW (f->window));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  rk_chat_view_set_conversation (RK_CHAT_VIEW (f->view), NULL);
  gtk_window_destroy (GTK_WINDOW (f->window));
  rk_conversation_close (f->conversation);
  g_clear_object (&f->conversation);
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
}

static gboolean
skip_without_sandbox (void)
{
  g_autoptr(GError) error = NULL;

  if (!rk_check_sandbox_parts (&error))
    {
      g_test_skip (error->message);
      return TRUE;
    }
  return FALSE;
}

static void
test_run (Fixture       *f,
          gconstpointer  data)
{
  RkEntryRow *row;
  const char *cell;
  g_autofree char *out = NULL;

  if (skip_without_sandbox ())
    return;
  rk_conversation_run_code_async (f->conversation, "print('answer', 6 * 7)\n", RK_CODE_PROPOSED, NULL, run_done_cb, NULL);
  spin_until (is_pending, f, 60, "the approval");
  cell = rk_conversation_get_pending_approval (f->conversation);
  for (int i = 0; i < 100; i++)
    g_main_context_iteration (NULL, FALSE);
  row = code_row (f, cell);
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_get_visible (rk_entry_row_get_approval_bar (row)));
  g_signal_emit_by_name (rk_ui_test_find_button (rk_entry_row_get_approval_bar (row), "_Run"), "clicked");
  spin_until (is_idle, f, 120, "the cell to finish");
  g_assert_false (gtk_widget_get_visible (rk_entry_row_get_approval_bar (row)));
  out = stdout_text (f);
  g_assert_nonnull (strstr (out, "answer 42"));
}

static void
test_edit_and_skip (Fixture       *f,
                    gconstpointer  data)
{
  RkEntryRow *row;
  GtkWidget *bar;
  RkCodeBlock *block;
  g_autofree char *out = NULL;

  if (skip_without_sandbox ())
    return;
  rk_conversation_run_code_async (f->conversation, "print('before')\n", RK_CODE_PROPOSED, NULL, run_done_cb, NULL);
  spin_until (is_pending, f, 60, "the approval");
  for (int i = 0; i < 100; i++)
    g_main_context_iteration (NULL, FALSE);
  row = code_row (f, rk_conversation_get_pending_approval (f->conversation));
  bar = rk_entry_row_get_approval_bar (row);
  g_signal_emit_by_name (rk_ui_test_find_button (bar, "_Edit"), "clicked");
  block = RK_CODE_BLOCK (gtk_widget_get_prev_sibling (bar));
  g_assert_true (rk_code_block_get_editable (block));
  rk_code_block_set_code (block, "print('after', 1 + 1)\n");
  g_signal_emit_by_name (rk_ui_test_find_button (bar, "_Run"), "clicked");
  spin_until (is_idle, f, 120, "the edited cell to finish");
  out = stdout_text (f);
  g_assert_nonnull (strstr (out, "after 2"));
  g_assert_null (strstr (out, "before"));

  rk_conversation_run_code_async (f->conversation, "print('never')\n", RK_CODE_PROPOSED, NULL, run_done_cb, NULL);
  spin_until (is_pending, f, 60, "the second approval");
  for (int i = 0; i < 100; i++)
    g_main_context_iteration (NULL, FALSE);
  row = code_row (f, rk_conversation_get_pending_approval (f->conversation));
  g_signal_emit_by_name (rk_ui_test_find_button (rk_entry_row_get_approval_bar (row), "_Skip"), "clicked");
  spin_until (is_idle, f, 60, "the skip");
  g_free (out);
  out = stdout_text (f);
  g_assert_null (strstr (out, "never"));
}

static void
test_stop (Fixture       *f,
           gconstpointer  data)
{
  RkEntryRow *row;
  GtkWidget *stop;
  const char *cell;

  if (skip_without_sandbox ())
    return;
  rk_conversation_set_auto_approve (f->conversation, TRUE);
  rk_conversation_run_code_async (f->conversation, "import time\nprint('go', flush=True)\nwhile True:\n    time.sleep(0.05)\n",
                                  RK_CODE_PROPOSED, NULL, run_done_cb, NULL);
  spin_until (is_running, f, 60, "the cell to start");
  cell = rk_conversation_get_running_cell (f->conversation);
  for (int i = 0; i < 100; i++)
    g_main_context_iteration (NULL, FALSE);
  row = code_row (f, cell);
  g_assert_nonnull (row);
  stop = rk_ui_test_find_button (GTK_WIDGET (row), "_Stop");
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_parent (stop)));
  g_signal_emit_by_name (stop, "clicked");
  spin_until (is_idle, f, 60, "the cell to stop");
  g_assert_null (rk_conversation_get_running_cell (f->conversation));
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_parent (stop)));
}

int
main (int argc, char **argv)
{
  g_autofree char *home = g_dir_make_tmp ("rk-chat-home-XXXXXX", NULL);
  g_autofree char *cache = g_build_filename (home, "cache", NULL);
  g_autofree char *data = g_build_filename (home, "data", NULL);
  int ret;

  /* A home of its own: sessions and workspaces go there. */
  g_setenv ("HOME", home, TRUE);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add ("/rk/ui/chat/run", Fixture, NULL, fixture_set_up, test_run, fixture_tear_down);
  g_test_add ("/rk/ui/chat/edit-and-skip", Fixture, NULL, fixture_set_up, test_edit_and_skip, fixture_tear_down);
  g_test_add ("/rk/ui/chat/stop", Fixture, NULL, fixture_set_up, test_stop, fixture_tear_down);
  ret = g_test_run ();
  {
    const char *argv_rm[] = { "rm", "-rf", home, NULL };
    g_spawn_sync (NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  return ret;
}
