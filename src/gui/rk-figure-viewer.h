/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-figure-viewer.h — a matplotlib figure in its own window: zoom in and
 * out, fit to the window, save a copy. */
#pragma once

#include <adwaita.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_TYPE_FIGURE_VIEWER (rk_figure_viewer_get_type ())
G_DECLARE_FINAL_TYPE (RkFigureViewer, rk_figure_viewer, RK, FIGURE_VIEWER, AdwWindow)

/* @paintable: the figure as shown inline (rk_figure_view_get_paintable);
 * @workspace and @rel_path: where it lies, for Save (NULL: no Save). */
GtkWidget *rk_figure_viewer_new      (GtkWindow      *parent,
                                      GdkPaintable   *paintable,
                                      const char     *title,
                                      RkWorkspace    *workspace,
                                      const char     *rel_path);
/* 0 fits the figure to the window; otherwise a scale (1 = 100 %). */
void       rk_figure_viewer_set_zoom (RkFigureViewer *self,
                                      double          zoom);
double     rk_figure_viewer_get_zoom (RkFigureViewer *self);

G_END_DECLS
