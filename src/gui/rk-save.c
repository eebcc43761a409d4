/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-save.c — the one save flow behind Save of a table, a chart, a figure,
 * a file, a result and all results, and the exports. */
#define G_LOG_DOMAIN "rk-save"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <adwaita.h>

#include "rk-export.h"
#include "rk-save.h"
#include "rk-text.h"

typedef struct
{
  RkSaveFunc     func;
  gpointer       data;
  GDestroyNotify destroy;
  char          *dest;
} SaveData;

static void
save_data_free (SaveData *d)
{
  if (d->destroy != NULL)
    d->destroy (d->data);
  g_free (d->dest);
  g_free (d);
}

static void
save_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  SaveData *d = task_data;
  GError *error = NULL;

  if (d->func (d->dest, d->data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* Runs @func on the destination in a thread, or, without one, hands the
 * destination back at once. */
static void
save_to (GTask *task)
{
  SaveData *d = g_task_get_task_data (task);

  if (d->func == NULL)
    g_task_return_boolean (task, TRUE);
  else
    g_task_run_in_thread (task, save_thread);
}

static void
response_cb (GtkNativeDialog *dialog,
             int              response,
             GTask           *task)   /* owned */
{
  SaveData *d = g_task_get_task_data (task);
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  d->dest = file != NULL ? g_file_get_path (file) : NULL;
  if (file == NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", _("Nothing was chosen"));
  else if (d->dest == NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s",
                             _("Results can only be saved to a local folder."));
  else
    save_to (task);
  g_object_unref (task);
}

void
rk_save_async (GtkWidget           *widget,
               const char          *title,
               const char          *name,
               GtkFileFilter       *filter,
               RkSaveFunc           func,
               gpointer             data,
               GDestroyNotify       destroy,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GtkRoot *root;
  GtkFileChooserNative *dialog;
  SaveData *d;
  GTask *task;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (title != NULL || (name != NULL && func != NULL));

  d = g_new0 (SaveData, 1);
  d->func = func;
  d->data = data;
  d->destroy = destroy;
  task = g_task_new (widget, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_save_async);
  g_task_set_task_data (task, d, (GDestroyNotify) save_data_free);

  if (title == NULL)
    {
      d->dest = g_strdup (name);
      save_to (task);
      g_object_unref (task);
      return;
    }
  root = gtk_widget_get_root (widget);
  dialog = gtk_file_chooser_native_new (title, GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        name != NULL ? GTK_FILE_CHOOSER_ACTION_SAVE
                                                     : GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                        _("_Save"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  if (name != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  if (filter != NULL)
    gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_signal_connect (dialog, "response", G_CALLBACK (response_cb), task);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

char *
rk_save_finish (GAsyncResult  *result,
                char         **sentence,
                GError       **error)
{
  SaveData *d;
  g_autoptr(GError) local = NULL;
  g_autofree char *name = NULL;

  g_return_val_if_fail (g_async_result_is_tagged (result, rk_save_async), NULL);

  d = g_task_get_task_data (G_TASK (result));
  name = d->dest != NULL ? g_filename_display_basename (d->dest) : NULL;
  if (sentence != NULL)
    *sentence = NULL;
  if (!g_task_propagate_boolean (G_TASK (result), &local))
    {
      if (sentence != NULL && !g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        *sentence = name != NULL ? g_strdup_printf (_("“%s” could not be saved: %s"), name, local->message)
                                 : g_strdup (local->message);
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (sentence != NULL && d->func != NULL)
    *sentence = g_strdup_printf (_("Saved “%s”"), name);
  return g_strdup (d->dest);
}

char *
rk_save_file_name (const char *title,
                   const char *fallback,
                   const char *ext)
{
  g_autofree char *line = rk_text_sanitize_for_terminal (title, RK_TEXT_SANITIZE_SINGLE_LINE);
  char *name = g_strdup_printf ("%s.%s", line != NULL && *line != '\0' ? line : fallback, ext);

  return g_strdelimit (name, "/\\", '_');
}

gboolean
rk_save_workspace_file (const char    *dest,
                        gpointer       data,
                        GCancellable  *cancellable,
                        GError       **error)
{
  RkSaveSource *source = data;

  return rk_export_file (source->workspace, source->rel_path, dest, NULL, cancellable, error);
}

RkSaveSource *
rk_save_source_new (RkWorkspace *workspace,
                    const char  *rel_path)
{
  RkSaveSource *source = g_new0 (RkSaveSource, 1);

  source->workspace = g_object_ref (workspace);
  source->rel_path = g_strdup (rel_path);
  return source;
}

void
rk_save_source_free (RkSaveSource *source)
{
  g_clear_object (&source->workspace);
  g_free (source->rel_path);
  g_free (source);
}

static AdwToastOverlay *
find_overlay (GtkWidget *widget)
{
  if (ADW_IS_TOAST_OVERLAY (widget))
    return ADW_TOAST_OVERLAY (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      AdwToastOverlay *found = find_overlay (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

void
rk_save_toast (GtkWidget  *widget,
               const char *sentence)
{
  GtkWidget *overlay;
  GtkRoot *root;

  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (sentence == NULL)
    return;
  /* The nearest overlay around the widget, else the window's own. */
  overlay = gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY);
  root = gtk_widget_get_root (widget);
  if (overlay == NULL && root != NULL)
    overlay = GTK_WIDGET (find_overlay (GTK_WIDGET (root)));
  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (sentence));
}

void
rk_save_toast_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autofree char *sentence = NULL;

  g_free (rk_save_finish (result, &sentence, NULL));
  rk_save_toast (GTK_WIDGET (source), sentence);
}
