/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-file-chip.c — a file artifact as a chip. Saving goes through
 * rk_save_async() and rk_export_file (only a regular file beneath the
 * workspace is copied). */
#define G_LOG_DOMAIN "rk-file-chip"
#include "config.h"

#include <unistd.h>
#include <sys/stat.h>
#include <glib/gi18n-lib.h>

#include "rk-export.h"
#include "rk-text.h"
#include "rk-save.h"
#include "rk-file-chip.h"

struct _RkFileChip
{
  GtkWidget     parent_instance;

  GtkButton    *button;
  GtkImage     *icon;
  GtkLabel     *name_label;
  GtkLabel     *size_label;

  RkWorkspace  *workspace;
  char         *rel_path;
  char         *name;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (RkFileChip, rk_file_chip, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_SIZE_KNOWN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The size, read beneath the workspace off the GUI thread; @task_data
 * is an RkSaveSource. */
static void
size_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  RkSaveSource *source = task_data;
  GError *error = NULL;
  int fd = rk_workspace_open_file (source->workspace, source->rel_path, &error);
  struct stat st;
  int failed;

  if (fd < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  failed = fstat (fd, &st);
  close (fd);
  if (failed != 0)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", _("The file cannot be read"));
  else
    g_task_return_int (task, st.st_size);
}

static void
size_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  RkFileChip *self = RK_FILE_CHIP (source);
  g_autoptr(GError) error = NULL;
  gssize size = g_task_propagate_int (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (error != NULL)
    gtk_label_set_text (self->size_label, _("Gone"));
  else
    {
      g_autofree char *text = g_format_size (size);
      gtk_label_set_text (self->size_label, text);
    }
  g_signal_emit (self, signals[SIGNAL_SIZE_KNOWN], 0);
}

void
rk_file_chip_set_file (RkFileChip  *self,
                       RkWorkspace *workspace,
                       const char  *rel_path,
                       const char  *mime_type,
                       const char  *title)
{
  g_autoptr(GIcon) icon = NULL;
  g_autoptr(GTask) task = NULL;
  g_autofree char *content_type = NULL;
  g_autofree char *a11y = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tip = NULL;

  g_return_if_fail (RK_IS_FILE_CHIP (self));
  g_return_if_fail (rel_path != NULL);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_set_object (&self->workspace, workspace);
  g_free (self->rel_path);
  self->rel_path = g_strdup (rel_path);
  /* The name comes from the sandbox: shown only once made harmless. */
  base = g_path_get_basename (rel_path);
  g_free (self->name);
  self->name = rk_text_sanitize_for_terminal (base, RK_TEXT_SANITIZE_SINGLE_LINE);

  content_type = mime_type ? g_content_type_from_mime_type (mime_type) : NULL;
  if (content_type == NULL)
    content_type = g_content_type_guess (self->name, NULL, 0, NULL);
  icon = g_content_type_get_symbolic_icon (content_type);
  gtk_image_set_from_gicon (self->icon, icon);
  gtk_label_set_text (self->name_label, self->name);
  gtk_label_set_text (self->size_label, "");
  tip = title && *title ? rk_text_sanitize_for_terminal (title, RK_TEXT_SANITIZE_SINGLE_LINE) : g_strdup (self->name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->button), tip);
  /* TRANSLATORS: accessible name of a file chip; %s is a file name */
  a11y = g_strdup_printf (_("Save %s"), self->name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->button), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);

  if (workspace == NULL)
    {
      gtk_label_set_text (self->size_label, _("Gone"));
      gtk_widget_set_sensitive (GTK_WIDGET (self->button), FALSE);
      return;
    }
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, size_cb, NULL);
  g_task_set_task_data (task, rk_save_source_new (workspace, rel_path), (GDestroyNotify) rk_save_source_free);
  g_task_run_in_thread (task, size_thread);
}

const char *
rk_file_chip_get_name (RkFileChip *self)
{
  g_return_val_if_fail (RK_IS_FILE_CHIP (self), NULL);
  return self->name;
}

const char *
rk_file_chip_get_size_text (RkFileChip *self)
{
  g_return_val_if_fail (RK_IS_FILE_CHIP (self), NULL);
  return gtk_label_get_text (self->size_label);
}

static void
save_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  RkFileChip *self = RK_FILE_CHIP (source);
  g_autofree char *sentence = NULL;
  g_autofree char *dest = rk_save_finish (result, &sentence, NULL);

  rk_save_toast (GTK_WIDGET (self), sentence);
  if (dest == NULL && sentence != NULL)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->button), sentence);
}

static void
clicked_cb (RkFileChip *self)
{
  if (self->rel_path == NULL || self->workspace == NULL)
    return;
  rk_save_async (GTK_WIDGET (self), _("Save File"), self->name, NULL, rk_save_workspace_file,
                 rk_save_source_new (self->workspace, self->rel_path), (GDestroyNotify) rk_save_source_free,
                 NULL, save_cb, NULL);
}

static void
rk_file_chip_dispose (GObject *object)
{
  RkFileChip *self = RK_FILE_CHIP (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_FILE_CHIP);
  G_OBJECT_CLASS (rk_file_chip_parent_class)->dispose (object);
}

static void
rk_file_chip_finalize (GObject *object)
{
  RkFileChip *self = RK_FILE_CHIP (object);

  g_clear_object (&self->workspace);
  g_free (self->rel_path);
  g_free (self->name);
  G_OBJECT_CLASS (rk_file_chip_parent_class)->finalize (object);
}

static void
rk_file_chip_class_init (RkFileChipClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_file_chip_dispose;
  object_class->finalize = rk_file_chip_finalize;

  signals[SIGNAL_SIZE_KNOWN] =
    g_signal_new ("size-known", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-file-chip.ui");
  gtk_widget_class_bind_template_child (widget_class, RkFileChip, button);
  gtk_widget_class_bind_template_child (widget_class, RkFileChip, icon);
  gtk_widget_class_bind_template_child (widget_class, RkFileChip, name_label);
  gtk_widget_class_bind_template_child (widget_class, RkFileChip, size_label);
  gtk_widget_class_bind_template_callback (widget_class, clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-file-chip");
}

static void
rk_file_chip_init (RkFileChip *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
rk_file_chip_new (void)
{
  return g_object_new (RK_TYPE_FILE_CHIP, NULL);
}
