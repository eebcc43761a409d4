/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "rk-once-a-frame"
#include "config.h"

#include "rk-once-a-frame.h"

typedef struct
{
  guint       *tick_id;
  RkFrameFunc  func;
} Pending;

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       user_data)
{
  Pending *pending = user_data;

  *pending->tick_id = 0;
  pending->func (widget);
  return G_SOURCE_REMOVE;
}

gboolean
rk_once_a_frame (GtkWidget   *widget,
                 guint       *tick_id,
                 RkFrameFunc  func)
{
  Pending *pending;

  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  if (*tick_id == 0)
    {
      pending = g_new (Pending, 1);
      pending->tick_id = tick_id;
      pending->func = func;
      *tick_id = gtk_widget_add_tick_callback (widget, tick_cb, pending, g_free);
    }
  return TRUE;
}

void
rk_once_a_frame_cancel (GtkWidget *widget,
                        guint     *tick_id)
{
  if (*tick_id != 0)
    gtk_widget_remove_tick_callback (widget, *tick_id);
  *tick_id = 0;
}
