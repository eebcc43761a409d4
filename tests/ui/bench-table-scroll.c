/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-table-scroll.c — RkTableView over a 1,000,000-row table in a real
 * window (Xvfb, cairo renderer): from the table file to the first rows drawn,
 * and the frame time while scrolling, against a plain GtkColumnView over a
 * GtkStringList of the same rows and columns measured in the same run. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk-table-view.h"

#define N_ROWS      1000000
#define FRAMES      240
#define TARGET_P95  16.0
#define TARGET_OPEN 100.0

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

int
main (int argc, char **argv)
{
  const char *root = g_getenv ("RECKON_SOURCE_ROOT");
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *code = NULL;
  Run rk = { 0 }, peer = { 0 };
  double p95_rk, p95_peer;
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

  printf ("# 1,000,000 rows x 4 columns, %d frames of scrolling 3 rows a frame, window 1000x700, cairo renderer\n", FRAMES);
  measure ("RkTableView (RkTable, locale-formatted cells)", path, &rk);
  measure ("peer: GtkColumnView over a GtkStringList", NULL, &peer);
  p95_rk = percentile (rk.frame_ms, 0.95);
  p95_peer = percentile (peer.frame_ms, 0.95);
  printf ("frame time ratio (p95, RkTableView / peer): %.2f; target: p95 under %.0f ms — %s\n",
          p95_rk / p95_peer, TARGET_P95, p95_rk < TARGET_P95 ? "MET" : "NOT MET");
  printf ("first rows: %.1f ms from the file; target: under %.0f ms — %s\n",
          rk.first_ms, TARGET_OPEN, rk.first_ms < TARGET_OPEN ? "MET" : "NOT MET");

  g_unlink (path);
  g_rmdir (dir);
  return 0;
}
