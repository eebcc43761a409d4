/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-workspace-file.h — reading an artifact beneath the session's workspace
 * off the GUI thread, through rk-export's fd-based opening (no path is
 * resolved again, no symlink followed). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

void    rk_workspace_file_read_async  (const char          *workspace,
                                       const char          *rel_path,
                                       gsize                max_bytes,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
GBytes *rk_workspace_file_read_finish (GAsyncResult        *result,
                                       GError             **error);
/* The same, blocking. */
GBytes *rk_workspace_file_read        (const char          *workspace,
                                       const char          *rel_path,
                                       gsize                max_bytes,
                                       GCancellable        *cancellable,
                                       GError             **error);

G_END_DECLS
