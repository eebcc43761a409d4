/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-window-recent.c — recent files: the files a user adds go into the
 * desktop's recent files (GtkRecentManager), and the main menu's "Add Recent
 * File" offers the ones Reckon was given, newest first. */
#define G_LOG_DOMAIN "rk-window"
#include "config.h"

#include <glib/gi18n.h>

#include "rk-window-private.h"

#define MAX_RECENT 10

static int
newest_first (gconstpointer a,
              gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_modified (*(GtkRecentInfo **) a);
  GDateTime *tb = gtk_recent_info_get_modified (*(GtkRecentInfo **) b);

  return g_date_time_compare (tb, ta);
}

/* A file name as a menu label: its underscores are not mnemonics. */
static char *
menu_label (const char *name)
{
  g_auto(GStrv) parts = g_strsplit (name, "_", -1);

  return g_strjoinv ("__", parts);
}

static void
fill_recent_menu (RkWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  g_autoptr(GPtrArray) ours = g_ptr_array_new ();
  const char *app = g_get_application_name ();

  g_menu_remove_all (self->recent_menu);
  for (GList *l = items; l != NULL; l = l->next)
    if (app != NULL && gtk_recent_info_has_application (l->data, app) && gtk_recent_info_is_local (l->data))
      g_ptr_array_add (ours, l->data);
  g_ptr_array_sort (ours, newest_first);
  for (guint i = 0; i < ours->len && i < MAX_RECENT; i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (ours, i);
      g_autofree char *label = menu_label (gtk_recent_info_get_display_name (info));
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "win.add-recent",
                                               g_variant_new_string (gtk_recent_info_get_uri (info)));
      g_menu_append_item (self->recent_menu, item);
    }
  if (ours->len == 0)
    g_menu_append (self->recent_menu, _("No Recent Files"), "win.no-recent");
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

static void
add_recent_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  rk_window_add_files (RK_WINDOW (widget), &file, 1);
}

static void
no_recent_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
}

void
_rk_window_class_recent_init (RkWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.add-recent", "s", add_recent_action);
  gtk_widget_class_install_action (widget_class, "win.no-recent", NULL, no_recent_action);
}

void
_rk_window_recent_init (RkWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.no-recent", FALSE);
  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (fill_recent_menu), self, G_CONNECT_SWAPPED);
  fill_recent_menu (self);
}

void
_rk_window_recent_note (RkWindow  *self,
                        GFile    **files,
                        guint      n_files)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();

  for (guint i = 0; i < n_files; i++)
    {
      g_autofree char *uri = g_file_get_uri (files[i]);
      g_autofree char *path = g_file_get_path (files[i]);
      g_autofree char *type = NULL;
      g_autofree char *mime = NULL;
      GtkRecentData data = { 0 };

      if (path == NULL)
        continue;
      type = g_content_type_guess (path, NULL, 0, NULL);
      mime = g_content_type_get_mime_type (type);
      data.mime_type = mime ? mime : (char *) "application/octet-stream";
      data.app_name = (char *) g_get_application_name ();
      data.app_exec = (char *) "reckon %u";
      gtk_recent_manager_add_full (manager, uri, &data);
    }
}
