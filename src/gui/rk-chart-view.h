/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-view.h — an RkChart drawn natively, following light and dark, with
 * hover values that screen readers can read too. */
#pragma once

#include <gtk/gtk.h>

#include "rk-chart.h"

G_BEGIN_DECLS

#define RK_TYPE_CHART_VIEW (rk_chart_view_get_type ())
G_DECLARE_FINAL_TYPE (RkChartView, rk_chart_view, RK, CHART_VIEW, GtkWidget)

GtkWidget  *rk_chart_view_new              (RkChart     *chart);
/* Compact: no toolbar, a fixed height for the chat (the default is full). */
gboolean    rk_chart_view_get_compact      (RkChartView *self);
void        rk_chart_view_set_compact      (RkChartView *self,
                                            gboolean     compact);
/* The values under the pointer as last shown ("" when none): the same text
 * as the tooltip and the readout label under the chart. */
const char *rk_chart_view_get_hover_text   (RkChartView *self);
/* Shows the values at (@x, @y) in drawing-area coordinates, as a pointer
 * motion there would. Returns TRUE when a point was found. */
gboolean    rk_chart_view_hover            (RkChartView *self,
                                            double       x,
                                            double       y);

/* Saves the chart (1200 × 800, the current light/dark style) in a worker
 * thread; the result shows in the view's status line. The chart.save action
 * ("png", "svg", "pdf") asks for the file first. */
void        rk_chart_view_save             (RkChartView  *self,
                                            const char   *path,
                                            RkChartFormat format);

G_END_DECLS
