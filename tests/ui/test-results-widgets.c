/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-results-widgets.c — the results views in a real window under Xvfb:
 * sort a 1,000,000-row table from its header menu and read the first cell
 * shown; copy a block of rows and read the clipboard; save a table as XLSX and
 * read it back with openpyxl; hover a chart point and read its value from the
 * tooltip and the readout label; save a chart as SVG; zoom a figure. */
#define G_LOG_DOMAIN "test-results-widgets"
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "rk-chart-view.h"
#include "rk-figure-viewer.h"
#include "rk-table-view.h"

static char *tmpdir;

static gboolean
timeout_cb (gpointer data)
{
  gboolean *flag = data;
  *flag = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main loop until @done (or @seconds pass: the test fails). */
static void
wait_for (gboolean   (*done) (gpointer),
          gpointer     data,
          guint        seconds)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (seconds, timeout_cb, &timed_out);

  while (!done (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  g_assert_false (timed_out);
}

static void
spin (guint ms)
{
  gboolean over = FALSE;

  g_timeout_add (ms, timeout_cb, &over);
  while (!over)
    g_main_context_iteration (NULL, TRUE);
}

static char *
python (const char *code,
        const char *arg)
{
  const char *argv[] = { "/usr/bin/python3", "-c", code, arg, NULL };
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  g_autofree char *err = NULL;
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("python failed: %s", err);
  return out;
}

/* A table written by the kernel's own writer: n rows of (city, units). */
static RkTable *
make_table (guint   n,
            double *max_units)
{
  g_autofree char *path = g_strdup_printf ("%s/t%u.rkt", tmpdir, n);
  g_autofree char *code = g_strdup_printf (
    "import os, sys\nsys.path.insert(0, os.environ['RECKON_SOURCE_ROOT'] + '/sandbox/kernel')\n"
    "import numpy as np, pandas as pd\n"
    "from reckon import table\nrng = np.random.default_rng(5)\n"
    "df = pd.DataFrame({'city': rng.choice(['Paris', 'Lyon', 'Nantes'], %u), 'units': rng.integers(0, 10**9, %u)})\n"
    "table.write(df, sys.argv[1])\nprint(int(df.units.max()))\n", n, n);
  g_autofree char *out = python (code, path);
  g_autoptr(GError) error = NULL;
  RkTable *table;

  *max_units = g_ascii_strtod (out, NULL);
  table = rk_table_open (path, &error);
  g_assert_no_error (error);
  return table;
}

static GtkWidget *
show_in_window (GtkWidget *child)
{
  GtkWidget *window = gtk_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_set_child (GTK_WINDOW (window), child);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
collect (GtkWidget  *widget,
         GType       type,
         GPtrArray  *out)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    g_ptr_array_add (out, widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect (c, type, out);
}

static GtkWidget *
find_first (GtkWidget *root,
            GType      type)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  collect (root, type, all);
  return all->len > 0 ? g_ptr_array_index (all, 0) : NULL;
}

/* The text of the topmost cell shown in @column: the labels of the rows
 * (row widget > cell > label), not those of the header titles. */
static char *
first_cell_text (GtkWidget *view,
                 guint      column)
{
  GtkWidget *cv = find_first (view, GTK_TYPE_COLUMN_VIEW);
  GType title_type = g_type_from_name ("GtkColumnViewTitle");
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  GtkWidget *best = NULL;
  double best_y = G_MAXDOUBLE;

  collect (cv, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      GtkWidget *cell = gtk_widget_get_parent (label);
      GtkWidget *row = cell != NULL ? gtk_widget_get_parent (cell) : NULL;
      graphene_point_t p = GRAPHENE_POINT_INIT (0, 0), q;
      guint index = 0;

      if (!gtk_widget_get_mapped (label) || row == NULL ||
          (title_type != 0 && gtk_widget_get_ancestor (label, title_type) != NULL))
        continue;
      for (GtkWidget *c = gtk_widget_get_first_child (row); c != NULL && c != cell; c = gtk_widget_get_next_sibling (c))
        index++;
      if (index != column || !gtk_widget_compute_point (label, cv, &p, &q) || q.y < 0)
        continue;
      if (q.y < best_y)
        {
          best_y = q.y;
          best = label;
        }
    }
  return best != NULL ? g_strdup (gtk_label_get_text (GTK_LABEL (best))) : NULL;
}

static gboolean
sorted_desc (gpointer data)
{
  RkTable *table = data;
  return rk_table_get_sort_column (table) == 1 && !rk_table_get_sort_ascending (table);
}

static void
test_table_sort_million (void)
{
  double max_units = 0;
  g_autoptr(RkTable) table = make_table (1000000, &max_units);
  GtkWidget *view = rk_table_view_new (table);
  GtkWidget *window = show_in_window (view);
  g_autofree char *expected = g_strdup_printf ("%.0f", max_units);
  g_autofree char *shown = NULL;
  gint64 t0;

  spin (300);
  t0 = g_get_monotonic_time ();
  /* the header menu's "Sort Descending" of "units" */
  g_assert_true (gtk_widget_activate_action (view, "table.sort-column", "(ub)", 1, FALSE));
  wait_for (sorted_desc, table, 60);
  g_test_message ("sorted 1,000,000 rows in %.0f ms", (g_get_monotonic_time () - t0) / 1e3);
  spin (300);

  {
    double first = 0;
    g_assert_true (rk_table_get_double (table, rk_table_get_row_at (table, 0), 1, &first));
    g_assert_cmpfloat (first, ==, max_units);
  }
  shown = first_cell_text (view, 1);
  g_assert_nonnull (shown);
  /* the locale may group digits: compare the digits */
  {
    g_autoptr(GString) digits = g_string_new (NULL);
    for (const char *p = shown; *p; p++)
      if (g_ascii_isdigit (*p))
        g_string_append_c (digits, *p);
    g_assert_cmpstr (digits->str, ==, expected);
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean flag_set (gpointer data);

/* The full view draws a first page of rows at once and reveals the rest a
 * batch a frame: its first frame already shows the first row, it soon holds
 * every row, and what reads the whole table (a copy with nothing selected, a
 * filter) never sees only the first page. */
typedef struct
{
  GtkWidget *view;
  char      *first;
  gboolean   painted;
} FirstFrame;

static void
first_after_paint_cb (GdkFrameClock *clock,
                      FirstFrame    *f)
{
  if (f->painted)
    return;
  f->painted = TRUE;
  f->first = first_cell_text (f->view, 1);
}

static gboolean
all_rows_shown (gpointer data)
{
  GtkWidget *cv = find_first (data, GTK_TYPE_COLUMN_VIEW);

  return g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (cv)))) == 1000;
}

static gboolean
filter_found_last (gpointer data)
{
  GtkWidget *cv = find_first (data, GTK_TYPE_COLUMN_VIEW);
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (cv)));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(RkTableRow) row = g_list_model_get_item (model, i);

      if (rk_table_row_get_index (row) == 999)
        return TRUE;
    }
  return FALSE;
}

static void
test_table_first_page (void)
{
  double max_units;
  g_autoptr(RkTable) table = make_table (1000, &max_units);
  GtkWidget *view = rk_table_view_new (table);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *other;
  GtkWidget *entry;
  FirstFrame f = { view, NULL, FALSE };
  gint64 units0 = 0, units999 = 0;
  g_autofree char *expected = NULL;
  g_autofree char *tsv = NULL;
  g_autofree char *filter = NULL;
  GdkFrameClock *clock;

  g_assert_true (rk_table_get_int64 (table, 0, 1, &units0));
  g_assert_true (rk_table_get_int64 (table, 999, 1, &units999));
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_widget_realize (window);
  clock = gtk_widget_get_frame_clock (window);
  g_signal_connect (clock, "after-paint", G_CALLBACK (first_after_paint_cb), &f);
  gtk_window_present (GTK_WINDOW (window));
  wait_for (flag_set, &f.painted, 30);
  g_signal_handlers_disconnect_by_data (clock, &f);
  g_assert_nonnull (f.first);
  {
    g_autoptr(GString) digits = g_string_new (NULL);
    for (const char *p = f.first; *p; p++)
      if (g_ascii_isdigit (*p))
        g_string_append_c (digits, *p);
    expected = g_strdup_printf ("%" G_GINT64_FORMAT, units0);
    g_assert_cmpstr (digits->str, ==, expected);
  }
  g_free (f.first);
  wait_for (all_rows_shown, view, 30);

  /* a second view, copied before any frame: every row, not the first page */
  other = rk_table_view_new (table);
  g_object_ref_sink (other);
  tsv = rk_table_view_get_selection_tsv (RK_TABLE_VIEW (other));
  {
    guint lines = 0;
    for (const char *p = tsv; *p; p++)
      lines += *p == '\n';
    g_assert_cmpuint (lines, ==, 1 + 1000);   /* the header row, then every row */
  }
  g_object_unref (other);

  /* a filter typed at once looks at every row: the last one's units */
  other = rk_table_view_new (table);
  gtk_window_set_child (GTK_WINDOW (window), other);
  entry = find_first (other, GTK_TYPE_SEARCH_ENTRY);
  filter = g_strdup_printf ("%" G_GINT64_FORMAT, units999);
  gtk_editable_set_text (GTK_EDITABLE (entry), filter);
  g_signal_emit_by_name (entry, "search-changed");
  wait_for (filter_found_last, other, 30);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A wide table gets its columns a few a frame after the first ones: they all
 * come, and a sort asked at once by a column not yet shown works. */
static gboolean
all_columns_shown (gpointer data)
{
  GtkWidget *cv = find_first (data, GTK_TYPE_COLUMN_VIEW);

  return g_list_model_get_n_items (gtk_column_view_get_columns (GTK_COLUMN_VIEW (cv))) == 40;
}

static gboolean
sorted_by_last (gpointer data)
{
  return rk_table_get_sort_column (data) == 39;
}

static void
test_table_wide (void)
{
  g_autofree char *path = g_strdup_printf ("%s/wide.rkt", tmpdir);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) table = NULL;
  GtkWidget *view;
  GtkWidget *window;
  gint64 first = -1;

  g_free (python ("import os, sys\nsys.path.insert(0, os.environ['RECKON_SOURCE_ROOT'] + '/sandbox/kernel')\n"
                  "import pandas as pd\nfrom reckon import table\n"
                  "df = pd.DataFrame({'c%d' % i: [(r * 7 + i) % 300 for r in range(300)] for i in range(40)})\n"
                  "table.write(df, sys.argv[1])\n", path));
  table = rk_table_open (path, &error);
  g_assert_no_error (error);
  view = rk_table_view_new (table);
  window = show_in_window (view);
  g_assert_true (gtk_widget_activate_action (view, "table.sort-column", "(ub)", 39, TRUE));
  wait_for (sorted_by_last, table, 30);
  wait_for (all_columns_shown, view, 30);
  g_assert_true (rk_table_get_int64 (table, rk_table_get_row_at (table, 0), 39, &first));
  g_assert_cmpint (first, ==, 0);
  /* every column, the late ones too, can be made wider by dragging */
  {
    GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (find_first (view, GTK_TYPE_COLUMN_VIEW)));

    for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
      {
        g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
        g_assert_true (gtk_column_view_column_get_resizable (column));
      }
  }
  gtk_window_destroy (GTK_WINDOW (window));

  /* the compact view too, though it keeps 20 rows */
  view = rk_table_view_new_compact (table);
  window = show_in_window (view);
  wait_for (all_columns_shown, view, 30);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The save menu's popover is made when the button is first pressed. */
static void
test_table_save_menu (void)
{
  double max_units;
  g_autoptr(RkTable) table = make_table (100, &max_units);
  GtkWidget *view = rk_table_view_new (table);
  GtkWidget *window = show_in_window (view);
  GtkWidget *button = find_first (view, GTK_TYPE_MENU_BUTTON);
  GtkWidget *popover;
  GMenuModel *model;

  spin (100);
  g_assert_nonnull (button);
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  spin (100);
  popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
  g_assert_true (GTK_IS_POPOVER_MENU (popover));
  g_assert_true (gtk_widget_get_visible (popover));
  model = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
  g_assert_cmpint (g_menu_model_get_n_items (model), ==, 3);
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  /* pressed again: the same popover */
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  spin (100);
  g_assert_true (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button))) == popover);
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  gtk_window_destroy (GTK_WINDOW (window));
}

typedef struct
{
  char     *text;
  gboolean  done;
} ClipRead;

static void
clip_read_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  ClipRead *r = user_data;

  r->text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
  r->done = TRUE;
}

static gboolean
clip_done (gpointer data)
{
  return ((ClipRead *) data)->done;
}

static void
test_table_copy_block (void)
{
  double max_units;
  g_autoptr(RkTable) table = make_table (1000, &max_units);
  GtkWidget *view = rk_table_view_new (table);
  GtkWidget *window = show_in_window (view);
  GtkWidget *cv;
  ClipRead r = { 0 };
  g_autoptr(GString) expected = g_string_new (NULL);

  spin (200);
  cv = find_first (view, GTK_TYPE_COLUMN_VIEW);
  g_assert_nonnull (cv);
  /* rows 2, 3, 4 */
  gtk_selection_model_select_range (gtk_column_view_get_model (GTK_COLUMN_VIEW (cv)), 2, 3, TRUE);
  g_assert_true (gtk_widget_activate_action (view, "table.copy", NULL));
  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (view), NULL, clip_read_cb, &r);
  wait_for (clip_done, &r, 10);

  g_string_append_printf (expected, "%s\t%s\n", rk_table_get_column_name (table, 0), rk_table_get_column_name (table, 1));
  for (guint row = 2; row < 5; row++)
    {
      g_autofree char *city = rk_table_get_cell_text (table, row, 0);
      gint64 units = 0;

      g_assert_true (rk_table_get_int64 (table, row, 1, &units));
      g_string_append_printf (expected, "%s\t%" G_GINT64_FORMAT "\n", city, units);
    }
  g_assert_cmpstr (r.text, ==, expected->str);
  g_free (r.text);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Floats show rounded (six decimals; six significant digits in exponent
 * form), and a copy gives them exactly. */
static void
test_table_float_display (void)
{
  g_autofree char *path = g_strdup_printf ("%s/floats.rkt", tmpdir);
  g_autofree char *out = python (
    "import os, sys\nsys.path.insert(0, os.environ['RECKON_SOURCE_ROOT'] + '/sandbox/kernel')\n"
    "import pandas as pd\nfrom reckon import table\n"
    "table.write(pd.DataFrame({'x': [15.491933384829668, 0.000012345678901, 2.5]}), sys.argv[1])\n", path);
  g_autoptr(GError) error = NULL;
  g_autoptr(RkTable) table = rk_table_open (path, &error);
  GtkWidget *view, *window, *cv;
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  gboolean rounded = FALSE, small = FALSE, plain = FALSE;
  ClipRead r = { 0 };

  g_assert_nonnull (out);   /* the table was written before it was opened */
  g_assert_no_error (error);
  view = rk_table_view_new (table);
  window = show_in_window (view);
  spin (200);
  collect (view, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      const char *text = gtk_label_get_text (labels->pdata[i]);

      rounded |= g_str_equal (text, "15.491933");
      small |= g_str_equal (text, "1.23457e-05");
      plain |= g_str_equal (text, "2.5");
    }
  g_assert_true (rounded && small && plain);

  cv = find_first (view, GTK_TYPE_COLUMN_VIEW);
  gtk_selection_model_select_range (gtk_column_view_get_model (GTK_COLUMN_VIEW (cv)), 0, 2, TRUE);
  g_assert_true (gtk_widget_activate_action (view, "table.copy", NULL));
  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (view), NULL, clip_read_cb, &r);
  wait_for (clip_done, &r, 10);
  {
    /* exactly the table's own text of each value */
    g_autofree char *a = rk_table_get_cell_text (table, 0, 0);
    g_autofree char *b = rk_table_get_cell_text (table, 1, 0);
    g_autofree char *want = g_strdup_printf ("x\n%s\n%s\n", a, b);

    g_assert_cmpuint (strlen (a), >, strlen ("15.491933"));
    g_assert_cmpstr (r.text, ==, want);
  }
  g_free (r.text);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
saved_cb (RkTableView *view,
          GFile       *file,
          gboolean    *saved)
{
  *saved = TRUE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static void
test_table_save_xlsx (void)
{
  double max_units;
  g_autoptr(RkTable) table = make_table (1000, &max_units);
  GtkWidget *view = rk_table_view_new (table);
  GtkWidget *window = show_in_window (view);
  g_autofree char *path = g_build_filename (tmpdir, "saved.xlsx", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *out = NULL;
  g_autofree char *expected = NULL;
  gboolean saved = FALSE;
  gint64 units0 = 0;
  g_autofree char *city0 = NULL;

  /* sorted first: the file follows the view's order */
  g_assert_true (gtk_widget_activate_action (view, "table.sort-column", "(ub)", 1, FALSE));
  wait_for (sorted_desc, table, 30);
  g_signal_connect (view, "saved", G_CALLBACK (saved_cb), &saved);
  rk_table_view_save (RK_TABLE_VIEW (view), file, RK_TABLE_EXPORT_XLSX);
  wait_for (flag_set, &saved, 60);

  out = python ("import sys, openpyxl\n"
                "ws = openpyxl.load_workbook(sys.argv[1], read_only=True).active\n"
                "rows = list(ws.iter_rows(values_only=True))\n"
                "print(len(rows)); print(rows[0][0], rows[0][1]); print(rows[1][0], rows[1][1])\n", path);
  city0 = rk_table_get_cell_text (table, rk_table_get_row_at (table, 0), 0);
  g_assert_true (rk_table_get_int64 (table, rk_table_get_row_at (table, 0), 1, &units0));
  expected = g_strdup_printf ("1001\ncity units\n%s %" G_GINT64_FORMAT "\n", city0, units0);
  g_assert_cmpstr (out, ==, expected);
  g_assert_cmpfloat ((double) units0, ==, max_units);
  gtk_window_destroy (GTK_WINDOW (window));
}

static RkChart *
bar_chart (void)
{
  const char *json =
    "{\"version\":1,\"kind\":\"bar\",\"title\":\"Units by region\",\"x\":{\"type\":\"category\",\"label\":\"region\"},"
    "\"y\":{\"label\":\"units\"},\"categories\":[\"North\",\"South\"],"
    "\"series\":[{\"name\":\"units\",\"y\":[48213,81387]}]}";
  g_autoptr(GBytes) bytes = g_bytes_new_static (json, strlen (json));
  g_autoptr(GError) error = NULL;
  RkChart *chart = rk_chart_new_from_bytes (bytes, NULL, &error);

  g_assert_no_error (error);
  return chart;
}

static void
test_chart_hover (void)
{
  g_autoptr(RkChart) chart = bar_chart ();
  GtkWidget *view = rk_chart_view_new (chart);
  GtkWidget *window = show_in_window (view);
  GtkWidget *area, *readout = NULL;
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  int w, h;
  gboolean found = FALSE;

  spin (300);
  area = find_first (view, GTK_TYPE_DRAWING_AREA);
  w = gtk_widget_get_width (area);
  h = gtk_widget_get_height (area);
  g_assert_cmpint (w, >, 100);
  /* the left bar (North), halfway up: scan upwards from the bottom */
  for (int y = h - 60; y > 40 && !found; y -= 10)
    found = rk_chart_view_hover (RK_CHART_VIEW (view), w * 0.3, y);
  g_assert_true (found);
  g_assert_nonnull (strstr (rk_chart_view_get_hover_text (RK_CHART_VIEW (view)), "North: 48213"));
  /* screen readers and mouse users read the same: tooltip and readout label */
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (area), "48213"));
  collect (view, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    if (strstr (gtk_label_get_text (GTK_LABEL (g_ptr_array_index (labels, i))), "North: 48213") != NULL)
      readout = g_ptr_array_index (labels, i);
  g_assert_nonnull (readout);

  /* with the keyboard: Home is North, Right goes on to South */
  gtk_widget_grab_focus (area);
  {
    GtkEventController *keys = NULL;
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (area);

    for (guint i = 0; ; i++)
      {
        g_autoptr(GObject) c = g_list_model_get_item (controllers, i);
        if (c == NULL)
          break;
        if (GTK_IS_EVENT_CONTROLLER_KEY (c))
          keys = GTK_EVENT_CONTROLLER (c);
      }
    g_assert_nonnull (keys);
    g_signal_emit_by_name (keys, "key-pressed", GDK_KEY_Home, 0, 0, &found);
    g_assert_nonnull (strstr (rk_chart_view_get_hover_text (RK_CHART_VIEW (view)), "North: 48213"));
    g_signal_emit_by_name (keys, "key-pressed", GDK_KEY_Right, 0, 0, &found);
    g_assert_nonnull (strstr (rk_chart_view_get_hover_text (RK_CHART_VIEW (view)), "South: 81387"));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
file_is_svg (gpointer data)
{
  g_autofree char *text = NULL;

  return g_file_get_contents (data, &text, NULL, NULL) && strstr (text, "</svg>") != NULL;
}

static void
test_chart_save_svg (void)
{
  g_autoptr(RkChart) chart = bar_chart ();
  GtkWidget *view = rk_chart_view_new (chart);
  GtkWidget *window = show_in_window (view);
  g_autofree char *path = g_build_filename (tmpdir, "chart.svg", NULL);
  g_autofree char *text = NULL;

  spin (200);
  rk_chart_view_save (RK_CHART_VIEW (view), path, RK_CHART_FORMAT_SVG);
  wait_for (file_is_svg, path, 30);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "<?xml"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The chat's compact views open their full view in a window of its own. */
static void
test_open_full_views (void)
{
  double max_units;
  g_autoptr(RkTable) table = make_table (1000, &max_units);
  g_autoptr(RkChart) chart = bar_chart ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *compact = rk_table_view_new_compact (table);
  GtkWidget *chart_view = rk_chart_view_new (chart);
  GtkWidget *window;
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint before;
  gboolean found_table = FALSE, found_chart = FALSE;

  rk_chart_view_set_compact (RK_CHART_VIEW (chart_view), TRUE);
  gtk_box_append (GTK_BOX (box), compact);
  gtk_box_append (GTK_BOX (box), chart_view);
  window = show_in_window (box);
  spin (200);
  before = g_list_model_get_n_items (toplevels);
  g_assert_true (gtk_widget_activate_action (compact, "table.open-window", NULL));
  g_assert_true (gtk_widget_activate_action (chart_view, "chart.open-window", NULL));
  spin (300);
  g_assert_cmpuint (g_list_model_get_n_items (toplevels), ==, before + 2);
  g_autoptr(GPtrArray) windows = g_ptr_array_new_with_free_func (g_object_unref);

  /* destroying a window changes the list: take them all first */
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    g_ptr_array_add (windows, g_list_model_get_item (toplevels, i));
  for (guint i = 0; i < windows->len; i++)
    {
      GtkWidget *w = g_ptr_array_index (windows, i);
      GtkWidget *t = find_first (w, RK_TYPE_TABLE_VIEW);
      GtkWidget *c = find_first (w, RK_TYPE_CHART_VIEW);

      if (w == window)
        continue;
      if (t != NULL && !rk_table_view_get_compact (RK_TABLE_VIEW (t)))
        {
          found_table = TRUE;
          g_assert_true (rk_table_view_get_table (RK_TABLE_VIEW (t)) == table);
        }
      if (c != NULL && !rk_chart_view_get_compact (RK_CHART_VIEW (c)))
        found_chart = TRUE;
      gtk_window_destroy (GTK_WINDOW (w));
    }
  g_assert_true (found_table);
  g_assert_true (found_chart);
}

static void
test_figure_zoom (void)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *png = g_build_filename (tmpdir, "fig.png", NULL);
  g_autoptr(GError) error = NULL;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 320, 200);
  g_autoptr(RkWorkspace) workspace = rk_workspace_open (tmpdir, NULL);
  GtkWidget *viewer;
  GtkWidget *picture;
  int w = 0, h = 0;

  g_assert_cmpint (cairo_surface_write_to_png (s, png), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy (s);
  texture = gdk_texture_new_from_filename (png, &error);
  g_assert_no_error (error);
  viewer = rk_figure_viewer_new (NULL, GDK_PAINTABLE (texture), "Figure 1", workspace, "fig.png");
  gtk_window_present (GTK_WINDOW (viewer));
  spin (200);
  picture = find_first (viewer, GTK_TYPE_PICTURE);
  g_assert_true (gtk_widget_activate_action (viewer, "figure.zoom-original", NULL));
  g_assert_cmpfloat (rk_figure_viewer_get_zoom (RK_FIGURE_VIEWER (viewer)), ==, 1.0);
  g_assert_true (gtk_widget_activate_action (viewer, "figure.zoom-in", NULL));
  gtk_widget_get_size_request (picture, &w, &h);
  g_assert_cmpint (w, ==, 400);
  g_assert_cmpint (h, ==, 250);
  g_assert_true (gtk_widget_activate_action (viewer, "figure.zoom-fit", NULL));
  g_assert_cmpfloat (rk_figure_viewer_get_zoom (RK_FIGURE_VIEWER (viewer)), ==, 0);
  gtk_window_destroy (GTK_WINDOW (viewer));
}

int
main (int argc, char **argv)
{
  int ret;

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  if (g_getenv ("RECKON_SOURCE_ROOT") == NULL)
    {
      printf ("1..0 # SKIP RECKON_SOURCE_ROOT is not set: run through meson test\n");
      return 0;
    }
  tmpdir = g_dir_make_tmp ("rk-results-ui-XXXXXX", NULL);

  g_test_add_func ("/rk/results/table/sort-million", test_table_sort_million);
  g_test_add_func ("/rk/results/table/copy-block", test_table_copy_block);
  g_test_add_func ("/rk/results/table/float-display", test_table_float_display);
  g_test_add_func ("/rk/results/table/first-page", test_table_first_page);
  g_test_add_func ("/rk/results/table/wide", test_table_wide);
  g_test_add_func ("/rk/results/table/save-menu", test_table_save_menu);
  g_test_add_func ("/rk/results/table/save-xlsx", test_table_save_xlsx);
  g_test_add_func ("/rk/results/chart/hover", test_chart_hover);
  g_test_add_func ("/rk/results/chart/save-svg", test_chart_save_svg);
  g_test_add_func ("/rk/results/open-full-views", test_open_full_views);
  g_test_add_func ("/rk/results/figure/zoom", test_figure_zoom);
  ret = g_test_run ();

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
    if (strstr (tmpdir, "rk-results-ui-") != NULL)
      g_spawn_command_line_sync (cmd, NULL, NULL, NULL, NULL);
  }
  g_free (tmpdir);
  return ret;
}
