/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-table-scroll.c — a 1,000,000-row table in a real window (Xvfb, cairo
 * renderer). From a cell's end to its first rows on screen: a real
 * RkConversation (sandbox and kernel, no model) shows a DataFrame, timed from
 * the kernel's table message reaching the host to the first frame in which
 * the table's first row is inside the chat's visible area, through the agent,
 * the transcript, the chat's row, the table file opened off the GUI thread
 * and the inline RkTableView; the cell's text result on the same path is the
 * peer. Then RkTableView's full view: from opening the file to the first rows
 * drawn, and the frame time while scrolling, against a plain GtkColumnView
 * over a GtkStringList of the same rows and columns measured in the same run. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk-chat-view.h"
#include "rk-conversation.h"
#include "rk-entry-row.h"
#include "rk-kernel.h"
#include "rk-kernel-protocol.h"
#include "rk-model-client.h"
#include "rk-table-view.h"
#include "rk-util.h"

#define N_ROWS      1000000
#define FRAMES      240
#define TARGET_P95  16.0
#define TARGET_OPEN 100.0
#define CHAT_RUNS   5
#define OPEN_RUNS   7

typedef struct
{
  GtkAdjustment *adj;
  gint64         started;     /* this frame's "update", its first phase */
  GArray        *frame_ms;    /* layout + paint of each frame */
  guint          frames;
  double         step;
  gboolean       done;
  gboolean       first_paint;
  gint64         created;
  double         first_ms;
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
  qsort (v->data, v->len, sizeof (double), compare_double);
  return g_array_index (v, double, MIN (v->len - 1, (guint) (p * v->len)));
}

static void
layout_cb (GdkFrameClock *clock,
           Run           *run)
{
  run->started = g_get_monotonic_time ();
}

static void
after_paint_cb (GdkFrameClock *clock,
                Run           *run)
{
  double ms = (g_get_monotonic_time () - run->started) / 1e3;

  if (!run->first_paint)
    {
      run->first_paint = TRUE;
      run->first_ms = (g_get_monotonic_time () - run->created) / 1e3;
      return;
    }
  if (run->adj == NULL || run->done)
    return;
  g_array_append_val (run->frame_ms, ms);
  if (++run->frames >= FRAMES)
    run->done = TRUE;
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       data)
{
  Run *run = data;

  if (run->adj == NULL || run->done)
    return G_SOURCE_CONTINUE;
  /* scroll down a few rows a frame, as a fast wheel or a kinetic flick does */
  gtk_adjustment_set_value (run->adj, gtk_adjustment_get_value (run->adj) + run->step);
  return G_SOURCE_CONTINUE;
}

static GtkWidget *
find_column_view (GtkWidget *w)
{
  if (GTK_IS_COLUMN_VIEW (w))
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_column_view (c);
      if (found)
        return found;
    }
  return NULL;
}

/* The scrolled window of the rows (a menu button's popover has one too). */
static GtkWidget *
find_scrolled (GtkWidget *w)
{
  return gtk_widget_get_ancestor (find_column_view (w), GTK_TYPE_SCROLLED_WINDOW);
}

static void
label_setup_cb (GtkSignalListItemFactory *f,
                GtkListItem              *item,
                gpointer                  data)
{
  gtk_list_item_set_child (item, gtk_label_new (NULL));
}

static void
label_bind_cb (GtkSignalListItemFactory *f,
               GtkListItem              *item,
               gpointer                  data)
{
  GtkStringObject *s = gtk_list_item_get_item (item);
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), gtk_string_object_get_string (s));
}

/* The peer: what a GtkColumnView costs with the simplest model there is,
 * each row's text differing from the next as a real table's does. */
static GtkWidget *
peer_view (guint n_columns)
{
  GtkStringList *list = gtk_string_list_new (NULL);
  GtkWidget *cv, *sw;

  /* different text in each row, as in a real table (the same string in
   * every cell would be shaped once and cached) */
  for (guint i = 0; i < N_ROWS; i++)
    {
      char buf[32];

      g_snprintf (buf, sizeof buf, "%u.%02u", (i * 7919u) % 100000u, i % 100u);
      gtk_string_list_append (list, buf);
    }
  cv = gtk_column_view_new (GTK_SELECTION_MODEL (gtk_multi_selection_new (G_LIST_MODEL (list))));
  for (guint c = 0; c < n_columns; c++)
    {
      GtkListItemFactory *f = gtk_signal_list_item_factory_new ();
      g_signal_connect (f, "setup", G_CALLBACK (label_setup_cb), NULL);
      g_signal_connect (f, "bind", G_CALLBACK (label_bind_cb), NULL);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (cv), gtk_column_view_column_new ("column", f));
    }
  sw = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (sw), cv);
  return sw;
}

static gboolean
is_done (Run *run)
{
  return run->done;
}

static void
measure (const char *what,
         const char *table_path,
         Run        *run)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view;
  GdkFrameClock *clock;

  /* the window is up first, as the chat is when a cell ends */
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_set_child (GTK_WINDOW (window), gtk_label_new ("…"));
  gtk_window_present (GTK_WINDOW (window));
  gtk_widget_realize (window);
  clock = gtk_widget_get_frame_clock (window);
  g_signal_connect (clock, "update", G_CALLBACK (layout_cb), run);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), run);
  run->first_paint = FALSE;
  while (!run->first_paint)
    g_main_context_iteration (NULL, TRUE);

  run->frame_ms = g_array_new (FALSE, FALSE, sizeof (double));
  run->step = 3 * 24;
  run->first_paint = FALSE;
  run->created = g_get_monotonic_time ();
  if (table_path != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RkTable) table = rk_table_open (table_path, &error);

      g_assert_no_error (error);
      view = rk_table_view_new (table);
    }
  else
    view = peer_view (4);
  gtk_window_set_child (GTK_WINDOW (window), view);
  while (!run->first_paint)
    g_main_context_iteration (NULL, TRUE);

  run->adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (find_scrolled (view)));
  gtk_widget_add_tick_callback (window, tick_cb, run, NULL);
  while (!is_done (run))
    g_main_context_iteration (NULL, TRUE);
  g_signal_handlers_disconnect_by_data (clock, run);
  printf ("%s: first rows drawn %.1f ms after %s; scrolled %.0f px in %u frames: median %.2f ms, p95 %.2f ms a frame\n",
          what, run->first_ms, table_path ? "opening the file" : "building the model",
          gtk_adjustment_get_value (run->adj), run->frames,
          percentile (run->frame_ms, 0.5), percentile (run->frame_ms, 0.95));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
painted_cb (GdkFrameClock *clock,
            gint64        *painted)
{
  if (*painted == 0)
    *painted = g_get_monotonic_time ();
}

static void
wait_painted (gint64 *painted)
{
  *painted = 0;
  while (*painted == 0)
    g_main_context_iteration (NULL, TRUE);
}

/* The full view ("Open Table"), OPEN_RUNS times in a window already shown:
 * the median from opening the file to the end of the first frame with it. */
static double
measure_open (const char *table_path)
{
  GtkWidget *window = gtk_window_new ();
  g_autoptr(GArray) ms = g_array_new (FALSE, FALSE, sizeof (double));
  gint64 painted = 0;
  GdkFrameClock *clock;
  double result;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_set_child (GTK_WINDOW (window), gtk_label_new ("…"));
  gtk_window_present (GTK_WINDOW (window));
  gtk_widget_realize (window);
  clock = gtk_widget_get_frame_clock (window);
  g_signal_connect (clock, "after-paint", G_CALLBACK (painted_cb), &painted);
  wait_painted (&painted);
  for (guint i = 0; i < OPEN_RUNS; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RkTable) table = NULL;
      gint64 start = g_get_monotonic_time ();
      double d;

      table = rk_table_open (table_path, &error);
      g_assert_no_error (error);
      gtk_window_set_child (GTK_WINDOW (window), rk_table_view_new (table));
      wait_painted (&painted);
      d = (painted - start) / 1e3;
      g_array_append_val (ms, d);
      gtk_window_set_child (GTK_WINDOW (window), gtk_label_new ("…"));
      wait_painted (&painted);
    }
  g_signal_handlers_disconnect_by_data (clock, &painted);
  gtk_window_destroy (GTK_WINDOW (window));
  result = percentile (ms, 0.5);
  printf ("full view (Open Table): first rows drawn after opening the file, median of %u: %.1f ms (fastest %.1f)\n",
          OPEN_RUNS, result, g_array_index (ms, double, 0));
  return result;
}

/* ------------------------------------------------- a cell's table in the chat */

typedef struct
{
  GtkWidget  *chat;        /* RkChatView */
  gboolean    armed;
  gboolean    text_peer;   /* this cell prints text instead of showing a table */
  char       *path;        /* the table's path, from the kernel's message */
  char       *marker;      /* the first printed line of a text cell */
  gint64      t_message;   /* the table (or first stream) message reached the host */
  gint64      t_done;      /* the cell's done message */
  gint64      t_shown;     /* after-paint of the first frame with its first row on screen */
  char       *first_cell;  /* the text of the table's first cell shown */
  gboolean    finished;    /* the run's callback came */
} Chat;

static gboolean
kernel_event_hook (GSignalInvocationHint *hint,
                   guint                  n_values,
                   const GValue          *values,
                   gpointer               data)
{
  Chat *chat = data;
  RkKernelEvent *event = n_values > 1 ? g_value_get_boxed (&values[1]) : NULL;
  gint64 now = g_get_monotonic_time ();

  /* an emission hook runs before every handler: the agent, the transcript
   * and the chat come after */
  if (!chat->armed || event == NULL)
    return TRUE;
  if (chat->t_message == 0 &&
      event->type == (chat->text_peer ? RK_KERNEL_EVENT_STREAM : RK_KERNEL_EVENT_TABLE))
    {
      chat->t_message = now;
      chat->path = g_strdup (event->path);
    }
  else if (event->type == RK_KERNEL_EVENT_DONE && chat->t_done == 0)
    chat->t_done = now;
  return TRUE;
}

static void
collect (GtkWidget *widget,
         GType      type,
         GPtrArray *out)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    g_ptr_array_add (out, widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect (c, type, out);
}

/* The top @height pixels of @widget (all of it if smaller) lie inside the
 * chat's scrolled area, so in the window. */
static gboolean
on_screen (GtkWidget *widget,
           GtkWidget *scroller,
           double     height)
{
  graphene_rect_t r;

  if (!gtk_widget_get_mapped (widget) || gtk_widget_get_height (widget) <= 0 ||
      !gtk_widget_compute_bounds (widget, scroller, &r))
    return FALSE;
  return r.origin.y >= 0 && r.origin.y + MIN (height, r.size.height) <= gtk_widget_get_height (scroller) &&
         r.origin.x >= 0 && r.origin.x < gtk_widget_get_width (scroller);
}

/* The label of the first row's first cell of @view, when it has one. */
static GtkWidget *
first_row_label (GtkWidget *view)
{
  GType title_type = g_type_from_name ("GtkColumnViewTitle");
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  GtkWidget *best = NULL;
  double best_y = G_MAXDOUBLE, best_x = G_MAXDOUBLE;

  collect (find_column_view (view), GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      graphene_point_t p = GRAPHENE_POINT_INIT (0, 0), q;

      if (!gtk_widget_get_mapped (label) || gtk_widget_get_width (label) <= 0 ||
          (title_type != 0 && gtk_widget_get_ancestor (label, title_type) != NULL) ||
          !gtk_widget_compute_point (label, view, &p, &q))
        continue;
      if (q.y < best_y - 0.5 || (q.y < best_y + 0.5 && q.x < best_x))
        {
          best_y = q.y;
          best_x = q.x;
          best = label;
        }
    }
  return best;
}

static void
chat_after_paint_cb (GdkFrameClock *clock,
                     Chat          *chat)
{
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (rk_chat_view_get_list_view (RK_CHAT_VIEW (chat->chat))),
                                                 GTK_TYPE_SCROLLED_WINDOW);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  gint64 now = g_get_monotonic_time ();

  if (!chat->armed || chat->t_message == 0 || chat->t_shown != 0)
    return;
  collect (chat->chat, RK_TYPE_ENTRY_ROW, rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      RkTranscriptEntry *entry = rk_entry_row_get_entry (RK_ENTRY_ROW (row));

      if (entry == NULL)
        continue;
      if (!chat->text_peer && rk_transcript_entry_get_kind (entry) == RK_ENTRY_TABLE &&
          g_strcmp0 (rk_transcript_entry_get_path (entry), chat->path) == 0)
        {
          g_autoptr(GPtrArray) views = g_ptr_array_new ();
          GtkWidget *label;

          collect (row, RK_TYPE_TABLE_VIEW, views);
          label = views->len > 0 ? first_row_label (g_ptr_array_index (views, 0)) : NULL;
          if (label != NULL && on_screen (label, chat->chat, G_MAXDOUBLE) && on_screen (label, scroller, G_MAXDOUBLE))
            {
              chat->t_shown = now;
              chat->first_cell = g_strdup (gtk_label_get_text (GTK_LABEL (label)));
            }
        }
      else if (chat->text_peer && rk_transcript_entry_get_kind (entry) == RK_ENTRY_STREAM &&
               g_str_has_prefix (rk_transcript_entry_get_text (entry), chat->marker) &&
               on_screen (row, scroller, 40))
        chat->t_shown = now;
    }
}

static void
run_code_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Chat *chat = user_data;
  g_autoptr(GError) error = NULL;

  g_free (rk_conversation_run_code_finish (RK_CONVERSATION (source), result, &error));
  g_assert_no_error (error);
  chat->finished = TRUE;
}

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs @code; when armed, measures it: the median's sample in ms, or NAN
 * when its rows were not on screen within 10 s of its end. */
static double
run_cell (RkConversation *conv,
          Chat           *chat,
          const char     *code)
{
  gboolean late = FALSE;
  guint id;

  chat->t_message = chat->t_done = chat->t_shown = 0;
  g_clear_pointer (&chat->path, g_free);
  g_clear_pointer (&chat->first_cell, g_free);
  chat->finished = FALSE;
  rk_conversation_run_code_async (conv, code, RK_CODE_PROPOSED, NULL, run_code_cb, chat);
  id = g_timeout_add_seconds (120, timeout_cb, &late);
  while (!chat->finished && !late)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (late);
  g_source_remove (id);
  /* the rows may come a few frames after the cell's done */
  late = FALSE;
  id = g_timeout_add_seconds (10, timeout_cb, &late);
  while (chat->armed && chat->t_shown == 0 && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
  if (!chat->armed || chat->t_message == 0 || chat->t_shown == 0)
    return NAN;
  return (chat->t_shown - chat->t_message) / 1e3;
}

/* The medians of CHAT_RUNS cells showing a 1,000,000-row DataFrame: from the
 * kernel's table message to the table's first row on screen; and of as many
 * cells printing its first 20 rows as text (the peer): from the first stream
 * message to the text's first line on screen. FALSE without a sandbox or
 * when a table was not shown. */
static gboolean
measure_chat (double *rows_ms,
              double *text_ms)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RkModelClient) client = rk_model_client_new ();
  g_autoptr(RkConversation) conv = NULL;
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) text = g_array_new (FALSE, FALSE, sizeof (double));
  GtkWidget *window = gtk_window_new ();
  Chat chat = { 0 };
  GdkFrameClock *clock;
  gulong hook;
  guint signal_id;
  g_autofree char *setup = NULL;

  if (!rk_check_sandbox_parts (&error))
    {
      printf ("# the chat path not measured: %s\n", error->message);
      gtk_window_destroy (GTK_WINDOW (window));
      return FALSE;
    }
  rk_model_client_set_endpoint (client, "http://127.0.0.1:9");   /* no model: typed code */
  conv = rk_conversation_new (client, &error);
  g_assert_no_error (error);
  rk_conversation_set_auto_approve (conv, TRUE);

  chat.chat = rk_chat_view_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_set_child (GTK_WINDOW (window), chat.chat);
  rk_chat_view_set_conversation (RK_CHAT_VIEW (chat.chat), conv);
  gtk_window_present (GTK_WINDOW (window));
  gtk_widget_realize (window);
  clock = gtk_widget_get_frame_clock (window);
  g_signal_connect (clock, "after-paint", G_CALLBACK (chat_after_paint_cb), &chat);
  g_type_class_unref (g_type_class_ref (RK_TYPE_KERNEL));
  signal_id = g_signal_lookup ("event", RK_TYPE_KERNEL);
  hook = g_signal_add_emission_hook (signal_id, 0, kernel_event_hook, &chat, NULL);

  /* the kernel up, pandas imported and the frame built, as after a first question */
  setup = g_strdup_printf ("import numpy as np, pandas as pd\nrng = np.random.default_rng(1)\nn = %d\n"
                           "df = pd.DataFrame({'city': rng.choice(['Paris', 'Lyon', None], n),"
                           " 'sales': rng.normal(1e4, 3e3, n).round(2), 'units': rng.integers(0, 10**6, n),"
                           " 'when': pd.date_range('2024-01-01', periods=n, freq='min')})\n"
                           "print(len(df))\n", N_ROWS);
  run_cell (conv, &chat, setup);

  chat.armed = TRUE;
  for (guint i = 0; i < CHAT_RUNS; i++)
    {
      g_autofree char *peer_code = NULL;
      double table_ms, text_ms_1;

      chat.text_peer = FALSE;
      table_ms = run_cell (conv, &chat, "df\n");
      if (!isnan (table_ms))
        g_array_append_val (rows, table_ms);
      printf ("# run %u: table message -> first row on screen %.1f ms (first cell \"%s\"; the done message came %.1f ms after the table's)",
              i + 1, table_ms, chat.first_cell ? chat.first_cell : "—",
              chat.t_done && chat.t_message ? (chat.t_done - chat.t_message) / 1e3 : NAN);

      chat.text_peer = TRUE;
      g_free (chat.marker);
      chat.marker = g_strdup_printf ("text peer %u", i + 1);
      peer_code = g_strdup_printf ("print('%s')\nprint(df.head(20).to_string())\n", chat.marker);
      text_ms_1 = run_cell (conv, &chat, peer_code);
      if (!isnan (text_ms_1))
        g_array_append_val (text, text_ms_1);
      printf ("; text peer: stream message -> first line on screen %.1f ms\n", text_ms_1);
    }
  chat.armed = FALSE;

  g_signal_remove_emission_hook (signal_id, hook);
  g_signal_handlers_disconnect_by_data (clock, &chat);
  rk_chat_view_set_conversation (RK_CHAT_VIEW (chat.chat), NULL);
  gtk_window_destroy (GTK_WINDOW (window));
  rk_conversation_close (conv);
  g_clear_pointer (&chat.path, g_free);
  g_clear_pointer (&chat.marker, g_free);
  g_clear_pointer (&chat.first_cell, g_free);
  *rows_ms = rows->len > 0 ? percentile (rows, 0.5) : NAN;
  *text_ms = text->len > 0 ? percentile (text, 0.5) : NAN;
  printf ("chat (RkChatView on a real RkConversation, kernel in the sandbox): a 1,000,000-row table's first row on screen "
          "%.1f ms after the kernel's table message (median of %u); peer, its first 20 rows printed as text: %.1f ms (median of %u)\n",
          *rows_ms, rows->len, *text_ms, text->len);
  return rows->len == CHAT_RUNS;
}

int
main (int argc, char **argv)
{
  const char *root = g_getenv ("RECKON_SOURCE_ROOT");
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *code = NULL;
  Run rk = { 0 }, peer = { 0 };
  double p95_rk, p95_peer;
  double chat_rows = NAN, chat_text = NAN, open_ms;
  gboolean chat_ok;
  int status = -1;

  gtk_init ();
  adw_init ();
  if (root == NULL || gdk_display_get_default () == NULL)
    {
      printf ("1..0 # SKIP needs a display and RECKON_SOURCE_ROOT: run through meson test --benchmark\n");
      return 0;
    }
  dir = g_dir_make_tmp ("rk-bench-scroll-XXXXXX", NULL);
  path = g_build_filename (dir, "t.rkt", NULL);
  code = g_strdup_printf ("import sys\nsys.path.insert(0, '%s/sandbox/kernel')\nimport numpy as np, pandas as pd\n"
                          "from reckon import table\nrng = np.random.default_rng(1)\nn = %d\n"
                          "table.write(pd.DataFrame({'city': rng.choice(['Paris', 'Lyon', None], n),"
                          " 'sales': rng.normal(1e4, 3e3, n).round(2), 'units': rng.integers(0, 10**6, n),"
                          " 'when': pd.date_range('2024-01-01', periods=n, freq='min')}), sys.argv[1])\n",
                          root, N_ROWS);
  {
    const char *gen[] = { "/usr/bin/python3", "-c", code, path, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) gen, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, NULL));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }

  printf ("# 1,000,000 rows x 4 columns, window 1000x700, cairo renderer; %d frames of scrolling 3 rows a frame\n", FRAMES);
  chat_ok = measure_chat (&chat_rows, &chat_text);
  open_ms = measure_open (path);
  measure ("RkTableView (RkTable, locale-formatted cells)", path, &rk);
  measure ("peer: GtkColumnView over a GtkStringList", NULL, &peer);
  p95_rk = percentile (rk.frame_ms, 0.95);
  p95_peer = percentile (peer.frame_ms, 0.95);
  printf ("frame time ratio (p95, RkTableView / peer): %.2f; target: p95 under %.0f ms — %s\n",
          p95_rk / p95_peer, TARGET_P95, p95_rk < TARGET_P95 ? "MET" : "NOT MET");
  if (!isnan (chat_rows))
    printf ("first rows after a cell's end (the kernel's table message -> the table's first row on screen in the chat, median): %.1f ms; "
            "ratio to its first 20 rows printed as text on the same path (peer): %.2f; target: under %.0f ms — %s\n",
            chat_rows, chat_rows / chat_text, TARGET_OPEN,
            chat_ok && chat_rows < TARGET_OPEN ? "MET" : "NOT MET");
  else
    printf ("first rows after a cell's end: not measured (no sandbox); target: under %.0f ms — NOT MET\n", TARGET_OPEN);
  printf ("first rows of the full view (Open Table) after opening the file, median: %.1f ms; target: under %.0f ms — %s\n",
          open_ms, TARGET_OPEN, open_ms < TARGET_OPEN ? "MET" : "NOT MET");

  g_unlink (path);
  g_rmdir (dir);
  return 0;
}
