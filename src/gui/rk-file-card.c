/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-file-card.c — the card of an added file. Everything shown comes from
 * the parsed profile (rk-profile), never from the file's bytes. */
#define G_LOG_DOMAIN "rk-file-card"
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rk-a11y.h"
#include "rk-analysis-button.h"
#include "rk-file-card.h"
#include "rk-file-summary.h"
#include "rk-text.h"

struct _RkFileCard
{
  GtkWidget   parent_instance;

  GtkWidget  *box;
  GtkImage   *icon;
  GtkLabel   *title_label;
  GtkLabel   *summary;
  GtkSpinner *spinner;
  GtkButton  *cancel_button;
  GtkProgressBar *progress_bar;
  GtkWidget  *details;
  GtkWidget  *sheet_box;
  GtkLabel   *sheet_label;
  GtkDropDown *sheet_dropdown;
  GtkStringList *sheet_list;
  GtkLabel   *columns_label;
  GtkButton  *more_button;
  GtkWidget  *preview;
  GtkGrid    *preview_grid;
  GtkLabel   *notes_label;
  GtkButton  *alternative_button;
  GtkWidget  *analysis_button;

  char       *name;
  RkConversationFile *file;    /* followed, or NULL */
  gboolean    profiling;
  gint64      started;
  guint       timer_id;
  guint64     size;
  double      progress;        /* 0..1 read so far, -1: not known */
  char       *estimate;        /* while profiling: the summary from the sample, or NULL */
  RkFileProfile *profile;      /* the exact profile shown, or NULL */
  guint       table_index;     /* the sheet (or PDF table) shown */
  gboolean    all_columns;     /* "and N more columns" was opened */
  gboolean    filling_sheets;  /* the picker is being filled: not the user */
};

G_DEFINE_FINAL_TYPE (RkFileCard, rk_file_card, GTK_TYPE_WIDGET)

/* The preview's rows and columns at most, and a cell's characters. */
#define PREVIEW_ROWS       5
#define PREVIEW_COLUMNS    8
#define PREVIEW_CELL_CHARS 18

/* A cell of the preview: cut short, never the grid. */
static GtkWidget *
cell_label (const char *raw,
            gboolean    heading)
{
  g_autofree char *text = rk_text_sanitize_for_terminal (raw ? raw : "", RK_TEXT_SANITIZE_SINGLE_LINE);
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), PREVIEW_CELL_CHARS);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  if (g_utf8_strlen (text, -1) > PREVIEW_CELL_CHARS)
    gtk_widget_set_tooltip_text (label, text);
  gtk_widget_add_css_class (label, heading ? "rk-preview-heading" : "rk-preview-cell");
  return label;
}

/* The header and first rows of @table, as the profiler saw them, in a
 * button that opens the whole table (none: hidden). */
static void
show_preview (RkFileCard           *self,
              const RkTableProfile *table)
{
  GtkWidget *child;
  guint n_columns, n_rows;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->preview_grid))) != NULL)
    gtk_grid_remove (self->preview_grid, child);
  n_columns = table && table->columns ? MIN (table->columns->len, PREVIEW_COLUMNS) : 0;
  n_rows = table && table->head ? MIN (table->head->len, PREVIEW_ROWS) : 0;
  gtk_widget_set_visible (self->preview, n_columns > 0 && n_rows > 0);
  if (n_columns == 0 || n_rows == 0)
    return;

  for (guint c = 0; c < n_columns; c++)
    {
      const RkColumnProfile *column = table->columns->pdata[c];

      gtk_grid_attach (self->preview_grid, cell_label (column->name, TRUE), c, 0, 1, 1);
    }
  if (table->columns->len > n_columns)
    gtk_grid_attach (self->preview_grid, cell_label ("…", TRUE), n_columns, 0, 1, 1);
  for (guint r = 0; r < n_rows; r++)
    {
      GStrv row = table->head->pdata[r];
      guint len = row ? g_strv_length (row) : 0;

      for (guint c = 0; c < n_columns; c++)
        gtk_grid_attach (self->preview_grid, cell_label (c < len ? row[c] : "", FALSE), c, r + 1, 1, 1);
    }
}

/* @table's columns, or none (NULL). */
static void
show_columns (RkFileCard           *self,
              const RkTableProfile *table)
{
  g_autoptr(GString) s = g_string_new (NULL);
  guint n = table != NULL && table->columns != NULL ? table->columns->len : 0;
  guint shown = self->all_columns ? n : MIN (n, RK_FILE_CARD_MAX_COLUMNS);

  for (guint i = 0; i < shown; i++)
    {
      const RkColumnProfile *c = table->columns->pdata[i];
      g_autofree char *name = rk_text_sanitize_for_terminal (c->name ? c->name : "", RK_TEXT_SANITIZE_SINGLE_LINE);
      g_autofree char *esc = g_markup_escape_text (name, -1);

      if (s->len > 0)
        g_string_append_c (s, '\n');
      g_string_append_printf (s, "<b>%s</b>  <span alpha=\"60%%\">%s</span>", esc, rk_column_type_label (c->type));
      if (c->missing > 0)
        {
          g_autofree char *missing = g_strdup_printf ("%'" G_GUINT64_FORMAT, c->missing);
          /* TRANSLATORS: missing values in a column */
          g_autofree char *text = g_markup_printf_escaped (_("%s missing"), missing);
          g_string_append_printf (s, "<span alpha=\"60%%\"> · %s</span>", text);
        }
    }
  /* The rest behind a button: a wide file's card stays short until asked. */
  if (n > RK_FILE_CARD_MAX_COLUMNS && !self->all_columns)
    {
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "and %u more column",
                                                            "and %u more columns", n - RK_FILE_CARD_MAX_COLUMNS),
                                               n - RK_FILE_CARD_MAX_COLUMNS);
      gtk_button_set_label (self->more_button, more);
    }
  else if (n > RK_FILE_CARD_MAX_COLUMNS)
    gtk_button_set_label (self->more_button, _("Show fewer columns"));
  gtk_widget_set_visible (GTK_WIDGET (self->more_button), n > RK_FILE_CARD_MAX_COLUMNS);
  gtk_label_set_markup (self->columns_label, s->str);
  gtk_widget_set_visible (GTK_WIDGET (self->columns_label), s->len > 0);
}

void
rk_file_card_set_file (RkFileCard *self,
                       const char *name,
                       const char *title)
{
  g_autofree char *shown = NULL;

  g_return_if_fail (RK_IS_FILE_CARD (self));

  g_free (self->name);
  self->name = g_strdup (name);
  shown = rk_text_sanitize_for_terminal (title && *title ? title : (name ? name : ""), RK_TEXT_SANITIZE_SINGLE_LINE);
  gtk_label_set_text (self->title_label, shown);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, shown, -1);
}

/* A big file takes a while: the seconds show that something happens. */
static gboolean
tick_cb (gpointer user_data)
{
  RkFileCard *self = user_data;
  g_autofree char *text = rk_file_reading_text (self->estimate, self->size, self->progress,
                                                (g_get_real_time () - self->started) / G_USEC_PER_SEC);

  gtk_label_set_text (self->summary, text);
  return G_SOURCE_CONTINUE;
}

void
rk_file_card_set_size (RkFileCard *self,
                       guint64     size)
{
  g_return_if_fail (RK_IS_FILE_CARD (self));

  self->size = size;
  if (self->profiling)
    tick_cb (self);
}

void
rk_file_card_set_progress (RkFileCard *self,
                           double      fraction)
{
  g_return_if_fail (RK_IS_FILE_CARD (self));

  self->progress = fraction >= 0 ? MIN (fraction, 1.0) : -1;
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), self->profiling && self->progress >= 0);
  if (self->progress >= 0)
    gtk_progress_bar_set_fraction (self->progress_bar, self->progress);
  if (self->profiling)
    tick_cb (self);
}

double
rk_file_card_get_progress (RkFileCard *self)
{
  g_return_val_if_fail (RK_IS_FILE_CARD (self), -1);
  return self->profiling ? self->progress : -1;
}

void
rk_file_card_set_started (RkFileCard *self,
                          gint64      real_time_us)
{
  g_return_if_fail (RK_IS_FILE_CARD (self));

  self->started = real_time_us > 0 ? real_time_us : g_get_real_time ();
  if (self->profiling)
    tick_cb (self);
}

static void show_profile (RkFileCard          *self,
                          const RkFileProfile *profile,
                          gboolean             estimate);

/* A workbook's sheets (or a PDF's tables) in the picker, the one shown
 * selected. */
static void
fill_sheets (RkFileCard          *self,
             const RkFileProfile *profile)
{
  guint n = profile && profile->tables ? profile->tables->len : 0;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  if (self->table_index >= n)
    self->table_index = 0;
  for (guint i = 0; i < n; i++)
    {
      const RkTableProfile *t = profile->tables->pdata[i];

      if (t->name != NULL)
        g_ptr_array_add (names, rk_text_sanitize_for_terminal (t->name, RK_TEXT_SANITIZE_SINGLE_LINE));
      else
        /* TRANSLATORS: a table of a file without a name of its own */
        g_ptr_array_add (names, g_strdup_printf (_("Table %u"), i + 1));
    }
  g_ptr_array_add (names, NULL);
  self->filling_sheets = TRUE;
  gtk_string_list_splice (self->sheet_list, 0, g_list_model_get_n_items (G_LIST_MODEL (self->sheet_list)),
                          (const char * const *) names->pdata);
  gtk_drop_down_set_selected (self->sheet_dropdown, self->table_index);
  self->filling_sheets = FALSE;
  gtk_label_set_text (self->sheet_label, profile && profile->sheets > 1 ? _("Sheet") : _("Table"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->sheet_dropdown), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_label_get_text (self->sheet_label), -1);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->sheet_dropdown));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_TOGGLE_BUTTON (child))
      gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      gtk_label_get_text (self->sheet_label), -1);
  gtk_widget_set_visible (self->sheet_box, n > 1);
}

/* When the profiler was unsure how to read the file, the other reading. */
static void
show_alternative (RkFileCard          *self,
                  const RkFileProfile *profile)
{
  RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;
  g_autofree char *label = NULL;
  gboolean offered = profile != NULL && profile->error == NULL &&
                     rk_file_profile_get_alternative (profile, &options, &label);

  if (offered)
    gtk_button_set_label (self->alternative_button, label);
  gtk_widget_set_visible (GTK_WIDGET (self->alternative_button), offered);
}

void
rk_file_card_set_profile (RkFileCard          *self,
                          const RkFileProfile *profile)
{
  g_return_if_fail (RK_IS_FILE_CARD (self));

  g_clear_pointer (&self->estimate, g_free);
  if (profile != self->profile)
    {
      g_clear_pointer (&self->profile, rk_file_profile_free);
      self->profile = profile != NULL && profile->error == NULL ? rk_file_profile_copy (profile) : NULL;
    }
  fill_sheets (self, self->profile);
  show_alternative (self, self->profile);
  self->profiling = profile == NULL;
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), self->profiling);
  gtk_spinner_set_spinning (self->spinner, self->profiling);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), self->profiling);
  /* A new reading starts from nothing known. */
  self->progress = -1;
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), FALSE);
  rk_widget_set_css_class (GTK_WIDGET (self), "rk-file-error", profile != NULL && profile->error != NULL);

  /* One-click analyses, for a file that was read. */
  rk_analysis_button_set_file (RK_ANALYSIS_BUTTON (self->analysis_button), rk_file_card_get_name (self),
                               profile && profile->error == NULL ? profile : NULL);
  gtk_widget_set_visible (self->analysis_button, profile != NULL && profile->error == NULL);

  gtk_image_set_from_icon_name (self->icon, rk_file_icon_name (profile));
  g_clear_handle_id (&self->timer_id, g_source_remove);
  if (profile == NULL)
    {
      if (self->started == 0)
        self->started = g_get_real_time ();
      tick_cb (self);
      self->timer_id = g_timeout_add_seconds (1, tick_cb, self);
      gtk_widget_set_visible (self->details, FALSE);
      return;
    }
  if (profile->error != NULL)
    {
      g_autofree char *clean = rk_text_sanitize_for_terminal (profile->error, RK_TEXT_SANITIZE_SINGLE_LINE);
      gtk_label_set_text (self->summary, clean);
      gtk_widget_set_visible (self->details, FALSE);
      return;
    }
  show_profile (self, profile, FALSE);
}

void
rk_file_card_set_estimate (RkFileCard          *self,
                           const RkFileProfile *estimate)
{
  g_return_if_fail (RK_IS_FILE_CARD (self));

  /* Only while the file is read: the exact profile always wins. */
  if (!self->profiling || estimate == NULL || estimate->error != NULL)
    return;
  gtk_image_set_from_icon_name (self->icon, rk_file_icon_name (estimate));
  show_profile (self, estimate, TRUE);
  tick_cb (self);
}

const char *
rk_file_card_get_estimate (RkFileCard *self)
{
  g_return_val_if_fail (RK_IS_FILE_CARD (self), NULL);
  return self->profiling ? self->estimate : NULL;
}

/* The summary, columns and notes of @profile; @estimate: its rows are
 * being counted (the spinner, progress and Cancel stay; tick_cb shows the
 * summary with how far the count got). */
static void
show_profile (RkFileCard          *self,
              const RkFileProfile *profile,
              gboolean             estimate)
{
  g_autofree char *summary = rk_file_summary (profile, self->table_index, estimate);
  g_autoptr(GString) notes = g_string_new (NULL);
  const RkTableProfile *t = NULL;

  if (profile->tables != NULL && profile->tables->len > 0)
    t = profile->tables->pdata[estimate ? 0 : MIN (self->table_index, profile->tables->len - 1)];
  show_columns (self, t);
  show_preview (self, t);
  for (guint i = 0; profile->notes != NULL && profile->notes[i] != NULL && i < 6; i++)
    {
      g_autofree char *note = rk_text_sanitize_for_terminal (profile->notes[i], RK_TEXT_SANITIZE_SINGLE_LINE);
      if (notes->len > 0)
        g_string_append_c (notes, '\n');
      g_string_append (notes, note);
    }
  gtk_label_set_text (self->notes_label, notes->str);
  gtk_widget_set_visible (GTK_WIDGET (self->notes_label), notes->len > 0);
  if (estimate)
    {
      g_free (self->estimate);
      self->estimate = g_steal_pointer (&summary);
    }
  else
    gtk_label_set_text (self->summary, summary);
  gtk_widget_set_visible (self->details, gtk_widget_get_visible (GTK_WIDGET (self->columns_label)) ||
                                        gtk_widget_get_visible (self->preview) ||
                                        gtk_widget_get_visible (self->sheet_box) ||
                                        gtk_widget_get_visible (GTK_WIDGET (self->alternative_button)) ||
                                        notes->len > 0);
}

gboolean
rk_file_card_get_profiling (RkFileCard *self)
{
  g_return_val_if_fail (RK_IS_FILE_CARD (self), FALSE);
  return self->profiling;
}

const char *
rk_file_card_get_summary (RkFileCard *self)
{
  g_return_val_if_fail (RK_IS_FILE_CARD (self), NULL);
  return gtk_label_get_text (self->summary);
}

const char *
rk_file_card_get_name (RkFileCard *self)
{
  g_return_val_if_fail (RK_IS_FILE_CARD (self), NULL);
  /* A file's name changes once if its predicted name was taken. */
  return self->file != NULL ? rk_conversation_file_get_name (self->file) : self->name;
}

static void
file_profile_cb (RkFileCard *self)
{
  rk_file_card_set_profile (self, rk_conversation_file_get_profile (self->file));
  /* A card built while the file is read shows how far it got. */
  rk_file_card_set_estimate (self, rk_conversation_file_get_estimate (self->file));
  rk_file_card_set_progress (self, rk_conversation_file_get_progress (self->file));
}

static void
file_estimate_cb (RkFileCard *self)
{
  rk_file_card_set_estimate (self, rk_conversation_file_get_estimate (self->file));
}

static void
file_progress_cb (RkFileCard *self)
{
  rk_file_card_set_progress (self, rk_conversation_file_get_progress (self->file));
}

void
rk_file_card_bind (RkFileCard         *self,
                   RkConversationFile *file)
{
  g_return_if_fail (RK_IS_FILE_CARD (self));
  g_return_if_fail (RK_IS_CONVERSATION_FILE (file));

  if (self->file != NULL)
    g_signal_handlers_disconnect_by_data (self->file, self);
  g_set_object (&self->file, file);
  g_signal_connect_object (file, "notify::profile", G_CALLBACK (file_profile_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (file, "notify::estimate", G_CALLBACK (file_estimate_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (file, "notify::progress", G_CALLBACK (file_progress_cb), self, G_CONNECT_SWAPPED);
  file_profile_cb (self);
}

/* Another sheet picked: its rows, columns and preview. */
static void
sheet_selected_cb (RkFileCard *self)
{
  guint selected = gtk_drop_down_get_selected (self->sheet_dropdown);

  if (self->filling_sheets || self->profile == NULL || selected == GTK_INVALID_LIST_POSITION)
    return;
  self->table_index = selected;
  show_profile (self, self->profile, FALSE);
}

static void
more_clicked_cb (RkFileCard *self)
{
  self->all_columns = !self->all_columns;
  if (self->profile != NULL)
    show_profile (self, self->profile, FALSE);
}

static const char *
shown_sheet (RkFileCard *self)
{
  const RkTableProfile *t;

  if (self->profile == NULL || self->profile->tables == NULL || self->table_index >= self->profile->tables->len ||
      self->profile->sheets <= 1)
    return "";
  t = self->profile->tables->pdata[self->table_index];
  return t->name ? t->name : "";
}

/* The window's file actions (rk-window-files.c) do the work: the card
 * only knows its file. */
static void
preview_activate_cb (RkFileCard *self)
{
  if (rk_file_card_get_name (self) != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.file-open-table", "(ss)",
                                rk_file_card_get_name (self), shown_sheet (self));
}

static void
alternative_clicked_cb (RkFileCard *self)
{
  if (rk_file_card_get_name (self) != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.file-reread", "s", rk_file_card_get_name (self));
}

static void
cancel_clicked_cb (RkFileCard *self)
{
  if (rk_file_card_get_name (self) != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "chat.cancel-profile", "s", rk_file_card_get_name (self));
}

static void
rk_file_card_dispose (GObject *object)
{
  RkFileCard *self = RK_FILE_CARD (object);

  if (self->file != NULL)
    g_signal_handlers_disconnect_by_data (self->file, self);
  g_clear_object (&self->file);
  g_clear_handle_id (&self->timer_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (object), RK_TYPE_FILE_CARD);
  G_OBJECT_CLASS (rk_file_card_parent_class)->dispose (object);
}

static void
rk_file_card_finalize (GObject *object)
{
  g_free (RK_FILE_CARD (object)->name);
  g_free (RK_FILE_CARD (object)->estimate);
  g_clear_pointer (&RK_FILE_CARD (object)->profile, rk_file_profile_free);
  G_OBJECT_CLASS (rk_file_card_parent_class)->finalize (object);
}

static void
rk_file_card_class_init (RkFileCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_file_card_dispose;
  object_class->finalize = rk_file_card_finalize;

  g_type_ensure (RK_TYPE_ANALYSIS_BUTTON);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-file-card.ui");
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, box);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, icon);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, title_label);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, summary);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, spinner);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, details);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, sheet_box);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, sheet_label);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, sheet_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, sheet_list);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, columns_label);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, more_button);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, preview);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, preview_grid);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, alternative_button);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, notes_label);
  gtk_widget_class_bind_template_child (widget_class, RkFileCard, analysis_button);
  gtk_widget_class_bind_template_callback (widget_class, cancel_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, sheet_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, more_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, preview_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, alternative_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-file-card");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
rk_file_card_init (RkFileCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* The sidebar's files lead here: the card itself takes the focus. */
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  rk_a11y_name_button (GTK_WIDGET (self->cancel_button), _("Cancel"));
  rk_file_card_set_profile (self, NULL);
}

GtkWidget *
rk_file_card_new (void)
{
  return g_object_new (RK_TYPE_FILE_CARD, NULL);
}
