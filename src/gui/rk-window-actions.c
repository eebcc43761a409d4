/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-window-actions.c — the window's actions (win.*): new conversation,
 * attach, save all, export, print, keep alive, restart session, stop,
 * sidebar, focus. */
#define G_LOG_DOMAIN "rk-window-actions"
#include "config.h"

#include <glib/gi18n.h>

#include <string.h>

#include "rk-a11y.h"
#include "rk-artifact-export.h"
#include "rk-report-print.h"
#include "rk-save.h"
#include "rk-text.h"
#include "rk-window-private.h"

static RkSession *
current_session (RkWindow *self)
{
  return self->conversation != NULL ? rk_conversation_get_session (self->conversation) : NULL;
}

void
_rk_window_actions_update (RkWindow *self)
{
  RkSession *session = current_session (self);
  gboolean active = session != NULL && rk_session_get_state (session) == RK_SESSION_ACTIVE;
  gboolean has_artifacts = session != NULL && rk_session_get_artifacts (session)->len > 0;
  gboolean busy = rk_composer_get_busy (self->composer);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-all", active && has_artifacts);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.keep-alive", active);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.restart-session",
                                 session != NULL && rk_session_get_state (session) != RK_SESSION_RESTARTING);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop", busy);
}

static void
new_conversation_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *param)
{
  RkWindow *self = RK_WINDOW (widget);

  /* An empty conversation is already a new one. */
  if (self->conversation != NULL &&
      g_list_model_get_n_items (G_LIST_MODEL (rk_conversation_get_transcript (self->conversation))) == 0)
    {
      rk_composer_focus (self->composer);
      return;
    }
  _rk_window_new_conversation (self);
}

/* -- attach -- */

static void
attach_response_cb (RkWindow             *self,
                    int                   response,
                    GtkFileChooserNative *dialog)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) list = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
      guint n = g_list_model_get_n_items (list);

      for (guint i = 0; i < n; i++)
        g_ptr_array_add (files, g_list_model_get_item (list, i));
      rk_window_add_files (self, (GFile **) files->pdata, files->len);
    }
  g_object_unref (dialog);
}

static void
attach_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  RkWindow *self = RK_WINDOW (widget);
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (_("Attach Files"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Attach"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (dialog), TRUE);

  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), self->data_filter);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), self->all_filter);

  g_signal_connect_object (dialog, "response", G_CALLBACK (attach_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* -- save all -- */

static void
open_folder_cb (AdwToast *toast,
                GFile    *folder)
{
  g_autofree char *uri = g_file_get_uri (folder);

  g_app_info_launch_default_for_uri_async (uri, NULL, NULL, NULL, NULL);
}

/* @message in a toast whose button opens @folder (NULL: no button). */
static void
toast_with_folder (RkWindow   *self,
                   const char *message,
                   GFile      *folder)
{
  AdwToast *toast = adw_toast_new (message);

  if (folder != NULL)
    {
      adw_toast_set_button_label (toast, _("_Open Folder"));
      g_signal_connect_data (toast, "button-clicked", G_CALLBACK (open_folder_cb),
                             g_object_ref (folder), (GClosureNotify) (void (*) (void)) g_object_unref, 0);
    }
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

typedef struct
{
  RkWindow *window;
  GFile    *folder;
} SaveData;

static void
save_data_free (SaveData *data)
{
  g_clear_object (&data->window);
  g_clear_object (&data->folder);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SaveData, save_data_free)

static void
export_all_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SaveData) data = user_data;
  RkWindow *self = data->window;
  GFile *folder = data->folder;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) skipped = rk_artifact_save_all_finish (result, &error);
  g_autofree char *name = NULL;
  g_autofree char *message = NULL;

  if (skipped == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          message = g_strdup_printf (_("The results could not be saved: %s"), error->message);
          rk_window_toast (self, message);
        }
      return;
    }
  name = g_file_get_basename (folder);
  if (skipped[0] != NULL)
    message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                            "Results saved to “%s”, but %u could not be read",
                                            "Results saved to “%s”, but %u could not be read",
                                            g_strv_length (skipped)),
                               name, g_strv_length (skipped));
  else
    message = g_strdup_printf (_("Results saved to “%s”, with their provenance"), name);
  toast_with_folder (self, message, folder);
}

static void
save_all_chosen_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  RkWindow *self = RK_WINDOW (object);
  RkSession *session = current_session (self);
  g_autofree char *sentence = NULL;
  g_autofree char *path = rk_save_finish (result, &sentence, NULL);
  g_auto(GStrv) names = NULL;
  SaveData *data;

  if (sentence != NULL)
    rk_window_toast (self, sentence);
  if (path == NULL || session == NULL)
    return;
  data = g_new0 (SaveData, 1);
  data->window = g_object_ref (self);
  data->folder = g_file_new_for_path (path);
  /* The same as the shelf's Save All: saved forms plus provenance.json. */
  names = rk_session_dup_file_names (session);
  rk_artifact_save_all_async (rk_conversation_get_transcript (self->conversation),
                              (const char * const *) names, rk_session_get_workspace (session),
                              RK_EXPORT_FOLDER, path, self->cancellable, export_all_cb, data);
}

static void
save_all_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  RkWindow *self = RK_WINDOW (widget);

  if (current_session (self) == NULL)
    return;
  rk_save_async (widget, _("Save All Results to a Folder"), NULL, NULL, NULL, NULL, NULL,
                 self->cancellable, save_all_chosen_cb, NULL);
}

/* -- export as notebook or HTML -- */

typedef struct
{
  GBytes      *transcript;   /* a snapshot: the live one may grow meanwhile */
  RkWorkspace *workspace;    /* NULL once expired: nothing embedded then */
  char        *title;
  gboolean     html;
} ExportData;

static void
export_data_free (ExportData *data)
{
  g_clear_pointer (&data->transcript, g_bytes_unref);
  g_clear_object (&data->workspace);
  g_free (data->title);
  g_free (data);
}

static gboolean
export_write (const char    *dest,
              gpointer       user_data,
              GCancellable  *cancellable,
              GError       **error)
{
  ExportData *data = user_data;
  g_autoptr(RkTranscript) transcript = rk_transcript_new_from_bytes (data->transcript, error);
  g_autoptr(GFile) file = g_file_new_for_path (dest);
  g_autofree char *text = NULL;

  if (transcript != NULL)
    text = data->html ? rk_transcript_to_html (transcript, data->workspace, data->title, NULL, error)
                      : rk_transcript_to_notebook (transcript, data->workspace, NULL, error);
  return text != NULL &&
         g_file_replace_contents (file, text, strlen (text), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, cancellable, error);
}

static void
export_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  RkWindow *self = RK_WINDOW (object);
  g_autofree char *sentence = NULL;
  g_autofree char *path = rk_save_finish (result, &sentence, NULL);
  g_autoptr(GFile) file = path != NULL ? g_file_new_for_path (path) : NULL;
  g_autoptr(GFile) folder = file != NULL ? g_file_get_parent (file) : NULL;

  /* No path: the sentence (if any) says why, with no folder to open. */
  if (sentence != NULL)
    toast_with_folder (self, sentence, folder);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  RkWindow *self = RK_WINDOW (widget);
  gboolean html = g_str_equal (action_name, "win.export-html");
  const char *title = self->conversation != NULL ? rk_conversation_get_title (self->conversation) : NULL;
  RkSession *session;
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  ExportData *data;

  if (self->conversation == NULL)
    return;
  /* A file name from the title: no folder separators, one line. */
  base = rk_text_sanitize_for_terminal (title != NULL && *title != '\0' ? title : _("Conversation"),
                                        RK_TEXT_SANITIZE_SINGLE_LINE);
  g_strdelimit (base, "/\\", '-');
  name = g_strconcat (base, html ? ".html" : ".ipynb", NULL);
  gtk_file_filter_set_name (filter, html ? _("Web Pages") : _("Jupyter Notebooks"));
  gtk_file_filter_add_pattern (filter, html ? "*.html" : "*.ipynb");

  session = rk_conversation_get_session (self->conversation);
  data = g_new0 (ExportData, 1);
  data->transcript = rk_transcript_to_bytes (rk_conversation_get_transcript (self->conversation));
  if (rk_session_get_state (session) == RK_SESSION_ACTIVE)
    data->workspace = g_object_ref (rk_session_get_workspace (session));
  data->title = rk_conversation_dup_full_title (self->conversation);
  data->html = html;
  rk_save_async (widget, html ? _("Export as HTML") : _("Export as Notebook"), name, filter,
                 export_write, data, (GDestroyNotify) export_data_free, self->cancellable, export_done_cb, NULL);
}

/* -- print: the conversation's questions, answers, tables, charts and
 * figures through the print dialog, which also saves them as PDF -- */

static void
printed_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(RkWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!rk_report_print_finish (result, &error) && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *message = g_strdup_printf (_("The report could not be printed: %s"), error->message);
      rk_window_toast (self, message);
    }
}

static void
print_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  RkWindow *self = RK_WINDOW (widget);
  RkSession *session = current_session (self);

  if (self->conversation == NULL)
    return;
  rk_report_print_async (GTK_WINDOW (self), rk_conversation_get_transcript (self->conversation),
                         session != NULL ? rk_session_get_workspace (session) : NULL,
                         rk_conversation_get_title (self->conversation), NULL,
                         self->cancellable, printed_cb, g_object_ref (self));
}

/* -- session lifetime: keep alive, restart, stop -- */

static void
restart_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(RkWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  /* Success shows as a note in the transcript; only a failure needs saying. */
  if (!rk_conversation_restart_finish (RK_CONVERSATION (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    rk_window_toast (self, error->message);
  _rk_window_actions_update (self);
}

static void
session_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  RkWindow *self = RK_WINDOW (widget);

  if (self->conversation == NULL)
    return;
  if (g_str_equal (action_name, "win.keep-alive"))
    {
      rk_conversation_keep_alive (self->conversation);
      rk_expiry_banner_dismiss (self->expiry_banner);
    }
  else if (g_str_equal (action_name, "win.stop"))
    rk_conversation_stop (self->conversation);
  else
    {
      /* Replays the code that ran, so tables and variables come back. */
      rk_conversation_restart_async (self->conversation, TRUE, self->cancellable, restart_cb, g_object_ref (self));
      _rk_window_actions_update (self);
    }
}

/* -- navigation -- */

static void
toggle_sidebar_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  RkWindow *self = RK_WINDOW (widget);

  adw_flap_set_reveal_flap (self->flap, !adw_flap_get_reveal_flap (self->flap));
}

static void
focus_composer_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  rk_composer_focus (RK_WINDOW (widget)->composer);
}

/* Ctrl+?: the keyboard shortcuts, built the first time they are asked for
 * (GTK would build its help overlay with every window, at start-up). */
static void
show_shortcuts_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  GtkApplicationWindow *window = GTK_APPLICATION_WINDOW (widget);
  GtkShortcutsWindow *shortcuts = gtk_application_window_get_help_overlay (window);

  if (shortcuts == NULL)
    {
      g_autoptr(GtkBuilder) builder =
        gtk_builder_new_from_resource ("/io/github/reckon/Reckon/rk-shortcuts-window.ui");

      /* GTK makes it modal, transient and hidden on close, and shows the
       * application's accelerators in it. */
      shortcuts = GTK_SHORTCUTS_WINDOW (gtk_builder_get_object (builder, "help_overlay"));
      rk_a11y_name_tree (GTK_WIDGET (shortcuts));
      gtk_application_window_set_help_overlay (window, shortcuts);
    }
  gtk_window_present (GTK_WINDOW (shortcuts));
}

/* F6 and Shift+F6: the sidebar (when shown), the chat, the composer. The
 * chat list is hard to enter with Tab in GTK 4.8; this always gets there. */
static void
cycle_pane_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  RkWindow *self = RK_WINDOW (widget);
  gboolean back = g_str_equal (action_name, "win.previous-pane");
  GtkWidget *panes[3];
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  guint n = 0;
  int current = -1;

  if (adw_flap_get_reveal_flap (self->flap))
    panes[n++] = GTK_WIDGET (self->sidebar);
  panes[n++] = GTK_WIDGET (self->chat_stack);
  panes[n++] = GTK_WIDGET (self->composer);

  for (guint i = 0; i < n && focus != NULL; i++)
    if (focus == panes[i] || gtk_widget_is_ancestor (focus, panes[i]))
      current = (int) i;

  for (guint tries = 0; tries < n; tries++)
    {
      GtkWidget *pane;

      if (current < 0)
        current = back ? (int) n - 1 : 0;
      else
        current = (current + (back ? (int) n - 1 : 1)) % (int) n;
      pane = panes[current];
      if (pane == GTK_WIDGET (self->composer))
        {
          rk_composer_focus (self->composer);
          return;
        }
      if (gtk_widget_child_focus (pane, GTK_DIR_TAB_FORWARD))
        return;
    }
}

static void
check_connection_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *param)
{
  _rk_window_check_connection (RK_WINDOW (widget));
}

void
_rk_window_class_actions_init (RkWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.new-conversation", NULL, new_conversation_action);
  gtk_widget_class_install_action (widget_class, "win.attach", NULL, attach_action);
  gtk_widget_class_install_action (widget_class, "win.save-all", NULL, save_all_action);
  gtk_widget_class_install_action (widget_class, "win.export-notebook", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-html", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.print", NULL, print_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_p, GDK_CONTROL_MASK, "win.print", NULL);
  gtk_widget_class_install_action (widget_class, "win.keep-alive", NULL, session_action);
  gtk_widget_class_install_action (widget_class, "win.restart-session", NULL, session_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, session_action);
  gtk_widget_class_install_action (widget_class, "win.toggle-sidebar", NULL, toggle_sidebar_action);
  gtk_widget_class_install_action (widget_class, "win.focus-composer", NULL, focus_composer_action);
  gtk_widget_class_install_action (widget_class, "win.check-connection", NULL, check_connection_action);
  gtk_widget_class_install_action (widget_class, "win.show-help-overlay", NULL, show_shortcuts_action);
  gtk_widget_class_install_action (widget_class, "win.next-pane", NULL, cycle_pane_action);
  gtk_widget_class_install_action (widget_class, "win.previous-pane", NULL, cycle_pane_action);
}
