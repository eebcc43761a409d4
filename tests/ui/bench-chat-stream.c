/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-chat-stream.c — frame times while a model's markdown answer streams
 * at 200 tokens a second into a long conversation: RkChatView bound to a real
 * RkConversation fed by the scripted model server over HTTP, against a plain
 * GtkTextView receiving the same tokens at the same rate, in the same run. */
#include "config.h"

#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk-chat-view.h"
#include "rk-conversation.h"
#include "rk-mock-server.h"

#define HISTORY_TURNS  60      /* questions and answers before the stream */
#define N_TOKENS       1200    /* 6 s at 200 tokens a second */
#define DRIP_MS        5
#define TARGET_P95     16.0

typedef struct
{
  gint64   started;      /* this frame's "update" */
  GArray  *frame_ms;     /* layout + paint of each frame while streaming */
  gboolean measuring;
  gboolean painted;
  gint64   stream_start;
  gint64   stream_end;
} Run;

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y ? 1 : 0;
}

static double
percentile (GArray *v,
            double  p)
{
  if (v->len == 0)
    return 0;
  qsort (v->data, v->len, sizeof (double), compare_double);
  return g_array_index (v, double, MIN (v->len - 1, (guint) (p * v->len)));
}

static void
update_cb (GdkFrameClock *clock,
           Run           *run)
{
  run->started = g_get_monotonic_time ();
}

static void
after_paint_cb (GdkFrameClock *clock,
                Run           *run)
{
  double ms = (g_get_monotonic_time () - run->started) / 1e3;

  run->painted = TRUE;
  if (run->measuring)
    g_array_append_val (run->frame_ms, ms);
}

/* The answer, cut into tokens of a few characters as models send them:
 * headings, lists, emphasis, inline code and a table, so the markdown view
 * has real work on every token. */
static GPtrArray *
make_tokens (void)
{
  GPtrArray *tokens = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) text = g_string_new (NULL);
  guint i = 0;

  while (text->len < N_TOKENS * 4)
    {
      g_string_append_printf (text, "## Region %u\n\nRevenue in **region %u** grew by *%u.%u%%* over the "
                              "quarter, led by `product_%u`; returns stayed low.\n\n"
                              "- orders: %u\n- average basket: %u.%02u\n- new customers: %u\n\n"
                              "| month | revenue |\n|---|---|\n| Jan | %u |\n| Feb | %u |\n\n",
                              i, i, i % 17, i % 10, i, 1000 + i * 7, 40 + i % 9, i % 100, 30 + i,
                              5000 + i * 13, 5200 + i * 11);
      i++;
    }
  for (gsize pos = 0; pos < text->len && tokens->len < N_TOKENS; pos += 4)
    g_ptr_array_add (tokens, g_strndup (text->str + pos, MIN (4, text->len - pos)));
  return tokens;
}

static void
fill_history (RkTranscript *t)
{
  for (guint i = 0; i < HISTORY_TURNS; i++)
    {
      g_autofree char *q = g_strdup_printf ("What happened in region %u last quarter?", i);
      g_autofree char *a = g_strdup_printf ("Region %u did **well**:\n\n- revenue up %u%%\n- `orders` = %u\n\n"
                                            "The largest month was March, with %u in revenue.",
                                            i, i % 13, 100 + i, 4000 + i * 31);

      rk_transcript_add_user (t, q, NULL);
      rk_transcript_add_answer (t, a);
    }
}

static GtkWidget *
new_window (void)
{
  GtkWidget *window = gtk_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 800);
  return window;
}

static void
wait_painted (Run *run)
{
  run->painted = FALSE;
  while (!run->painted)
    g_main_context_iteration (NULL, TRUE);
}

static void
watch_frames (GtkWidget *window,
              Run       *run)
{
  GdkFrameClock *clock;

  gtk_window_present (GTK_WINDOW (window));
  gtk_widget_realize (window);
  clock = gtk_widget_get_frame_clock (window);
  g_signal_connect (clock, "update", G_CALLBACK (update_cb), run);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), run);
  run->frame_ms = g_array_new (FALSE, FALSE, sizeof (double));
}

static void
ask_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  GAsyncResult **out = user_data;
  *out = g_object_ref (result);
}

static void
measure_chat (GPtrArray *tokens,
              Run       *run)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *script = NULL;
  g_autoptr(RkMockServer) server = NULL;
  g_autoptr(RkModelClient) client = rk_model_client_new ();
  g_autoptr(RkConversation) conv = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *answer = NULL;
  GtkWidget *window = new_window ();
  GtkWidget *view = rk_chat_view_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "api");
  json_builder_add_string_value (b, "openai");
  json_builder_set_member_name (b, "models");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "m");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "turns");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "text");
  json_builder_begin_array (b);
  for (guint i = 0; i < tokens->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (tokens, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "drip_ms");
  json_builder_add_int_value (b, DRIP_MS);
  json_builder_end_object (b);
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  script = json_to_string (root, FALSE);
  server = rk_mock_server_new (script, &error);
  g_assert_no_error (error);

  rk_model_client_set_endpoint (client, rk_mock_server_get_url (server));
  rk_model_client_set_api (client, RK_MODEL_API_OPENAI);
  rk_model_client_set_model (client, "m");
  conv = rk_conversation_new (client, &error);
  g_assert_no_error (error);
  fill_history (rk_conversation_get_transcript (conv));

  gtk_window_set_child (GTK_WINDOW (window), view);
  watch_frames (window, run);
  rk_chat_view_set_conversation (RK_CHAT_VIEW (view), conv);
  wait_painted (run);

  run->measuring = TRUE;
  run->stream_start = g_get_monotonic_time ();
  rk_conversation_ask_async (conv, "Summarise every region.", NULL, ask_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  run->stream_end = g_get_monotonic_time ();
  run->measuring = FALSE;
  answer = rk_conversation_ask_finish (conv, result, &error);
  g_assert_no_error (error);

  rk_chat_view_set_conversation (RK_CHAT_VIEW (view), NULL);
  rk_conversation_close (conv);
  gtk_window_destroy (GTK_WINDOW (window));
}

typedef struct
{
  GPtrArray     *tokens;
  guint          next;
  gint64         start;
  GtkTextView   *text_view;
  gboolean       done;
} Peer;

static gboolean
peer_token_cb (gpointer data)
{
  Peer *peer = data;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (peer->text_view);
  GtkTextIter end;

  if (peer->next >= peer->tokens->len)
    {
      peer->done = TRUE;
      return G_SOURCE_REMOVE;
    }
  /* Every token due by now, so the rate holds when a tick comes late. */
  while (peer->next < peer->tokens->len
         && (g_get_monotonic_time () - peer->start) >= (gint64) peer->next * DRIP_MS * 1000)
    {
      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_insert (buffer, &end, g_ptr_array_index (peer->tokens, peer->next++), -1);
    }
  gtk_text_view_scroll_to_mark (peer->text_view, gtk_text_buffer_get_insert (buffer), 0, FALSE, 0, 0);
  return G_SOURCE_CONTINUE;
}

/* The same tokens at the same rate into a GtkTextView holding the same
 * history as plain text: what a minimal chat would do. */
static void
measure_peer (GPtrArray *tokens,
              Run       *run)
{
  GtkWidget *window = new_window ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *text_view = gtk_text_view_new ();
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (text_view));
  Peer peer = { tokens, 0, 0, GTK_TEXT_VIEW (text_view), FALSE };

  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (text_view), GTK_WRAP_WORD_CHAR);
  for (guint i = 0; i < HISTORY_TURNS; i++)
    {
      g_autofree char *turn = g_strdup_printf ("What happened in region %u last quarter?\n\n"
                                               "Region %u did well:\n- revenue up %u%%\n- orders = %u\n\n"
                                               "The largest month was March, with %u in revenue.\n\n",
                                               i, i, i % 13, 100 + i, 4000 + i * 31);
      GtkTextIter end;

      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_insert (buffer, &end, turn, -1);
    }
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), text_view);
  gtk_window_set_child (GTK_WINDOW (window), scrolled);
  watch_frames (window, run);
  wait_painted (run);

  run->measuring = TRUE;
  run->stream_start = g_get_monotonic_time ();
  peer.start = g_get_monotonic_time ();
  g_timeout_add (1, peer_token_cb, &peer);
  while (!peer.done)
    g_main_context_iteration (NULL, TRUE);
  run->stream_end = g_get_monotonic_time ();
  run->measuring = FALSE;
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
report (const char *what,
        Run        *run,
        guint       n_tokens)
{
  double seconds = (run->stream_end - run->stream_start) / 1e6;

  printf ("%s: %u tokens in %.1f s (%.0f a second), %u frames: median %.2f ms, p95 %.2f ms a frame\n",
          what, n_tokens, seconds, n_tokens / seconds, run->frame_ms->len,
          percentile (run->frame_ms, 0.5), percentile (run->frame_ms, 0.95));
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GPtrArray) tokens = NULL;
  Run chat = { 0 }, peer = { 0 };
  double p95_chat, p95_peer;

  gtk_init ();
  adw_init ();
  if (gdk_display_get_default () == NULL)
    {
      printf ("1..0 # SKIP needs a display: run through meson test --benchmark\n");
      return 0;
    }
  tokens = make_tokens ();
  printf ("# a markdown answer of %u tokens streamed at %d ms a token after %u questions and answers; "
          "window 1000x800, cairo renderer\n", tokens->len, DRIP_MS, HISTORY_TURNS);
  measure_chat (tokens, &chat);
  measure_peer (tokens, &peer);
  report ("RkChatView (RkConversation, scripted model server over HTTP)", &chat, tokens->len);
  report ("peer: GtkTextView, the same tokens appended as plain text", &peer, tokens->len);
  p95_chat = percentile (chat.frame_ms, 0.95);
  p95_peer = percentile (peer.frame_ms, 0.95);
  printf ("frame time ratio (p95, RkChatView / peer): %.2f; target: p95 under %.0f ms — %s\n",
          p95_peer > 0 ? p95_chat / p95_peer : 0, TARGET_P95, p95_chat < TARGET_P95 ? "MET" : "NOT MET");
  g_array_unref (chat.frame_ms);
  g_array_unref (peer.frame_ms);
  return 0;
}
