/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-window.c — the main window: binds one RkConversation at a time to the
 * chat view, the sidebar, the expiry banner and the composer. Actions, drop
 * and the model server live in rk-window-{actions,dnd,model}.c. */
#define G_LOG_DOMAIN "rk-window"
#include "config.h"

#include <glib/gi18n.h>

#include "rk-text.h"
#include "rk-a11y.h"
#include "rk-window-private.h"

G_DEFINE_FINAL_TYPE (RkWindow, rk_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_SETTINGS,
  PROP_MODEL_CLIENT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static guint
transcript_n_items (RkWindow *self)
{
  if (self->conversation == NULL)
    return 0;
  return g_list_model_get_n_items (G_LIST_MODEL (rk_conversation_get_transcript (self->conversation)));
}

/* The status pages give way to the chat as soon as it holds anything: an
 * added file, typed code, a question. */
void
_rk_window_update_chat (RkWindow *self)
{
  gboolean has_entries = transcript_n_items (self) > 0;
  gboolean unreachable = self->connection == RK_CONNECTION_UNREACHABLE;
  const char *page;

  if (has_entries)
    page = "chat";
  else if (unreachable)
    page = "no-model";
  else
    page = "empty";
  /* Pages not shown are hidden for real: a stack's other pages would
   * still read as visible to assistive technologies in GTK 4.8. */
  gtk_widget_set_visible (gtk_stack_get_child_by_name (self->chat_stack, page), TRUE);
  gtk_stack_set_visible_child_name (self->chat_stack, page);
  gtk_widget_set_visible (GTK_WIDGET (self->empty_page), g_str_equal (page, "empty"));
  gtk_widget_set_visible (GTK_WIDGET (self->no_model_page), g_str_equal (page, "no-model"));
  rk_revealer_set_shown (self->server_strip, unreachable && has_entries);
  rk_composer_set_model_ready (self->composer, !unreachable);
}

static void
update_busy (RkWindow *self)
{
  gboolean busy = self->send_cancellable != NULL;

  /* A turn the composer did not start (Retry in the chat) asks the question
   * still kept there after a failure: the composer is free again. */
  if (self->conversation != NULL && self->send_cancellable == NULL &&
      rk_conversation_get_busy (self->conversation))
    {
      g_autofree char *text = rk_composer_dup_text (self->composer);
      const char *last = rk_conversation_get_last_question (self->conversation);

      if (last != NULL && *text != '\0' && g_str_equal (g_strstrip (text), last))
        rk_composer_set_text (self->composer, "");
    }

  if (self->conversation != NULL)
    busy = busy || rk_conversation_get_busy (self->conversation);
  rk_composer_set_busy (self->composer, busy);
  _rk_window_actions_update (self);
}

static void
update_kernel_error (RkWindow *self)
{
  const char *message = self->conversation != NULL ? rk_conversation_get_kernel_error (self->conversation) : NULL;

  if (message != NULL)
    gtk_label_set_label (self->kernel_strip_label, message);
  rk_revealer_set_shown (self->kernel_strip, message != NULL);
}

static void
update_title (RkWindow *self)
{
  const char *title = self->conversation != NULL ? rk_conversation_get_title (self->conversation) : NULL;

  if (title != NULL && *title != '\0')
    {
      g_autofree char *clean = rk_text_sanitize_for_terminal (title, RK_TEXT_SANITIZE_SINGLE_LINE);
      /* Translators: the window title: the conversation's title, then the app's name. */
      g_autofree char *full = g_strdup_printf (_("%s — Reckon"), clean);
      gtk_window_set_title (GTK_WINDOW (self), full);
    }
  else
    gtk_window_set_title (GTK_WINDOW (self), _("Reckon"));
}

/* -- sending -- */

static void
transcript_items_changed_cb (RkWindow   *self,
                             guint       position,
                             guint       removed,
                             guint       added,
                             GListModel *model)
{
  /* The question (or code) entered the transcript: sending has started, so
   * the composer is free for the next one. */
  if (added > 0 && self->pending_text != NULL)
    {
      g_autofree char *text = rk_composer_dup_text (self->composer);

      if (g_strcmp0 (text, self->pending_text) == 0)
        rk_composer_set_text (self->composer, "");
      g_clear_pointer (&self->pending_text, g_free);
    }
  _rk_window_update_chat (self);
  _rk_window_files_added (self, model, position, added);
}

typedef struct
{
  RkWindow *window;
  char     *text;
  gboolean  code;
} SendData;

static void
send_data_free (SendData *data)
{
  g_clear_object (&data->window);
  g_free (data->text);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SendData, send_data_free)

static void
send_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(SendData) data = user_data;
  RkWindow *self = data->window;
  RkConversation *conversation = RK_CONVERSATION (object);
  g_autoptr(GError) error = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *text = NULL;
  gboolean started;

  if (data->code)
    answer = rk_conversation_run_code_finish (conversation, result, &error);
  else
    answer = rk_conversation_ask_finish (conversation, result, &error);

  /* Still pending: it never reached the transcript, so nothing there says why. */
  started = self->pending_text == NULL;
  g_clear_object (&self->send_cancellable);
  g_clear_pointer (&self->pending_text, g_free);

  /* A turn the user stopped (Stop) once it was in the transcript needs no
   * second copy; a failed one, or one stopped before it got there, is put
   * back so nothing typed is lost. */
  if (error != NULL && !(started && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)))
    {
      /* The question is kept: put it back unless something new was typed. */
      text = rk_composer_dup_text (self->composer);
      if (*text == '\0')
        {
          rk_composer_set_code_mode (self->composer, data->code);
          rk_composer_set_text (self->composer, data->text);
        }
      if (!started && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        rk_window_toast (self, error->message);
    }
  update_busy (self);
}

static void
composer_send_cb (RkWindow   *self,
                  const char *text,
                  gboolean    code,
                  RkComposer *composer)
{
  SendData *data;

  if (self->send_cancellable != NULL)
    return;
  if (self->conversation == NULL)
    _rk_window_new_conversation (self);
  if (self->conversation == NULL)
    return;

  data = g_new0 (SendData, 1);
  data->window = g_object_ref (self);
  data->text = g_strdup (text);
  data->code = code;
  g_free (self->pending_text);
  self->pending_text = g_strdup (text);
  self->send_cancellable = g_cancellable_new ();

  if (code)
    rk_conversation_run_code_async (self->conversation, text, RK_CODE_TYPED, self->send_cancellable, send_done_cb, data);
  else
    rk_conversation_ask_async (self->conversation, text, self->send_cancellable, send_done_cb, data);
  update_busy (self);
}

/* -- the conversation -- */

/* Shows @conversation, ready for a question. */
static void
set_conversation (RkWindow       *self,
                  RkConversation *conversation)
{
  RkSession *session = NULL;
  RkTranscript *transcript = NULL;

  if (self->conversation == conversation)
    return;

  g_cancellable_cancel (self->send_cancellable);
  g_clear_pointer (&self->pending_text, g_free);
  /* The one left behind saves itself and stops its background work. */
  if (self->conversation != NULL)
    {
      rk_conversation_set_settings (self->conversation, NULL);
      rk_conversation_close (self->conversation);
    }
  g_set_object (&self->conversation, conversation);

  if (conversation != NULL)
    {
      session = rk_conversation_get_session (conversation);
      transcript = rk_conversation_get_transcript (conversation);
    }
  g_signal_group_set_target (self->conversation_signals, conversation);
  g_signal_group_set_target (self->transcript_signals, transcript);
  g_signal_group_set_target (self->session_signals, session);

  rk_chat_view_set_conversation (self->chat_view, conversation);
  rk_sidebar_set_conversation (self->sidebar, conversation);
  rk_expiry_banner_set_session (self->expiry_banner, session);
  if (conversation != NULL)
    rk_conversation_set_settings (conversation, self->settings);

  if (conversation != NULL)
    g_settings_set_string (self->settings, "last-conversation", rk_conversation_get_id (conversation));

  update_title (self);
  update_kernel_error (self);
  update_busy (self);
  _rk_window_update_chat (self);
  rk_composer_focus (self->composer);
}

void
_rk_window_new_conversation (RkWindow *self)
{
  g_autoptr(RkConversation) conversation = NULL;
  g_autoptr(GError) error = NULL;

  conversation = self->store != NULL ? rk_conversation_store_create (self->store, self->client, &error)
                                     : rk_conversation_new (self->client, &error);
  if (conversation == NULL)
    {
      rk_window_toast (self, error->message);
      return;
    }
  set_conversation (self, conversation);
}

static void
open_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(RkWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(RkConversation) conversation = NULL;
  gboolean at_start;

  conversation = rk_conversation_store_open_finish (RK_CONVERSATION_STORE (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->open_cancellable);
  at_start = self->opening_last;
  self->opening_last = FALSE;

  if (at_start && self->conversation != NULL)
    {
      /* The user started something while it loaded: keep that. */
      if (conversation != NULL)
        rk_conversation_close (conversation);
      return;
    }
  if (conversation == NULL)
    {
      if (at_start)
        {
          g_debug ("Last conversation not restored: %s", error->message);
          _rk_window_new_conversation (self);
        }
      else
        rk_window_toast (self, error->message);
      return;
    }
  set_conversation (self, conversation);
}

/* Reads a saved conversation in a thread, then shows it. */
static void
open_conversation (RkWindow   *self,
                   const char *id,
                   gboolean    at_start)
{
  g_cancellable_cancel (self->open_cancellable);
  g_clear_object (&self->open_cancellable);
  self->open_cancellable = g_cancellable_new ();
  self->opening_last = at_start;
  rk_conversation_store_open_async (self->store, id, self->client, self->open_cancellable,
                                    open_done_cb, g_object_ref (self));
}

static void
select_conversation (RkWindow   *self,
                     const char *id)
{
  if (self->conversation != NULL && g_strcmp0 (rk_conversation_get_id (self->conversation), id) == 0)
    {
      rk_composer_focus (self->composer);
      return;
    }
  if (self->store != NULL)
    open_conversation (self, id, FALSE);
}

static void
delete_response_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    RkWindow         *self)
{
  const char *id = g_object_get_data (G_OBJECT (dialog), "rk-conversation-id");
  g_autoptr(GError) error = NULL;

  if (!g_str_equal (response, "delete") || id == NULL || self->store == NULL)
    return;
  /* The open one is closed (and replaced by a new one) before its files go. */
  if (self->conversation != NULL && g_strcmp0 (rk_conversation_get_id (self->conversation), id) == 0)
    {
      g_autoptr(RkConversation) old = g_object_ref (self->conversation);

      _rk_window_new_conversation (self);
      if (self->conversation == old)
        return;
      rk_conversation_close (old);
    }
  if (!rk_conversation_store_delete (self->store, id, &error))
    rk_window_toast (self, error->message);
}

/* Deleting asks first: the transcript, files and results go for good. */
static void
ask_delete (RkWindow   *self,
            const char *id)
{
  RkConversationInfo *info = self->store != NULL ? rk_conversation_store_lookup (self->store, id) : NULL;
  const char *title = info != NULL ? rk_conversation_info_get_title (info) : NULL;
  g_autofree char *clean = NULL;
  g_autofree char *heading = NULL;
  g_autoptr(GtkBuilder) builder = NULL;
  AdwMessageDialog *dialog;

  if (info == NULL)
    return;
  clean = rk_text_sanitize_for_terminal (title != NULL && *title != '\0' ? title : _("New conversation"),
                                         RK_TEXT_SANITIZE_SINGLE_LINE);
  /* Translators: %s is a conversation's title. */
  heading = g_strdup_printf (_("Delete “%s”?"), clean);
  builder = gtk_builder_new_from_resource ("/io/github/reckon/Reckon/rk-delete-dialog.ui");
  dialog = ADW_MESSAGE_DIALOG (gtk_builder_get_object (builder, "dialog"));
  adw_message_dialog_set_heading (dialog, heading);
  gtk_window_set_transient_for (GTK_WINDOW (dialog), GTK_WINDOW (self));
  g_object_set_data_full (G_OBJECT (dialog), "rk-conversation-id", g_strdup (id), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (delete_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* What the sidebar asks of a saved conversation: open it, or delete it;
 * of a result picked in its shelf: show the transcript entry that made it. */
static void
sidebar_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  RkWindow *self = RK_WINDOW (widget);

  if (g_str_equal (action_name, "win.conversation-delete"))
    {
      ask_delete (self, g_variant_get_string (param, NULL));
      return;
    }
  if (adw_flap_get_folded (self->flap))
    adw_flap_set_reveal_flap (self->flap, FALSE);
  if (g_str_equal (action_name, "win.show-entry"))
    rk_chat_view_scroll_to_entry (self->chat_view, g_variant_get_uint32 (param));
  else
    select_conversation (self, g_variant_get_string (param, NULL));
}

/* -- window -- */

static gboolean
rk_window_close_request (GtkWindow *window)
{
  RkWindow *self = RK_WINDOW (window);

  if (!adw_flap_get_folded (self->flap))
    g_settings_set_boolean (self->settings, "show-sidebar", adw_flap_get_reveal_flap (self->flap));

  if (self->conversation != NULL)
    rk_conversation_close (self->conversation);
  g_cancellable_cancel (self->cancellable);
  return GTK_WINDOW_CLASS (rk_window_parent_class)->close_request (window);
}

static void
rk_window_constructed (GObject *object)
{
  RkWindow *self = RK_WINDOW (object);
  g_autoptr(GError) error = NULL;
  g_autofree char *last = NULL;

  G_OBJECT_CLASS (rk_window_parent_class)->constructed (object);

  /* GTK keeps the size the window has when not maximized in its default size. */
  g_settings_bind (self->settings, "window-width", self, "default-width", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-height", self, "default-height", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-maximized", self, "maximized", G_SETTINGS_BIND_DEFAULT);
  adw_flap_set_reveal_flap (self->flap, g_settings_get_boolean (self->settings, "show-sidebar"));

  self->store = rk_conversation_store_new (NULL, NULL, &error);
  if (self->store == NULL)
    {
      g_warning ("Conversations cannot be saved: %s", error->message);
      g_clear_error (&error);
    }
  rk_sidebar_set_store (self->sidebar, self->store);

  _rk_window_model_init (self);

  /* Reopen what was open last (after a crash too); else start a new one. */
  /* The key may be stale after a crash (settings are written
   * asynchronously): then the most recently updated one, first in the store. */
  last = g_settings_get_string (self->settings, "last-conversation");
  if (self->store != NULL && (*last == '\0' || rk_conversation_store_lookup (self->store, last) == NULL) &&
      g_list_model_get_n_items (G_LIST_MODEL (self->store)) > 0)
    {
      g_autoptr(RkConversationInfo) newest = g_list_model_get_item (G_LIST_MODEL (self->store), 0);

      g_free (last);
      last = g_strdup (rk_conversation_info_get_id (newest));
    }
  if (self->store != NULL && *last != '\0' && rk_conversation_store_lookup (self->store, last) != NULL)
    open_conversation (self, last, TRUE);
  else
    _rk_window_new_conversation (self);
}

static void
rk_window_dispose (GObject *object)
{
  RkWindow *self = RK_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->send_cancellable);
  g_cancellable_cancel (self->open_cancellable);
  _rk_window_model_dispose (self);

  g_signal_group_set_target (self->conversation_signals, NULL);
  g_signal_group_set_target (self->transcript_signals, NULL);
  g_signal_group_set_target (self->session_signals, NULL);

  gtk_widget_dispose_template (GTK_WIDGET (self), RK_TYPE_WINDOW);

  g_clear_object (&self->conversation_signals);
  g_clear_object (&self->transcript_signals);
  g_clear_object (&self->session_signals);
  g_clear_object (&self->conversation);
  g_clear_object (&self->store);
  g_clear_object (&self->client);
  g_clear_object (&self->settings);
  g_clear_object (&self->send_cancellable);
  g_clear_object (&self->open_cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->pending_text, g_free);

  G_OBJECT_CLASS (rk_window_parent_class)->dispose (object);
}

static void
rk_window_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  RkWindow *self = RK_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;
    case PROP_MODEL_CLIENT:
      self->client = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_window_class_init (RkWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = rk_window_constructed;
  object_class->dispose = rk_window_dispose;
  object_class->set_property = rk_window_set_property;
  window_class->close_request = rk_window_close_request;

  /* The app's, shared by all its windows: given, so that the window needs
   * no knowledge of RkApplication. */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODEL_CLIENT] =
    g_param_spec_object ("model-client", NULL, NULL, RK_TYPE_MODEL_CLIENT,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (RK_TYPE_CHAT_VIEW);
  g_type_ensure (RK_TYPE_COMPOSER);
  g_type_ensure (RK_TYPE_EXPIRY_BANNER);
  g_type_ensure (RK_TYPE_SIDEBAR);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-window.ui");
  gtk_widget_class_bind_template_child (widget_class, RkWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, flap);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, connection_button);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, model_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, model_list);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, primary_menu_button);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, expiry_banner);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, server_strip);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, server_help_button);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, kernel_strip);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, kernel_strip_label);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, chat_stack);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, chat_view);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, empty_page);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, no_model_page);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, composer);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, drop_revealer);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, recent_menu);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, data_filter);
  gtk_widget_class_bind_template_child (widget_class, RkWindow, all_filter);
  gtk_widget_class_bind_template_callback (widget_class, composer_send_cb);
  gtk_widget_class_install_action (widget_class, "win.conversation-open", "s", sidebar_action);
  gtk_widget_class_install_action (widget_class, "win.conversation-delete", "s", sidebar_action);
  gtk_widget_class_install_action (widget_class, "win.show-entry", "u", sidebar_action);

  _rk_window_class_actions_init (klass);
  _rk_window_class_recent_init (klass);
  _rk_window_class_files_init (klass);
}

static void
rk_window_init (RkWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->connection = RK_CONNECTION_CHECKING;

  self->conversation_signals = g_signal_group_new (RK_TYPE_CONVERSATION);
  g_signal_group_connect_swapped (self->conversation_signals, "notify::busy", G_CALLBACK (update_busy), self);
  g_signal_group_connect_swapped (self->conversation_signals, "notify::title", G_CALLBACK (update_title), self);
  g_signal_group_connect_swapped (self->conversation_signals, "notify::kernel-error",
                                  G_CALLBACK (update_kernel_error), self);
  g_signal_group_connect_swapped (self->conversation_signals, "notify::expired",
                                  G_CALLBACK (_rk_window_actions_update), self);
  self->transcript_signals = g_signal_group_new (RK_TYPE_TRANSCRIPT);
  g_signal_group_connect_swapped (self->transcript_signals, "items-changed",
                                  G_CALLBACK (transcript_items_changed_cb), self);
  self->session_signals = g_signal_group_new (RK_TYPE_SESSION);
  g_signal_group_connect_swapped (self->session_signals, "notify::state",
                                  G_CALLBACK (_rk_window_actions_update), self);
  g_signal_group_connect_swapped (self->session_signals, "artifact-added",
                                  G_CALLBACK (_rk_window_actions_update), self);

  /* The template names the controls whose icon alone says what they do;
   * not these, which GTK makes: the menu's popover, and the drop-down's own
   * toggle button (which is what takes the focus) and popover, named after
   * its tooltip. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (gtk_menu_button_get_popover (self->primary_menu_button)),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Main Menu"), -1);
  rk_menu_button_quiet_tooltip (self->primary_menu_button);
  rk_menu_button_quiet_tooltip (self->server_help_button);
  rk_a11y_name_tree (GTK_WIDGET (self->model_dropdown));

  _rk_window_dnd_init (self);
  _rk_window_recent_init (self);
}

RkWindow *
rk_window_new (GtkApplication *application,
               GSettings      *settings,
               RkModelClient  *client)
{
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  g_return_val_if_fail (RK_IS_MODEL_CLIENT (client), NULL);

  return g_object_new (RK_TYPE_WINDOW,
                       "application", application,
                       "settings", settings,
                       "model-client", client,
                       NULL);
}

void
rk_window_add_files (RkWindow  *self,
                     GFile    **files,
                     guint      n_files)
{
  g_return_if_fail (RK_IS_WINDOW (self));

  if (n_files == 0)
    return;
  _rk_window_recent_note (self, files, n_files);
  if (self->conversation == NULL)
    _rk_window_new_conversation (self);
  if (self->conversation == NULL)
    return;
  rk_conversation_add_files (self->conversation, files, n_files);
}

void
rk_window_toast (RkWindow   *self,
                 const char *message)
{
  g_return_if_fail (RK_IS_WINDOW (self));
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

void
_rk_window_append_debug_info (RkWindow *self,
                              GString  *out)
{
  RkKernel *kernel;
  RkKernelEvent *ready;

  if (self->conversation == NULL)
    return;
  kernel = rk_session_get_kernel (rk_conversation_get_session (self->conversation));
  g_string_append_printf (out, "Workspace: %s\n",
                          rk_workspace_get_path (rk_session_get_workspace (rk_conversation_get_session (self->conversation))));
  ready = kernel != NULL ? rk_kernel_get_ready_event (kernel) : NULL;
  if (ready != NULL)
    g_string_append_printf (out, "Running kernel: Python %s, pandas %s, matplotlib %s\n",
                            ready->python ? ready->python : "?",
                            ready->pandas ? ready->pandas : "?",
                            ready->matplotlib ? ready->matplotlib : "?");
  else
    g_string_append (out, "Running kernel: none yet\n");
}
