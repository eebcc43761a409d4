/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-workspace.h — a session's workspace folder, held open by one handle:
 * the one place that opens it, and the one resolver of names beneath it
 * (never through a symlink). Removal never follows a symlink out of it. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RK_WORKSPACE_ERROR (rk_workspace_error_quark ())

typedef enum
{
  RK_WORKSPACE_ERROR_NOT_ALLOWED,   /* "..", an absolute name, a symlink on the way */
  RK_WORKSPACE_ERROR_NOT_REGULAR,   /* a folder, FIFO, device or socket */
  RK_WORKSPACE_ERROR_TOO_LARGE,
  RK_WORKSPACE_ERROR_GONE,          /* the folder was deleted (an expired session) */
} RkWorkspaceError;

GQuark        rk_workspace_error_quark   (void);

#define RK_TYPE_WORKSPACE (rk_workspace_get_type ())
G_DECLARE_FINAL_TYPE (RkWorkspace, rk_workspace, RK, WORKSPACE, GObject)

/* The handle of the folder @path, opened (O_DIRECTORY, not through a
 * symlink) when it is there; else it is gone until rk_workspace_make().
 * Never fails: a restored session's folder may have expired. */
RkWorkspace  *rk_workspace_new           (const char   *path);

/* The handle of the folder @path, which must be there. */
RkWorkspace  *rk_workspace_open          (const char   *path,
                                          GError      **error);

/* Makes a fresh folder (mode 0700) under @parent (created with its missing
 * parents, mode 0700) when given, else in the temporary folder, and
 * returns its handle. */
RkWorkspace  *rk_workspace_new_temporary (const char   *parent,
                                          GError      **error);

/* The folder's path, fixed for the handle's life: for what needs a path
 * (the sandbox's --workspace, messages), never to open a file in it. */
const char   *rk_workspace_get_path      (RkWorkspace  *self);

/* Whether the folder is there (open). */
gboolean      rk_workspace_exists        (RkWorkspace  *self);

/* Makes the folder again at the same path (mode 0700; it must not be
 * there) and opens it: a session restarted after expiry. */
gboolean      rk_workspace_make          (RkWorkspace  *self,
                                          GError      **error);

/* Closes the folder and removes it with everything beneath it (symlinks
 * are removed, never followed). The handle stays, gone. */
gboolean      rk_workspace_delete        (RkWorkspace  *self,
                                          GError      **error);

/* Removes the folder @path and everything beneath it, as above, with no
 * handle (a folder left by a crash, a deleted conversation's). A path
 * that is itself a symlink is only unlinked. */
gboolean      rk_workspace_delete_folder (const char   *path,
                                          GError      **error);

/* A new descriptor of the folder (O_RDONLY | O_DIRECTORY, the caller closes
 * it), for code that lists or writes it by fd; -1 (errno ENOENT) when it
 * is gone. */
int           rk_workspace_dup_fd        (RkWorkspace  *self,
                                          GError      **error);

/* Opens @rel_path beneath the folder for reading: openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, or, where
 * openat2 is missing, openat with O_NOFOLLOW at every step. Never blocks
 * on a FIFO. Fails unless the result is a regular file. Returns the fd
 * (the caller closes it) or -1. */
int           rk_workspace_open_file     (RkWorkspace  *self,
                                          const char   *rel_path,
                                          GError      **error);

/* The whole of a regular file beneath the folder (opened as above), if it
 * is at most @max bytes; else NULL. */
GBytes       *rk_workspace_read_file     (RkWorkspace  *self,
                                          const char   *rel_path,
                                          gsize         max,
                                          GError      **error);

/* The same in a worker thread (a figure shown by the window). */
void          rk_workspace_read_file_async  (RkWorkspace         *self,
                                             const char          *rel_path,
                                             gsize                max,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
GBytes       *rk_workspace_read_file_finish (RkWorkspace         *self,
                                             GAsyncResult        *result,
                                             GError             **error);

/* The same for a folder beneath it (O_DIRECTORY). Returns the fd or -1. */
int           rk_workspace_open_folder   (RkWorkspace  *self,
                                          const char   *rel_path,
                                          GError      **error);

/* The same three beneath any folder open at @dirfd (a folder of the
 * workspace, a table's folder): the one resolver. */
int           rk_workspace_open_file_at   (int          dirfd,
                                           const char  *rel_path,
                                           GError     **error);
GBytes       *rk_workspace_read_file_at   (int          dirfd,
                                           const char  *rel_path,
                                           gsize        max,
                                           GError     **error);
int           rk_workspace_open_folder_at (int          dirfd,
                                           const char  *rel_path,
                                           GError     **error);

G_END_DECLS
