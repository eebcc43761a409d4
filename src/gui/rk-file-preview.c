/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-file-preview.c — the first rows of a table profile, drawn as a grid of
 * labels inside one flat button; every cell is cut short, never the grid. */
#define G_LOG_DOMAIN "rk-file-preview"
#include "config.h"

#include "rk-file-preview.h"
#include "rk-text.h"

/* Characters of a cell shown before it is ellipsized. */
#define CELL_CHARS 18

struct _RkFilePreview
{
  GtkWidget  parent_instance;

  GtkWidget *button;
  GtkGrid   *grid;
};

G_DEFINE_FINAL_TYPE (RkFilePreview, rk_file_preview, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_ACTIVATE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GtkWidget *
cell_label (const char *raw,
            gboolean    heading)
{
  g_autofree char *text = rk_text_sanitize_for_terminal (raw ? raw : "", RK_TEXT_SANITIZE_SINGLE_LINE);
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), CELL_CHARS);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  if (g_utf8_strlen (text, -1) > CELL_CHARS)
    gtk_widget_set_tooltip_text (label, text);
  gtk_widget_add_css_class (label, heading ? "rk-preview-heading" : "rk-preview-cell");
  return label;
}

void
rk_file_preview_set_table (RkFilePreview        *self,
                           const RkTableProfile *table)
{
  GtkWidget *child;
  guint n_columns, n_rows;

  g_return_if_fail (RK_IS_FILE_PREVIEW (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->grid))) != NULL)
    gtk_grid_remove (self->grid, child);
  n_columns = table && table->columns ? MIN (table->columns->len, RK_FILE_PREVIEW_COLUMNS) : 0;
  n_rows = table && table->head ? MIN (table->head->len, RK_FILE_PREVIEW_ROWS) : 0;
  gtk_widget_set_visible (GTK_WIDGET (self), n_columns > 0 && n_rows > 0);
  if (n_columns == 0 || n_rows == 0)
    return;

  for (guint c = 0; c < n_columns; c++)
    {
      const RkColumnProfile *column = table->columns->pdata[c];

      gtk_grid_attach (self->grid, cell_label (column->name, TRUE), c, 0, 1, 1);
    }
  if (table->columns->len > n_columns)
    gtk_grid_attach (self->grid, cell_label ("…", TRUE), n_columns, 0, 1, 1);
  for (guint r = 0; r < n_rows; r++)
    {
      GStrv row = table->head->pdata[r];
      guint len = row ? g_strv_length (row) : 0;

      for (guint c = 0; c < n_columns; c++)
        gtk_grid_attach (self->grid, cell_label (c < len ? row[c] : "", FALSE), c, r + 1, 1, 1);
    }
}

static void
clicked_cb (RkFilePreview *self)
{
  g_signal_emit (self, signals[SIGNAL_ACTIVATE], 0);
}

static void
rk_file_preview_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), RK_TYPE_FILE_PREVIEW);
  G_OBJECT_CLASS (rk_file_preview_parent_class)->dispose (object);
}

static void
rk_file_preview_class_init (RkFilePreviewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_file_preview_dispose;

  signals[SIGNAL_ACTIVATE] =
    g_signal_new ("activate", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-file-preview.ui");
  gtk_widget_class_bind_template_child (widget_class, RkFilePreview, button);
  gtk_widget_class_bind_template_child (widget_class, RkFilePreview, grid);
  gtk_widget_class_bind_template_callback (widget_class, clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-file-preview");
}

static void
rk_file_preview_init (RkFilePreview *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
rk_file_preview_new (void)
{
  return g_object_new (RK_TYPE_FILE_PREVIEW, NULL);
}
