/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-save.h — how the window saves anything: the file chooser asks where
 * (the portal inside a Flatpak), the writing runs off the GUI thread, and
 * one sentence says how it went. */
#pragma once

#include <gtk/gtk.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

/* Writes to @dest, a local path; runs in a worker thread. */
typedef gboolean (*RkSaveFunc) (const char    *dest,
                                gpointer       data,
                                GCancellable  *cancellable,
                                GError       **error);

/* Asks for a file name (@name suggested) or, with @name NULL, a folder,
 * in a chooser titled @title over @widget's window (@filter may be NULL);
 * then runs @func (may be NULL: the caller writes) with @data, freed with
 * @destroy once done. With @title NULL nothing is asked: @func writes to
 * @name, a local path. */
void     rk_save_async  (GtkWidget           *widget,
                         const char          *title,
                         const char          *name,
                         GtkFileFilter       *filter,
                         RkSaveFunc           func,
                         gpointer             data,
                         GDestroyNotify       destroy,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data);
/* The path chosen (and written, when there was a @func), or NULL: the
 * chooser was dismissed (G_IO_ERROR_CANCELLED) or the save failed.
 * @sentence, if not NULL, gets the one sentence to show: "Saved “x”"
 * after a @func, "“x” could not be saved: why" on a failure, NULL when the
 * user cancelled or the caller still writes. */
char    *rk_save_finish (GAsyncResult        *result,
                         char               **sentence,
                         GError             **error);

/* The name to suggest for saving @title (NULL or empty: @fallback) as a
 * file ending in .@ext: one line, no folder separators. */
char    *rk_save_file_name (const char          *title,
                            const char          *fallback,
                            const char          *ext);

/* What rk_save_workspace_file() copies: @rel_path beneath @workspace. */
typedef struct
{
  RkWorkspace *workspace;
  char        *rel_path;
} RkSaveSource;

RkSaveSource *rk_save_source_new  (RkWorkspace  *workspace,
                                   const char   *rel_path);
void          rk_save_source_free (RkSaveSource *source);

/* An RkSaveFunc copying a file of a workspace: @data is an RkSaveSource
 * (rk_export_file: read beneath the workspace, never through a link). */
gboolean rk_save_workspace_file (const char    *dest,
                                 gpointer       data,
                                 GCancellable  *cancellable,
                                 GError       **error);

/* Shows @sentence in the toast overlay of @widget's window (NULL: nothing). */
void     rk_save_toast  (GtkWidget           *widget,
                         const char          *sentence);
/* A callback for rk_save_async() that shows its sentence that way. */
void     rk_save_toast_cb (GObject             *source,
                           GAsyncResult        *result,
                           gpointer             user_data);

G_END_DECLS
