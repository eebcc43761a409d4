/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-result-window.h — a result view (a table, a chart) in a window of its
 * own, for working with it at full size. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Presents a window holding @view under a header bar, titled @title, over
 * @parent's window (if any); returns it. */
GtkWindow *rk_result_window_present (GtkWidget  *view,
                                     const char *title,
                                     GtkWidget  *parent);

G_END_DECLS
