/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-table-view.c — a GtkColumnView over RkTable's lazy row model, with
 * locale-formatted cells, header sorting through rk_table_sort_async, a filter,
 * TSV copy and CSV/XLSX export. */
#define G_LOG_DOMAIN "rk-table-view"
#include "config.h"

#include "rk-a11y.h"
#include "rk-result-window.h"
#include "rk-table-view.h"
#include "rk-save.h"
#include "rk-table-text.h"
#include "rk-text.h"

#include <glib/gi18n-lib.h>

/* Above this many rows a sort shows its progress. */
#define BIG_TABLE_ROWS 100000
/* Ctrl+C with no selection copies the whole table up to this size. */
#define COPY_ALL_MAX_ROWS 100000
/* The height of a compact view before it scrolls. */
#define COMPACT_MAX_HEIGHT 360
/* GTK 4.8's list views keep up to 200 rows alive around the top one,
 * whatever their height: binding, styling and measuring all of them before
 * the first frame was most of the time to the first rows shown. The full view
 * starts with about a screenful of rows and reveals more a batch a frame;
 * past GtkListView's 200 live rows it shows the whole table, which then costs
 * no more widgets. */
#define FIRST_PAGE_ROWS   36
#define REVEAL_ALL_ROWS   240
/* A GtkColumnView has no columns off screen: every row has a cell in every
 * column. A wide table starts with the columns that fit the widest monitor
 * (this many pixels if unknown) and gets the others a few a frame, before
 * more rows. */
#define FIRST_WIDTH       1920
/* The cells made in a frame while revealing (about 10 ms on a slow machine);
 * at least MIN_BATCH_ROWS rows a frame, so scrolling never waits long. */
#define CELLS_PER_FRAME   120
#define MIN_BATCH_ROWS    4

struct _RkTableView
{
  GtkWidget           parent_instance;

  RkTable            *table;
  gboolean            compact;
  char               *title;

  GtkWidget          *box;
  GtkWidget          *toolbar;
  GtkWidget          *title_label;
  GtkLabel           *status_label;  /* the compact view's footer shows it too */
  GtkWidget          *spinner;
  GtkWidget          *scrolled;
  GtkWidget          *column_view;
  GtkWidget          *footer_box;
  GtkWidget          *save_button;
  GtkWidget          *open_button;
  GMenuModel         *save_menu;

  GtkSliceListModel  *slice;
  GtkFilterListModel *filter_model;
  GtkFilter          *filter;
  GtkMultiSelection  *selection;
  char               *filter_text;   /* casefolded, NULL when empty */
  guint               revealed;      /* rows the full view shows, G_MAXUINT for all */
  guint               n_built;       /* columns in the column view so far */
  guint               reveal_tick;   /* tick callback revealing more, or 0 */
  gboolean            first_frame_seen;

  GCancellable       *sort_cancellable;
  GCancellable       *export_cancellable;
  int                 probe_column;
  gboolean            sorting;
};

G_DEFINE_FINAL_TYPE (RkTableView, rk_table_view, GTK_TYPE_WIDGET)

enum {
  SIGNAL_SAVED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* --------------------------------------------------------------- cells */

static gboolean
column_is_numeric (RkTableColumnType type)
{
  return type == RK_TABLE_COLUMN_INT64 || type == RK_TABLE_COLUMN_FLOAT64;
}

static const char *
column_type_label (RkTableColumnType type)
{
  switch (type)
    {
    case RK_TABLE_COLUMN_INT64:
      return C_("column type", "integer");
    case RK_TABLE_COLUMN_FLOAT64:
      return C_("column type", "number");
    case RK_TABLE_COLUMN_BOOL:
      return C_("column type", "yes/no");
    case RK_TABLE_COLUMN_DATETIME:
      return C_("column type", "date");
    case RK_TABLE_COLUMN_STRING:
    default:
      return C_("column type", "text");
    }
}

/* A null says so; a value cut short at the column's edge (the ellipsis)
 * shows whole: nothing is cut without a way to read it. */
static gboolean
cell_tooltip_cb (GtkWidget  *label,
                 int         x,
                 int         y,
                 gboolean    keyboard,
                 GtkTooltip *tooltip,
                 gpointer    user_data)
{
  if (GPOINTER_TO_INT (g_object_get_data (G_OBJECT (label), "rk-null")))
    gtk_tooltip_set_text (tooltip, _("No value"));
  else if (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))))
    gtk_tooltip_set_text (tooltip, gtk_label_get_text (GTK_LABEL (label)));
  else
    return FALSE;
  return TRUE;
}

/* Longer than this many characters, a value may not fit a column (180 px
 * for text, resizable): assistive technologies get it whole in the cell's
 * description, whatever the width. Checked per bind, so kept cheap. */
#define LONG_CELL_CHARS 20

static void
cell_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               RkTableView              *self)
{
  guint column = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (factory), "rk-column"));
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  /* numbers right-aligned, without Adwaita's .numeric (tabular figures):
   * that font feature made every row bound while scrolling about twice as
   * slow to shape (bench-table-scroll) */
  gtk_label_set_xalign (GTK_LABEL (label),
                        column_is_numeric (rk_table_get_column_type (self->table, column)) ? 1.0 : 0.0);
  g_signal_connect (label, "query-tooltip", G_CALLBACK (cell_tooltip_cb), NULL);
  /* not gtk_widget_set_tooltip_text(): that asks the display server where
   * the pointer is, a round trip for each cell bound while scrolling */
  gtk_widget_set_has_tooltip (label, TRUE);
  gtk_list_item_set_child (item, label);
}

static void
set_null_look (GtkLabel *label,
               gboolean  null)
{
  static PangoAttrList *italic = NULL;

  /* style changes are what cost when rows are rebound while scrolling:
   * touch them only when a cell turns null or back */
  if (GPOINTER_TO_INT (g_object_get_data (G_OBJECT (label), "rk-null")) == null)
    return;
  g_object_set_data (G_OBJECT (label), "rk-null", GINT_TO_POINTER (null));
  if (italic == NULL)
    {
      italic = pango_attr_list_new ();
      pango_attr_list_insert (italic, pango_attr_style_new (PANGO_STYLE_ITALIC));
    }
  gtk_label_set_attributes (label, null ? italic : NULL);
  if (null)
    gtk_widget_add_css_class (GTK_WIDGET (label), "dim-label");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (label), "dim-label");
}

/* The cell's description: "No value" for a null, the whole value when it
 * may be cut, none otherwise (a null's is touched only when it changes). */
static void
set_description (GtkLabel   *label,
                 const char *text)
{
  enum { NONE, NULL_VALUE, WHOLE } kind = text == NULL ? NULL_VALUE
                                        : g_utf8_strlen (text, -1) > LONG_CELL_CHARS ? WHOLE : NONE;
  int had = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (label), "rk-described"));

  if (kind == WHOLE)
    gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
  else if (kind == NULL_VALUE && had != NULL_VALUE)
    gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("No value"), -1);
  else if (kind == NONE && had != NONE)
    gtk_accessible_reset_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
  g_object_set_data (G_OBJECT (label), "rk-described", GINT_TO_POINTER (kind));
}

static void
cell_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              RkTableView              *self)
{
  guint column = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (factory), "rk-column"));
  RkTableRow *row = gtk_list_item_get_item (item);
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  g_autofree char *text = NULL;

  if (row == NULL)
    return;
  text = rk_table_text_format_cell (self->table, rk_table_row_get_index (row), column, RK_CELL_TEXT_GROUP);
  /* A null is shown, dimmed and in italics, so it never looks like "". */
  set_null_look (label, text == NULL);
  set_description (label, text);
  gtk_label_set_text (label, text != NULL ? text : C_("table cell", "null"));
}

/* ------------------------------------------------------------- sorting */

typedef struct
{
  RkTableView *self;
  guint        column;
} ProbeData;

/* GTK 4.8 has no getter for the column a GtkColumnView sorts by. Each
 * column's sorter records that it was asked first: the view's sorter asks the
 * primary column, and negates the answer when the order is descending. */
static int
probe_compare_cb (gconstpointer a,
                  gconstpointer b,
                  gpointer      user_data)
{
  ProbeData *probe = user_data;

  if (probe->self->probe_column < 0)
    probe->self->probe_column = (int) probe->column;
  return GTK_ORDERING_SMALLER;
}

static void
update_status (RkTableView *self)
{
  g_autofree char *text = NULL;

  if (self->sorting)
    text = g_strdup (_("Sorting…"));
  else
    text = rk_table_text_count_rows (rk_table_get_n_rows (self->table),
                                     g_list_model_get_n_items (G_LIST_MODEL (self->filter_model)),
                                     self->compact ? RK_ROWS_FIRST
                                     : self->filter_text != NULL ? RK_ROWS_FILTERED : RK_ROWS_ALL);
  gtk_label_set_text (self->status_label, text);
}

static void
set_sorting (RkTableView *self,
             gboolean     sorting)
{
  self->sorting = sorting;
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner),
                            sorting && rk_table_get_n_rows (self->table) >= BIG_TABLE_ROWS);
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->column_view),
                               GTK_ACCESSIBLE_STATE_BUSY, sorting, -1);
  update_status (self);
}

static void
sort_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(RkTableView) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!rk_table_sort_finish (RK_TABLE (object), result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      g_warning ("Could not sort the table: %s", error->message);
    }
  set_sorting (self, FALSE);
}

static void
sorter_changed_cb (GtkSorter       *sorter,
                   GtkSorterChange  change,
                   RkTableView     *self)
{
  int ordering;
  gboolean ascending;
  int column;

  self->probe_column = -1;
  /* two distinct items: gtk_sorter_compare() calls nothing for an item and itself */
  ordering = gtk_sorter_compare (sorter, self, self->table);
  column = self->probe_column;
  ascending = ordering != GTK_ORDERING_LARGER;
  g_debug ("header sort: column %d, %s", column, ascending ? "ascending" : "descending");

  if (column == rk_table_get_sort_column (self->table) &&
      (column < 0 || ascending == rk_table_get_sort_ascending (self->table)))
    return;

  g_cancellable_cancel (self->sort_cancellable);
  g_clear_object (&self->sort_cancellable);
  self->sort_cancellable = g_cancellable_new ();
  set_sorting (self, TRUE);
  rk_table_sort_async (self->table, column, ascending, self->sort_cancellable,
                       sort_done_cb, g_object_ref (self));
}

/* ---------------------------------------------- revealing rows and columns */

static void add_columns (RkTableView *self,
                         guint        n);

static gboolean
more_to_reveal (RkTableView *self)
{
  return self->n_built < rk_table_get_n_columns (self->table) ||
         (!self->compact && self->revealed != G_MAXUINT);
}

static gboolean
reveal_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  RkTableView *self = RK_TABLE_VIEW (widget);
  guint n_columns = rk_table_get_n_columns (self->table);

  /* the first frame draws the first page as it is */
  if (!self->first_frame_seen)
    {
      self->first_frame_seen = TRUE;
      return G_SOURCE_CONTINUE;
    }
  if (self->n_built < n_columns)
    {
      /* a new column gets a cell in each row the view has made (at most
       * GtkListView's 200) */
      guint rows = MIN (g_list_model_get_n_items (G_LIST_MODEL (self->filter_model)), 202);

      add_columns (self, self->n_built + MAX (1, CELLS_PER_FRAME / MAX (rows, 1)));
    }
  else if (!self->compact && self->revealed != G_MAXUINT)
    {
      guint step = MAX (MIN_BATCH_ROWS, CELLS_PER_FRAME / MAX (n_columns, 1));

      self->revealed = self->revealed + step >= REVEAL_ALL_ROWS ? G_MAXUINT : self->revealed + step;
      gtk_slice_list_model_set_size (self->slice, self->revealed);
    }
  if (more_to_reveal (self))
    return G_SOURCE_CONTINUE;
  self->reveal_tick = 0;
  return G_SOURCE_REMOVE;
}

/* The slice's size for the mode, and the tick revealing more if needed. */
static void
apply_rows (RkTableView *self)
{
  gtk_slice_list_model_set_size (self->slice, self->compact ? RK_TABLE_VIEW_COMPACT_ROWS : self->revealed);
  if (more_to_reveal (self) && self->reveal_tick == 0)
    self->reveal_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), reveal_tick_cb, NULL, NULL);
}

/* Every row at once: what works on the whole table (a filter, a copy of all
 * rows) must not see only the first page. */
static void
reveal_all (RkTableView *self)
{
  self->revealed = G_MAXUINT;
  apply_rows (self);
}

/* ------------------------------------------------------------ filtering */

static gboolean
filter_match_cb (gpointer item,
                 gpointer user_data)
{
  RkTableView *self = user_data;

  return self->filter_text == NULL ||
         rk_table_text_row_matches (self->table, rk_table_row_get_index (item), self->filter_text);
}

static void
filter_changed_cb (GtkSearchEntry *entry,
                   RkTableView    *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  g_clear_pointer (&self->filter_text, g_free);
  reveal_all (self);
  if (text != NULL && text[0] != '\0')
    self->filter_text = g_utf8_casefold (text, -1);
  /* No filter at all when it is empty: a million rows need no visit. */
  gtk_filter_list_model_set_filter (self->filter_model,
                                    self->filter_text != NULL ? self->filter : NULL);
  if (self->filter_text != NULL)
    gtk_filter_changed (self->filter, GTK_FILTER_CHANGE_DIFFERENT);
  update_status (self);
}

static void
n_items_changed_cb (GListModel  *model,
                    guint        position,
                    guint        removed,
                    guint        added,
                    RkTableView *self)
{
  if (removed != added)
    update_status (self);
}

/* ----------------------------------------------------------------- copy */

/* The selected rows (all rows when none is), every column or @only_column. */
static char *
selection_tsv (RkTableView *self,
               int          only_column)
{
  GListModel *model = G_LIST_MODEL (self->selection);
  g_autoptr(GtkBitset) selected = NULL;
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint));
  GtkBitsetIter iter;
  guint position;

  reveal_all (self);
  selected = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  /* nothing selected: the whole table, unless it is too big to paste */
  if (gtk_bitset_is_empty (selected) && g_list_model_get_n_items (model) <= COPY_ALL_MAX_ROWS)
    {
      gtk_bitset_unref (selected);
      selected = gtk_bitset_new_range (0, g_list_model_get_n_items (model));
    }
  for (gboolean ok = gtk_bitset_iter_init_first (&iter, selected, &position);
       ok;
       ok = gtk_bitset_iter_next (&iter, &position))
    {
      g_autoptr(RkTableRow) row = g_list_model_get_item (model, position);
      guint index;

      if (row == NULL)
        continue;
      index = rk_table_row_get_index (row);
      g_array_append_val (rows, index);
    }
  return rk_table_text_tsv (self->table, (const guint *) rows->data, rows->len, only_column);
}

char *
rk_table_view_get_selection_tsv (RkTableView *self)
{
  g_return_val_if_fail (RK_IS_TABLE_VIEW (self), NULL);
  return selection_tsv (self, -1);
}

/* table.copy: every column; table.copy-column (u): that one. */
static void
copy_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkTableView *self = RK_TABLE_VIEW (widget);
  guint column = parameter != NULL ? g_variant_get_uint32 (parameter) : G_MAXUINT;
  g_autofree char *tsv = NULL;

  if (parameter != NULL && column >= rk_table_get_n_columns (self->table))
    return;
  tsv = selection_tsv (self, parameter != NULL ? (int) column : -1);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), tsv);
}

static void
sort_column_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  RkTableView *self = RK_TABLE_VIEW (widget);
  GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (self->column_view));
  guint column;
  gboolean ascending;

  g_variant_get (parameter, "(ub)", &column, &ascending);
  if (column >= self->n_built)
    add_columns (self, column + 1);
  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) col = g_list_model_get_item (columns, i);

      if (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (col), "rk-column")) == column)
        {
          gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (self->column_view), col,
                                          ascending ? GTK_SORT_ASCENDING : GTK_SORT_DESCENDING);
          return;
        }
    }
}

/* --------------------------------------------------------------- export */

typedef struct
{
  RkTableView         *self;             /* until the rows are known */
  RkTable             *table;
  RkTableExportFormat  format;
  const char          *title;            /* of the file chooser; NULL: write to @name */
  char                *name;
  GtkFileFilter       *filter;
  gboolean             open_after;
  GBytes              *rows;             /* NULL: every row */
  gulong               pending_handler;  /* waiting for the filter to finish */
} ExportJob;

static void
export_job_free (ExportJob *job)
{
  if (job->pending_handler != 0 && job->self->filter_model != NULL)
    g_clear_signal_handler (&job->pending_handler, job->self->filter_model);
  g_clear_object (&job->self);
  g_clear_object (&job->table);
  g_free (job->name);
  g_clear_object (&job->filter);
  g_clear_pointer (&job->rows, g_bytes_unref);
  g_free (job);
}

/* An RkSaveFunc: rk_save_async() runs it in a worker thread. */
static gboolean
export_rows (const char    *dest,
             gpointer       data,
             GCancellable  *cancellable,
             GError       **error)
{
  ExportJob *job = data;
  g_autoptr(GFile) file = g_file_new_for_path (dest);
  g_autoptr(GFileOutputStream) out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION,
                                                     cancellable, error);

  return out != NULL &&
         rk_table_export_rows (job->table, job->format, job->rows, G_OUTPUT_STREAM (out),
                               cancellable, error) &&
         g_output_stream_close (G_OUTPUT_STREAM (out), cancellable, error);
}

static void
launch_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(RkTableView) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error))
    gtk_label_set_text (self->status_label, _("No spreadsheet app could open the table."));
}

static void
exported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  RkTableView *self = RK_TABLE_VIEW (object);
  g_autofree char *sentence = NULL;
  g_autofree char *path = rk_save_finish (result, &sentence, NULL);
  g_autoptr(GFile) file = path != NULL ? g_file_new_for_path (path) : NULL;

  if (file != NULL && GPOINTER_TO_INT (user_data))
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_app_info_launch_default_for_uri_async (uri, NULL, NULL, launch_done_cb, g_object_ref (self));
      update_status (self);
    }
  else if (sentence != NULL)
    gtk_label_set_text (self->status_label, sentence);
  else
    update_status (self);   /* the file chooser was dismissed */
  if (file != NULL)
    g_signal_emit (self, signals[SIGNAL_SAVED], 0, file);
}

/* Writes what the filter shows, in the order shown (every row without a
 * filter); takes @job. */
static void
export_shown_rows (ExportJob *job)
{
  /* nothing of the GUI goes into the worker with @job */
  RkTableView *self = g_steal_pointer (&job->self);
  g_autoptr(GtkFileFilter) filter = g_steal_pointer (&job->filter);
  GListModel *model = G_LIST_MODEL (self->filter_model);
  guint n = g_list_model_get_n_items (model);

  if (self->filter_text != NULL)
    {
      guint32 *rows = g_new (guint32, MAX (n, 1));

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(RkTableRow) row = g_list_model_get_item (model, i);

          rows[i] = rk_table_row_get_index (row);
        }
      job->rows = g_bytes_new_take (rows, (gsize) n * sizeof (guint32));
    }
  rk_save_async (GTK_WIDGET (self), job->title, job->name, filter, export_rows, job,
                 (GDestroyNotify) export_job_free, self->export_cancellable, exported_cb,
                 GINT_TO_POINTER (job->open_after));
  g_object_unref (self);
}

static void
filter_settled_cb (GtkFilterListModel *model,
                   GParamSpec         *pspec,
                   ExportJob          *job)
{
  if (gtk_filter_list_model_get_pending (model) > 0)
    return;
  g_clear_signal_handler (&job->pending_handler, model);
  export_shown_rows (job);
}

/* Asks where in a chooser titled @title (@name suggested, @filter) or,
 * with @title NULL, writes to @name, a path. */
static void
start_export (RkTableView         *self,
              RkTableExportFormat  format,
              const char          *title,
              const char          *name,
              GtkFileFilter       *filter,
              gboolean             open_after)
{
  ExportJob *job = g_new0 (ExportJob, 1);

  job->self = g_object_ref (self);
  job->table = g_object_ref (self->table);
  job->format = format;
  job->title = title;
  job->name = g_strdup (name);
  job->filter = filter != NULL ? g_object_ref (filter) : NULL;
  job->open_after = open_after;
  if (self->export_cancellable == NULL)
    self->export_cancellable = g_cancellable_new ();
  gtk_label_set_text (self->status_label, _("Saving…"));
  if (self->filter_text != NULL)
    {
      /* Save what the filter shows (issue 17: 8 rows were saved while 3
       * were shown), once it has looked at every row. */
      reveal_all (self);
      if (gtk_filter_list_model_get_pending (self->filter_model) > 0)
        {
          job->pending_handler = g_signal_connect (self->filter_model, "notify::pending",
                                                   G_CALLBACK (filter_settled_cb), job);
          return;
        }
    }
  export_shown_rows (job);
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  RkTableView *self = RK_TABLE_VIEW (widget);
  gboolean xlsx = g_str_equal (g_variant_get_string (parameter, NULL), "xlsx");
  g_autofree char *name = rk_save_file_name (self->title, _("table"), xlsx ? "xlsx" : "csv");
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, xlsx ? _("Excel Workbook") : _("CSV File"));
  gtk_file_filter_add_suffix (filter, xlsx ? "xlsx" : "csv");
  start_export (RK_TABLE_VIEW (widget), xlsx ? RK_TABLE_EXPORT_XLSX : RK_TABLE_EXPORT_CSV,
                xlsx ? _("Save Table as XLSX") : _("Save Table as CSV"), name, filter, FALSE);
}

/* GtkFileLauncher is GTK 4.10: save a copy in the cache and hand its URI to
 * the default app (a CSV file past XLSX's row limit). */
static void
open_external_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  RkTableView *self = RK_TABLE_VIEW (widget);
  gboolean xlsx = rk_table_get_n_rows (self->table) < RK_TABLE_XLSX_MAX_ROWS;
  g_autofree char *dir = g_build_filename (g_get_user_cache_dir (), "reckon", "opened", NULL);
  g_autofree char *base = rk_save_file_name (self->title, _("table"), xlsx ? "xlsx" : "csv");
  g_autofree char *name = g_strdup_printf ("%" G_GINT64_FORMAT "-%s", g_get_real_time () / G_USEC_PER_SEC, base);
  g_autofree char *path = g_build_filename (dir, name, NULL);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    gtk_label_set_text (self->status_label, _("The table could not be saved for opening."));
  else
    start_export (self, xlsx ? RK_TABLE_EXPORT_XLSX : RK_TABLE_EXPORT_CSV, NULL, path, NULL, TRUE);
}

GtkWindow *
rk_table_view_open_window (RkTable    *table,
                           const char *title,
                           GtkWidget  *parent)
{
  GtkWidget *full = rk_table_view_new (table);

  rk_table_view_set_title (RK_TABLE_VIEW (full), title);
  return rk_result_window_present (full, title != NULL ? title : _("Table"), parent);
}

/* The whole table in a window of its own, for working with it. */
static void
open_window_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  rk_table_view_open_window (RK_TABLE_VIEW (widget)->table, RK_TABLE_VIEW (widget)->title, widget);
}

/* ---------------------------------------------------------------- build */

/* Wide enough for its header and the usual content of its type. */
static int
column_width (RkTableView       *self,
              const char        *title,
              RkTableColumnType  type)
{
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), title);
  int header = 0;
  int content = type == RK_TABLE_COLUMN_BOOL ? 60
              : column_is_numeric (type) ? 110
              : type == RK_TABLE_COLUMN_DATETIME ? 160 : 180;

  pango_layout_get_pixel_size (layout, &header, NULL);
  return CLAMP (MAX (header + 36, content), 60, 320);
}

/* Appends the table's column @c to the view; returns its width. */
static int
add_column (RkTableView *self,
            guint        c)
{
  GtkColumnView *view = GTK_COLUMN_VIEW (self->column_view);
  guint n_index = rk_table_get_n_index_columns (self->table);
  RkTableColumnType type = rk_table_get_column_type (self->table, c);
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkColumnViewColumn) column = NULL;
  g_autoptr(GtkSorter) sorter = NULL;
  g_autofree char *title = NULL;
  g_autofree char *name = rk_text_sanitize_for_terminal (rk_table_get_column_name (self->table, c),
                                                         RK_TEXT_SANITIZE_SINGLE_LINE);
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autofree char *sort_up = g_strdup_printf ("table.sort-column((uint32 %u, true))", c);
  g_autofree char *sort_down = g_strdup_printf ("table.sort-column((uint32 %u, false))", c);
  g_autofree char *copy = g_strdup_printf ("table.copy-column(uint32 %u)", c);
  ProbeData *probe = g_new0 (ProbeData, 1);
  int width;

  g_object_set_data (G_OBJECT (factory), "rk-column", GUINT_TO_POINTER (c));
  g_signal_connect (factory, "setup", G_CALLBACK (cell_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (cell_bind_cb), self);

  /* Translators: a column header, "price · number" */
  title = g_strdup_printf (_("%s · %s"), name[0] != '\0' ? name : (c < n_index ? _("index") : "—"),
                           column_type_label (type));
  column = gtk_column_view_column_new (title, g_object_ref (GTK_LIST_ITEM_FACTORY (factory)));
  gtk_column_view_column_set_resizable (column, TRUE);
  /* A fixed width: the view never measures a million rows' contents,
   * and columns do not jump while scrolling. */
  width = column_width (self, title, type);
  gtk_column_view_column_set_fixed_width (column, width);

  probe->self = self;
  probe->column = c;
  sorter = GTK_SORTER (gtk_custom_sorter_new (probe_compare_cb, probe, g_free));
  gtk_column_view_column_set_sorter (column, sorter);

  g_menu_append (menu, _("Sort _Ascending"), sort_up);
  g_menu_append (menu, _("Sort _Descending"), sort_down);
  g_menu_append (menu, _("_Copy Column"), copy);
  gtk_column_view_column_set_header_menu (column, G_MENU_MODEL (menu));

  g_object_set_data (G_OBJECT (column), "rk-column", GUINT_TO_POINTER (c));
  gtk_column_view_append_column (view, column);
  return width;
}

/* The view's columns up to @n (of the table's). */
static void
add_columns (RkTableView *self,
             guint        n)
{
  n = MIN (n, rk_table_get_n_columns (self->table));
  while (self->n_built < n)
    add_column (self, self->n_built++);
}

static int
widest_monitor (void)
{
  GdkDisplay *display = gdk_display_get_default ();
  GListModel *monitors = display != NULL ? gdk_display_get_monitors (display) : NULL;
  int widest = 0;

  for (guint i = 0; monitors != NULL && i < g_list_model_get_n_items (monitors); i++)
    {
      g_autoptr(GdkMonitor) monitor = g_list_model_get_item (monitors, i);
      GdkRectangle geometry;

      gdk_monitor_get_geometry (monitor, &geometry);
      widest = MAX (widest, geometry.width);
    }
  return widest > 0 ? widest : FIRST_WIDTH;
}

/* The columns that fit the screen's width, at least one. */
static void
add_first_columns (RkTableView *self)
{
  guint n_columns = rk_table_get_n_columns (self->table);
  int screen = widest_monitor ();
  int width = 0;

  while (self->n_built < n_columns && width < screen)
    width += add_column (self, self->n_built++);
}

static void
update_accessible_name (RkTableView *self)
{
  const char *name = self->title != NULL ? self->title : _("Table");

  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->column_view), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  gtk_label_set_text (GTK_LABEL (self->title_label), self->title != NULL ? self->title : "");
  gtk_widget_set_visible (self->title_label, self->title != NULL);
}

/* The save menu's popover is made when first opened: a popover menu is one
 * of the costlier parts of a view that may never be asked to save. */
static void
create_save_popup_cb (GtkMenuButton *button,
                      gpointer       user_data)
{
  RkTableView *self = user_data;

  if (gtk_menu_button_get_popover (button) != NULL)
    return;
  gtk_menu_button_set_menu_model (button, self->save_menu);
  rk_menu_button_quiet_tooltip (button);
}

static void
rk_table_view_dispose (GObject *object)
{
  RkTableView *self = RK_TABLE_VIEW (object);

  g_cancellable_cancel (self->sort_cancellable);
  g_cancellable_cancel (self->export_cancellable);
  if (self->reveal_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->reveal_tick);
  self->reveal_tick = 0;
  if (self->column_view != NULL)
    g_signal_handlers_disconnect_by_func (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->column_view)),
                                          sorter_changed_cb, self);
  if (self->filter_model != NULL)
    g_signal_handlers_disconnect_by_func (self->filter_model, n_items_changed_cb, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_TABLE_VIEW);
  g_clear_object (&self->selection);
  g_clear_object (&self->filter_model);
  g_clear_object (&self->filter);
  g_clear_object (&self->slice);
  g_clear_object (&self->sort_cancellable);
  g_clear_object (&self->export_cancellable);

  G_OBJECT_CLASS (rk_table_view_parent_class)->dispose (object);
}

static void
rk_table_view_finalize (GObject *object)
{
  RkTableView *self = RK_TABLE_VIEW (object);

  g_clear_object (&self->table);
  g_free (self->title);
  g_free (self->filter_text);

  G_OBJECT_CLASS (rk_table_view_parent_class)->finalize (object);
}

static void
rk_table_view_class_init (RkTableViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_table_view_dispose;
  object_class->finalize = rk_table_view_finalize;

  /**
   * RkTableView::saved:
   * @file: the file written
   *
   * A save (or the copy made for a spreadsheet app) was written and closed.
   */
  signals[SIGNAL_SAVED] =
    g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_FILE);

  gtk_widget_class_install_action (widget_class, "table.copy", NULL, copy_action);
  gtk_widget_class_install_action (widget_class, "table.copy-column", "u", copy_action);
  gtk_widget_class_install_action (widget_class, "table.sort-column", "(ub)", sort_column_action);
  gtk_widget_class_install_action (widget_class, "table.save", "s", save_action);
  gtk_widget_class_install_action (widget_class, "table.open-external", NULL, open_external_action);
  gtk_widget_class_install_action (widget_class, "table.open-window", NULL, open_window_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK, "table.copy", NULL);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-table-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RkTableView, box);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, toolbar);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, title_label);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, spinner);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, status_label);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, save_button);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, save_menu);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, scrolled);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, column_view);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, footer_box);
  gtk_widget_class_bind_template_child (widget_class, RkTableView, open_button);
  gtk_widget_class_bind_template_callback (widget_class, filter_changed_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_css_name (widget_class, "rktableview");
}

static void
rk_table_view_init (RkTableView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_menu_button_set_create_popup_func (GTK_MENU_BUTTON (self->save_button), create_save_popup_cb, self, NULL);
  rk_a11y_name_button (self->open_button, _("Open Table"));
  self->probe_column = -1;
  self->revealed = FIRST_PAGE_ROWS;
}

/* A compact view shows the first rows, a full one the toolbar and then
 * all rows. */
static GtkWidget *
table_view_new (RkTable  *table,
                gboolean  compact)
{
  RkTableView *self;

  g_return_val_if_fail (RK_IS_TABLE (table), NULL);

  self = g_object_new (RK_TYPE_TABLE_VIEW, NULL);
  self->table = g_object_ref (table);
  self->compact = compact;
  /* Model chain: table → slice (compact, or the rows revealed so far) →
   * filter → selection. The slice is cut before the view sees it: a list
   * view makes its rows as soon as it has a model, rooted or not. */
  self->slice = gtk_slice_list_model_new (g_object_ref (G_LIST_MODEL (table)), 0,
                                          compact ? RK_TABLE_VIEW_COMPACT_ROWS : self->revealed);
  self->filter = GTK_FILTER (gtk_custom_filter_new (filter_match_cb, self, NULL));
  self->filter_model = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->slice)), NULL);
  gtk_filter_list_model_set_incremental (self->filter_model, TRUE);
  g_signal_connect (self->filter_model, "items-changed", G_CALLBACK (n_items_changed_cb), self);
  self->selection = gtk_multi_selection_new (g_object_ref (G_LIST_MODEL (self->filter_model)));
  gtk_column_view_set_model (GTK_COLUMN_VIEW (self->column_view), GTK_SELECTION_MODEL (self->selection));
  add_first_columns (self);
  g_signal_connect (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->column_view)), "changed",
                    G_CALLBACK (sorter_changed_cb), self);

  update_accessible_name (self);
  apply_rows (self);
  gtk_widget_set_visible (self->toolbar, !compact);
  gtk_widget_set_visible (self->footer_box, compact);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->scrolled), compact);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (self->scrolled),
                                              compact ? COMPACT_MAX_HEIGHT : -1);
  gtk_widget_set_vexpand (self->scrolled, !compact);
  update_status (self);
  return GTK_WIDGET (self);
}

GtkWidget *
rk_table_view_new (RkTable *table)
{
  return table_view_new (table, FALSE);
}

GtkWidget *
rk_table_view_new_compact (RkTable *table)
{
  return table_view_new (table, TRUE);
}

RkTable *
rk_table_view_get_table (RkTableView *self)
{
  g_return_val_if_fail (RK_IS_TABLE_VIEW (self), NULL);
  return self->table;
}

gboolean
rk_table_view_get_compact (RkTableView *self)
{
  g_return_val_if_fail (RK_IS_TABLE_VIEW (self), FALSE);
  return self->compact;
}

void
rk_table_view_set_title (RkTableView *self,
                         const char  *title)
{
  g_return_if_fail (RK_IS_TABLE_VIEW (self));

  g_free (self->title);
  self->title = rk_text_sanitize_for_terminal (title, RK_TEXT_SANITIZE_SINGLE_LINE);
  update_accessible_name (self);
}

void
rk_table_view_save (RkTableView         *self,
                    GFile               *file,
                    RkTableExportFormat  format)
{
  g_autofree char *path = NULL;

  g_return_if_fail (RK_IS_TABLE_VIEW (self));
  g_return_if_fail (G_IS_FILE (file));

  path = g_file_get_path (file);
  if (path == NULL)
    gtk_label_set_text (self->status_label, _("Results can only be saved to a local folder."));
  else
    start_export (self, format, NULL, path, NULL, FALSE);
}
