/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-window-dnd.c — files dropped anywhere on the window join the current
 * conversation; while dragging, an overlay says so. */
#define G_LOG_DOMAIN "rk-window-dnd"
#include "config.h"

#include "rk-a11y.h"
#include "rk-window-private.h"

static GdkDragAction
drop_enter_cb (RkWindow      *self,
               double         x,
               double         y,
               GtkDropTarget *target)
{
  rk_revealer_set_shown (self->drop_revealer, TRUE);
  return GDK_ACTION_COPY;
}

static void
drop_leave_cb (RkWindow      *self,
               GtkDropTarget *target)
{
  rk_revealer_set_shown (self->drop_revealer, FALSE);
}

static gboolean
drop_cb (RkWindow      *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  rk_revealer_set_shown (self->drop_revealer, FALSE);
  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;

  for (GSList *l = g_value_get_boxed (value); l != NULL; l = l->next)
    g_ptr_array_add (files, l->data);
  if (files->len == 0)
    return FALSE;

  rk_window_add_files (self, (GFile **) files->pdata, files->len);
  return TRUE;
}

void
_rk_window_dnd_init (RkWindow *self)
{
  GtkDropTarget *target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect_object (target, "enter", G_CALLBACK (drop_enter_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (target, "leave", G_CALLBACK (drop_leave_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (target, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));
}
