/* SPDX-License-Identifier: GPL-3.0-or-later */
/* render-harness.c — shows a saved transcript in RkChatView, for looking at
 * the rows as a user would (screenshots) without a model or a sandbox:
 *   render-harness TRANSCRIPT.json [WORKSPACE] [--pending CELL] [--running CELL]
 *                  [--dark] [--width W] [--height H] [--top] [--stream]
 *                  [--scroll PIXELS]
 *   render-harness --run CODE.py [--auto]: a real conversation runs it. */
#include "config.h"

#include <adwaita.h>

#include "rk-conversation.h"
#include "rk-model-client.h"
#include "rk-transcript.h"
#include "rk-chat-view.h"

static char *pending, *running, *run_file;
static gboolean auto_run;
static RkConversation *conversation;
static gboolean dark, top, stream;
static int width = 900, height = 1000, scroll = -1;

static RkTranscript *transcript;
static GtkWidget *chat;
static guint stream_pos;
static GString *stream_text;
static GArray *frame_times;
static gint64 stream_start;
static const char stream_part[] =
  "## Streaming\n\nThis paragraph arrives a few characters at a time, **as a model** writes it. "
  "It has `inline code` and a [link](https://example.org).\n\n- first point\n- second point\n\n"
  "| a | b |\n|---|---|\n| 1 | 2 |\n\n";

static int
compare_int64 (gconstpointer a,
               gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

static gboolean
frame_cb (GtkWidget     *widget,
          GdkFrameClock *clock,
          gpointer       user_data)
{
  static gint64 last;
  gint64 now = g_get_monotonic_time ();

  if (last != 0 && stream_start != 0)
    {
      gint64 delta = now - last;
      g_array_append_val (frame_times, delta);
    }
  last = now;
  return G_SOURCE_CONTINUE;
}

/* 200 tokens a second of about 4 bytes, as a fast local model streams. */
static gboolean
stream_cb (gpointer user_data)
{
  guint id = GPOINTER_TO_UINT (user_data);
  char delta[5] = { 0 };

  if (stream_start == 0)
    stream_start = g_get_monotonic_time ();
  if (stream_pos >= stream_text->len)
    {
      gint64 p50, p95, max;

      g_array_sort (frame_times, compare_int64);
      p50 = g_array_index (frame_times, gint64, frame_times->len / 2);
      p95 = g_array_index (frame_times, gint64, frame_times->len * 95 / 100);
      max = g_array_index (frame_times, gint64, frame_times->len - 1);
      g_print ("streamed %u bytes in %.1f s; %u frames: interval p50 %.1f ms, p95 %.1f ms, max %.1f ms\n",
               (guint) stream_text->len, (g_get_monotonic_time () - stream_start) / 1e6, frame_times->len,
               p50 / 1e3, p95 / 1e3, max / 1e3);
      {
        GtkWidget *scroller = gtk_widget_get_parent (GTK_WIDGET (rk_chat_view_get_list_view (RK_CHAT_VIEW (chat))));
        GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
        g_print ("following %d, value %.0f, upper %.0f, page %.0f\n", rk_chat_view_get_following (RK_CHAT_VIEW (chat)),
                 gtk_adjustment_get_value (adj), gtk_adjustment_get_upper (adj), gtk_adjustment_get_page_size (adj));
      }
      return G_SOURCE_REMOVE;
    }
  for (guint i = 0; i < 4 && stream_pos < stream_text->len; i++)
    delta[i] = stream_text->str[stream_pos++];
  rk_transcript_append_text (transcript, id, delta);
  return G_SOURCE_CONTINUE;
}

static void
start_stream_cb (gpointer user_data)
{
  g_timeout_add (5, stream_cb, user_data);
}

static void
scroll_top_cb (gpointer user_data)
{
  GtkWidget *scroller = gtk_widget_get_parent (GTK_WIDGET (rk_chat_view_get_list_view (user_data)));

  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller)), MAX (scroll, 0));
}

static void
run_done_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_free (rk_conversation_run_code_finish (RK_CONVERSATION (source), result, &error));
  if (error != NULL)
    g_printerr ("run: %s\n", error->message);
}

/* --run FILE: a real conversation (sandbox, kernel, no model) runs the code
 * in FILE through the approval path; --auto runs it without asking. */
static void
activate_conversation (GtkApplication *app,
                       GtkWidget      *window,
                       GtkWidget      *view)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkModelClient) client = rk_model_client_new ();
  g_autofree char *code = NULL;

  if (!g_file_get_contents (run_file, &code, NULL, &error))
    {
      g_printerr ("%s\n", error->message);
      return;
    }
  rk_model_client_set_endpoint (client, "http://127.0.0.1:9");
  conversation = rk_conversation_new (client, &error);
  if (conversation == NULL)
    {
      g_printerr ("%s\n", error->message);
      return;
    }
  rk_conversation_set_auto_approve (conversation, auto_run);
  rk_chat_view_set_conversation (RK_CHAT_VIEW (view), conversation);
  rk_conversation_run_code_async (conversation, code, RK_CODE_PROPOSED, NULL, run_done_cb, NULL);
}

static void
activate_cb (GtkApplication *app,
             char          **args)
{
  GtkWidget *window = adw_application_window_new (app);
  GtkWidget *view = rk_chat_view_new ();

  chat = view;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkWorkspace) workspace = NULL;

  if (run_file != NULL)
    {
      if (dark)
        adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
      gtk_window_set_default_size (GTK_WINDOW (window), width, height);
      adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), view);
      gtk_window_present (GTK_WINDOW (window));
      activate_conversation (app, window, view);
      return;
    }
  transcript = rk_transcript_load (args[0], &error);
  if (transcript == NULL)
    {
      g_printerr ("%s\n", error->message);
      g_application_quit (G_APPLICATION (app));
      return;
    }
  if (dark)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_set_title (GTK_WINDOW (window), "Reckon rows");
  workspace = args[1] != NULL ? rk_workspace_new (args[1]) : NULL;
  rk_chat_view_set_transcript (RK_CHAT_VIEW (view), transcript, workspace);
  rk_chat_view_set_cell_state (RK_CHAT_VIEW (view), pending, running, g_get_monotonic_time () - 75 * G_USEC_PER_SEC);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  if (top || scroll >= 0)
    g_timeout_add_once (800, scroll_top_cb, view);
  if (stream)
    {
      guint id = rk_transcript_add_assistant (transcript, "Streaming starts.\n\n");

      stream_text = g_string_new (NULL);
      for (guint i = 0; i < 12; i++)
        g_string_append (stream_text, stream_part);
      frame_times = g_array_new (FALSE, FALSE, sizeof (gint64));
      gtk_widget_add_tick_callback (window, frame_cb, NULL, NULL);
      /* Start once the window has settled, so its first layout is not counted. */
      g_timeout_add_once (1500, start_stream_cb, GUINT_TO_POINTER (id));
    }
}

int
main (int argc, char **argv)
{
  g_autoptr(AdwApplication) app = NULL;
  g_autoptr(GOptionContext) context = g_option_context_new ("TRANSCRIPT [WORKSPACE]");
  static char **rest;
  GOptionEntry entries[] = {
    { "pending", 0, 0, G_OPTION_ARG_STRING, &pending, "Cell waiting for approval", "CELL" },
    { "running", 0, 0, G_OPTION_ARG_STRING, &running, "Running cell", "CELL" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark style", NULL },
    { "top", 0, 0, G_OPTION_ARG_NONE, &top, "Scroll to the top", NULL },
    { "stream", 0, 0, G_OPTION_ARG_NONE, &stream, "Stream a message in", NULL },
    { "run", 0, 0, G_OPTION_ARG_FILENAME, &run_file, "Run this Python file in a real conversation", "FILE" },
    { "auto", 0, 0, G_OPTION_ARG_NONE, &auto_run, "Run without asking", NULL },
    { "scroll", 0, 0, G_OPTION_ARG_INT, &scroll, "Scroll to this many pixels from the top", "PIXELS" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Window width", "W" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "Window height", "H" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  char *args[2] = { NULL, NULL };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, NULL) || ((rest == NULL || rest[0] == NULL) && run_file == NULL))
    {
      g_printerr ("usage: render-harness TRANSCRIPT.json [WORKSPACE]\n");
      return 2;
    }
  args[0] = rest ? rest[0] : NULL;
  args[1] = rest && rest[0] ? rest[1] : NULL;
  app = adw_application_new ("io.github.reckon.RenderHarness", G_APPLICATION_NON_UNIQUE);
  /* Reckon's style sheet, from the same resources. */
  g_application_set_resource_base_path (G_APPLICATION (app), "/io/github/reckon/Reckon");
  g_signal_connect (app, "activate", G_CALLBACK (activate_cb), args);
  return g_application_run (G_APPLICATION (app), 1, argv);
}
