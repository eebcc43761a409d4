/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-diff-view.c — the unified diff of a code revision in a read-only text
 * view, added lines green, removed lines red, hunk headers dimmed. */
#define G_LOG_DOMAIN "rk-diff-view"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <adwaita.h>

#include "rk-diff.h"
#include "rk-diff-view.h"

struct _RkDiffView
{
  GtkWidget    parent_instance;

  GtkWidget   *box;
  GtkLabel    *summary;
  GtkTextView *view;
  GtkTextTag  *added;
  GtkTextTag  *removed;
  GtkTextTag  *hunk;
  guint        n_inserted;
  guint        n_deleted;
};

G_DEFINE_FINAL_TYPE (RkDiffView, rk_diff_view, GTK_TYPE_WIDGET)

static void
update_colors (RkDiffView *self)
{
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());

  /* libadwaita's success and error colors, faint enough to read code on. */
  g_object_set (self->added, "paragraph-background", dark ? "rgba(38,162,105,0.25)" : "rgba(46,194,126,0.18)", NULL);
  g_object_set (self->removed, "paragraph-background", dark ? "rgba(192,28,40,0.30)" : "rgba(224,27,36,0.14)", NULL);
  g_object_set (self->hunk, "foreground", dark ? "#78aeed" : "#1c71d8", NULL);
}

void
rk_diff_view_set_texts (RkDiffView *self,
                        const char *old_code,
                        const char *new_code)
{
  g_autoptr(RkDiff) diff = NULL;
  g_autoptr(GString) unified = NULL;
  g_auto(GStrv) lines = NULL;
  GtkTextBuffer *buffer;
  GtkTextIter end;
  g_autofree char *summary = NULL;

  g_return_if_fail (RK_IS_DIFF_VIEW (self));

  diff = rk_diff_new (old_code ? old_code : "", -1, new_code ? new_code : "", -1);
  self->n_inserted = rk_diff_get_n_inserted (diff);
  self->n_deleted = rk_diff_get_n_deleted (diff);
  unified = rk_diff_format_unified (diff, "before", "after", 3);
  lines = g_strsplit (unified->str, "\n", -1);

  buffer = gtk_text_view_get_buffer (self->view);
  gtk_text_buffer_set_text (buffer, "", 0);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      GtkTextTag *tag = NULL;
      g_autofree char *valid = NULL;

      if (i < 2 && (g_str_has_prefix (line, "--- ") || g_str_has_prefix (line, "+++ ")))
        continue;
      if (line[0] == '\0' && lines[i + 1] == NULL)
        break;
      if (line[0] == '+')
        tag = self->added;
      else if (line[0] == '-')
        tag = self->removed;
      else if (g_str_has_prefix (line, "@@"))
        tag = self->hunk;
      valid = g_utf8_make_valid (line, -1);
      gtk_text_buffer_get_end_iter (buffer, &end);
      if (gtk_text_iter_get_offset (&end) > 0)
        gtk_text_buffer_insert (buffer, &end, "\n", 1);
      if (tag != NULL)
        gtk_text_buffer_insert_with_tags (buffer, &end, valid, -1, tag, NULL);
      else
        gtk_text_buffer_insert (buffer, &end, valid, -1);
    }

  if (rk_diff_is_identical (diff))
    summary = g_strdup (_("Same code as before"));
  else
    /* TRANSLATORS: lines added and removed in a revision of code */
    summary = g_strdup_printf (_("Changes to the earlier code: %u added, %u removed"),
                               self->n_inserted, self->n_deleted);
  gtk_label_set_text (self->summary, summary);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, summary, -1);
}

guint
rk_diff_view_get_n_inserted (RkDiffView *self)
{
  g_return_val_if_fail (RK_IS_DIFF_VIEW (self), 0);
  return self->n_inserted;
}

guint
rk_diff_view_get_n_deleted (RkDiffView *self)
{
  g_return_val_if_fail (RK_IS_DIFF_VIEW (self), 0);
  return self->n_deleted;
}

char *
rk_diff_view_get_text (RkDiffView *self)
{
  GtkTextIter start, end;
  GtkTextBuffer *buffer;

  g_return_val_if_fail (RK_IS_DIFF_VIEW (self), NULL);
  buffer = gtk_text_view_get_buffer (self->view);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

static void
rk_diff_view_dispose (GObject *object)
{
  RkDiffView *self = RK_DIFF_VIEW (object);

  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_DIFF_VIEW);
  G_OBJECT_CLASS (rk_diff_view_parent_class)->dispose (object);
}

static void
rk_diff_view_class_init (RkDiffViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_diff_view_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-diff-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RkDiffView, box);
  gtk_widget_class_bind_template_child (widget_class, RkDiffView, summary);
  gtk_widget_class_bind_template_child (widget_class, RkDiffView, view);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-diff-view");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
rk_diff_view_init (RkDiffView *self)
{
  GtkTextBuffer *buffer;

  gtk_widget_init_template (GTK_WIDGET (self));
  buffer = gtk_text_view_get_buffer (self->view);
  self->added = gtk_text_buffer_create_tag (buffer, "added", NULL);
  self->removed = gtk_text_buffer_create_tag (buffer, "removed", NULL);
  self->hunk = gtk_text_buffer_create_tag (buffer, "hunk", NULL);
  update_colors (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_colors), self, G_CONNECT_SWAPPED);
}

GtkWidget *
rk_diff_view_new (void)
{
  return g_object_new (RK_TYPE_DIFF_VIEW, NULL);
}
