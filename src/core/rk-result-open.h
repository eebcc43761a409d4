/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-result-open.h — a table or a chart a cell made, opened from the
 * workspace in a worker thread. */
#pragma once

#include "rk-transcript-entry.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

/* Opens @rel_path beneath @workspace as an RkTable (@kind RK_ENTRY_TABLE,
 * its first @prefetch_rows rows read there too) or an RkChart (any other
 * @kind), in a worker thread. */
void     rk_result_open_async  (RkWorkspace          *workspace,
                                RkEntryKind           kind,
                                const char           *rel_path,
                                guint                 prefetch_rows,
                                GCancellable         *cancellable,
                                GAsyncReadyCallback   callback,
                                gpointer              user_data);
/* The RkTable or RkChart (transfer full), or NULL with @error set. */
GObject *rk_result_open_finish (GAsyncResult         *result,
                                GError              **error);

G_END_DECLS
