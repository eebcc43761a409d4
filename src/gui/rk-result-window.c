/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-result-window.c — a result view in a window of its own. */
#define G_LOG_DOMAIN "rk-result-window"
#include "config.h"

#include "rk-result-window.h"

#include <adwaita.h>

GtkWindow *
rk_result_window_present (GtkWidget  *view,
                          const char *title,
                          GtkWidget  *parent)
{
  GtkRoot *root = parent != NULL ? gtk_widget_get_root (parent) : NULL;
  GtkWidget *window = adw_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  g_return_val_if_fail (GTK_IS_WIDGET (view), NULL);

  gtk_widget_set_margin_start (view, 12);
  gtk_widget_set_margin_end (view, 12);
  gtk_widget_set_margin_top (view, 6);
  gtk_widget_set_margin_bottom (view, 12);
  gtk_widget_set_vexpand (view, TRUE);
  gtk_box_append (GTK_BOX (box), adw_header_bar_new ());
  gtk_box_append (GTK_BOX (box), view);
  adw_window_set_content (ADW_WINDOW (window), box);
  gtk_window_set_title (GTK_WINDOW (window), title);
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 640);
  if (GTK_IS_WINDOW (root))
    gtk_window_set_transient_for (GTK_WINDOW (window), GTK_WINDOW (root));
  gtk_window_present (GTK_WINDOW (window));
  return GTK_WINDOW (window);
}
