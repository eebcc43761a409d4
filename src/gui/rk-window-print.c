/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-window-print.c — the main menu's "Print Report…": the conversation's
 * questions, answers, tables, charts and figures through the print dialog
 * (rk-report-print.c), which also saves them as PDF. */
#define G_LOG_DOMAIN "rk-window"
#include "config.h"

#include <glib/gi18n.h>

#include "rk-report-print.h"
#include "rk-window-private.h"

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
  RkSession *session;

  if (self->conversation == NULL)
    return;
  session = rk_conversation_get_session (self->conversation);
  rk_report_print_async (GTK_WINDOW (self), rk_conversation_get_transcript (self->conversation),
                         session != NULL ? rk_session_get_workspace (session) : NULL,
                         rk_conversation_get_title (self->conversation), NULL,
                         self->cancellable, printed_cb, g_object_ref (self));
}

void
_rk_window_class_print_init (RkWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.print", NULL, print_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_p, GDK_CONTROL_MASK, "win.print", NULL);
}
