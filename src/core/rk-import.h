/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-import.h — copying a dropped or attached file into a session workspace.
 * The original is only ever read (through one fd), never touched in place. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RK_IMPORT_ERROR (rk_import_error_quark ())

typedef enum
{
  RK_IMPORT_ERROR_NOT_REGULAR,   /* a folder, FIFO, device, socket or symlink */
  RK_IMPORT_ERROR_TOO_LARGE,
  RK_IMPORT_ERROR_FAILED,
} RkImportError;

/* The largest file imported, in bytes (2 GiB). */
#define RK_IMPORT_MAX_SIZE (G_GUINT64_CONSTANT (2) * 1024 * 1024 * 1024)
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

/* Copies @source (a host path; a symlink is refused) into the folder
 * @workspace under a sanitised name (" (2)" etc. on collision), through a
 * temporary name and a rename, so a half-copied file is never seen.
 * Returns the new file's name inside @workspace. */
char    *rk_import_file           (const char   *workspace,
                                   const char   *source,
                                   GCancellable *cancellable,
                                   GError      **error);

void     rk_import_file_async     (const char          *workspace,
                                   const char          *source,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
char    *rk_import_file_finish    (GAsyncResult        *result,
                                   GError             **error);

G_END_DECLS
