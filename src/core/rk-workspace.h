/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-workspace.h — making and removing session workspace folders.
 * Removal never follows a symlink out of the folder. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Makes a fresh folder (mode 0700) for a workspace: under @parent (created
 * with its missing parents, mode 0700) when given, else in the temporary
 * folder. Returns its path. */
char     *rk_workspace_create   (const char  *parent,
                                 GError     **error);

/* Removes @path and everything beneath it. Symlinks are removed, never
 * followed; a path that is itself a symlink is only unlinked. */
gboolean  rk_workspace_delete   (const char  *path,
                                 GError     **error);

G_END_DECLS
