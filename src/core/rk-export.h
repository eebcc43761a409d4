/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-export.h — saving artifacts out of a workspace: one file, or all of
 * them into a folder or a zip. Only regular files beneath the workspace are
 * read, each through one fd opened without following any symlink
 * (rk_workspace_open_file). */
#pragma once

#include <gio/gio.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_EXPORT_ERROR (rk_export_error_quark ())

typedef enum
{
  /* A file that cannot be read safely fails with RK_WORKSPACE_ERROR. */
  RK_EXPORT_ERROR_TOO_MANY,
  RK_EXPORT_ERROR_TOO_LARGE,
  RK_EXPORT_ERROR_FAILED,
} RkExportError;

typedef struct
{
  guint   max_files;        /* default 10,000 */
  guint64 max_total_bytes;  /* default 4 GiB, counted at apparent size */
  /* NULL, or the bytes earlier exports of the same batch (one
   * `reckon-cli exec -o`) copied: counted against max_total_bytes, and
   * each export adds its own, so one cap covers the whole batch. */
  guint64 *spent;
} RkExportLimits;

typedef enum
{
  RK_EXPORT_FOLDER,
  RK_EXPORT_ZIP,
} RkExportFormat;

GQuark    rk_export_error_quark   (void);

/* The defaults above. */
void      rk_export_limits_init   (RkExportLimits *limits);

/* Copies one artifact to @dest_path (the user chose it; an existing file
 * there is replaced, atomically), within @limits (NULL: defaults); only
 * max_total_bytes and spent apply. */
gboolean  rk_export_file          (RkWorkspace          *workspace,
                                   const char           *rel_path,
                                   const char           *dest_path,
                                   const RkExportLimits *limits,
                                   GCancellable         *cancellable,
                                   GError              **error);

/* Copies the artifacts @rel_paths into the folder @dest (created if
 * missing) or into a new zip file @dest, each under its sanitised basename
 * (" (2)" on collisions). A file that cannot be exported safely (a symlink,
 * a FIFO, ...) is left out and named in @skipped ("name: reason"), if given.
 * Going over @limits (NULL: defaults) fails the whole export and leaves
 * nothing behind. */
gboolean  rk_export_all           (RkWorkspace         *workspace,
                                   const char * const  *rel_paths,
                                   RkExportFormat       format,
                                   const char          *dest,
                                   const RkExportLimits *limits,
                                   GStrv               *skipped,
                                   GCancellable        *cancellable,
                                   GError             **error);

G_END_DECLS
