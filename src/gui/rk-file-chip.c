/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-file-chip.c — a file artifact as a chip. Saving goes through
 * GtkFileChooserNative (the portal inside a Flatpak) and rk_export_file
 * (only a regular file beneath the workspace is copied). */
#define G_LOG_DOMAIN "rk-file-chip"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gi18n-lib.h>
#include <adwaita.h>

#include "rk-export.h"
#include "rk-text.h"
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
  GtkFileChooserNative *chooser;
};

G_DEFINE_FINAL_TYPE (RkFileChip, rk_file_chip, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_SIZE_KNOWN,
  SIGNAL_SAVED,
  SIGNAL_SAVE_FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  RkWorkspace *workspace;
  char        *rel_path;
  char        *dest;
} FileData;

static void
file_data_free (FileData *data)
{
  g_clear_object (&data->workspace);
  g_free (data->rel_path);
  g_free (data->dest);
  g_free (data);
}

static void
size_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  FileData *data = task_data;
  g_autoptr(GError) error = NULL;
  struct stat st;
  int fd;

  fd = rk_workspace_open_file (data->workspace, data->rel_path, &error);
  if (fd < 0)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (fstat (fd, &st) != 0)
    {
      close (fd);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", _("The file cannot be read"));
      return;
    }
  close (fd);
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
  {
    FileData *data = g_new0 (FileData, 1);
    data->workspace = g_object_ref (workspace);
    data->rel_path = g_strdup (rel_path);
    g_task_set_task_data (task, data, (GDestroyNotify) file_data_free);
  }
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
save_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  FileData *data = task_data;
  GError *error = NULL;

  if (rk_export_file (data->workspace, data->rel_path, data->dest, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* The window's toast overlay, if the chip is inside one. */
static void
toast (RkFileChip *self,
       const char *text)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);

  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (text));
}

static void
save_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  RkFileChip *self = RK_FILE_CHIP (source);
  FileData *data = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  if (g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_autofree char *base = g_path_get_basename (data->dest);
      g_autofree char *text = g_strdup_printf (_("Saved “%s”"), base);

      toast (self, text);
      g_signal_emit (self, signals[SIGNAL_SAVED], 0, data->dest);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *msg = g_strdup_printf (_("The file could not be saved: %s"), error->message);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->button), msg);
      toast (self, msg);
      g_signal_emit (self, signals[SIGNAL_SAVE_FAILED], 0, msg);
    }
}

static void
chooser_response_cb (RkFileChip *self,
                     int         response)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (self->chooser));
  g_clear_object (&self->chooser);
  if (file != NULL && g_file_peek_path (file) != NULL)
    {
      g_autoptr(GTask) task = g_task_new (self, self->cancellable, save_cb, NULL);
      FileData *data = g_new0 (FileData, 1);

      data->workspace = g_object_ref (self->workspace);
      data->rel_path = g_strdup (self->rel_path);
      data->dest = g_file_get_path (file);
      g_task_set_task_data (task, data, (GDestroyNotify) file_data_free);
      g_task_run_in_thread (task, save_thread);
    }
}

static void
clicked_cb (RkFileChip *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (self->rel_path == NULL || self->workspace == NULL || self->chooser != NULL)
    return;
  self->chooser = gtk_file_chooser_native_new (_("Save File"),
                                               GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                               GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), self->name);
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (chooser_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
rk_file_chip_dispose (GObject *object)
{
  RkFileChip *self = RK_FILE_CHIP (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
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
  signals[SIGNAL_SAVED] =
    g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_SAVE_FAILED] =
    g_signal_new ("save-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

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
