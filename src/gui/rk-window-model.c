/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-window-model.c — the header bar's model picker and connection state:
 * the server's model list is fetched asynchronously, on demand and again
 * every little while, so the window never waits for a model server. */
#define G_LOG_DOMAIN "rk-window-model"
#include "config.h"

#include <glib/gi18n.h>

#include "rk-a11y.h"
#include "rk-window-private.h"

/* Seconds before checking again: often while nothing answers (the user is
 * probably starting a server), rarely once one does. */
#define RECHECK_UNREACHABLE 10
#define RECHECK_REACHABLE   60

static void schedule_recheck (RkWindow *self);

static void
update_indicator (RkWindow *self)
{
  GtkWidget *button = GTK_WIDGET (self->connection_button);
  const char *endpoint = rk_model_client_get_resolved_endpoint (self->client);
  g_autofree char *tooltip = NULL;
  const char *icon;
  const char *name;

  rk_widget_set_css_class (button, "reachable", self->connection == RK_CONNECTION_REACHABLE);
  rk_widget_set_css_class (button, "unreachable", self->connection == RK_CONNECTION_UNREACHABLE);
  switch (self->connection)
    {
    case RK_CONNECTION_REACHABLE:
      icon = "network-transmit-receive-symbolic";
      name = _("Model server connected");
      tooltip = g_strdup_printf (_("Model server at %s answers. Click to check again."),
                                 endpoint != NULL ? endpoint : "?");
      break;
    case RK_CONNECTION_UNREACHABLE:
      icon = "network-offline-symbolic";
      name = _("No model server");
      tooltip = g_strdup_printf (_("%s Click to check again."),
                                 self->connection_error ? self->connection_error : _("No model server answers."));
      break;
    case RK_CONNECTION_CHECKING:
    default:
      icon = "content-loading-symbolic";
      name = _("Checking the model server");
      tooltip = g_strdup (_("Looking for a model server…"));
      break;
    }
  gtk_button_set_icon_name (GTK_BUTTON (button), icon);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, tooltip,
                                  -1);
  gtk_widget_set_sensitive (GTK_WIDGET (self->model_dropdown), self->connection == RK_CONNECTION_REACHABLE);
}

/* Fills the picker without writing the settings back. */
static void
fill_models (RkWindow  *self,
             GPtrArray *models)
{
  g_autofree char *wanted = g_settings_get_string (self->settings, "model");
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->model_list));
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  guint selected = 0;

  for (guint i = 0; models != NULL && i < models->len; i++)
    {
      RkModelInfo *info = g_ptr_array_index (models, i);

      if (g_strcmp0 (info->name, wanted) == 0)
        selected = names->len;
      g_ptr_array_add (names, info->name);
    }
  /* A model set in Preferences that the server lacks stays visible, so the
   * picker never claims another model is in use. */
  if (*wanted != '\0' && (names->len == 0 || g_strcmp0 (g_ptr_array_index (names, selected), wanted) != 0))
    {
      selected = names->len;
      g_ptr_array_add (names, wanted);
    }
  if (names->len == 0)
    g_ptr_array_add (names, (gpointer) _("No Model"));
  g_ptr_array_add (names, NULL);

  self->filling_models = TRUE;
  gtk_string_list_splice (self->model_list, 0, n_old, (const char * const *) names->pdata);
  gtk_drop_down_set_selected (self->model_dropdown, selected);
  self->filling_models = FALSE;
}

static void
server_version_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(RkWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *version = rk_model_client_get_server_version_finish (RK_MODEL_CLIENT (object),
                                                                        result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_CANCELLED))
    return;
  g_clear_object (&self->version_cancellable);
  g_free (self->server_version);
  self->server_version = g_steal_pointer (&version);
}

/* For the About window's troubleshooting details: asked once a server
 * answers, again after it went away. */
static void
ask_server_version (RkWindow *self)
{
  if (self->server_version != NULL || self->version_cancellable != NULL)
    return;
  self->version_cancellable = g_cancellable_new ();
  rk_model_client_get_server_version_async (self->client, self->version_cancellable,
                                            server_version_cb, g_object_ref (self));
}

static void
forget_server_version (RkWindow *self)
{
  g_cancellable_cancel (self->version_cancellable);
  g_clear_object (&self->version_cancellable);
  g_clear_pointer (&self->server_version, g_free);
}

static void
list_models_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(RkWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) models = NULL;

  models = rk_model_client_list_models_finish (RK_MODEL_CLIENT (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_error_matches (error, RK_MODEL_ERROR, RK_MODEL_ERROR_CANCELLED))
    return;

  g_clear_object (&self->check_cancellable);
  g_clear_pointer (&self->connection_error, g_free);
  if (models != NULL)
    {
      self->connection = RK_CONNECTION_REACHABLE;
      fill_models (self, models);
      ask_server_version (self);
    }
  else
    {
      forget_server_version (self);
      self->connection = RK_CONNECTION_UNREACHABLE;
      self->connection_error = g_strdup (error->message);
      fill_models (self, NULL);
    }
  update_indicator (self);
  _rk_window_update_chat (self);
  schedule_recheck (self);
}

/* Neither a check under way nor one to come. */
static void
stop_checking (RkWindow *self)
{
  g_clear_handle_id (&self->recheck_source, g_source_remove);
  g_cancellable_cancel (self->check_cancellable);
  g_clear_object (&self->check_cancellable);
}

void
_rk_window_check_connection (RkWindow *self)
{
  stop_checking (self);
  self->check_cancellable = g_cancellable_new ();

  /* Only a first check (or one after a settings change) shows "checking";
   * a periodic one keeps the last answer until a new one comes. */
  if (self->connection != RK_CONNECTION_REACHABLE)
    {
      self->connection = RK_CONNECTION_CHECKING;
      update_indicator (self);
    }
  rk_model_client_list_models_async (self->client, FALSE, self->check_cancellable,
                                     list_models_cb, g_object_ref (self));
}

static gboolean
recheck_cb (gpointer user_data)
{
  RkWindow *self = user_data;

  self->recheck_source = 0;
  _rk_window_check_connection (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_recheck (RkWindow *self)
{
  guint seconds = self->connection == RK_CONNECTION_REACHABLE ? RECHECK_REACHABLE : RECHECK_UNREACHABLE;

  g_clear_handle_id (&self->recheck_source, g_source_remove);
  self->recheck_source = g_timeout_add_seconds (seconds, recheck_cb, self);
}

static void
model_selected_cb (RkWindow    *self,
                   GParamSpec  *pspec,
                   GtkDropDown *dropdown)
{
  GtkStringObject *item;

  if (self->filling_models || self->connection != RK_CONNECTION_REACHABLE)
    return;
  item = gtk_drop_down_get_selected_item (dropdown);
  if (item != NULL)
    g_settings_set_string (self->settings, "model", gtk_string_object_get_string (item));
}

static void
settings_changed_cb (RkWindow   *self,
                     const char *key,
                     GSettings  *settings)
{
  if (g_str_equal (key, "endpoint") || g_str_equal (key, "api-kind") || g_str_equal (key, "allow-remote"))
    {
      self->connection = RK_CONNECTION_CHECKING;
      _rk_window_check_connection (self);
    }
}

void
_rk_window_model_init (RkWindow *self)
{
  g_signal_connect_object (self->model_dropdown, "notify::selected",
                           G_CALLBACK (model_selected_cb), self, G_CONNECT_SWAPPED);
  /* After the application's own handler has applied them to the client. */
  g_signal_connect_object (self->settings, "changed", G_CALLBACK (settings_changed_cb),
                           self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  update_indicator (self);
  _rk_window_check_connection (self);
}

void
_rk_window_model_dispose (RkWindow *self)
{
  stop_checking (self);
  g_clear_pointer (&self->connection_error, g_free);
  forget_server_version (self);
}

void
_rk_window_append_server_info (RkWindow *self,
                               GString  *out)
{
  const char *state = self->connection == RK_CONNECTION_REACHABLE ? "answers" :
                      self->connection == RK_CONNECTION_UNREACHABLE ? "does not answer" : "being checked";

  g_string_append_printf (out, "Model server state: %s\n", state);
  if (self->connection_error != NULL)
    g_string_append_printf (out, "Model server error: %s\n", self->connection_error);
  g_string_append_printf (out, "Model server version: %s\n",
                          self->server_version != NULL ? self->server_version : "not reported");
}
