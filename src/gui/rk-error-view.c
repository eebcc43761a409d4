/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-error-view.c — errors and notes in the transcript. A limit the sandbox
 * enforced is explained with what to do next, since "SandboxLimit" means
 * nothing to an analyst; a limit the user sets comes with one button that
 * raises it and runs the cell again. */
#define G_LOG_DOMAIN "rk-error-view"
#include "config.h"

#include <glib/gi18n-lib.h>
#include <gio/gio.h>

#include "rk-kernel-protocol.h"
#include "rk-text.h"
#include "rk-a11y.h"
#include "rk-error-view.h"
#include "rk-limits.h"

struct _RkErrorView
{
  GtkWidget    parent_instance;

  GtkWidget   *box;
  GtkImage    *icon;
  GtkLabel    *message;
  GtkLabel    *hint;
  GtkButton   *retry_button;
  GtkButton   *raise_button;
  GtkExpander *expander;
  GtkLabel    *traceback;

  RkSandboxLimit limit;
  /* What the raise button sets, and the cell it runs again. */
  guint        raise_to;
  char        *cell_id;
};

G_DEFINE_FINAL_TYPE (RkErrorView, rk_error_view, GTK_TYPE_WIDGET)


/* The app's settings (its "settings" property, which finds the schema in
 * the build tree too), else the schema where GLib looks if it has the keys
 * used here (an older one installed may not), else none. */
static GSettings *
settings_if_installed (void)
{
  GApplication *app = g_application_get_default ();
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  static const char *keys[] = { "memory-limit", "disk-limit", "cell-time-limit", "approval-policy" };

  if (app != NULL && g_object_class_find_property (G_OBJECT_GET_CLASS (app), "settings") != NULL)
    {
      GSettings *settings = NULL;

      g_object_get (app, "settings", &settings, NULL);
      if (G_IS_SETTINGS (settings))
        return settings;
      g_clear_object (&settings);
    }
  if (source == NULL)
    return NULL;
  schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  for (guint i = 0; schema != NULL && i < G_N_ELEMENTS (keys); i++)
    if (!g_settings_schema_has_key (schema, keys[i]))
      return NULL;
  return schema != NULL ? g_settings_new_full (schema, NULL, NULL) : NULL;
}

/* The one-click fix of a limit the user sets: twice the value in force,
 * within the key's range and the computer's RAM. FALSE when there is none
 * (another limit, no cell, running code turned off, already at the most). */
static gboolean
offer_raise (RkErrorView *self,
             gint64       recorded,
             GSettings   *settings)
{
  const char *key = rk_sandbox_limit_settings_key (self->limit);
  g_autofree char *label = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettingsSchemaKey) schema_key = NULL;
  guint64 current, raised;

  if (settings == NULL || self->cell_id == NULL || key == NULL)
    return FALSE;
  if (g_settings_get_enum (settings, "approval-policy") == 2)
    return FALSE;   /* "never": code is only shown */
  current = g_settings_get_uint (settings, key);
  /* Raised since (this button, or Preferences): nothing left to offer. */
  if (recorded > 0 && rk_sandbox_limit_setting_value (self->limit, current) > (guint64) recorded)
    return FALSE;
  if (!rk_sandbox_limit_propose_raise (self->limit, current, &raised, &label))
    return FALSE;
  g_object_get (settings, "settings-schema", &schema, NULL);
  schema_key = g_settings_schema_get_key (schema, key);
  if (!g_settings_schema_key_range_check (schema_key, g_variant_new_uint32 ((guint32) raised)))
    return FALSE;
  self->raise_to = (guint) raised;
  gtk_button_set_label (self->raise_button, label);
  rk_a11y_name_button (GTK_WIDGET (self->raise_button), label);
  return TRUE;
}

/* The value of the limit: the one recorded when it was hit (bytes or
 * seconds), else the setting now; 0 when neither is known. */
static guint64
limit_in_force (RkSandboxLimit  limit,
                GSettings      *settings,
                gint64          recorded)
{
  const char *key = rk_sandbox_limit_settings_key (limit);

  if (recorded > 0)
    return (guint64) recorded;
  if (settings != NULL && key != NULL)
    return rk_sandbox_limit_setting_value (limit, g_settings_get_uint (settings, key));
  return 0;
}

/* A transcript saved before entries had a limit kept its name as the
 * detail: not a traceback to show. */
static gboolean
detail_names_limit (RkErrorView *self,
                    const char  *detail)
{
  return self->limit != RK_SANDBOX_LIMIT_NONE && rk_sandbox_limit_from_name (detail) == self->limit;
}

void
rk_error_view_set_entry (RkErrorView       *self,
                         RkTranscriptEntry *entry)
{
  const char *name, *text, *detail;
  g_autofree char *message = NULL;
  g_autofree char *what = NULL;
  g_autofree char *todo = NULL;
  g_autofree char *clean = NULL;
  g_autofree char *folded = NULL;
  g_autoptr(GSettings) settings = NULL;
  gboolean is_note, retry = FALSE, status = FALSE, raise = FALSE;

  g_return_if_fail (RK_IS_ERROR_VIEW (self));
  g_return_if_fail (RK_IS_TRANSCRIPT_ENTRY (entry));

  is_note = rk_transcript_entry_get_kind (entry) == RK_ENTRY_NOTE;
  name = rk_transcript_entry_get_name (entry);
  text = rk_transcript_entry_get_text (entry);
  detail = rk_transcript_entry_get_detail (entry);
  if (text == NULL || *text == '\0')
    text = _("Something went wrong.");
  g_free (self->cell_id);
  self->cell_id = g_strdup (rk_transcript_entry_get_cell_id (entry));

  /* A kernel that died at a limit leaves two errors: this bare one, then
   * "SandboxLimit", which explains the limit and offers the fix once. */
  self->limit = is_note || g_strcmp0 (name, "KernelDied") == 0
                ? RK_SANDBOX_LIMIT_NONE : rk_transcript_entry_get_limit (entry);
  if (self->limit != RK_SANDBOX_LIMIT_NONE)
    settings = settings_if_installed ();
  if (is_note)
    {
      gboolean restart = g_strcmp0 (name, "restart-error") == 0;

      retry = restart || g_strcmp0 (name, "error") == 0;
      status = !retry;
      /* Retry does what failed: a restart restarts again (issue 17: it
       * said it would ask the last question again). */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->retry_button),
                                   restart ? _("Restart the session again, replaying the code that succeeded")
                                           : _("Ask the last question again"));
      message = g_strdup (text);
    }
  else if (self->limit != RK_SANDBOX_LIMIT_NONE)
    {
      gint64 recorded = rk_transcript_entry_get_limit_value (entry);

      raise = offer_raise (self, recorded, settings);
      rk_sandbox_limit_explain (self->limit, limit_in_force (self->limit, settings, recorded), raise, &what, &todo);
      message = g_strdup (what ? what : text);
    }
  else if (name != NULL && *name != '\0' && !g_str_has_prefix (text, name) && !rk_kernel_error_is_plain (name))
    /* TRANSLATORS: a Python error, e.g. "KeyError: 'price'" */
    message = g_strdup_printf (_("%s: %s"), name, text);
  else if (rk_kernel_error_is_plain (name))
    message = g_strdup (rk_kernel_error_plain_sentence (name));
  else
    message = g_strdup (text);

  /* The message and traceback come from the sandbox or a server. */
  clean = rk_text_sanitize_for_terminal (message, RK_TEXT_SANITIZE_DEFAULT);
  gtk_label_set_text (self->message, clean);
  gtk_label_set_text (self->hint, todo ? todo : "");
  gtk_widget_set_visible (GTK_WIDGET (self->hint), todo != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->retry_button), retry);
  gtk_widget_set_sensitive (GTK_WIDGET (self->retry_button), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->raise_button), raise);
  gtk_widget_set_sensitive (GTK_WIDGET (self->raise_button), TRUE);

  /* The traceback (or the sandbox's own words) folded away. */
  if (!is_note && detail != NULL && *detail != '\0' && !detail_names_limit (self, detail))
    folded = rk_text_sanitize_for_terminal (detail, RK_TEXT_SANITIZE_DEFAULT);
  else if (self->limit != RK_SANDBOX_LIMIT_NONE && what != NULL && g_strcmp0 (text, what) != 0)
    folded = rk_text_sanitize_for_terminal (text, RK_TEXT_SANITIZE_DEFAULT);
  gtk_label_set_text (self->traceback, folded != NULL ? folded : "");
  gtk_widget_set_visible (GTK_WIDGET (self->expander), *gtk_label_get_text (self->traceback) != '\0');
  gtk_expander_set_label (self->expander, detail && *detail && !detail_names_limit (self, detail)
                                          ? _("Traceback") : _("Details"));
  gtk_expander_set_expanded (self->expander, FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->expander), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_expander_get_label (self->expander), -1);

  gtk_image_set_from_icon_name (self->icon, status ? "dialog-information-symbolic" : "dialog-error-symbolic");
  rk_widget_set_css_class (GTK_WIDGET (self), "rk-status-line", status);
  rk_widget_set_css_class (GTK_WIDGET (self), "rk-error", !status);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  status ? _("Status") : _("Error"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, clean, -1);
}

const char *
rk_error_view_get_message (RkErrorView *self)
{
  g_return_val_if_fail (RK_IS_ERROR_VIEW (self), NULL);
  return gtk_label_get_text (self->message);
}

RkSandboxLimit
rk_error_view_get_limit (RkErrorView *self)
{
  g_return_val_if_fail (RK_IS_ERROR_VIEW (self), RK_SANDBOX_LIMIT_NONE);
  return self->limit;
}

static void
retry_clicked_cb (RkErrorView *self)
{
  /* One retry a failure: the new attempt brings its own answer or note. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->retry_button), FALSE);
  gtk_widget_activate_action (GTK_WIDGET (self), "chat.retry", NULL);
}

const char *
rk_error_view_get_raise_label (RkErrorView *self)
{
  g_return_val_if_fail (RK_IS_ERROR_VIEW (self), NULL);
  if (!gtk_widget_get_visible (GTK_WIDGET (self->raise_button)))
    return NULL;
  return gtk_button_get_label (self->raise_button);
}

static void
raise_clicked_cb (RkErrorView *self)
{
  g_autoptr(GSettings) settings = settings_if_installed ();

  if (settings == NULL || self->cell_id == NULL)
    return;
  /* One raise a failure: the new run brings its own outcome. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->raise_button), FALSE);
  g_settings_set_uint (settings, rk_sandbox_limit_settings_key (self->limit), self->raise_to);
  gtk_widget_activate_action (GTK_WIDGET (self), "chat.run-again", "(sb)", self->cell_id,
                              self->limit != RK_SANDBOX_LIMIT_TIME);
}

static void
rk_error_view_dispose (GObject *object)
{
  RkErrorView *self = RK_ERROR_VIEW (object);

  gtk_widget_dispose_template (GTK_WIDGET (object), RK_TYPE_ERROR_VIEW);
  g_clear_pointer (&self->cell_id, g_free);
  G_OBJECT_CLASS (rk_error_view_parent_class)->dispose (object);
}

static void
rk_error_view_class_init (RkErrorViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_error_view_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-error-view.ui");
  gtk_widget_class_bind_template_child (widget_class, RkErrorView, box);
  gtk_widget_class_bind_template_child (widget_class, RkErrorView, icon);
  gtk_widget_class_bind_template_child (widget_class, RkErrorView, message);
  gtk_widget_class_bind_template_child (widget_class, RkErrorView, hint);
  gtk_widget_class_bind_template_child (widget_class, RkErrorView, retry_button);
  gtk_widget_class_bind_template_child (widget_class, RkErrorView, raise_button);
  gtk_widget_class_bind_template_child (widget_class, RkErrorView, expander);
  gtk_widget_class_bind_template_child (widget_class, RkErrorView, traceback);
  gtk_widget_class_bind_template_callback (widget_class, retry_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, raise_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "rk-error-view");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
rk_error_view_init (RkErrorView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  rk_a11y_name_button (GTK_WIDGET (self->retry_button), _("Retry"));
}

GtkWidget *
rk_error_view_new (void)
{
  return g_object_new (RK_TYPE_ERROR_VIEW, NULL);
}
