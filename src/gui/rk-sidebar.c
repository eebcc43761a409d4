/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-sidebar.c — saved conversations (RkConversationStore, newest first as
 * the store orders them, expired ones marked), the open conversation's files
 * with what their profile says, and the artifact shelf's slot. */
#define G_LOG_DOMAIN "rk-sidebar"
#include "config.h"

#include <glib/gi18n.h>

#include "rk-a11y.h"
#include "rk-artifact-shelf.h"
#include "rk-file-summary.h"
#include "rk-sidebar.h"
#include "rk-text.h"

struct _RkSidebar
{
  GtkWidget            parent_instance;

  GtkListBox          *conversations_list;
  GtkListBox          *files_list;
  RkArtifactShelf     *artifact_shelf;

  RkConversationStore *store;
  RkConversation      *conversation;
};

G_DEFINE_FINAL_TYPE (RkSidebar, rk_sidebar, GTK_TYPE_WIDGET)

static char *
format_when (gint64 usec)
{
  g_autoptr(GDateTime) when = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  if (usec <= 0)
    return g_strdup ("");
  when = g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC);
  if (when == NULL)
    return g_strdup ("");
  if (g_date_time_get_year (when) == g_date_time_get_year (now) &&
      g_date_time_get_day_of_year (when) == g_date_time_get_day_of_year (now))
    /* Translators: time of a conversation saved today, see g_date_time_format(). */
    return g_date_time_format (when, _("%H:%M"));
  /* Translators: date of an older conversation, see g_date_time_format(). */
  return g_date_time_format (when, _("%e %b %Y"));
}

/* Labels of a conversation's row, again whenever its info changes. */
static void
fill_conversation_row (GtkWidget          *row,
                       GParamSpec         *pspec,
                       RkConversationInfo *info)
{
  GtkLabel *title_label = g_object_get_data (G_OBJECT (row), "title");
  GtkLabel *subtitle_label = g_object_get_data (G_OBJECT (row), "subtitle");
  const char *raw = rk_conversation_info_get_title (info);
  g_autofree char *title = NULL;
  g_autofree char *when = format_when (rk_conversation_info_get_updated (info));
  g_autofree char *subtitle = NULL;
  gboolean expired = rk_conversation_info_get_expired (info);

  if (raw != NULL && *raw != '\0')
    title = rk_text_sanitize_for_terminal (raw, RK_TEXT_SANITIZE_SINGLE_LINE);
  else
    title = g_strdup (_("New Conversation"));
  if (expired)
    /* Translators: "%s" is when it was last used; an expired session's files are gone. */
    subtitle = *when ? g_strdup_printf (_("%s · Session expired"), when) : g_strdup (_("Session expired"));
  else
    subtitle = g_strdup (when);

  gtk_label_set_label (title_label, title);
  gtk_label_set_label (subtitle_label, subtitle);
  gtk_widget_set_visible (GTK_WIDGET (subtitle_label), *subtitle != '\0');
  gtk_widget_set_tooltip_text (row, title);
  rk_widget_set_css_class (row, "expired", expired);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, subtitle,
                                  -1);
}

/* The row and its button activate the window's actions their template
 * names, for @target: the conversation's id, the file's name. */
static void
set_row_target (GtkWidget  *row,
                const char *target)
{
  gtk_actionable_set_action_target (GTK_ACTIONABLE (row), "s", target);
  gtk_actionable_set_action_target (g_object_get_data (G_OBJECT (row), "button"), "s", target);
}

/* A row of either list for @item, from @resource: the parts the fill
 * functions change are kept on the row. */
static GtkWidget *
new_row (gpointer    item,
         const char *resource)
{
  static const char * const parts[] = { "icon", "title", "subtitle", "button" };
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource (resource);
  GObject *row = gtk_builder_get_object (builder, "row");

  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    g_object_set_data (row, parts[i], gtk_builder_get_object (builder, parts[i]));
  g_object_set_data_full (row, "rk-item", g_object_ref (item), g_object_unref);
  return g_object_ref (GTK_WIDGET (row));
}

static GtkWidget *
create_conversation_row (gpointer item,
                         gpointer user_data)
{
  GtkWidget *row = new_row (item, "/io/github/reckon/Reckon/rk-sidebar-conversation-row.ui");

  set_row_target (row, rk_conversation_info_get_id (item));
  fill_conversation_row (row, NULL, item);
  g_signal_connect_object (item, "notify", G_CALLBACK (fill_conversation_row), row, G_CONNECT_SWAPPED);
  return row;
}

static void
select_current (RkSidebar *self)
{
  const char *id = self->conversation != NULL ? rk_conversation_get_id (self->conversation) : NULL;
  GtkListBoxRow *row;

  for (int i = 0; (row = gtk_list_box_get_row_at_index (self->conversations_list, i)) != NULL; i++)
    if (g_strcmp0 (rk_conversation_info_get_id (g_object_get_data (G_OBJECT (row), "rk-item")), id) == 0)
      {
        gtk_list_box_select_row (self->conversations_list, row);
        return;
      }
  gtk_list_box_unselect_all (self->conversations_list);
}

static void
store_items_changed_cb (RkSidebar *self)
{
  select_current (self);
}

/* -- files -- */

/* Labels of a file's row, again whenever its name or profile changes. */
static void
fill_file_row (GtkWidget          *row,
               GParamSpec         *pspec,
               RkConversationFile *file)
{
  RkFileProfile *profile = rk_conversation_file_get_profile (file);
  g_autofree char *subtitle = profile != NULL ? rk_file_summary_short (profile) : g_strdup (_("Reading…"));
  g_autofree char *title = rk_text_sanitize_for_terminal (rk_conversation_file_get_name (file),
                                                          RK_TEXT_SANITIZE_SINGLE_LINE);
  /* TRANSLATORS: the button beside a file in the sidebar; %s is its name */
  g_autofree char *remove_name = g_strdup_printf (_("Remove %s from the conversation"), title);

  /* Its name changes once if its predicted name was taken. */
  set_row_target (row, rk_conversation_file_get_name (file));
  gtk_image_set_from_icon_name (g_object_get_data (G_OBJECT (row), "icon"), rk_file_icon_name (profile));
  gtk_label_set_label (g_object_get_data (G_OBJECT (row), "title"), title);
  gtk_label_set_label (g_object_get_data (G_OBJECT (row), "subtitle"), subtitle);
  gtk_accessible_update_property (GTK_ACCESSIBLE (g_object_get_data (G_OBJECT (row), "button")),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, remove_name, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, subtitle,
                                  -1);
}

static GtkWidget *
create_file_row (gpointer item,
                 gpointer user_data)
{
  GtkWidget *row = new_row (item, "/io/github/reckon/Reckon/rk-sidebar-file-row.ui");

  g_object_bind_property (item, "original", row, "tooltip-text", G_BINDING_SYNC_CREATE);
  fill_file_row (row, NULL, item);
  g_signal_connect_object (item, "notify::name", G_CALLBACK (fill_file_row), row, G_CONNECT_SWAPPED);
  g_signal_connect_object (item, "notify::profile", G_CALLBACK (fill_file_row), row, G_CONNECT_SWAPPED);
  return row;
}

/* The results helper's shelf: what the session's code made. */
static void
artifact_activated_cb (RkSidebar *self,
                       guint      entry_id)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-entry", "u", entry_id);
}

/* -- GObject -- */

static void
rk_sidebar_dispose (GObject *object)
{
  RkSidebar *self = RK_SIDEBAR (object);

  gtk_widget_dispose_template (GTK_WIDGET (object), RK_TYPE_SIDEBAR);
  g_clear_object (&self->conversation);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (rk_sidebar_parent_class)->dispose (object);
}

static void
rk_sidebar_class_init (RkSidebarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rk_sidebar_dispose;

  g_type_ensure (RK_TYPE_ARTIFACT_SHELF);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/reckon/Reckon/rk-sidebar.ui");
  /* Named, so that GTK 4.8's gtk_widget_dispose_template() unparents it. */
  gtk_widget_class_bind_template_child_full (widget_class, "scroller", FALSE, 0);
  gtk_widget_class_bind_template_child (widget_class, RkSidebar, conversations_list);
  gtk_widget_class_bind_template_child (widget_class, RkSidebar, files_list);
  gtk_widget_class_bind_template_child (widget_class, RkSidebar, artifact_shelf);
  gtk_widget_class_bind_template_callback (widget_class, artifact_activated_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sidebar");
}

static void
rk_sidebar_init (RkSidebar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

void
rk_sidebar_set_store (RkSidebar           *self,
                      RkConversationStore *store)
{
  g_return_if_fail (RK_IS_SIDEBAR (self));

  if (self->store != NULL)
    g_signal_handlers_disconnect_by_func (self->store, store_items_changed_cb, self);
  if (!g_set_object (&self->store, store))
    return;
  gtk_list_box_bind_model (self->conversations_list, G_LIST_MODEL (store),
                           store != NULL ? create_conversation_row : NULL, self, NULL);
  if (store != NULL)
    g_signal_connect_object (store, "items-changed", G_CALLBACK (store_items_changed_cb),
                             self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  select_current (self);
}

void
rk_sidebar_set_conversation (RkSidebar      *self,
                             RkConversation *conversation)
{
  g_return_if_fail (RK_IS_SIDEBAR (self));

  g_set_object (&self->conversation, conversation);
  gtk_list_box_bind_model (self->files_list, conversation != NULL ? rk_conversation_get_files (conversation) : NULL,
                           conversation != NULL ? create_file_row : NULL, self, NULL);
  rk_artifact_shelf_set_session (self->artifact_shelf,
                                 conversation != NULL ? rk_conversation_get_transcript (conversation) : NULL,
                                 conversation != NULL ? rk_conversation_get_session (conversation) : NULL);
  select_current (self);
}
