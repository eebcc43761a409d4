/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-chart-export-async.h — rk_chart_export() in a worker thread. */
#pragma once

#include "rk-chart.h"

G_BEGIN_DECLS

/* Exports @self as rk_chart_export() does, in a worker thread: @self is
 * drawn there, so it must not change (kind, visible series) until
 * @callback runs. */
void     rk_chart_export_async  (RkChart              *self,
                                 const char           *path,
                                 int                   format,
                                 int                   width,
                                 int                   height,
                                 RkChartStyle          style,
                                 GCancellable         *cancellable,
                                 GAsyncReadyCallback   callback,
                                 gpointer              user_data);
gboolean rk_chart_export_finish (RkChart              *self,
                                 GAsyncResult         *result,
                                 GError              **error);

G_END_DECLS
