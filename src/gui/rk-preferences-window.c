/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-preferences-window.c — Preferences: the model server (address, kind,
 * model, API key in the keyring), privacy, and the limits of running code.
 * Every row is bound to a key of io.github.reckon.Reckon. */
#define G_LOG_DOMAIN "rk-preferences-window"
#include "config.h"

#include <glib/gi18n.h>

#include "rk-a11y.h"
#include "rk-model-client.h"
#include "rk-preferences-window.h"
#include "rk-secrets.h"

struct _RkPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  AdwEntryRow          *endpoint_row;
  AdwComboRow          *api_row;
  AdwEntryRow          *model_row;
  AdwPasswordEntryRow  *api_key_row;
  char                 *key_endpoint;   /* the address of the key being saved or removed */
  gboolean              key_cleared;    /* removed, not saved */
  GtkSwitch            *allow_remote_switch;
  AdwActionRow         *remote_warning_row;
  AdwComboRow          *approval_row;
  GtkSpinButton        *memory_spin;
  GtkSpinButton        *disk_spin;
  GtkSpinButton        *time_spin;
  GtkSpinButton        *expiry_spin;
  GtkSpinButton        *samples_spin;

  GSettings            *settings;
  GCancellable         *cancellable;
};

G_DEFINE_FINAL_TYPE (RkPreferencesWindow, rk_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

enum {
  SIGNAL_API_KEY_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char *api_nicks[] = { "auto", "openai", "ollama", NULL };
static const char *policy_nicks[] = { "ask", "auto", "never", NULL };

/* Enum key (its nick) ↔ AdwComboRow:selected. */
static gboolean
nick_to_index (GValue   *value,
               GVariant *variant,
               gpointer  user_data)
{
  const char * const *nicks = user_data;
  const char *nick = g_variant_get_string (variant, NULL);

  for (guint i = 0; nicks[i] != NULL; i++)
    if (g_str_equal (nicks[i], nick))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
index_to_nick (const GValue       *value,
               const GVariantType *type,
               gpointer            user_data)
{
  const char * const *nicks = user_data;
  guint index = g_value_get_uint (value);

  if (index >= g_strv_length ((char **) nicks))
    return NULL;
  return g_variant_new_string (nicks[index]);
}

/* idle-expiry-seconds ↔ the spin button's minutes. */
static gboolean
seconds_to_minutes (GValue   *value,
                    GVariant *variant,
                    gpointer  user_data)
{
  g_value_set_double (value, (g_variant_get_uint32 (variant) + 59) / 60);
  return TRUE;
}

static GVariant *
minutes_to_seconds (const GValue       *value,
                    const GVariantType *type,
                    gpointer            user_data)
{
  return g_variant_new_uint32 ((guint32) (g_value_get_double (value) * 60));
}

/* The drop-down lists of the combo rows: GTK 4.8 leaves their items
 * unnamed, so each item is named after the string it shows. */
static void
combo_item_setup_cb (GtkSignalListItemFactory *factory,
                     GtkListItem              *item)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_list_item_set_child (item, label);
}

static void
combo_item_bind_cb (GtkSignalListItemFactory *factory,
                    GtkListItem              *item)
{
  GtkWidget *label = gtk_list_item_get_child (item);
  GtkWidget *parent = gtk_widget_get_parent (label);
  const char *text = gtk_string_object_get_string (gtk_list_item_get_item (item));

  gtk_label_set_text (GTK_LABEL (label), text);
  if (parent != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (parent), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
}

static void
name_combo_items (AdwComboRow *row)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", G_CALLBACK (combo_item_setup_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (combo_item_bind_cb), NULL);
  adw_combo_row_set_list_factory (row, factory);
}

static void
toast (RkPreferencesWindow *self,
       const char          *message)
{
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), adw_toast_new (message));
}

static void
endpoint_apply_cb (RkPreferencesWindow *self)
{
  g_autofree char *endpoint = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->endpoint_row))));

  if (*endpoint != '\0' && !g_str_has_prefix (endpoint, "http://") && !g_str_has_prefix (endpoint, "https://"))
    {
      toast (self, _("The address must start with http:// or https://."));
      return;
    }
  g_settings_set_string (self->settings, "endpoint", endpoint);
  if (*endpoint != '\0' && !rk_model_endpoint_is_local (endpoint) &&
      !g_settings_get_boolean (self->settings, "allow-remote"))
    toast (self, _("This server is not on this computer: Reckon will not use it unless you allow it below."));
}

static void
model_apply_cb (RkPreferencesWindow *self)
{
  g_autofree char *model = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->model_row))));

  g_settings_set_string (self->settings, "model", model);
}

/* Which addresses have a key in the keyring: the app asks the keyring only
 * for those. */
static void
note_key_endpoint (RkPreferencesWindow *self,
                   const char          *endpoint,
                   gboolean             has_key)
{
  g_auto(GStrv) old = g_settings_get_strv (self->settings, "api-key-endpoints");
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) updated = NULL;

  for (guint i = 0; old[i] != NULL; i++)
    if (!g_str_equal (old[i], endpoint))
      g_strv_builder_add (builder, old[i]);
  if (has_key)
    g_strv_builder_add (builder, endpoint);
  updated = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "api-key-endpoints", (const char * const *) updated);
}

/* The key was stored in or (with an empty row) removed from the keyring. */
static void
api_key_saved_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(RkPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean cleared = self->key_cleared;

  if (!(cleared ? rk_secrets_clear_api_key_finish (result, &error)
                : rk_secrets_store_api_key_finish (result, &error)))
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      message = g_strdup_printf (_("The API key could not be saved in the keyring: %s"), error->message);
      toast (self, message);
      return;
    }
  note_key_endpoint (self, self->key_endpoint, !cleared);
  g_signal_emit (self, signals[SIGNAL_API_KEY_CHANGED], 0);
  toast (self, cleared ? _("API key removed") : _("API key saved in the keyring"));
}

static void
api_key_apply_cb (RkPreferencesWindow *self)
{
  g_autofree char *endpoint = g_settings_get_string (self->settings, "endpoint");
  const char *key = gtk_editable_get_text (GTK_EDITABLE (self->api_key_row));

  if (*endpoint == '\0')
    {
      toast (self, _("Set the server’s address first: the key is kept for that address."));
      return;
    }
  g_free (self->key_endpoint);
  self->key_endpoint = g_strdup (endpoint);
  self->key_cleared = *key == '\0';
  if (self->key_cleared)
    rk_secrets_clear_api_key_async (endpoint, self->cancellable, api_key_saved_cb, g_object_ref (self));
  else
    rk_secrets_store_api_key_async (endpoint, key, self->cancellable, api_key_saved_cb, g_object_ref (self));
}

static void
rk_preferences_window_dispose (GObject *object)
{
  RkPreferencesWindow *self = RK_PREFERENCES_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (object), RK_TYPE_PREFERENCES_WINDOW);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->key_endpoint, g_free);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (rk_preferences_window_parent_class)->dispose (object);
}

static void
rk_preferences_window_class_init (RkPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_preferences_window_dispose;

  /* A key was stored in or removed from the keyring: whoever uses it
   * looks it up again. */
  signals[SIGNAL_API_KEY_CHANGED] =
    g_signal_new ("api-key-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/reckon/Reckon/rk-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, endpoint_row);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, api_row);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, model_row);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, api_key_row);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, allow_remote_switch);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, remote_warning_row);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, approval_row);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, memory_spin);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, disk_spin);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, time_spin);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, expiry_spin);
  gtk_widget_class_bind_template_child (widget_class, RkPreferencesWindow, samples_spin);
  gtk_widget_class_bind_template_callback (widget_class, endpoint_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, model_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, api_key_apply_cb);
}

static void
rk_preferences_window_init (RkPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();

  name_combo_items (self->api_row);
  name_combo_items (self->approval_row);
}

GtkWidget *
rk_preferences_window_new (GSettings *settings)
{
  RkPreferencesWindow *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (RK_TYPE_PREFERENCES_WINDOW, NULL);
  self->settings = g_object_ref (settings);

  /* The address and model are written on Apply (endpoint_apply_cb, model_apply_cb). */
  g_settings_bind (settings, "endpoint", self->endpoint_row, "text", G_SETTINGS_BIND_GET);
  g_settings_bind (settings, "model", self->model_row, "text", G_SETTINGS_BIND_GET);
  rk_secrets_load_api_key (settings, G_OBJECT (self->api_key_row), "text", self->cancellable);
  g_settings_bind_with_mapping (settings, "api-kind", self->api_row, "selected", G_SETTINGS_BIND_DEFAULT,
                                nick_to_index, index_to_nick, (gpointer) api_nicks, NULL);
  g_settings_bind_with_mapping (settings, "approval-policy", self->approval_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, nick_to_index, index_to_nick,
                                (gpointer) policy_nicks, NULL);
  g_settings_bind (settings, "allow-remote", self->allow_remote_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "allow-remote", self->remote_warning_row, "visible", G_SETTINGS_BIND_GET);
  g_settings_bind (settings, "memory-limit", self->memory_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "disk-limit", self->disk_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "cell-time-limit", self->time_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (settings, "idle-expiry-seconds", self->expiry_spin, "value",
                                G_SETTINGS_BIND_DEFAULT, seconds_to_minutes, minutes_to_seconds, NULL, NULL);
  g_settings_bind (settings, "prompt-samples", self->samples_spin, "value", G_SETTINGS_BIND_DEFAULT);

  /* The search entry and button of the window, and the switch, would be
   * read as their class names. */
  rk_a11y_name_tree (GTK_WIDGET (self));

  return GTK_WIDGET (self);
}

void
rk_preferences_window_focus_endpoint (RkPreferencesWindow *self)
{
  g_return_if_fail (RK_IS_PREFERENCES_WINDOW (self));
  gtk_widget_grab_focus (GTK_WIDGET (self->endpoint_row));
}
