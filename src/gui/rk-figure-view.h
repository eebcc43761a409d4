/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-figure-view.h — a matplotlib figure (PNG) from the workspace, scaled
 * to the width of the chat. */
#pragma once

#include <gtk/gtk.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_TYPE_FIGURE_VIEW (rk_figure_view_get_type ())
G_DECLARE_FINAL_TYPE (RkFigureView, rk_figure_view, RK, FIGURE_VIEW, GtkWidget)

/* Figures larger than this are not shown. */
#define RK_FIGURE_VIEW_MAX_BYTES (32u << 20)

GtkWidget  *rk_figure_view_new       (void);
/* Reads @rel_path beneath @workspace in a worker thread, then shows it;
 * "loaded" is emitted either way (with an error sentence shown on failure). */
void        rk_figure_view_load      (RkFigureView *self,
                                      RkWorkspace  *workspace,
                                      const char   *rel_path,
                                      const char   *title);
GdkPaintable *rk_figure_view_get_paintable (RkFigureView *self);
/* The sentence shown when the figure could not be shown, or NULL. */
const char *rk_figure_view_get_error (RkFigureView *self);

G_END_DECLS
