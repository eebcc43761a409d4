/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-application.c — the single-instance app: loads the settings (also from
 * the build tree), keeps the model client in step with them, and owns the
 * app-wide actions: preferences, about, quit. */
#define G_LOG_DOMAIN "rk-application"
#include "config.h"

#include <glib/gi18n.h>
#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

#include "rk-a11y.h"
#include "rk-application.h"
#include "rk-model-client.h"
#include "rk-preferences-window.h"
#include "rk-sandbox-launcher.h"
#include "rk-secrets.h"
#include "rk-util.h"
#include "rk-window.h"

struct _RkApplication
{
  AdwApplication  parent_instance;

  GSettings      *settings;
  RkModelClient  *client;
  GCancellable   *cancellable;
};

G_DEFINE_FINAL_TYPE (RkApplication, rk_application, ADW_TYPE_APPLICATION)

enum {
  PROP_0,
  PROP_SETTINGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Whether this program runs from the build tree it was built in (the core
 * decides, the same way it finds the sandbox and the kernel). */
static gboolean
running_uninstalled (void)
{
  return rk_build_root () != NULL;
}

/* The schema comes from the build tree when running uninstalled, else from
 * our own prefix (which need not be on XDG_DATA_DIRS, e.g. /tmp/rk-prefix),
 * else from the default places. */
static GSettings *
load_settings (GError **error)
{
  GSettingsSchemaSource *default_source = g_settings_schema_source_get_default ();
  g_autofree char *build_dir = running_uninstalled () ? g_build_filename (rk_build_root (), "data", NULL) : NULL;
  const char *dir = build_dir != NULL ? build_dir : RK_INSTALLED_SCHEMA_DIR;
  g_autoptr(GSettingsSchemaSource) source = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autofree char *compiled = g_build_filename (dir, "gschemas.compiled", NULL);

  if (g_file_test (compiled, G_FILE_TEST_IS_REGULAR))
    source = g_settings_schema_source_new_from_directory (dir, default_source, FALSE, NULL);
  if (source == NULL && default_source != NULL)
    source = g_settings_schema_source_ref (default_source);
  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The settings schema %s is not installed (looked in %s and the system folders)."),
                   APP_ID, dir);
      return NULL;
    }
  return g_settings_new_full (schema, NULL, NULL);
}

static void
refresh_api_key (RkApplication *self)
{
  rk_model_client_set_api_key (self->client, NULL);
  rk_secrets_load_api_key (self->settings, G_OBJECT (self->client), "api-key", self->cancellable);
}

static RkWindow *
get_window (RkApplication *self,
            gboolean       create)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (RK_IS_WINDOW (window))
    return RK_WINDOW (window);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (RK_IS_WINDOW (l->data))
      return l->data;
  return create ? rk_window_new (GTK_APPLICATION (self), self->settings, self->client) : NULL;
}

/* -- actions -- */

static void
preferences_action (GSimpleAction *action,
                    GVariant      *param,
                    gpointer       user_data)
{
  RkApplication *self = user_data;
  RkWindow *window = get_window (self, TRUE);
  const char *page = param != NULL ? g_variant_get_string (param, NULL) : NULL;
  GtkWidget *prefs = rk_preferences_window_new (self->settings);

  gtk_window_set_transient_for (GTK_WINDOW (prefs), GTK_WINDOW (window));
  g_signal_connect_object (prefs, "api-key-changed", G_CALLBACK (refresh_api_key), self, G_CONNECT_SWAPPED);
  if (page != NULL && g_str_equal (page, "endpoint"))
    rk_preferences_window_focus_endpoint (RK_PREFERENCES_WINDOW (prefs));
  gtk_window_present (GTK_WINDOW (prefs));
}

static char *
dup_debug_info (RkApplication *self)
{
  RkWindow *window = get_window (self, FALSE);
  GString *s = g_string_new (NULL);
  const char *resolved = rk_model_client_get_resolved_endpoint (self->client);
  const char *endpoint = rk_model_client_get_endpoint (self->client);
  const char *model = rk_model_client_get_model (self->client);
  static const char *apis[] = { "auto", "openai", "ollama" };
  RkModelApi api = rk_model_client_get_resolved_api (self->client);
  gboolean flatpak = g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS);

  g_string_append_printf (s, "Reckon %s\n", PACKAGE_VERSION);
  g_string_append_printf (s, "GTK %u.%u.%u (built with %d.%d.%d)\n",
                          gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version (),
                          GTK_MAJOR_VERSION, GTK_MINOR_VERSION, GTK_MICRO_VERSION);
  g_string_append_printf (s, "libadwaita %u.%u.%u (built with %d.%d.%d)\n",
                          adw_get_major_version (), adw_get_minor_version (), adw_get_micro_version (),
                          ADW_MAJOR_VERSION, ADW_MINOR_VERSION, ADW_MICRO_VERSION);
  g_string_append_printf (s, "GLib %u.%u.%u\n", glib_major_version, glib_minor_version, glib_micro_version);
  g_string_append_printf (s, "Running: %s\n",
                          flatpak ? "Flatpak" : running_uninstalled () ? "from the build tree" : "installed");
  g_string_append_printf (s, "Sandbox: %s, backend %s\n", rk_sandbox_path (),
                          rk_sandbox_launcher_get_backend_name ());
  if (rk_sandbox_launcher_get_unavailable_reason () != NULL)
    g_string_append_printf (s, "Sandbox unavailable: %s\n", rk_sandbox_launcher_get_unavailable_reason ());
  g_string_append_printf (s, "Kernel: %s\n", rk_kernel_dir ());
  g_string_append_printf (s, "Python: %s\n", rk_python_path ());
  if (window != NULL)
    _rk_window_append_debug_info (window, s);
  g_string_append_printf (s, "Model server: %s\n",
                          resolved != NULL ? resolved :
                          (endpoint != NULL && *endpoint != '\0') ? endpoint : "not found yet");
  if (api >= RK_MODEL_API_AUTO && api <= RK_MODEL_API_OLLAMA)
    g_string_append_printf (s, "Model API: %s\n", apis[api]);
  g_string_append_printf (s, "Model: %s\n", (model != NULL && *model != '\0') ? model : "the server's first");
  if (window != NULL)
    _rk_window_append_server_info (window, s);
  return g_string_free (s, FALSE);
}

static void
about_action (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/reckon/Reckon/rk-about-window.ui");
  GtkWindow *about = GTK_WINDOW (gtk_builder_get_object (builder, "about"));
  g_autofree char *debug_info = dup_debug_info (user_data);

  gtk_window_set_transient_for (about, GTK_WINDOW (get_window (user_data, TRUE)));
  adw_about_window_set_version (ADW_ABOUT_WINDOW (about), PACKAGE_VERSION);
  adw_about_window_set_debug_info (ADW_ABOUT_WINDOW (about), debug_info);
  /* libadwaita 1.2 leaves some of its buttons named after their class. */
  rk_a11y_name_tree (GTK_WIDGET (about));
  gtk_window_present (about);
}

static void
quit_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  RkApplication *self = user_data;

  /* Closing each window saves its state and conversation first. */
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL;)
    {
      GtkWindow *window = l->data;

      l = l->next;
      gtk_window_close (window);
    }
}

static const GActionEntry app_actions[] = {
  { "preferences", preferences_action, NULL, NULL, NULL },
  { "preferences-page", preferences_action, "s", NULL, NULL },
  { "about", about_action, NULL, NULL, NULL },
  { "quit", quit_action, NULL, NULL, NULL },
};

static const struct
{
  const char *action;
  const char *accels[3];
} app_accels[] = {
  { "app.quit", { "<Control>q", NULL } },
  { "app.preferences", { "<Control>comma", NULL } },
  { "win.show-help-overlay", { "<Control>question", NULL } },
  { "win.new-conversation", { "<Control>n", NULL } },
  { "win.attach", { "<Control>o", NULL } },
  { "win.save-all", { "<Control><Shift>s", NULL } },
  { "win.toggle-sidebar", { "F9", NULL } },
  { "win.focus-composer", { "<Control>l", NULL } },
  { "win.check-connection", { "<Control>r", NULL } },
  { "win.next-pane", { "F6", NULL } },
  { "win.previous-pane", { "<Shift>F6", NULL } },
  { "window.close", { "<Control>w", NULL } },
};

/* -- GApplication -- */

#ifdef HAVE_MALLOC_TRIM
/* Start-up (templates, CSS, icon theme, the saved conversations, the
 * kernel's hello) frees more than it keeps; glibc holds freed heap pages
 * until asked, so ask once the window has settled. */
static gboolean
trim_after_startup_cb (gpointer data)
{
  malloc_trim (0);
  return G_SOURCE_REMOVE;
}
#endif

static gpointer
detect_sandbox_thread (gpointer data)
{
  rk_sandbox_launcher_get_backend ();
  return NULL;
}

static void
rk_application_startup (GApplication *app)
{
  RkApplication *self = RK_APPLICATION (app);
  g_autoptr(GError) error = NULL;

  G_APPLICATION_CLASS (rk_application_parent_class)->startup (app);

  g_set_application_name (_("Reckon"));
#ifdef HAVE_MALLOC_TRIM
  g_timeout_add_seconds_full (G_PRIORITY_LOW, 2, trim_after_startup_cb, NULL, NULL);
#endif
  /* Which sandbox backend works is found out once, by forking a child that
   * tries a user namespace: do that on a thread now rather than on the GUI
   * thread when the first kernel starts. */
  g_thread_unref (g_thread_new ("rk-sandbox-detect", detect_sandbox_thread, NULL));
  /* The app icon from our own prefix or, uninstalled, from the sources:
   * neither need be on XDG_DATA_DIRS. */
  gtk_icon_theme_add_search_path (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                  running_uninstalled () ? RK_SOURCE_ICONS_DIR : RK_INSTALLED_ICONS_DIR);
  gtk_window_set_default_icon_name (APP_ID);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);

  self->settings = load_settings (&error);
  if (self->settings == NULL)
    {
      /* Nothing works without the schema: say what is missing, open no window. */
      g_printerr ("reckon: %s\n", error->message);
      return;
    }

  /* The windows watch the settings themselves to check the connection again. */
  self->client = rk_model_client_new ();
  g_settings_bind (self->settings, "endpoint", self->client, "endpoint", G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "model", self->client, "model", G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "api-kind", self->client, "api", G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "allow-remote", self->client, "allow-remote", G_SETTINGS_BIND_GET);
  refresh_api_key (self);
  g_signal_connect_object (self->settings, "changed::endpoint", G_CALLBACK (refresh_api_key),
                           self, G_CONNECT_SWAPPED);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
  for (guint i = 0; i < G_N_ELEMENTS (app_accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), app_accels[i].action,
                                           app_accels[i].accels);
}

static void
rk_application_activate (GApplication *app)
{
  if (RK_APPLICATION (app)->settings == NULL)
    return;
  gtk_window_present (GTK_WINDOW (get_window (RK_APPLICATION (app), TRUE)));
}

static void
rk_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  RkWindow *window;

  if (RK_APPLICATION (app)->settings == NULL)
    return;
  window = get_window (RK_APPLICATION (app), TRUE);
  gtk_window_present (GTK_WINDOW (window));
  rk_window_add_files (window, files, (guint) n_files);
}

static void
rk_application_shutdown (GApplication *app)
{
  RkApplication *self = RK_APPLICATION (app);

  g_cancellable_cancel (self->cancellable);
  G_APPLICATION_CLASS (rk_application_parent_class)->shutdown (app);
}

static void
rk_application_dispose (GObject *object)
{
  RkApplication *self = RK_APPLICATION (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->client);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (rk_application_parent_class)->dispose (object);
}

static void
rk_application_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, RK_APPLICATION (object)->settings);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rk_application_class_init (RkApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = rk_application_dispose;
  object_class->get_property = rk_application_get_property;

  /* For widgets that read a setting without knowing RkApplication (the
   * chat's error view names the limits in force). */
  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  app_class->startup = rk_application_startup;
  app_class->activate = rk_application_activate;
  app_class->open = rk_application_open;
  app_class->shutdown = rk_application_shutdown;
}

static void
rk_application_init (RkApplication *self)
{
  self->cancellable = g_cancellable_new ();
}

RkApplication *
rk_application_new (void)
{
  return g_object_new (RK_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/reckon/Reckon",
                       NULL);
}
