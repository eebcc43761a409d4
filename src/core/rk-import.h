/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-import.h — copying a dropped or attached file into a session workspace.
 * The original is only ever read (through one fd), never touched in place. */
#pragma once

#include <gio/gio.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_IMPORT_ERROR (rk_import_error_quark ())

typedef enum
{
  RK_IMPORT_ERROR_NOT_REGULAR,   /* a folder, FIFO, device, socket or symlink */
  RK_IMPORT_ERROR_TOO_LARGE,     /* no room for a copy on the workspace's disk */
  RK_IMPORT_ERROR_FAILED,
} RkImportError;

/* The longest name given to an imported file, in bytes. */
#define RK_IMPORT_NAME_MAX 200

GQuark   rk_import_error_quark    (void);

/* A safe file name made from @name (any bytes; a path is reduced to its
 * last component): valid UTF-8, no control characters, line breaks,
 * bidirectional overrides or slashes, no leading dots or spaces, never "."
 * or "..", at most @max_bytes bytes (cut on a character boundary, keeping a
 * short extension), non-ASCII kept. Never returns an empty string. */
char    *rk_import_sanitize_name  (const char *name,
                                   gsize       max_bytes);

/* @name with " (@n)" before its extension, still at most @max_bytes. */
char    *rk_import_numbered_name  (const char *name,
                                   guint       n,
                                   gsize       max_bytes);

/* The folder at the top of a workspace where a file is copied before it
 * takes its place: a capped workspace's saves never copy, prune or count
 * it (reckon-sandbox's WORKSPACE_INCOMING; docs/sandbox.md). */
#define RK_IMPORT_INCOMING ".reckon-incoming"

/* Copies @source (a host path; a symlink is refused) into the folder
 * of @workspace under a sanitised name (" (2)" etc. on collision), through a
 * temporary name and a rename, so a half-copied file is never seen. On the
 * workspace's own file system the file gets a second name (a hard link)
 * instead, of any size; a copy is made read-only (0444). Either way it is
 * an input of the sandbox (docs/files-and-sessions.md).
 * Returns the new file's name inside @workspace. */
char    *rk_import_file           (RkWorkspace  *workspace,
                                   const char   *source,
                                   GCancellable *cancellable,
                                   GError      **error);

/* With @staged, the file is left in @workspace's RK_IMPORT_INCOMING folder
 * under the name it will have (free both there and in @workspace), for a
 * running kernel with a capped workspace to move in (rk_kernel_take_incoming_async)
 * or for rk_import_place_staged(). */
void     rk_import_file_async     (RkWorkspace         *workspace,
                                   const char          *source,
                                   gboolean             staged,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
char    *rk_import_file_finish    (GAsyncResult        *result,
                                   GError             **error);

/* Moves every file staged in @workspace's RK_IMPORT_INCOMING folder to
 * @workspace itself, never replacing a file, and those staged under its
 * .reckon/ (the profiler's readings) to .reckon/, replacing; for when no
 * kernel with a capped workspace runs. FALSE with @error at the first that
 * cannot move. */
gboolean rk_import_place_staged   (RkWorkspace  *workspace,
                                   GError      **error);
/* Removes the file @name staged in @workspace's RK_IMPORT_INCOMING folder
 * (one that could not be moved in). */
void     rk_import_drop_staged    (RkWorkspace  *workspace,
                                   const char   *name);

G_END_DECLS
