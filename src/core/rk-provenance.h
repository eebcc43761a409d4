/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-provenance.h — where each artifact of a conversation came from: the
 * cell and code that made it, the input files it may have read (with their
 * SHA-256), and the time. Rules in docs/provenance.md. */
#pragma once

#include <gio/gio.h>

#include "rk-transcript.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

typedef struct
{
  char *name;      /* the file's name inside the workspace */
  char *sha256;    /* lowercase hex, or NULL when it could not be read */
} RkProvenanceInput;

typedef struct
{
  RkEntryKind  kind;           /* RK_ENTRY_TABLE, _FIGURE, _CHART or _FILE */
  guint        entry_id;       /* the artifact's transcript entry */
  guint        code_entry_id;  /* the code entry of its cell, 0 if none */
  char        *cell_id;
  guint        cell_number;    /* 1-based, among the cells that ran; 0 if unknown */
  char        *path;           /* relative to the workspace */
  char        *title;          /* or NULL */
  char        *code;           /* the code that ran (the edit, if edited), or NULL */
  gint64       time;           /* µs since the Unix epoch */
  GPtrArray   *inputs;         /* RkProvenanceInput */
} RkProvenance;

void        rk_provenance_free          (RkProvenance *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkProvenance, rk_provenance_free)

/* The provenance of every artifact in @transcript, newest first, without
 * hashes (no I/O: call it on the thread that owns the transcript).
 * @input_names: the files added to the session (workspace names); NULL
 * takes the attachments of the transcript's user entries.
 * Returns: (element-type RkProvenance) */
GPtrArray  *rk_provenance_collect       (RkTranscript        *transcript,
                                         const char * const  *input_names);

/* Fills in the SHA-256 of every input, read beneath @workspace (regular
 * files only, no symlink followed); each file is read once. Unreadable files
 * keep a NULL hash. Blocking: call it from a worker thread. */
gboolean    rk_provenance_hash_inputs   (GPtrArray           *records,
                                         RkWorkspace         *workspace,
                                         GCancellable        *cancellable,
                                         GError             **error);

/* Collects on the calling thread, hashes in a worker; @workspace NULL: no
 * hashes (an expired session). */
void        rk_provenance_collect_async (RkTranscript        *transcript,
                                         const char * const  *input_names,
                                         RkWorkspace         *workspace,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
GPtrArray  *rk_provenance_collect_finish (GAsyncResult       *result,
                                          GError            **error);

/* SHA-256 (lowercase hex) of @rel_path beneath @workspace. */
char       *rk_provenance_file_sha256   (RkWorkspace         *workspace,
                                         const char          *rel_path,
                                         GCancellable        *cancellable,
                                         GError             **error);

/* The provenance file of "Save all" (docs/provenance.md): UTF-8 JSON,
 * {"version": 1, "generator": ..., "artifacts": [...]}. */
char       *rk_provenance_to_json       (GPtrArray           *records);

G_END_DECLS
