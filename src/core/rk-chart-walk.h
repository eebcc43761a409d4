/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-walk.h — moving from point to point of a chart with the keyboard. */
#pragma once

#include "rk-chart.h"

G_BEGIN_DECLS

/* The point a keyboard move reaches in a drawing of @width × @height, from
 * point @index of @series (-1: before the first; the number of points:
 * after the last). @series_step (+1/-1) moves to the next/previous visible
 * series, to the same point or the nearest one before it that exists;
 * else @step (+1/-1) moves along @series, over gaps. FALSE, and *@hit
 * untouched, when there is nowhere to go. */
gboolean rk_chart_walk (RkChart    *self,
                        double      width,
                        double      height,
                        guint       series,
                        gint64      index,
                        int         step,
                        int         series_step,
                        RkChartHit *hit);

G_END_DECLS
